locals {
	a = 1
		bb = 2
  }   



resource "null_resource" "x" {
}