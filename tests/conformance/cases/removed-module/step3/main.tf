resource "terraform_data" "stay" { input = "stay2" }
