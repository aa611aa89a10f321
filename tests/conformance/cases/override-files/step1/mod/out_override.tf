output "out" {
  value = "mod-${var.value}-${var.other}"
}
