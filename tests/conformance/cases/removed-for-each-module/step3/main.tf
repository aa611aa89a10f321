module "m" {
  source   = "./m"
  for_each = toset(["a"])
  v        = each.key
}
resource "terraform_data" "keep" { input = "k" }
