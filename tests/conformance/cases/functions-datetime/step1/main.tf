locals {
  ts = "2024-02-29T13:45:07Z"
}
resource "terraform_data" "d" {
  input = {
    f1      = formatdate("DD MMM YYYY hh:mm ZZZ", local.ts)
    f2      = formatdate("EEEE, EEE, MMMM, MM, M, D, DD, YY", local.ts)
    f3      = formatdate("h:mm:ss AA aa", local.ts)
    f4      = formatdate("'literal' YYYY-MM-DD'T'HH:mm:ssZ", local.ts)
    f5      = formatdate("YYYY-MM-DD hh:mm ZZZZ ZZZZZ", "2024-01-01T10:00:00+05:30")
    add1    = timeadd(local.ts, "24h")
    add2    = timeadd(local.ts, "-1h30m15s")
    add3    = timeadd("2023-12-31T23:59:59Z", "1s")
    cmp1    = timecmp("2024-01-01T00:00:00Z", "2024-01-01T01:00:00+01:00")
    cmp2    = timecmp("2024-01-02T00:00:00Z", "2024-01-01T00:00:00Z")
    cmp3    = timecmp("2023-01-01T00:00:00Z", "2024-01-01T00:00:00Z")
    rfc3339 = formatdate("YYYY-MM-DD'T'hh:mm:ssZ", "2024-06-01T12:00:00.123456Z")
  }
}
output "d" { value = terraform_data.d.output }
