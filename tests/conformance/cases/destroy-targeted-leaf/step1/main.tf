resource "terraform_data" "base" { input = "base" }
resource "terraform_data" "leaf" {
  count = 3
  input = "${terraform_data.base.output}-${count.index}"
}
module "m" {
  source = "./m"
  v      = "m"
}
