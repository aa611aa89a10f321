variable "value" {}
variable "n" {
  type    = number
  default = 1
}
resource "terraform_data" "inner" {
  input = var.value
}
resource "tfcheck_thing" "c" {
  name = "child-${var.n}"
}
output "out" {
  value = terraform_data.inner.output
  precondition {
    condition     = var.n > 0
    error_message = "n"
  }
}
