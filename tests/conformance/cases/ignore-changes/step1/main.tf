resource "terraform_data" "i" {
  input = "v1"
  lifecycle {
    ignore_changes = [input]
  }
}
resource "terraform_data" "j" {
  input = "v1"
}
