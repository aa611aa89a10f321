resource "terraform_data" "e" {
  for_each = toset(["a"])
  input    = "x"
}
resource "terraform_data" "per" {
  for_each = terraform_data.e
  input    = each.value.output
}
