variable "legacy_string" {
  type = "string"
}
variable "legacy_list" {
  type = "list"
}
variable "legacy_map" {
  type = "map"
}
variable "bare_list" {
  type = list
}
variable "bare_set" {
  type = set
}
variable "bare_map" {
  type = map
}
variable "modern" {
  type = map(string)
}
variable "quoted_other" {
  type = "number"
}
resource aws_instance web {
  ami = "${var.legacy_string}"
  count = "${length(var.legacy_list)}"
  user_data = "${file("${path.module}/init.sh")}"
  tags = "${merge(var.legacy_map, map("a", "b"))}"
  not_unwrapped = "${var.a}${var.b}"
  prefix = "x-${var.a}"
  cond = "${var.a ? 1 : 2}"
  multi = "${
    var.a
    ? var.b
    : var.c
  }"
  multi_parens = "${
    (var.a)
  }"
  nested_block {
    value = "${var.legacy_string}"
  }
  dynamic "ingress" {
    for_each = "${var.legacy_list}"
    content {
      port = "${ingress.value}"
    }
  }
}
data template_file "t" {
  template = "${file("t.tpl")}"
}
module "unquoted" {
  source = "./m"
}
resource "x" "esc\u0041ped" {}
resource "x" "" {}
