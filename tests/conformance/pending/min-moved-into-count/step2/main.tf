resource "terraform_data" "a" { count = 1 }
moved {
  from = terraform_data.a
  to   = terraform_data.a[0]
}
