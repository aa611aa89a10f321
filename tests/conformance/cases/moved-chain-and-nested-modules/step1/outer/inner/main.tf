resource "terraform_data" "deep" { input = "deep" }
