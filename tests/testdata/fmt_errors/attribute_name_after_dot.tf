a = b.
c = d.*.*
