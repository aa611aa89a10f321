resource "terraform_data" "src" { input = { a = "2", b = "fixed" } }
resource "terraform_data" "dep" {
  lifecycle { replace_triggered_by = [terraform_data.src.input.b] }
}
