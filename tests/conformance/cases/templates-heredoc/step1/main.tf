locals {
  items = ["x", "y", "z"]
  flag  = true
}
resource "terraform_data" "t" {
  input = {
    heredoc = <<-EOT
      first line
        indented ${upper("two")}
      %{ for i, v in local.items ~}
      item ${i}=${v}
      %{ endfor ~}
      %{ if local.flag }yes%{ else }no%{ endif }
    EOT
    plain  = <<EOT
raw $${not_interpolated} ${1 + 2}
EOT
    inline = "a%{ if !local.flag }b%{ endif }c ${join("|", local.items)}"
    strip  = "[ %{~ for v in local.items ~} ${v} %{~ endfor ~} ]"
  }
}
output "t" {
  value = terraform_data.t.output
}
