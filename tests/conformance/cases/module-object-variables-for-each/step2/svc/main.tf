variable "name" { type = string }
variable "spec" {
  type = object({
    replicas = optional(number, 3)
    env      = optional(map(string), { DEFAULT = "1" })
    public   = optional(bool, true)
  })
}
resource "terraform_data" "inst" {
  count = var.spec.replicas
  input = merge(var.spec.env, { NAME = "${var.name}-${count.index}" })
}
output "public" { value = var.spec.public }
output "instances" { value = terraform_data.inst[*].output }
