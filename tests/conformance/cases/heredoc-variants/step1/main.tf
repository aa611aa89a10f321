locals {
  names = ["web", "db"]
  on    = true
}
output "plain" {
  value = <<EOT
line one
  indented ${local.names[0]}
    more $${escaped}
EOT
}
output "indented" {
  value = <<-EOT
    first
      second ${upper(local.names[1])}
    third
    EOT
}
output "directives" {
  value = <<-EOT
    servers:
    %{ for n in local.names ~}
      - ${n}
    %{ endfor ~}
    %{~ if local.on }
    enabled
    %{ else }
    disabled
    %{ endif ~}
    done
  EOT
}
output "strip_both" {
  value = <<EOT
%{ for i, n in local.names ~}
${i}=${n}
%{~ endfor }
end
EOT
}
output "mixed_indent" {
  value = <<-END
      deep
    shallow
        deeper %{ if local.on }on%{ endif }
  END
}
output "empty_lines" {
  value = <<-EOT

    after blank

    EOT
}
output "inline_in_fn" {
  value = trimspace(<<-EOT
    ${join(",", local.names)}
  EOT
  )
}
resource "terraform_data" "h" {
  input = <<-JSON
    {"names": ${jsonencode(local.names)}, "on": ${local.on}}
  JSON
}
output "json_roundtrip" { value = jsondecode(terraform_data.h.output) }
