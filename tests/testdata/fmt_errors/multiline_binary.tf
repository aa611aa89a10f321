locals {
  x = 1 +
  2
}
