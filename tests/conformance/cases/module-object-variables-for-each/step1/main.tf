variable "services" {
  type = map(object({
    replicas = optional(number, 1)
    env      = optional(map(string), {})
    public   = optional(bool, false)
  }))
  default = {
    api    = { replicas = 2, public = true }
    worker = { env = { QUEUE = "jobs" } }
  }
}
module "svc" {
  source   = "./svc"
  for_each = var.services
  name     = each.key
  spec     = each.value
}
output "public" { value = [for k, m in module.svc : k if m.public] }
output "all" { value = { for k, m in module.svc : k => m.instances } }
