locals {
  a = 1
  bbb = "two" # comment
  heredoc = <<EOT
line one
EOT
}

resource "null_resource" "r" {
  triggers = {
    k=1
  }
}
