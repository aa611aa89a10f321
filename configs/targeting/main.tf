# Targeting: -target limits plan and apply to the given resources and what they depend on.
#   apply -target=local_file.app        # random_pet.app and local_file.app only
#   apply -target='local_file.shard[1]' # just that one instance
#   apply -target=module.cache          # everything in the module (and what it depends on)

resource "random_pet" "app" {
  length = 2
}

resource "local_file" "app" {
  filename        = "${path.module}/out/app.txt"
  file_permission = "0644"
  content         = "app ${random_pet.app.id}\n"
}

resource "random_pet" "db" {
  length = 3
}

resource "local_file" "db" {
  filename        = "${path.module}/out/db.txt"
  file_permission = "0644"
  content         = "db ${random_pet.db.id}\n"
}

resource "local_file" "shard" {
  count           = 3
  filename        = "${path.module}/out/shard-${count.index}.txt"
  file_permission = "0644"
  content         = "shard ${count.index}\n"
}

module "cache" {
  source = "./modules/cache"
  name   = "cache"
}
