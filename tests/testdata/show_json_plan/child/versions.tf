terraform {
  required_providers {
    tfcheck = {
      source = "tfconsole/tfcheck"
    }
  }
}
