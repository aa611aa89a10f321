variable "v" {
  type    = number
  default = 5
  validation {
    condition     = var.v > 10
    error_message = "Too small."
  }
}
locals {
  x = var.v * 2
}
