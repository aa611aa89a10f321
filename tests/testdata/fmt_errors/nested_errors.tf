resource "a" "b" {
  c {
    d = [1,,2]
  }
}
locals {
  e = {
}
