a = "tfvars-a"
b = "tfvars-b"
c = "tfvars-c"
