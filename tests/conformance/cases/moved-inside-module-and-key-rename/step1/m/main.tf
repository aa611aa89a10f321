variable "v" { type = string }
resource "terraform_data" "old" { input = var.v }
