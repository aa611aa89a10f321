module "outer" {
  source   = "./modules/outer"
  for_each = toset(["x", "y", "z"])
  name     = each.key
  subs     = { s = 1, t = 2 }
}
output "keys" { value = keys(module.outer) }
