resource "terraform_data" "a" { input = "chain" }
module "outer" {
  source = "./outer"
}
