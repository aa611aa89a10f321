env  = "staging"
size = 5
