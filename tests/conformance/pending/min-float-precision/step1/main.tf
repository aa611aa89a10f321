output "x" { value = 0.1 + 0.2 }
