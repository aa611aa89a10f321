resource "terraform_data" "svc" {
  for_each = { api = 1, jobs = 4 }
  input    = "${each.key}-${each.value}"
}
output "keys" {
  value = keys(terraform_data.svc)
}
