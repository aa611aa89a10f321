a = [for x y]
