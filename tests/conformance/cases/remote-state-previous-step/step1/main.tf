resource "terraform_data" "src" {
  input = { name = "producer", ports = [80, 443] }
}
output "name" { value = terraform_data.src.output.name }
output "ports" { value = terraform_data.src.output.ports }
output "nested" { value = { a = { b = "deep" } } }
