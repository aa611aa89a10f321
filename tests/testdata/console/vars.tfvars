name = "from-file"
required_num = 42
