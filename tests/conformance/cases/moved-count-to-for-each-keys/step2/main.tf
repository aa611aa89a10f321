resource "terraform_data" "r" {
  for_each = { zero = "r0", one = "r1", two = "r2-changed" }
  input    = each.value
}
moved {
  from = terraform_data.r[0]
  to   = terraform_data.r["zero"]
}
moved {
  from = terraform_data.r[1]
  to   = terraform_data.r["one"]
}
output "r" { value = { for k, v in terraform_data.r : k => v.output } }
