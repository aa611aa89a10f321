# Dependencies: Terraform orders work by references (implicit) and depends_on (explicit).
# Nothing here can start before what it refers to has been created, and destroy runs in reverse.

resource "random_pet" "name" {
  length = 2
}

# Implicit dependency: the content refers to random_pet.name.
resource "local_file" "greeting" {
  filename        = "${path.module}/out/greeting.txt"
  file_permission = "0644"
  content         = "hello, ${random_pet.name.id}\n"
}

# A chain through an attribute computed at apply time (local_file.greeting.id, its SHA-1).
resource "terraform_data" "checksum" {
  input = local_file.greeting.id
}

# Explicit dependency: nothing is referenced, but the pause must follow the greeting file.
resource "time_sleep" "pause" {
  create_duration = "1s"
  depends_on      = [local_file.greeting]
}

# Depends on both branches: created last, destroyed first.
resource "local_file" "summary" {
  filename        = "${path.module}/out/summary.txt"
  file_permission = "0644"
  content         = "${random_pet.name.id} ${terraform_data.checksum.output}\n"
  depends_on      = [time_sleep.pause]
}

# Independent of everything above: may run at any time, in parallel with the chain.
resource "random_integer" "lucky" {
  min = 1
  max = 100
}

output "name" {
  value = random_pet.name.id
}

output "summary" {
  value = local_file.summary.content
}
