variable "gen" { default = 1 }

resource "terraform_data" "a" {
  input            = "a"
  triggers_replace = [var.gen]
  lifecycle {
    create_before_destroy = true
  }
}
resource "terraform_data" "b" {
  triggers_replace = terraform_data.a.id
  input            = "b"
  lifecycle {
    create_before_destroy = true
  }
}
resource "terraform_data" "c" {
  input = terraform_data.b.id
}
resource "terraform_data" "d" {
  input = "d"
  depends_on = [terraform_data.c]
}
output "chain" { value = [terraform_data.a.input, terraform_data.b.input] }
