variable "val" { default = "one" }

resource "terraform_data" "nested" {
  input = {
    keep   = var.val
    change = var.val
  }
  lifecycle {
    ignore_changes = [input.keep]
  }
}
resource "terraform_data" "all" {
  input            = var.val
  triggers_replace = var.val
  lifecycle {
    ignore_changes = all
  }
}
resource "terraform_data" "trig" {
  input            = "same"
  triggers_replace = [var.val]
  lifecycle {
    ignore_changes = [triggers_replace]
  }
}
output "nested" { value = terraform_data.nested.output }
