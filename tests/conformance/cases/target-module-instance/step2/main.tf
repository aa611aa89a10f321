module "m" {
  source   = "./m"
  for_each = toset(["a", "b", "c"])
  v        = each.key
}
