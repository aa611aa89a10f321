module "opt" {
  source = "./m"
  count  = 0
  v      = "opt"
}
output "outs" { value = module.opt[*].out }
output "n" { value = length(module.opt) }
