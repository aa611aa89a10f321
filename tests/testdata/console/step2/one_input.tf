locals {
  one_input = "${var.name}-changed"
}
