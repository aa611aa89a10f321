variable "n" {
  type    = number
  default = 4
}
resource "terraform_data" "r" {
  count = var.n
  input = count.index * 2
  lifecycle {
    prevent_destroy = true
  }
}
check "known_after_apply" {
  assert {
    condition     = terraform_data.r[0].id != ""
    error_message = "no id"
  }
}
output "total" { value = sum(terraform_data.r[*].output) }
