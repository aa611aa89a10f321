variable "n" { default = 0 }

resource "terraform_data" "c" {
  count = var.n
  input = "c${count.index}"
}
resource "terraform_data" "dep" {
  count = var.n
  input = terraform_data.c[count.index].output
}
output "ids" { value = terraform_data.dep[*].output }
