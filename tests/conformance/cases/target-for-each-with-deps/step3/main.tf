resource "terraform_data" "base" { input = "base2" }
resource "terraform_data" "svc" {
  for_each = toset(["api", "web"])
  input    = "${terraform_data.base.output}/${each.key}"
}
resource "terraform_data" "unrelated" { input = "u" }
