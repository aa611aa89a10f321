resource "a" "b" = {
}
