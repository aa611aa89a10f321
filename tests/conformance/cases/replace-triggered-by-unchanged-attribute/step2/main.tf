variable "a" { default = "2" }

resource "terraform_data" "src" {
  count = 2
  input = { a = var.a, b = "fixed${count.index}" }
}
resource "terraform_data" "on_a" {
  input = "x"
  lifecycle {
    replace_triggered_by = [terraform_data.src[0].input.a]
  }
}
resource "terraform_data" "on_b" {
  input = "y"
  lifecycle {
    replace_triggered_by = [terraform_data.src[1].input.b]
  }
}
resource "terraform_data" "per" {
  count = 2
  input = "z${count.index}"
  lifecycle {
    replace_triggered_by = [terraform_data.src[count.index]]
  }
}
