resource "terraform_data" "new" {
  input = "kept"
}

moved {
  from = terraform_data.old
  to   = terraform_data.new
}
