resource "a" "b" {
  x = 1
