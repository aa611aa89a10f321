variable "name" {
  type = string
  validation {
    condition     = can(regex("^[a-z]+$", var.name))
    error_message = "lowercase only"
  }
}
variable "count_n" {
  type = number
  validation {
    condition     = var.count_n >= 1
    error_message = "at least one"
  }
  validation {
    condition     = floor(var.count_n) == var.count_n
    error_message = "integer"
  }
}
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
