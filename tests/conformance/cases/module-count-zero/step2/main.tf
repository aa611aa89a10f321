variable "on" { default = false }
module "opt" {
  source = "./m"
  count  = var.on ? 1 : 0
  v      = "opt"
}
resource "terraform_data" "uses" {
  input = var.on ? module.opt[0].out : "none"
}
