resource "terraform_data" "a" {
  count = 1
  input = "a"
}
resource "terraform_data" "b" {
  for_each = { only = "b" }
  input    = each.value
}
