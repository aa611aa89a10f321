variable "secret" {
  default   = "pw"
  sensitive = true
}
resource "terraform_data" "plain" {
  input = ["a", "b"]
}
resource "terraform_data" "secret" {
  input = { user = "u", pass = var.secret }
}
resource "terraform_data" "each" {
  for_each = toset(["x", "y"])
  input    = each.key
  triggers_replace = "1"
}
module "m" {
  source = "./mod"
  n      = 2
}
output "plain" { value = terraform_data.plain.output }
output "secret" {
  value     = terraform_data.secret.output
  sensitive = true
}
output "mod" { value = module.m.ids }
