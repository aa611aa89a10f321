resource "terraform_data" "r" {
  count = 2
  input = "c${count.index}"
}
