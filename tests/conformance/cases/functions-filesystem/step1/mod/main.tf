output "content" { value = trimspace(file("${path.module}/inner.txt")) }
