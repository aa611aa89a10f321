a = "\q and \u12 and \U0000004"
