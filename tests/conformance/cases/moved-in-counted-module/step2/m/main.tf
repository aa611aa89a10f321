resource "terraform_data" "new" {}
moved {
  from = terraform_data.old
  to   = terraform_data.new
}
