locals {
  mixed = ["a", 1, true]
}
resource "terraform_data" "t" {
  input = {
    tolist    = tolist(["a", "b"])
    tolistmix = tolist(local.mixed)
    toset     = toset(["b", "a", "b"])
    tosetnum  = toset([3, 1, 2, 1])
    tomap     = tomap({ a = 1, b = "two" })
    tonumber  = tonumber("0x10" == "" ? "1" : "16")
    tonumstr  = tonumber("1e3")
    tobool    = tobool("true")
    tostring  = tostring(true)
    tostrnum  = tostring(1.50)
    bigint    = 9007199254740993
    float     = 0.5 + 0.25
    bigmul    = 123456789 * 987654321
    divexact  = 10 / 4
    neg       = -7 % 3
    can_ok    = can(tonumber("12"))
    can_bad   = can(tonumber("twelve"))
    try_chain = try(tobool("maybe"), tonumber("nope"), "last")
    setlen    = length(toset(local.mixed))
    concat    = concat(["a"], [1], [true])
    strnum    = "5" + 5
    numcmp    = "10" == 10
    mapobj    = tomap({ x = [1], y = [] })
    nulls     = tolist([null, "a"])
    jsonnum   = jsonencode(1.0)
  }
}
output "t" { value = terraform_data.t.output }
output "set_of_obj" { value = toset([{ a = 1 }, { a = 1 }, { a = 2 }]) }
