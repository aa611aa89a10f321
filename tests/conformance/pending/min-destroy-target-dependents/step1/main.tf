resource "terraform_data" "a" {}
resource "terraform_data" "b" { input = terraform_data.a.id }
