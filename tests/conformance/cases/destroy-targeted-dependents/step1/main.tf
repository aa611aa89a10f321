resource "terraform_data" "base" { input = "base" }
resource "terraform_data" "mid" {
  count = 2
  input = "${terraform_data.base.output}-${count.index}"
}
resource "terraform_data" "top" { input = terraform_data.mid[*].output }
resource "terraform_data" "lone" { input = "lone" }
