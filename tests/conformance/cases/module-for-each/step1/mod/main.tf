variable "name" { type = string }
variable "size" { type = number }
resource "terraform_data" "r" {
  count = var.size
  input = "${var.name}/${count.index}"
}
output "ids" { value = terraform_data.r[*].output }
