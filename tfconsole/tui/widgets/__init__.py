"""The console's widgets: each owns its rendering and posts messages up to the app."""
from .console_tree import ConsoleTree, NodeInfo, TreeNode
from .diagnostics import DiagnosticsPane
from .key_bar import KeyBar
from .status_bar import StatusBar

__all__ = ["ConsoleTree", "DiagnosticsPane", "KeyBar", "NodeInfo", "StatusBar", "TreeNode"]
