b = "auto-hcl-b"
c = "auto-hcl-c"
