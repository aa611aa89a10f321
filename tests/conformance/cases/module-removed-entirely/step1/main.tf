module "keep" {
  source = "./m"
  v      = "keep"
}
module "gone" {
  source = "./m"
  v      = "gone"
}
module "gone_counted" {
  source = "./m"
  count  = 2
  v      = "gc${count.index}"
}
output "o" { value = [module.keep.out, module.gone.out] }
