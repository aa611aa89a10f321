resource "terraform_data" "a" {
  count = 3
  input = "a${count.index}-changed"
}
resource "terraform_data" "b" {
  for_each = toset(["x", "y"])
  input    = terraform_data.a[0].output
}
