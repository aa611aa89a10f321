name = "from-tfvars"
count_n = 9
enabled = false
labels = { a = "b" }
ports = [1]
