module "m" {
  source   = "./mod"
  for_each = { a = 1, b = 2 }
  name     = each.key
  size     = each.value
}
output "all" {
  value = { for k, m in module.m : k => m.ids }
}
