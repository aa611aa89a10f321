locals {
  tpl = "Hi $${name}!"
}
resource "terraform_data" "s" {
  input = {
    format     = format("%-5s|%5.2f|%03d|%x|%q|%t|%v", "ab", 3.14159, 7, 255, "q", true, [1])
    formatlist = formatlist("%s=%d", ["a", "b"], [1, 2])
    join       = join("-", ["a", "b", "c"])
    split      = split(",", "a,,b")
    regex      = regex("(\\d+)-(\\w+)", "id 42-abc rest")
    regexnamed = regex("(?P<num>\\d+)", "x99")
    regexall   = regexall("[a-z]\\d", "a1 b2 c3")
    replace    = replace("hello world", "o", "0")
    replacere  = replace("a1b22c333", "/\\d+/", "#")
    replacecap = replace("john smith", "/(\\w+) (\\w+)/", "$2, $1")
    trim       = trim("??hi??", "?")
    trimprefix = trimprefix("prefix-body", "prefix-")
    trimsuffix = trimsuffix("body.txt", ".txt")
    trimspace  = trimspace("  \n x y \t")
    title      = title("hello big world")
    upper      = upper("mIxEd")
    lower      = lower("MiXeD")
    substr     = substr("hello world", -5, 3)
    substr2    = substr("abc", 1, -1)
    strrev     = strrev("abc✓")
    indent     = indent(2, "a\nb\n")
    chomp      = chomp("line\n\n")
    startswith = startswith("terraform", "terra")
    endswith   = endswith("terraform", "form")
    contains   = strcontains("terraform", "rafo")
    length     = length("🙂 ok")
  }
}
output "s" { value = terraform_data.s.output }
