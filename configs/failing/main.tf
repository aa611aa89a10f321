# A failing resource: local_file.broken writes below "blocked", which is a regular file, so the
# directory cannot be created. Only it and what depends on it fail; everything else is created
# and kept in the state.

resource "random_pet" "name" {
  length = 2
}

resource "local_file" "ok" {
  filename        = "${path.module}/out/ok.txt"
  file_permission = "0644"
  content         = "${random_pet.name.id}\n"
}

resource "local_file" "broken" {
  filename = "${path.module}/blocked/broken.txt"
  content  = "${random_pet.name.id} never gets written\n"
}

# Depends on the failing resource: never started.
resource "terraform_data" "after_broken" {
  input = local_file.broken.id
}

# Independent: created whatever happens to local_file.broken.
resource "terraform_data" "independent" {
  input = "independent"
}
