variable "svc" {
  type = map(object({
    port    = number
    proto   = optional(string, "tcp")
    tags    = optional(map(string), {})
    health  = optional(object({
      path     = optional(string, "/")
      interval = optional(number, 30)
    }), {})
    replicas = optional(number)
  }))
  default = {
    web = { port = 80, health = { path = "/hz" } }
    db  = { port = 5432, proto = "tcp", replicas = 2, tags = { tier = "data" } }
  }
}
variable "strict" {
  type     = string
  default  = "fallback"
  nullable = false
}
variable "loose" {
  type    = string
  default = "loose-default"
}
variable "list_of_obj" {
  type = list(object({ name = string, on = optional(bool, true) }))
  default = [{ name = "a" }, { name = "b", on = false }]
}
resource "terraform_data" "svc" {
  for_each = var.svc
  input    = each.value
}
output "svc" { value = var.svc }
output "strict" { value = var.strict }
output "loose" { value = var.loose == null ? "was-null" : var.loose }
output "enabled" { value = [for o in var.list_of_obj : o.name if o.on] }
