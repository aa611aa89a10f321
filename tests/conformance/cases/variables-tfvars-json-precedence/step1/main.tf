variable "a" { default = "default-a" }
variable "b" { default = "default-b" }
variable "c" { default = "default-c" }
variable "d" { default = "default-d" }
variable "obj" {
  type = object({ x = number, y = list(string) })
  default = { x = 0, y = [] }
}
output "all" { value = [var.a, var.b, var.c, var.d] }
output "obj" { value = var.obj }
resource "terraform_data" "r" { input = var.obj }
