variable "n" { type = number }
resource "terraform_data" "c" {
  count = var.n
  input = { idx = count.index, tag = "m" }
}
output "ids" { value = terraform_data.c[*].id }
