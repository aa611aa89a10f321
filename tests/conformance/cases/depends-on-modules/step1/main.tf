resource "terraform_data" "first" { input = "first" }
module "m" {
  source     = "./m"
  v          = "mod"
  depends_on = [terraform_data.first]
}
resource "terraform_data" "after_module" {
  input      = "after"
  depends_on = [module.m]
}
