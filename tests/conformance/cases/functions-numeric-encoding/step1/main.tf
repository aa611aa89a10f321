resource "terraform_data" "n" {
  input = {
    max      = max(1, 5, 3)
    min      = min(4, 2)
    pow      = pow(2, 10)
    floor    = floor(4.7)
    ceil     = ceil(4.2)
    abs      = abs(-3)
    parseint = parseint("ff", 16)
    signum   = signum(-9)
    log      = log(8, 2)
    div      = 7 / 2
    mod      = 7 % 3
    json     = jsondecode("{\"a\":[1,true,null]}")
    yaml     = yamlencode({ a = 1, b = ["x"] })
    csv      = csvdecode("a,b\n1,2\n")
    b64      = base64decode("aGVsbG8=")
    url      = urlencode("a b&c")
    cidrhost = cidrhost("10.0.0.0/16", 5)
    subnet   = cidrsubnet("10.0.0.0/16", 8, 2)
    subnets  = cidrsubnets("10.0.0.0/16", 4, 4, 8)
    netmask  = cidrnetmask("10.0.0.0/12")
    tostr    = tostring(12)
    tonum    = tonumber("3.5")
    type     = can(tonumber("x"))
    try      = try(tonumber("x"), "fallback")
    uuidv5   = uuidv5("dns", "example.com")
    fmtdate  = formatdate("YYYY-MM-DD", "2024-03-05T10:00:00Z")
    timeadd  = timeadd("2024-01-01T00:00:00Z", "90m")
  }
}
output "n" { value = terraform_data.n.output }
