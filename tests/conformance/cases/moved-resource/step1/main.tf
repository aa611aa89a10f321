resource "terraform_data" "old" {
  input = "kept"
}
