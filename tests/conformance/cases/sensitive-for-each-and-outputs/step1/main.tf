variable "creds" {
  type      = map(string)
  default   = { alice = "pw-a", bob = "pw-b" }
  sensitive = true
}
resource "terraform_data" "user" {
  for_each = nonsensitive(toset(keys(var.creds)))
  input    = { name = each.key, pw = var.creds[each.key] }
}
locals {
  hashes = { for k, v in terraform_data.user : k => sha1(v.output.pw) }
}
output "names" { value = sort(keys(terraform_data.user)) }
output "hashes" {
  value     = local.hashes
  sensitive = true
}
output "partly" { value = [for k in sort(keys(terraform_data.user)) : nonsensitive(length(local.hashes[k]))] }
