variable "password" {
  type      = string
  default   = "hunter2"
  sensitive = true
}
resource "terraform_data" "s" {
  input = {
    user = "admin"
    pass = var.password
  }
}
resource "terraform_data" "n" {
  input = nonsensitive(sha256(var.password))
}
output "secret" {
  value     = terraform_data.s.output
  sensitive = true
}
output "hash" {
  value = terraform_data.n.output
}
