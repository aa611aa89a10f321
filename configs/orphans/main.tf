# Orphans: instances that are in the state but no longer in the configuration are planned for
# destruction. Step 2 (leaves orphans): apply with -var='teams=["red"]' -var=shards=1

variable "teams" {
  type    = set(string)
  default = ["red", "green", "blue"]
}

variable "shards" {
  type    = number
  default = 3
}

# for_each: removing a key orphans that instance ("because key ... is not in for_each map").
resource "local_file" "team" {
  for_each        = var.teams
  filename        = "${path.module}/out/team-${each.key}.txt"
  file_permission = "0644"
  content         = "team ${each.key}\n"
}

# count: lowering the count orphans the high indexes ("because index ... is out of range for count").
resource "terraform_data" "shard" {
  count = var.shards
  input = "shard ${count.index}"
}

# Only its input changes in step 2: updated in place, not an orphan.
resource "terraform_data" "roster" {
  input = sort(tolist(var.teams))
}
