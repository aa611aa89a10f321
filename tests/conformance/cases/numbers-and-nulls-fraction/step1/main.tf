resource "terraform_data" "n" {
  input = {
    big       = 1e21
    bigger    = 12345678901234567890
    small     = 0.000001
    negzero   = -0.0
    third     = 1 / 3
    int_div   = floor(7 / 2)
    exp       = 2e-3
    max_int   = 9223372036854775807
    neg       = -42
    str_num   = "007"
    to_num    = tonumber("007")
    empty     = ""
    null_val  = null
    list_null = [null, 1]
    obj_null  = { a = null, b = 1 }
    nested    = { l = [[], [{}]], m = {} }
  }
}
output "n" { value = terraform_data.n.output }
output "null_output" { value = null }
output "empty_obj" { value = {} }
output "float_math" { value = [0.5 * 4, 10 % 3.5, pow(2, 0.5) > 1.41] }
