"""tfconsole: Terraform's core engine in Python, with a terminal operations console.

The engine (everything but `tui/`) never imports textual.
"""
__version__ = "0.1.0"
TERRAFORM_VERSION = "1.15.0"
