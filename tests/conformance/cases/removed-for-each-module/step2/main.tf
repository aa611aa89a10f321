removed {
  from = module.m
  lifecycle {
    destroy = false
  }
}
resource "terraform_data" "keep" { input = "k" }
