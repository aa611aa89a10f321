env  = "staging"
size = 3
