resource "terraform_data" "added" {
  input = "not applied yet"
}

resource "terraform_data" "added_many" {
  count = 2
  input = count.index
}
