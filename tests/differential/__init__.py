"""tfconsole's own differential harness against real Terraform (see harness.py, README.md)."""
