a = [for k, v in y: k => v...]
