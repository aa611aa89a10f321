resource "terraform_data" "root_thing" { input = "hello" }
module "a" {
  source = "./ma"
}
