"""tfconsole: Terraform's core engine in Python, with a terminal operations console.

The engine (everything but `tui/`) never imports textual.
"""
__version__ = "0.1.0"
TERRAFORM_VERSION = "1.15.0"


def _dataclasses_without_inspect() -> None:
    """Import dataclasses with `inspect` left for later. dataclasses imports inspect (with ast,
    dis, tokenize and linecache: ~5 ms of every command) for one call, a signature for the
    docstring of a class that has none; tfconsole.records gives its classes one. A stand-in sits
    in sys.modules while dataclasses imports, and imports the real module when first asked for an
    attribute. It is a plain module object (its __spec__ is None), so the import statement's own
    check of the module does not set it off, as it does a LazyLoader's module."""
    import sys

    if "dataclasses" in sys.modules or "inspect" in sys.modules:
        return

    class _Inspect(type(sys)):  # type: ignore[misc]
        def __getattr__(self, name: str) -> object:
            if sys.modules.get("inspect") is self:
                del sys.modules["inspect"]
            import inspect

            dataclasses.inspect = inspect  # type: ignore[attr-defined]  # later calls go straight there
            return getattr(inspect, name)

    stand_in = _Inspect("inspect")
    sys.modules["inspect"] = stand_in
    try:
        import dataclasses
    finally:
        if sys.modules.get("inspect") is stand_in:
            del sys.modules["inspect"]


_dataclasses_without_inspect()
