resource "terraform_data" "a" { input = "a" }
removed {
  from = terraform_data.b
  lifecycle {
    destroy = true
  }
}
