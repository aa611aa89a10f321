variable "v" { type = string }
resource "terraform_data" "r" { input = var.v }
resource "terraform_data" "s" {
  count = 2
  input = "${var.v}-${count.index}"
}
output "out" { value = terraform_data.r.output }
