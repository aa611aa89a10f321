"""Provider plugins: Terraform's CLI configuration, installation into .terraform/providers, the lock
file, and (from the plugin protocol client) launching and speaking to provider executables."""
