# override files (override.tf, *_override.tf, *_override.tf.json) merged over the primary files,
# in lexical order: main_override.tf, then override.tf, then z_override.tf.json
terraform {
  required_version = ">= 0.12"
}

variable "name" {
  type    = string
  default = "base"
}

variable "n" {
  type    = number
  default = 1
}

locals {
  greeting = "hello ${var.name}"
  kept     = "kept"
}

resource "terraform_data" "a" {
  count = 1
  input = { greeting = local.greeting, kept = local.kept, extra = "base" }
}

resource "terraform_data" "b" {
  input = "b-base"
}

module "m" {
  source = "./mod"
  value  = "base"
  other  = "kept"
}

output "a" {
  value = terraform_data.a[*].output
}

output "m" {
  value = module.m.out
}

output "o" {
  value       = "base"
  description = "kept"
}

output "s" {
  value = "shown"
}
