a = provider::(1)
