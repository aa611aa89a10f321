resource "terraform_data" "ip" {
  input = {
    host_neg   = cidrhost("192.168.0.0/24", -2)
    host_big   = cidrhost("10.0.0.0/8", 65537)
    v6host     = cidrhost("fd00:fd12:3456:7890::/56", 34)
    netmask    = cidrnetmask("172.16.0.0/12")
    netmask32  = cidrnetmask("1.2.3.4/32")
    subnet_v4  = cidrsubnet("172.16.0.0/12", 4, 15)
    subnet_v6  = cidrsubnet("fd00:fd12:3456:7890::/56", 16, 162)
    subnet_0   = cidrsubnet("10.1.2.0/24", 0, 0)
    subnets    = cidrsubnets("10.1.0.0/16", 4, 4, 8, 4)
    subnets_v6 = cidrsubnets("fd00:fd12:3456:7890::/56", 16, 16, 16, 32)
    nonorm     = cidrsubnet("10.1.2.3/16", 8, 1)
  }
}
output "ip" { value = terraform_data.ip.output }
