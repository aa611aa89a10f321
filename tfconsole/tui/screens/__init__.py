"""Modal screens: help and confirmation."""
from .confirm import ConfirmScreen
from .help import HelpScreen

__all__ = ["ConfirmScreen", "HelpScreen"]
