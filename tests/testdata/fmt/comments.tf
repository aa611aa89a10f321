# A file whose comments must all survive formatting.
// Slash-slash comments too.
/* A block comment
   spanning lines,    with odd spacing inside */

/* before a block */ terraform {
  required_version = ">= 1.0" # trailing hash
# misplaced comment at column zero
      # deeply indented comment
  required_providers {
    null = {   # after an open brace
      source  = "hashicorp/null"  // trailing slashes
      version = "~> 3.0" /* trailing block */
    }
  }
}

variable "region" {   # comment after block header
  type    = string # a
  default = "eu-west-1"      # b, aligned with a
  description = "The region"
  /* a comment between attributes */
  sensitive = false
}

locals {
  # lead comment for a
  a = 1
  bb = 2 # trailing on bb

  # after a blank line
  ccc = 3
  dddd = /* inline before value */ 4
  eeeee = 5 /* block after value */ # and a line comment
  list = [
    1, # one
    2, /* two */
    # a comment between items
    3
  ]
  obj = {
    # leading comment in object
    k1 = "v1" # c1
    key2 = "v2" // c2
    /* block */ k3 = "v3"
  }
  call = merge(
    # why this map
    { a = 1 },
    { b = 2 }, # second
  )
}

resource "null_resource" "r" /* after labels */ {
  triggers = {
    x = "y" # keep me
  }
  # comment before a nested block
  provisioner "local-exec" {
    command = "echo hi" # run
  }
} # after closing brace

# trailing comment at end of file
