variable "tag" { type = string }
resource "terraform_data" "r" { input = var.tag }
