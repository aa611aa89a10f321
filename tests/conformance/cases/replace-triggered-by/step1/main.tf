resource "terraform_data" "src" {
  input = "one"
}
resource "terraform_data" "dep" {
  input = "fixed"
  lifecycle {
    replace_triggered_by = [terraform_data.src]
  }
}
