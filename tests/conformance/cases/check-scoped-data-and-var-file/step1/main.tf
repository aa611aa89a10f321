terraform {
  required_version = ">= 1.5.0"
}
variable "env" { type = string }
variable "size" { type = number }
resource "terraform_data" "app" { input = "${var.env}-${var.size}" }
output "app" {
  value      = terraform_data.app.output
  depends_on = [terraform_data.app]
}
