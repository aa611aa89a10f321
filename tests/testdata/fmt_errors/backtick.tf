a = `x`
