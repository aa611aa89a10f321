variable "items" {
  default = { alpha = 1, beta = 0, gamma = 3 }
}
locals {
  list = ["a", "b", "c"]
  t1 = "%{for k, v in var.items}${k}:${v}%{if v > 0}+%{else}-%{endif};%{endfor}"
  t2 = "x %{~ if true ~} y %{~ endif ~} z"
  t3 = "%{ for i, x in local.list }${i > 0 ? "," : ""}${x}%{ endfor }"
  t4 = "literal %%{ not a directive } and $${ not interp }"
  t5 = "nested: %{ for x in local.list }%{ if x != "b" }[${upper(x)}]%{ endif }%{ endfor }"
  t6 = "${"inner ${"deeper ${1 + 1}"}"}"
  t7 = "unicode: ${upper("straße")} ${length("héllo")} ${substr("日本語テキスト", 1, 3)}"
  t8 = "escapes: \t|\\|\"|\u00e9|\U0001F600"
  t9 = "${join("\n", [for x in local.list : "- ${x}"])}"
  t10 = "only-interp-${local.five}"
  five = 5
  t11 = "${true}"
  t12 = "%{ if length(local.list) == 3 }three%{ endif }"
}
resource "terraform_data" "t" {
  input = [local.t1, local.t2, local.t3, local.t4, local.t5, local.t6, local.t7, local.t8, local.t9, local.t10, local.t11, local.t12]
}
output "t" { value = terraform_data.t.output }
output "single_interp_type" { value = local.t11 }
