resource "terraform_data" "old" {}
