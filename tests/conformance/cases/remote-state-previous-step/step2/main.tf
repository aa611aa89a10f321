data "terraform_remote_state" "prev" {
  backend = "local"
  config = {
    path = "terraform.tfstate"
  }
}
data "terraform_remote_state" "withdefaults" {
  backend = "local"
  config = {
    path = "${path.module}/terraform.tfstate"
  }
  defaults = {
    fallback = "from-defaults"
    name     = "not-used"
  }
}
resource "terraform_data" "consumer" {
  input = {
    name     = data.terraform_remote_state.prev.outputs.name
    ports    = data.terraform_remote_state.prev.outputs.ports
    deep     = data.terraform_remote_state.prev.outputs.nested.a.b
    fallback = data.terraform_remote_state.withdefaults.outputs.fallback
    name2    = data.terraform_remote_state.withdefaults.outputs.name
  }
}
resource "terraform_data" "src" {
  input = { name = "producer", ports = [80, 443] }
}
output "name" { value = "second" }
output "ports" { value = terraform_data.src.output.ports }
output "nested" { value = { a = { b = "deep2" } } }
output "read" { value = "read-${data.terraform_remote_state.prev.outputs.name}" }
output "consumer" { value = terraform_data.consumer.output }
