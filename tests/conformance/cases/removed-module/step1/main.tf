module "m" {
  source = "./m"
  v      = "forget-me"
}
module "d" {
  source = "./m"
  v      = "destroy-me"
}
resource "terraform_data" "stay" { input = "stay" }
