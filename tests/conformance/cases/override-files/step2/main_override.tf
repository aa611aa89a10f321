variable "name" {
  default = "override"
}

locals {
  greeting = "hi ${var.name}"
}

resource "terraform_data" "a" {
  count = var.n + 1
  input = { greeting = local.greeting, kept = local.kept, extra = "over" }
}

module "m" {
  value = "over"
}

output "o" {
  value = "over"
}

output "s" {
  sensitive = true
}
