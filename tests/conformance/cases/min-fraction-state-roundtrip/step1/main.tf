resource "terraform_data" "n" { input = 1 / 3 }
resource "terraform_data" "m" { input = [1.1 * 3, 0.3 - 0.1] }
output "n" { value = terraform_data.n.output }
