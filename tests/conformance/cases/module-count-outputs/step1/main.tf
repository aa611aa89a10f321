module "m" {
  source = "./m"
  count  = 3
  v      = "m${count.index}"
}
resource "terraform_data" "use" {
  input = {
    splat  = module.m[*].out
    second = module.m[1].out
    len    = length(module.m)
    joined = join(",", [for m in module.m : m.out])
  }
}
output "use" { value = terraform_data.use.output }
