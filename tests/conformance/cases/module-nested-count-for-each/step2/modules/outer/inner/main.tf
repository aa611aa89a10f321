variable "prefix" { type = string }
variable "n" { type = number }
resource "terraform_data" "leaf" {
  count = var.n
  input = "${var.prefix}-leaf${count.index}"
}
output "leaves" { value = terraform_data.leaf[*].output }
output "where" { value = path.module }
