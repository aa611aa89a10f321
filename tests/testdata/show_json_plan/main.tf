terraform {
  required_providers {
    tfcheck = {
      source  = "tfconsole/tfcheck"
      version = ">= 0.1.0, < 2.0.0"
    }
  }
}

provider "tfcheck" {
  store = "${path.root}/store"
}

variable "names" {
  type    = set(string)
  default = ["a", "b"]
}

variable "secret" {
  type        = string
  sensitive   = true
  default     = "s3"
  description = "a secret"
}

variable "s" {
  type    = string
  default = null
}

variable "req" {
  type = number
}

locals {
  n = 2
}

resource "terraform_data" "counted" {
  count = local.n
  input = "x-${count.index}"
}

resource "terraform_data" "each" {
  for_each   = var.names
  input      = each.key
  depends_on = [terraform_data.counted]
  lifecycle {
    postcondition {
      condition     = self.output != ""
      error_message = "bad"
    }
    precondition {
      condition     = var.req > 0
      error_message = "req"
    }
  }
}

resource "terraform_data" "consts" {
  input = {
    a = 1
    b = [true, null]
    c = "str"
  }
  triggers_replace = upper("x")
}

resource "tfcheck_thing" "t" {
  name = "t1"
  size = var.req
  tags = { k = terraform_data.counted[0].output, j = var.secret }
}

data "tfcheck_echo" "e" {
  input = tfcheck_thing.t.label
}

module "child" {
  source = "./child"
  value  = terraform_data.counted[0].output
  n      = 3
  depends_on = [terraform_data.consts]
}

output "o" {
  value = terraform_data.counted[*].output
}

output "sec" {
  value       = var.secret
  sensitive   = true
  depends_on  = [terraform_data.each]
  description = "secret out"
}

output "child" {
  value = module.child.out
}

output "const" {
  value = 42
}

check "c" {
  assert {
    condition     = length(var.names) > 0
    error_message = "x"
  }
}
