# The bundled demo: ~30 resources across two local modules, with count, for_each,
# random names, files written under ./out, a few short sleeps and sensitive values.
# Step 2 (leaves orphans): apply with -var='services=["api","web"]' -var=workers=1

terraform {
  required_providers {
    random = { source = "hashicorp/random" }
    local  = { source = "hashicorp/local" }
    time   = { source = "hashicorp/time" }
    null   = { source = "hashicorp/null" }
  }
}

variable "services" {
  type    = list(string)
  default = ["api", "web", "jobs"]
}

variable "workers" {
  type    = number
  default = 3
}

variable "db_password_length" {
  type    = number
  default = 20
}

locals {
  env    = terraform.workspace == "default" ? "demo" : terraform.workspace
  labels = { env = local.env, owner = "ops" }
}

resource "random_pet" "project" {
  length = 2
}

resource "time_static" "created" {}

resource "random_password" "db" {
  length  = var.db_password_length
  special = false
}

module "network" {
  source  = "./modules/network"
  project = random_pet.project.id
  zones   = toset(["a", "b", "c"])
}

module "service" {
  source   = "./modules/service"
  for_each = toset(var.services)

  name    = each.key
  project = random_pet.project.id
  subnet  = module.network.subnets["a"]
  secret  = random_password.db.result
  labels  = local.labels
}

resource "terraform_data" "worker" {
  count = var.workers
  input = {
    name   = "${random_pet.project.id}-worker-${count.index}"
    subnet = module.network.subnets[element(["a", "b", "c"], count.index)]
  }
}

resource "time_sleep" "settle" {
  depends_on      = [module.service]
  create_duration = "2s"
}

resource "local_file" "inventory" {
  filename        = "${path.module}/out/inventory.txt"
  file_permission = "0644"
  content = templatefile("${path.module}/inventory.tftpl", {
    project  = random_pet.project.id
    services = [for s in module.service : s.endpoint]
    workers  = terraform_data.worker[*].output.name
  })
  depends_on = [time_sleep.settle]
}

output "project" {
  value = random_pet.project.id
}

output "created" {
  value = time_static.created.rfc3339
}

output "endpoints" {
  value = { for k, s in module.service : k => s.endpoint }
}

output "db_password" {
  value     = random_password.db.result
  sensitive = true
}
