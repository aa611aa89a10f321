module "m" {
  source   = "./m"
  for_each = toset(["a", "b"])
  v        = each.key
}
