resource "a${x}" "b" {}
