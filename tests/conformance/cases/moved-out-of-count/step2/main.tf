resource "terraform_data" "a" { input = "a" }
moved {
  from = terraform_data.a[0]
  to   = terraform_data.a
}
resource "terraform_data" "b" { input = "b" }
moved {
  from = terraform_data.b["only"]
  to   = terraform_data.b
}
