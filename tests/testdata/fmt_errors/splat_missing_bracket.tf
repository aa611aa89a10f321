a = b[*.c
