resource "terraform_data" "a" {
  input            = { v = 1 }
  triggers_replace = "t1"
}
resource "terraform_data" "b" { input = terraform_data.a.output }
resource "terraform_data" "c" { triggers_replace = terraform_data.a.id }
