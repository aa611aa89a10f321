variable "on" { default = true }
variable "off" { default = false }
locals {
  null_left   = var.on ? null : "x"
  null_right  = var.on ? "x" : null
  num_str     = var.on ? 1 : "a"
  bool_str    = var.off ? "s" : true
  list_empty  = var.on ? ["a"] : []
  map_empty   = var.off ? { a = 1 } : {}
  obj_merge   = var.on ? { a = 1, b = "x" } : { a = 2, b = "y" }
  tuple_list  = var.on ? [1, 2] : tolist([3])
  nested      = var.on ? (var.off ? "a" : "b") : "c"
  null_obj    = var.off ? { k = "v" } : null
  coalesced   = coalesce(local.null_left, "fallback")
  try_null    = try(local.null_obj.k, "absent")
}
resource "terraform_data" "c" {
  input = {
    null_left  = local.null_left
    null_right = local.null_right
    num_str    = local.num_str
    bool_str   = local.bool_str
    list_empty = local.list_empty
    map_empty  = local.map_empty
    obj_merge  = local.obj_merge
    tuple_list = local.tuple_list
    nested     = local.nested
    null_obj   = local.null_obj
    coalesced  = local.coalesced
    try_null   = local.try_null
  }
}
resource "terraform_data" "maybe" {
  count = var.off ? 1 : 0
}
output "c" { value = terraform_data.c.output }
output "null_out" { value = local.null_left }
