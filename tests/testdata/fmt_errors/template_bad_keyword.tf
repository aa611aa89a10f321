a = "%{iff x}yes%{endif}"
