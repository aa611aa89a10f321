resource "terraform_data" "base" { input = "base" }
resource "terraform_data" "svc" {
  for_each = toset(["api", "web"])
  input    = "${terraform_data.base.output}/${each.key}"
}
resource "terraform_data" "unrelated" { input = "u" }
output "svc" { value = { for k, v in terraform_data.svc : k => v.output } }
