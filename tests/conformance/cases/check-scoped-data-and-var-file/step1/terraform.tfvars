env  = "ignored"
size = 1
