output "x" { value = 1 }
check "c" {
  data "terraform_remote_state" "s" {
    backend = "local"
    config = { path = "terraform.tfstate" }
  }
  assert {
    condition     = data.terraform_remote_state.s.outputs.x == 1
    error_message = "x"
  }
}
