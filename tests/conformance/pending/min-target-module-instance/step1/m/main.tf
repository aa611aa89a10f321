resource "terraform_data" "r" {}
