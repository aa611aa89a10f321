module "m" {
  source   = "./m"
  for_each = toset(["a", "z"])
  v        = each.key == "z" ? "b" : each.key
}
moved {
  from = module.m["b"]
  to   = module.m["z"]
}
output "o" { value = { for k, m in module.m : k => m.o } }
