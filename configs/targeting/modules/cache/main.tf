variable "name" {
  type = string
}

resource "random_id" "key" {
  byte_length = 4
}

resource "local_file" "config" {
  filename        = "${path.root}/out/${var.name}.conf"
  file_permission = "0644"
  content         = "key=${random_id.key.hex}\n"
}
