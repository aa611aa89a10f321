locals {
  name = "world"
  simple = "hello ${local.name}"
  escaped = "literal $${not_interp} and %%{not_directive}"
  dollar = "cost: $5 and 100%"
  directive = "%{ if local.name == "world" }yes%{ else }no%{ endif }"
  strip = "a ${~ local.name ~} b"
  for_dir = "%{for x in ["a", "b"]}${x},%{endfor}"
  nested_quotes = "${upper("${local.name}-x")}"
  obj_interp = "${ {a = 1}.a }"
  escapes = "tab\there \"quoted\" back\\slash unicode \u00e9 \U0001F600"
  heredoc = <<EOT
Hello, ${local.name}!
  Indented line
%{ if true }directive line%{ endif }
EOT
  heredoc_flush = <<-EOT
    flush heredoc
      keeps relative indent
    ${local.name}
  EOT
  heredoc_trailing_spaces = <<EOT
text
EOT
  heredoc_in_call = upper(<<EOT
inside a call
EOT
  )
  heredoc_multi_interp = <<EOT
${join(",", [
  "a",
  "b",
])}
EOT
  heredoc_list = [<<EOT
first
EOT
    , "second"]
  after_heredocs = "ok"
  x = 1
}
