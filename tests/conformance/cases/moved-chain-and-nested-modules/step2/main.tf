resource "terraform_data" "c" { input = "chain" }
moved {
  from = terraform_data.a
  to   = terraform_data.b
}
moved {
  from = terraform_data.b
  to   = terraform_data.c
}
module "flat" {
  source = "./flat"
}
moved {
  from = module.outer.module.inner
  to   = module.flat
}
