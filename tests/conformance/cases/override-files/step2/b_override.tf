resource "terraform_data" "b" {
  lifecycle {
    ignore_changes = [input]
  }
}
