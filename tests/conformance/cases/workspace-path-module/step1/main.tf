locals {
  ws = terraform.workspace
}
resource "terraform_data" "w" {
  input = {
    ws          = local.ws
    is_default  = terraform.workspace == "default"
    name        = "app-${terraform.workspace}"
    path_module = path.module
    path_root   = path.root
  }
}
module "a" {
  source = "./modules/a"
}
module "a_again" {
  source = "./modules/a"
  count  = 1
}
output "w" { value = terraform_data.w.output }
output "a" { value = module.a.paths }
output "again" { value = module.a_again[0].paths }
