removed {
  from = module.m
  lifecycle {
    destroy = false
  }
}
removed {
  from = module.d
}
resource "terraform_data" "stay" { input = "stay" }
