resource "terraform_data" "first" {
  input            = "first"
  triggers_replace = ["v2"]
}
module "m" {
  source     = "./m"
  v          = "mod2"
  depends_on = [terraform_data.first]
}
resource "terraform_data" "after_module" {
  input      = "after"
  depends_on = [module.m]
}
