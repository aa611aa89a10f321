output "obj" {
  value = { b = 1, "c-d" = [1, "x"], e = { f = true } }
}
output "m2" {
  value = tomap({ a = "x", "b c" = "y" })
}
output "l" {
  value = tolist(["a"])
}
output "s" {
  value = toset(["a"])
}
output "nl" {
  value = tolist(null)
}
output "ms" {
  value = "a\nb\n"
}
output "empty" {
  value = {}
}
