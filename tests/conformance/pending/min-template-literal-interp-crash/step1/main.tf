output "x" { value = "a-${5}" }
