locals {
  a = ["x", "y", "z"]
  m = { one = 1, two = 2, three = 3 }
}
resource "terraform_data" "c" {
  input = {
    setinter    = setintersection(["a", "b", "c"], ["b", "c", "d"], ["c", "b"])
    setsub      = setsubtract(["a", "b", "c"], ["b"])
    coalescel   = coalescelist([], ["first"], ["second"])
    concat      = concat(local.a, ["w"])
    keys        = keys({ b = 1, a = 2, "10" = 3, "9" = 4 })
    lookupdef   = lookup(local.m, "four", -1)
    lookuphit   = lookup(local.m, "two")
    element     = element(local.a, -1)
    index       = index(local.a, "z")
    list_slice  = slice(local.a, 0, 0)
    anytrue     = anytrue([false, true])
    anyempty    = anytrue([])
    allempty    = alltrue([])
    sumf        = sum([0.5, 0.25, 1])
    sortnums    = sort(["10", "9", "1"])
    range1      = range(3)
    range2      = range(5, 0, -2)
    range3      = range(0, 1, 0.25)
    flattenm    = flatten([[], [[[]]], ["a"]])
    merge_over  = merge({ a = 1, b = 2 }, { b = "x" }, {})
    zipmap      = zipmap(["k1", "k2"], [[1], [2, 3]])
    values      = values({ z = "last", a = "first" })
    distinct    = distinct([[1], [1], [2]])
    setproduct  = setproduct(["a"], [1, 2], [true])
    chunk0      = chunklist(["a", "b"], 0)
    reverse     = reverse([])
    contains    = contains([[1]], [1])
    transpose   = transpose({ a = [], b = ["x", "y"], c = ["x"] })
    one_null    = one([])
    len_obj     = length({ a = 1, b = [2] })
    map_merge   = merge(local.m, { four = 4 })
    sort_strs   = sort(["b", "B", "a", "_", "1"])
  }
}
output "c" { value = terraform_data.c.output }
