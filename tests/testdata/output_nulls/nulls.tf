variable "s" {
  type    = string
  default = null
}
variable "o" {
  type = object({ a = string, b = number })
  default = { a = null, b = 1 }
}
resource "terraform_data" "a" {
  input = var.s
}
resource "terraform_data" "b" {
  input = var.o
}
output "n" {
  value = var.s
}
output "obj" {
  value = { a = var.s, b = 1 }
}
output "typed" {
  value = var.o
}
variable "m" {
  type    = map(string)
  default = { a = "x", "b c" = "y" }
}
output "m" {
  value = var.m
}
