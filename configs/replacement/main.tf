# Replacement: changing an argument the provider cannot update in place forces the resource to be
# destroyed and created again. Step 2: apply with -var=release=2.

variable "release" {
  type    = string
  default = "1"
}

# keepers: a new release gives a new random id (replace).
resource "random_id" "build" {
  byte_length = 4
  keepers     = { release = var.release }
}

# Every local_file argument forces replacement; the content changes with the release and the id.
resource "local_file" "manifest" {
  filename        = "${path.module}/out/manifest.txt"
  file_permission = "0644"
  content         = "release ${var.release} build ${random_id.build.hex}\n"
}

# triggers_replace: replaced whenever the release changes; create_before_destroy creates the new
# one before the old one is destroyed.
resource "terraform_data" "deployment" {
  triggers_replace = [var.release]
  input            = "deploy release ${var.release}"

  lifecycle {
    create_before_destroy = true
  }
}

# Not affected by the release: stays as it is in step 2.
resource "random_pet" "site" {
  length = 2
}

output "manifest" {
  value = local_file.manifest.content
}
