variable "name" { type = string }
variable "count_n" { type = number }
variable "labels" { type = map(string) }
variable "ports" { type = list(number) }
variable "enabled" { type = bool }
resource "terraform_data" "r" {
  count = var.enabled ? var.count_n : 0
  input = {
    name   = "${var.name}-${count.index}"
    labels = var.labels
    port   = var.ports[count.index % length(var.ports)]
  }
}
output "r" { value = terraform_data.r[*].output }
