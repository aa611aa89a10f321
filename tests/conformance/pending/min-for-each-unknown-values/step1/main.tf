resource "terraform_data" "src" {}
resource "terraform_data" "fe" {
  for_each = { a = terraform_data.src.id }
  input    = each.value
}
