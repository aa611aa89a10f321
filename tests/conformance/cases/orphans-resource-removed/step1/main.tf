resource "terraform_data" "keep" { input = "k" }
resource "terraform_data" "gone_single" { input = "g" }
resource "terraform_data" "gone_count" {
  count = 2
  input = "gc"
}
resource "terraform_data" "gone_each" {
  for_each = toset(["a", "b"])
  input    = each.key
}
resource "terraform_data" "gone_dep" { input = terraform_data.gone_single.output }
