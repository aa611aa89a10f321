resource "terraform_data" "a" {
  count = 2
  input = "a${count.index}"
}
resource "terraform_data" "b" { input = terraform_data.a[1].output }
resource "terraform_data" "c" { input = "c" }
