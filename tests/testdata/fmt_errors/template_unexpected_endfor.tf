a = "%{if x}yes%{endfor}"
