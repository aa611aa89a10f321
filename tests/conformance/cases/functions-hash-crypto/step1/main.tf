locals {
  s = "The quick brown fox ✓"
}
resource "terraform_data" "h" {
  input = {
    md5       = md5(local.s)
    sha1      = sha1(local.s)
    sha256    = sha256(local.s)
    sha512    = sha512(local.s)
    b64sha256 = base64sha256(local.s)
    b64sha512 = base64sha512(local.s)
    uuidv5a   = uuidv5("url", "https://example.com/x")
    uuidv5b   = uuidv5("oid", "1.3.6.1")
    uuidv5c   = uuidv5("x500", "cn=x")
    uuidv5d   = uuidv5("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "custom")
    b64enc    = base64encode(local.s)
    b64dec    = base64decode(base64encode(local.s))
    textenc   = textencodebase64("héllo", "UTF-16LE")
    textdec   = textdecodebase64("aABpAA==", "UTF-16LE")
    md5empty  = md5("")
    bcryptlen = length(bcrypt("pw", 4))
  }
}
output "h" { value = terraform_data.h.output }
