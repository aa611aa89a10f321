resource "terraform_data" "r" {
  count = 3
  input = "r${count.index}"
}
