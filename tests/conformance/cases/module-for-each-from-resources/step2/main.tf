resource "terraform_data" "cfg" {
  for_each = { a = 1, c = 3 }
  input    = each.value
}
module "per_cfg" {
  source   = "./m"
  for_each = terraform_data.cfg
  v        = "cfg-${each.key}-${each.value.input}"
}
module "count_from_len" {
  source = "./m"
  count  = length(terraform_data.cfg) + 1
  v      = "len-${count.index}"
}
output "outs" { value = { for k, m in module.per_cfg : k => m.out } }
output "cnt" { value = module.count_from_len[*].out }
