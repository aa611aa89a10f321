"""Provider plugins used by the plugin tests (run as separate processes)."""
