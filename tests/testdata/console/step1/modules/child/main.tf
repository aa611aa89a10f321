variable "prefix" {
  type = string
}

resource "terraform_data" "inner" {
  input = "${var.prefix}-inner"
}

output "label" {
  value = "${var.prefix}-label"
}

output "inner_id" {
  value = terraform_data.inner.id
}

output "hidden" {
  value     = "${var.prefix}-secret"
  sensitive = true
}
