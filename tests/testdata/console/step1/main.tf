variable "name" {
  type    = string
  default = "world"
}

variable "secret" {
  type      = string
  default   = "hunter2"
  sensitive = true
}

variable "count_n" {
  type    = number
  default = 2
}

variable "required_num" {
  type = number
}

variable "settings" {
  type = object({
    enabled = bool
    tags    = map(string)
    ports   = list(number)
  })
  default = {
    enabled = true
    tags    = { env = "dev", team = "core" }
    ports   = [80, 443]
  }
}

locals {
  greeting  = "hello ${var.name}"
  nums      = [1, 2, 3]
  obj       = { a = 1, b = "two", c = [true, false], d = null }
  multi     = "line1\nline2\n"
  indented  = { text = "a\nb" }
  a_map     = tomap({ x = 1, y = 2 })
  a_set     = toset(["b", "a", "c"])
  a_list    = tolist(["x", "y"])
  nested    = { outer = { inner = [{ k = "v" }, { k = "w" }] } }
  empty_obj = {}
  empty_tup = []
  typed_null_str = tostring(null)
  big       = 12345678901234567890
  frac      = 2.5
  negative  = -17
  quoted    = "tab\there \"quote\" back\\slash"
  unicode   = "héllo wörld ✓"
  eot_inside = "EOT\nmore"
  secret_obj = { user = "admin", pass = var.secret }
  ids       = terraform_data.many[*].id
  by_key    = { for k, v in terraform_data.keyed : k => v.output }
}

resource "terraform_data" "one" {
  input = local.one_input
}

resource "terraform_data" "many" {
  count = var.count_n
  input = count.index * 10
}

resource "terraform_data" "keyed" {
  for_each = toset(["alpha", "beta"])
  input    = upper(each.key)
}

resource "terraform_data" "hidden" {
  input = var.secret
}

module "child" {
  source = "./modules/child"
  prefix = var.name
}

module "each" {
  source   = "./modules/child"
  for_each = { first = "1", second = "2" }
  prefix   = each.value
}

output "greeting" {
  value = local.greeting
}
