module "old" {
  source = "./m"
  v      = "x"
}
module "counted" {
  source = "./m"
  count  = 2
  v      = "c${count.index}"
}
