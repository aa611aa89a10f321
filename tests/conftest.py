import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
os.environ.setdefault("CHECKPOINT_DISABLE", "1")

# fixtures for the provider-plugin tests (real provider executables, workspaces)
pytest_plugins = ["plugin_support"]
