terraform {
  required_providers {
    tfcheck = {
      source = "tfconsole/tfcheck"
    }
  }
}

variable "v" {
  type    = number
  default = 1
}

resource "tfcheck_thing" "doc" {
  name = jsonencode({ kind = "doc", rev = var.v, tags = ["a", "b"] })
  zone = jsonencode({ region = var.v > 1 ? "eu" : "us" })
  tags = { policy = jsonencode({ allow = var.v > 1 }) }
}
