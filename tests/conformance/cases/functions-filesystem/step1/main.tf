locals {
  users = ["ann", "bob"]
}
resource "terraform_data" "f" {
  input = {
    file         = file("${path.module}/files/hello.txt")
    exists       = fileexists("files/hello.txt")
    missing      = fileexists("files/nope.txt")
    fileset      = fileset(path.module, "files/*.txt")
    fileset_glob = sort(fileset("${path.module}/files", "**"))
    b64          = filebase64("files/hello.txt")
    md5          = filemd5("files/hello.txt")
    sha1         = filesha1("files/hello.txt")
    sha256       = filesha256("files/hello.txt")
    sha512       = filesha512("files/hello.txt")
    b64sha256    = filebase64sha256("files/hello.txt")
    b64sha512    = filebase64sha512("files/hello.txt")
    basename     = basename("a/b/c.txt")
    dirname      = dirname("a/b/c.txt")
    templ        = templatefile("${path.module}/files/greeting.tftpl", { users = local.users, title = "Team" })
    templ_json   = jsondecode(templatefile("files/data.json.tftpl", { n = 3 }))
    module_file  = module.m.content
  }
}
module "m" {
  source = "./mod"
}
output "f" { value = terraform_data.f.output }
