resource "terraform_data" "inside" { input = "from-a" }
resource "terraform_data" "adopted" { input = "hello" }
