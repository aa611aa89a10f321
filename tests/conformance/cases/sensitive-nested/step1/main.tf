variable "db" {
  type = object({ user = string, pass = string })
  default = { user = "admin", pass = "s3cret" }
  sensitive = true
}
variable "token" {
  type    = string
  default = "tok-123"
}
locals {
  marked     = sensitive(var.token)
  obj        = { public = "visible", secret = sensitive("hidden"), list = ["a", sensitive("b")] }
  derived    = "prefix-${local.marked}"
  unwrapped  = nonsensitive(local.marked)
  issens     = issensitive(local.marked)
  notsens    = issensitive(var.token)
  len_secret = length(local.marked)
}
resource "terraform_data" "s" {
  input = {
    user    = var.db.user
    pass    = var.db.pass
    obj     = local.obj
    derived = local.derived
  }
}
resource "terraform_data" "list" {
  input = [var.token, local.marked, "plain"]
}
resource "terraform_data" "plain" {
  input = [local.unwrapped, local.issens, local.notsens]
}
module "m" {
  source = "./m"
  secret = local.marked
}
output "whole" {
  value     = terraform_data.s.output
  sensitive = true
}
output "list" {
  value     = terraform_data.list.output
  sensitive = true
}
output "plain" { value = terraform_data.plain.output }
output "from_module" {
  value     = module.m.echo
  sensitive = true
}
output "len" { value = nonsensitive(local.len_secret) }
