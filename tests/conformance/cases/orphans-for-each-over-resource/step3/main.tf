variable "envs" { default = {} }
resource "terraform_data" "e" {
  for_each = var.envs
  input    = "env-${each.key}"
}
resource "terraform_data" "per" {
  for_each = terraform_data.e
  input    = each.value.output
}
output "keys" { value = sort(keys(terraform_data.per)) }
