resource "terraform_data" "m" {
  count = 0
}
output "len" { value = length(terraform_data.m) }
output "splat" { value = terraform_data.m[*].id }
output "one" { value = one(terraform_data.m[*].id) }
