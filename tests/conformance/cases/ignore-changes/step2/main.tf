resource "terraform_data" "i" {
  input = "v2"
  lifecycle {
    ignore_changes = [input]
  }
}
resource "terraform_data" "j" {
  input = "v2"
}
