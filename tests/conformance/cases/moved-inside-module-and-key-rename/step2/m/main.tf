variable "v" { type = string }
resource "terraform_data" "new" { input = var.v }
moved {
  from = terraform_data.old
  to   = terraform_data.new
}
output "o" { value = terraform_data.new.output }
