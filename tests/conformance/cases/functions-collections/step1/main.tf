locals {
  m = { b = 2, a = 1, c = 3 }
  l = [3, 1, 2, 3]
}
resource "terraform_data" "c" {
  input = {
    distinct  = distinct(local.l)
    sort      = sort(["b", "a", "c"])
    keys      = keys(local.m)
    values    = values(local.m)
    lookup    = lookup(local.m, "z", 0)
    merge     = merge(local.m, { d = 4 })
    flatten   = flatten([[1, 2], [3, [4]]])
    zipmap    = zipmap(["x", "y"], [1, 2])
    slice     = slice(local.l, 1, 3)
    chunk     = chunklist(local.l, 3)
    contains  = contains(local.l, 2)
    index     = index(local.l, 2)
    setunion  = setunion(["a"], ["b", "a"])
    product   = setproduct(["a", "b"], ["1"])
    range     = range(1, 10, 3)
    transpose = transpose({ a = ["1", "2"], b = ["2"] })
    coalesce  = coalesce("", "x")
    compact   = compact(["a", "", "b"])
    reverse   = reverse(local.l)
    sum       = sum(local.l)
    alltrue   = alltrue([true, true])
    one       = one([5])
    element   = element(local.l, 5)
    length    = length(local.m)
    matchkeys = matchkeys(["a", "b"], ["x", "y"], ["y"])
  }
}
output "c" { value = terraform_data.c.output }
