module "one" {
  source = "./m"
  tag    = "one"
}
module "two" {
  source = "./m"
  tag    = "two"
}
