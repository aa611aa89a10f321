variable "name" {
  type = string
}

variable "project" {
  type = string
}

variable "subnet" {
  type = string
}

variable "secret" {
  type      = string
  sensitive = true
}

variable "labels" {
  type = map(string)
}

variable "replicas" {
  type    = number
  default = 2
}

resource "random_id" "suffix" {
  byte_length = 3
  keepers     = { name = var.name }
}

resource "terraform_data" "instance" {
  count = var.replicas
  input = {
    host   = "${var.project}-${var.name}-${random_id.suffix.hex}-${count.index}"
    subnet = var.subnet
    labels = merge(var.labels, { service = var.name })
  }
}

resource "local_sensitive_file" "config" {
  filename = "${path.root}/out/${var.name}.env"
  content  = <<-EOT
    SERVICE=${var.name}
    DB_PASSWORD=${var.secret}
  EOT
}

resource "null_resource" "register" {
  triggers = { hosts = join(",", terraform_data.instance[*].output.host) }
}

output "endpoint" {
  value = "https://${var.name}.${var.project}.example"
}
