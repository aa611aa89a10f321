module "outer" {
  source = "./modules/outer"
  count  = 2
  name   = "o${count.index}"
  subs   = count.index == 0 ? { a = 2 } : { c = 1, d = 1 }
}
output "all" { value = module.outer[*].inner }
output "where" { value = module.outer[0].where }
