variable "secret" {
  type      = string
  sensitive = true
}
resource "terraform_data" "inner" { input = { s = var.secret, n = 1 } }
output "echo" {
  value     = terraform_data.inner.output
  sensitive = true
}
