"""The module calls of a configuration, for `init`, `get` and `modules`.

tfconsole loads only local modules (./ and ../ sources), which need no download: "installing"
them means recording each call in .terraform/modules/modules.json, the manifest Terraform itself
reads before it will use a working directory, and saying which calls are new ("- a.b in m/n").
`modules` draws the calls as Terraform's tree, or lists them as its JSON.
"""
from __future__ import annotations

import json
import os
from typing import Any, Callable

from tfconsole.diags import Diagnostics


def _data_dir() -> str:
    return os.environ.get("TF_DATA_DIR") or ".terraform"


def manifest_records(root: Any) -> list[dict[str, str]]:
    """The manifest's records: the root, then every call depth first by name, each keyed by
    its dotted path of call names (one record per call, whatever its count or for_each)."""
    records = [{"Key": "", "Source": "", "Dir": "."}]

    def walk(mod: Any, prefix: str) -> None:
        for name in sorted(mod.children):
            child, call = mod.children[name], mod.module_calls.get(name)
            key = f"{prefix}{name}"
            rel = os.path.relpath(child.dir, ".").replace(os.sep, "/")
            records.append({"Key": key, "Source": call.source if call else "", "Dir": rel})
            walk(child, key + ".")

    walk(root, "")
    return records


def installed_records() -> set[tuple[str, str, str]]:
    """(key, source, dir) of the modules the manifest already records."""
    try:
        with open(os.path.join(_data_dir(), "modules", "modules.json"), encoding="utf-8") as fh:
            data = json.load(fh)
        return {(str(m.get("Key")), str(m.get("Source")), str(m.get("Dir"))) for m in data.get("Modules", [])
                if isinstance(m, dict)}
    except (OSError, ValueError, AttributeError, TypeError):
        return set()


def install(root: Any, line: Callable[[str], None], update: bool = False,
            heading: Callable[[], None] | None = None) -> bool:
    """Record root's module calls in the manifest, saying "- KEY in DIR" for each call the
    manifest did not have yet (every call with update, as Terraform's -update re-checks them
    all). heading is said first when there is any call. False: the configuration calls none."""
    records = manifest_records(root)
    if len(records) == 1:
        return False
    if heading is not None:
        heading()
    installed = set() if update else installed_records()
    for r in records[1:]:
        if (r["Key"], r["Source"], r["Dir"]) not in installed:
            line(f"- {r['Key']} in {r['Dir']}")
    path = os.path.join(_data_dir(), "modules")
    os.makedirs(path, exist_ok=True)
    _write_atomic(os.path.join(path, "modules.json"), json.dumps({"Modules": records}, separators=(",", ":")))
    return True


def _write_atomic(path: str, text: str) -> None:
    """A reader (Terraform beside us) sees the old manifest or the new one, never half of it.
    The same text is not written again: a warm init would pay a file replacement (~5 ms) for nothing."""
    try:
        with open(path, encoding="utf-8") as fh:
            if fh.read() == text:
                return
    except (OSError, ValueError):
        pass
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


# ---------------------------------------------------------------------------
# the commands


def _load(cli: Any) -> tuple[Any, Diagnostics]:
    from tfconsole.config.loader import load_config

    root, diags = load_config(".")
    if root is not None:
        cli.files = {k: v for m in root.descendants() for k, v in m.files.items()}
    return root, diags


def run_get(cli: Any, a: Any) -> int:
    """`get`: record the module calls (local modules need no download); like Terraform's, it
    reports the configuration's load errors but no help prompt."""
    root, diags = _load(cli)
    if root is not None:
        install(root, cli.out, update=a.bool("update"))
    cli.diags(diags, legacy_ui=True)
    return 1 if diags.has_errors or root is None else 0


def run_modules(cli: Any, a: Any) -> int:
    """`modules [-json]`: the declared module calls as Terraform's tree or JSON list."""
    root, diags = _load(cli)
    if diags.has_errors or root is None:
        cli.diags(diags)
        return 1
    tree = _tree(root)
    if a.bool("json"):
        cli.out(json.dumps({"format_version": "1.0", "modules": _flatten(tree) or None}, separators=(",", ":")))
        return 0
    if not tree:
        cli.out("No modules found in configuration.")
        return 0
    cli.out("\nModules declared by configuration:\n.\n" + "".join(_draw(tree, "")))
    return 0


Tree = list[tuple[str, str, "Tree"]]  # (call name, source, calls of the called module)


def _tree(mod: Any) -> Tree:
    return [(name, getattr(mod.module_calls.get(name), "source", ""), _tree(mod.children[name]))
            for name in sorted(mod.children)]


def _flatten(tree: Tree) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for name, source, children in tree:
        out.append({"key": name, "source": source, "version": ""})  # local modules have no version
        out.extend(_flatten(children))
    return out


def _draw(tree: Tree, indent: str) -> list[str]:
    """Box-drawing branches as Terraform's tree printer draws them (its continuing edge is a
    vertical bar and two no-break spaces)."""
    lines: list[str] = []
    for i, (name, source, children) in enumerate(tree):
        last = i == len(tree) - 1
        lines.append(f"{indent}{'└── ' if last else '├── '}\"{name}\"[{source}]\n")
        lines.extend(_draw(children, indent + ("    " if last else "│\u00a0\u00a0 ")))
    return lines
