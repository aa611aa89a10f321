output "path" { value = path.module }
output "ws" { value = terraform.workspace }
