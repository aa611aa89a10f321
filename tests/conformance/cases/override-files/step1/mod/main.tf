variable "value" {
  type = string
}

variable "other" {
  type = string
}

output "out" {
  value = "${var.value}-${var.other}"
}
