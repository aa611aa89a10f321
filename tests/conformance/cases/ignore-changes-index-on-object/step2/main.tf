resource "terraform_data" "a" {
  input = { keep = "two", change = "two" }
  lifecycle { ignore_changes = [input["keep"]] }
}
