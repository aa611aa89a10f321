variable "name" { type = string }
variable "subs" { type = map(number) }
module "inner" {
  source   = "./inner"
  for_each = var.subs
  prefix   = "${var.name}.${each.key}"
  n        = each.value
}
resource "terraform_data" "outer" {
  input = { for k, m in module.inner : k => length(m.leaves) }
}
output "inner" { value = { for k, m in module.inner : k => m.leaves } }
output "where" { value = [path.module, values(module.inner)[0].where] }
