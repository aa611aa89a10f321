resource "terraform_data" "src" { input = "t" }
resource "terraform_data" "fe" {
  for_each = { for k in ["a", "b"] : k => terraform_data.src.id }
  input    = "${each.key}:${length(each.value)}"
}
resource "terraform_data" "cnt" {
  count = length(["x", "y"])
  input = { id_len = length(terraform_data.src.id), upper = upper(terraform_data.src.output) }
}
locals {
  known_keys = keys(terraform_data.fe)
  cond       = terraform_data.src.output == "s" ? "yes" : "no"
}
resource "terraform_data" "deps" {
  input = {
    keys  = local.known_keys
    cond  = local.cond
    ids   = [for r in terraform_data.cnt : r.output.id_len]
    joined = join(",", [for k, r in terraform_data.fe : r.input])
  }
}
output "deps" { value = terraform_data.deps.output }
