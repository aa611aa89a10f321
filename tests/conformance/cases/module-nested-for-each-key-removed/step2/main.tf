module "outer" {
  source   = "./modules/outer"
  for_each = toset(["x", "z"])
  name     = each.key
  subs     = { s = 1 }
}
output "keys" { value = keys(module.outer) }
