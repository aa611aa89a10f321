"""The console's widgets: each owns its rendering and posts messages up to the app."""
from .console_tree import ConsoleTree, NodeInfo
from .diagnostics import DiagnosticsPane
from .status_bar import StatusBar

__all__ = ["ConsoleTree", "DiagnosticsPane", "NodeInfo", "StatusBar"]
