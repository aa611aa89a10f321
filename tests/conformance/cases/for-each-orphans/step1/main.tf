resource "terraform_data" "svc" {
  for_each = { api = 1, web = 2, jobs = 3 }
  input    = "${each.key}-${each.value}"
}
output "keys" {
  value = keys(terraform_data.svc)
}
