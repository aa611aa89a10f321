variable "n" {
  type    = string
  default = "2"
}

locals {
  greeting = "last ${var.name}"
}
