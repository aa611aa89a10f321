module "outer" {
  source = "./modules/outer"
  count  = 2
  name   = "o${count.index}"
  subs   = count.index == 0 ? { a = 1, b = 2 } : { c = 1 }
}
output "all" { value = module.outer[*].inner }
output "second" { value = module.outer[1].inner["c"] }
output "where" { value = module.outer[0].where }
