variable "project" {
  type = string
}

variable "zones" {
  type = set(string)
}

resource "random_integer" "octet" {
  min = 10
  max = 200
}

resource "terraform_data" "subnet" {
  for_each = var.zones
  input    = "10.${random_integer.octet.result}.${index(sort(tolist(var.zones)), each.key)}.0/24"
}

resource "time_sleep" "propagate" {
  for_each        = var.zones
  create_duration = "${index(sort(tolist(var.zones)), each.key) + 1}s"
  triggers        = { subnet = terraform_data.subnet[each.key].output }
}

output "subnets" {
  value = { for z, s in terraform_data.subnet : z => s.output }
}

resource "local_file" "routes" {
  filename        = "${path.root}/out/routes.txt"
  file_permission = "0644"
  content         = join("", [for z in sort(tolist(var.zones)) : "${z} ${terraform_data.subnet[z].output}\n"])
}
