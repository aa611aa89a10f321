resource "terraform_data" "inside" { input = "from-a" }
