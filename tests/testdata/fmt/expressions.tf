locals {
  arith=1+2*3-4/5%6
  neg = -1
  negvar = -local.arith
  sub = local.arith-1
  sub2 = local.arith - -1
  cmp = local.arith>=1&&local.arith<=10||!true
  eq = local.arith==1 ? "one":"other"
  ne = local.arith!=1
  nested_cond = local.arith > 1 ? local.arith > 2 ? "big" : "medium" : "small"
  parens = ( 1 + 2 ) * ( 3 )
  tuple = [ 1 , 2 , 3 ]
  empty_tuple = [ ]
  empty_obj = {  }
  obj = {a=1,b="two",c=[3]}
  obj_colon = { a : 1, b : 2 }
  obj_multi = {
    a=1
    bb=[1,2]
    ccc={x=1}
  }
  nested = {
    level1 = {
      level2 = {
        level3 = [ { deep = true } , { deep = false } ]
      }
    }
  }
  for_list = [ for x in local.tuple : x * 2 ]
  for_cond = [for x in local.tuple: x if x > 1]
  for_obj = { for k , v in local.obj : k => v }
  for_group = {for v in local.tuple: (v > 1 ? "big" : "small") => v...}
  for_in_tuple = [for x in [1, 2]: x]
  splat_full = local.nested_list[*].name
  splat_attr = local.nested_list.*.name
  index = local.tuple[0]
  index_expr = local.tuple[ local.arith - 1 ]
  legacy_index = local.tuple.0
  traversal = local.nested.level1["level2"].level3[0].deep
  func = max(1,2,3)
  func_expand = max(local.tuple...)
  func_multi = format(
    "%s-%s",
    "a",
    "b"
  )
  func_ns = provider::terraform::encode_tfvars({a = 1})
  not_not = !!true
  str_ops = "${local.arith}-suffix"
  keyword_obj = { in = 1, for = 2, if = 3 }
  long_line = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
  long_expr = local.arith + local.arith + local.arith + local.arith + local.arith + local.arith + local.arith + local.arith
  multiline_cond = (
    local.arith > 1
    ? "yes"
    : "no"
  )
  multiline_binary = (local.arith +
  local.arith)
  multiline_list = [
  "a",
      "b",
  ]
  mixed = [1, 2,
  3, 4]
  brackets_same_line = [[
    1
  ]]
  close_then_open = concat([
    1
    ], [
    2
  ])
}

resource "null_resource" "single_line" { triggers = { a = "b" } }
resource "null_resource" "empty" {}
resource "null_resource" "empty_multiline" {
}

output "o" { value = local.arith }
