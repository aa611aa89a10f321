module "m" {
  source = "./m"
  count  = 2
  v      = "m${count.index}"
}
resource "terraform_data" "after" {
  input = module.m[0].out
}
