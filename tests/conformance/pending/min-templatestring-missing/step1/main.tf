locals {
  tpl = "Hi $${name}!"
}
output "x" { value = templatestring(local.tpl, { name = "x" }) }
