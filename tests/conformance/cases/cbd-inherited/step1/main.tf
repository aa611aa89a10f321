variable "v" {
  default = "1"
}
resource "terraform_data" "a" {
  triggers_replace = [var.v]
}
resource "terraform_data" "b" {
  input            = terraform_data.a.id
  triggers_replace = [var.v]
  lifecycle {
    create_before_destroy = true
  }
}
resource "terraform_data" "c" {
  input = terraform_data.b.output
}
