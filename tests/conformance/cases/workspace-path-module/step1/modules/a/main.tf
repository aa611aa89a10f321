module "b" {
  source = "./b"
}
resource "terraform_data" "a" { input = [path.module, path.root, terraform.workspace] }
output "paths" { value = { a = path.module, b = module.b.path, ws = module.b.ws, root = path.root } }
