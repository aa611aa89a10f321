variable "envs" {
  type = map(object({ size = number, tags = optional(list(string), []) }))
  default = {
    dev  = { size = 1 }
    prod = { size = 3, tags = ["critical"] }
  }
}
locals {
  big    = [for k, v in var.envs : k if v.size > 1]
  groups = { for k, v in var.envs : (v.size > 1 ? "large" : "small") => k... }
  splat  = [for e in values(var.envs) : e][*].size
}
resource "terraform_data" "x" {
  for_each = var.envs
  input = {
    name = each.key
    size = each.value.size * 2
    tags = length(each.value.tags) > 0 ? each.value.tags : ["none"]
    cond = each.key == "prod" ? "p" : null
  }
}
output "summary" {
  value = {
    big    = local.big
    groups = local.groups
    splat  = local.splat
    names  = sort([for x in terraform_data.x : x.output.name])
  }
}
