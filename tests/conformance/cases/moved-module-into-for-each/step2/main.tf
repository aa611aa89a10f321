module "new" {
  source   = "./m"
  for_each = toset(["x"])
  v        = each.key
}
moved {
  from = module.old
  to   = module.new["x"]
}
module "counted" {
  source   = "./m"
  for_each = { first = "c0", second = "c1" }
  v        = each.value
}
moved {
  from = module.counted[0]
  to   = module.counted["first"]
}
moved {
  from = module.counted[1]
  to   = module.counted["second"]
}
output "outs" { value = { for k, m in module.counted : k => m.out } }
