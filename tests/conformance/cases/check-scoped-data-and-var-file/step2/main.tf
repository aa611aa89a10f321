terraform {
  required_version = ">= 1.5.0"
}
variable "env" { type = string }
variable "size" { type = number }
resource "terraform_data" "app" { input = "${var.env}-${var.size}" }
check "state_output" {
  data "terraform_remote_state" "self" {
    backend = "local"
    config = {
      path = "terraform.tfstate"
    }
  }
  assert {
    condition     = data.terraform_remote_state.self.outputs.app == "staging-3"
    error_message = "unexpected previous output"
  }
}
output "app" {
  value      = terraform_data.app.output
  depends_on = [terraform_data.app]
}
