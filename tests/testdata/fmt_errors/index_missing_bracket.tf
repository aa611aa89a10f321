a = b[1
