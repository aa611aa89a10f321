locals {
  tpl  = "Hi $${name}, you are ${"$"}{age}!"
  five = 5
}
resource "terraform_data" "e" {
  input = {
    decimal_sum   = 0.1 + 0.2
    minus_literal = 3-0.5
    not_not       = !!true
    neg_neg       = - -3
    not_not_not   = !!!false
    neg_paren     = -(-(2))
    lit_int       = "a-${5}"
    lit_bool      = "x${true}y"
    lit_float     = "v${1.5}"
    lit_mixed     = "${1}${"b"}${false}"
    lit_and_ref   = "n=${5}/${local.five}"
    templatestr   = templatestring(local.tpl, { name = "x", age = 3 })
  }
}
output "e" { value = terraform_data.e.output }
output "sum_type" { value = 0.1 + 0.2 == 0.3 }
