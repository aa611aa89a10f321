locals {
  people = [
    { name = "ann", team = "red", age = 31 },
    { name = "bob", team = "blue", age = 25 },
    { name = "cid", team = "red", age = 40 },
    { name = "dee", team = "green", age = 25 },
  ]
  by_team   = { for p in local.people : p.team => p.name... }
  by_age    = { for p in local.people : tostring(p.age) => p... }
  names     = local.people[*].name
  older     = [for p in local.people : upper(p.name) if p.age > 30]
  idx       = { for i, p in local.people : p.name => i }
  teams     = distinct([for p in local.people : p.team])
  team_size = { for t, ns in local.by_team : t => length(ns) }
  chain1    = local.chain2 + 1
  chain2    = local.chain3 * 2
  chain3    = length(local.teams)
  nested    = [for t in local.teams : [for p in local.people : p.name if p.team == t]]
  objfor    = { for k, v in { a = 1, b = 2 } : upper(k) => v * 10 }
}
resource "terraform_data" "p" {
  for_each = { for p in local.people : p.name => p }
  input    = each.value.age
}
resource "terraform_data" "list" {
  count = 2
  input = { n = count.index, tags = ["t${count.index}", "u"] }
}
output "grouping" { value = [local.by_team, local.by_age, local.team_size] }
output "misc" { value = [local.names, local.older, local.idx, local.chain1, local.nested, local.objfor] }
output "splats" {
  value = {
    fe_values = values(terraform_data.p)[*].output
    fe_for    = [for k, r in terraform_data.p : "${k}=${r.output}"]
    cnt       = terraform_data.list[*].output.n
    cnt_full  = terraform_data.list[*].input
    legacy    = terraform_data.list.*.output
    one_item  = terraform_data.p["ann"][*].output
  }
}
