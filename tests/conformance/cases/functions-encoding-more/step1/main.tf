locals {
  obj = { name = "x", list = [1, 2.5, "s", null, true], nested = { "k-1" = "v" } }
}
resource "terraform_data" "e" {
  input = {
    json      = jsonencode(local.obj)
    jsonesc   = jsonencode("<tag> & \u2028 é")
    jsondec   = jsondecode("[1, \"2\", {\"a\": null}]")
    yamlenc   = yamlencode(local.obj)
    yamldec   = yamldecode("a: 1\nb:\n  - x\n  - 'y'\nc: {d: true}\ne: ~\n")
    yamlmulti = yamldecode("s: |\n  line1\n  line2\n")
    csv       = csvdecode("name,age\n\"Doe, J\",42\nann,7\n")
    b64       = base64encode("\u00ff binary-ish")
    urlenc    = urlencode("a/b?c=d&e=f g~_.-")
    b64gzip   = length(base64gzip("x")) > 0
  }
}
output "e" { value = terraform_data.e.output }
