variable "token" {
  type      = string
  default   = "tok-456"
  sensitive = true
}
resource "terraform_data" "list" {
  input = ["tok-123", var.token, "plain"]
}
resource "terraform_data" "s" {
  input = { user = "admin", pass = sensitive("s3cret"), obj = { public = "visible" } }
}
output "list" {
  value     = terraform_data.list.output
  sensitive = true
}
