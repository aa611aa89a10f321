module "keep" {
  source = "./m"
  v      = "keep"
}
output "o" { value = [module.keep.out] }
