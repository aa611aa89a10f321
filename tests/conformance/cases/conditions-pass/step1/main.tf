variable "n" {
  type    = number
  default = 3
  validation {
    condition     = var.n > 0 && var.n < 10
    error_message = "Out of range."
  }
}
resource "terraform_data" "r" {
  count = var.n
  input = count.index * 2
  lifecycle {
    precondition {
      condition     = count.index < var.n
      error_message = "bad index"
    }
    postcondition {
      condition     = self.output == count.index * 2
      error_message = "bad output"
    }
  }
}
output "total" {
  value = sum(terraform_data.r[*].output)
  precondition {
    condition     = length(terraform_data.r) == var.n
    error_message = "wrong count"
  }
}
check "sanity" {
  assert {
    condition     = sum(terraform_data.r[*].output) < 100
    error_message = "too big"
  }
}
check "fails_but_warns" {
  assert {
    condition     = var.n > 5
    error_message = "n is small (only a warning)"
  }
}
