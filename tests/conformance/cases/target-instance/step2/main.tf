resource "terraform_data" "r" {
  count = 3
  input = "r${count.index}"
}
resource "terraform_data" "dep" {
  input = terraform_data.r[1].output
}
resource "terraform_data" "other" { input = "other" }
