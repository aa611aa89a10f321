resource "terraform_data" "n" { input = 1 / 3 }
output "n" { value = terraform_data.n.output }
