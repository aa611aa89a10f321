resource "terraform_data" "r" {
  for_each = toset(["a"])
  input    = each.key
}
