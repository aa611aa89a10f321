a = {
  b
}
