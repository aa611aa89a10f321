strict = null
loose  = null
