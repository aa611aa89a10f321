module "b" {
  source = "./mb"
}
moved {
  from = terraform_data.root_thing
  to   = module.b.terraform_data.adopted
}
moved {
  from = module.a.terraform_data.inside
  to   = module.b.terraform_data.inside
}
