resource "terraform_data" "a" { input = "only" }
resource "terraform_data" "b" {
  for_each = toset(["k"])
  input    = "b-${each.key}"
}
