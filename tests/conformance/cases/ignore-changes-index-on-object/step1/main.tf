resource "terraform_data" "a" {
  input = { keep = "one", change = "one" }
  lifecycle { ignore_changes = [input["keep"]] }
}
