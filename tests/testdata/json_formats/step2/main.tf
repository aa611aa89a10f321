variable "secret" {
  default   = "pw"
  sensitive = true
}
resource "terraform_data" "plain" {
  input = ["a", "c"]
}
resource "terraform_data" "secret" {
  input = { user = "u", pass = var.secret }
}
resource "terraform_data" "each" {
  for_each = toset(["x"])
  input    = each.key
  triggers_replace = "2"
}
module "m" {
  source = "./mod"
  n      = 1
}
output "plain" { value = terraform_data.plain.output }
output "secret" {
  value     = terraform_data.secret.output
  sensitive = true
}
output "mod" { value = module.m.ids }
