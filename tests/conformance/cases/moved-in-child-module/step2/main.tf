module "m" { source = "./m" }
