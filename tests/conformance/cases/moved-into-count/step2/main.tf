resource "terraform_data" "a" {
  count = 2
  input = count.index == 0 ? "only" : "extra"
}
moved {
  from = terraform_data.a
  to   = terraform_data.a[0]
}
resource "terraform_data" "b" { input = "b-k" }
moved {
  from = terraform_data.b["k"]
  to   = terraform_data.b
}
output "a" { value = terraform_data.a[*].output }
