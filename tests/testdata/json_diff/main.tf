variable "v" {
  type    = number
  default = 1
}
resource "terraform_data" "policy" {
  input = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = ["s3:Get", "s3:List"], Resource = "*" }, { Effect = "Deny", Action = "x", Resource = var.v }]
    Count     = var.v
    Nested    = { a = { b = var.v > 1 ? "two" : "one" }, keep = true }
  })
}
resource "terraform_data" "replaced" {
  triggers_replace = jsonencode([1, 2, var.v])
  input            = jsonencode({ a = "x\ny" })
}
resource "terraform_data" "text" {
  input = var.v > 1 ? "not json {" : "[1, 2]"
}
resource "terraform_data" "ws" {
  input = var.v > 1 ? "{\"a\": 1}" : "{\"a\":1}"
}
