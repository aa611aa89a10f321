"""The backend configuration `init` records, as Terraform 1.15 records it, and its use by every
later command.

``.terraform/terraform.tfstate`` (TF_DATA_DIR): ``{"version": 3, "terraform_version": V,
"backend": {"type": T, "config": {every argument of T's schema, null when unset}, "hash": H}}``.
`config` is the block's arguments merged with init's ``-backend-config=KEY=VALUE`` and
``-backend-config=FILE`` values; `hash` is Terraform's hash of the block alone (go-cty's
Value.Hash of the tuple [type, block object]: CRC-32 of its set-hash bytes), so Terraform and
tfconsole accept each other's file. A later command uses the recorded configuration while the
block still has that hash, and asks for `init` when the block has changed.
"""
from __future__ import annotations

import json
import os
import zlib
from decimal import Decimal
from typing import Any, Mapping

from tfconsole.diags import Diagnostics

STATE_FILE = "terraform.tfstate"


def schema_of(kind: str) -> dict[str, str]:
    """Argument name -> "string" | "bool" | "number" of a backend type tfconsole implements."""
    from . import BACKEND_SCHEMAS

    return BACKEND_SCHEMAS.get(kind, {})


# ---- Terraform's hash

def _hash_bytes(v: Any, kind: str) -> str:
    if v is None:
        return "~"
    if kind == "bool":
        return "T" if v else "F"
    if kind == "number":
        try:
            d = Decimal(str(v))
        except ArithmeticError:
            return json.dumps(str(v))
        return _go_g10(d)
    return json.dumps(str(v), ensure_ascii=False)  # Go's %q for ordinary text


def _go_g10(d: Decimal) -> str:
    """big.Float.String(): %g with 10 significant digits."""
    text = format(d, ".10g")
    if "e" in text:
        mant, exp = text.split("e")
        sign = exp[0] if exp[0] in "+-" else "+"
        return f"{mant}e{sign}{exp.lstrip('+-').rjust(2, '0')}"
    return text


def config_hash(kind: str, block: Mapping[str, Any]) -> int:
    schema = schema_of(kind)
    obj = "".join(_hash_bytes(block.get(n), schema[n]) + ";" for n in sorted(schema))
    return zlib.crc32(("<" + json.dumps(kind) + ";<" + obj + ">;>").encode("utf-8"))


# ---- the recorded configuration

def state_path(working_dir: str, env: Mapping[str, str] | None = None) -> str:
    env = env if env is not None else os.environ
    data_dir = env.get("TF_DATA_DIR") or ".terraform"
    if not os.path.isabs(data_dir):
        data_dir = os.path.join(working_dir or ".", data_dir)
    return os.path.join(data_dir, STATE_FILE)


def read_saved(working_dir: str) -> tuple[dict | None, Diagnostics]:
    """The recorded backend ({"type", "config", "hash"}), None when there is none."""
    diags = Diagnostics()
    path = state_path(working_dir)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f, parse_float=Decimal)
    except FileNotFoundError:
        return None, diags
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        return None, diags.error("Failed to read the backend configuration", f"{path}: {exc}")
    b = data.get("backend") if isinstance(data, dict) else None
    if b is None:
        return None, diags
    if not (isinstance(b, dict) and isinstance(b.get("type"), str) and isinstance(b.get("config"), dict)
            and isinstance(b.get("hash"), int)):
        return None, diags.error("Failed to read the backend configuration",
                                 f"{path}: \"backend\" must have a string \"type\", an object \"config\" and an "
                                 "integer \"hash\".")
    return b, diags


def write_saved(working_dir: str, kind: str | None, config: Mapping[str, Any], block: Mapping[str, Any]) -> None:
    """Record a backend (kind None: none, as after moving back to the default local backend)."""
    from tfconsole.states.manager import atomic_write
    from tfconsole.states.statefile import terraform_version

    doc: dict[str, Any] = {"version": 3, "terraform_version": terraform_version()}
    if kind is not None:
        schema = schema_of(kind)
        full = {n: _jsonable(config.get(n)) for n in sorted(schema)}
        doc["backend"] = {"type": kind, "config": full, "hash": config_hash(kind, block)}
    atomic_write(state_path(working_dir), json.dumps(doc, indent=2).encode("utf-8"))


def _jsonable(v: Any) -> Any:
    if isinstance(v, Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    try:
        d = Decimal(str(v))
        return int(d) if d == d.to_integral_value() else float(d)
    except ArithmeticError:
        return str(v)


def effective_settings(kind: str, block: dict[str, Any], working_dir: str) -> tuple[dict[str, Any], Diagnostics]:
    """The settings a command uses: the recorded ones while the block is unchanged, else the
    block's (no record yet: tfconsole, unlike Terraform, does not insist on `init` first), and
    Terraform's "Backend initialization required" when the block changed since `init`."""
    saved, diags = read_saved(working_dir)
    if diags.has_errors or saved is None:
        return block, diags
    if saved["type"] != kind:
        reason = f"Backend type changed from \"{saved['type']}\" to \"{kind}\""
    elif saved["hash"] != config_hash(kind, block):
        reason = "Backend configuration block has changed"
    else:
        return {k: v for k, v in saved["config"].items() if v is not None}, diags
    if kind == "local" and not block and saved["type"] != "local":
        reason = f"Unsetting the previously set backend \"{saved['type']}\""
    return block, diags.error("Backend initialization required, please run \"terraform init\"", init_detail(reason))


def init_detail(reason: str) -> str:
    return (f"Reason: {reason}\n\n"
            "The \"backend\" is the interface that Terraform uses to store state, perform operations, etc. If "
            "this message is showing up, it means that the Terraform configuration you're using is using a custom "
            "configuration for the Terraform backend.\n\n"
            "Changes to backend configurations require reinitialization. This allows Terraform to set up the new "
            "configuration, copy existing state, etc. Please run \"terraform init\" with either the "
            "\"-reconfigure\" or \"-migrate-state\" flags to use the current configuration.\n\n"
            "If the change reason above is incorrect, please verify your configuration hasn't changed and try "
            "again. At this point, no changes to your existing configuration or state have been made.")


# ---- -backend-config

def parse_overrides(values: list[str], kind: str) -> tuple[dict[str, Any], Diagnostics]:
    """init's -backend-config values, in order: KEY=VALUE (the value converted to the
    argument's type) or the path of a file of HCL arguments."""
    diags = Diagnostics()
    schema = schema_of(kind)
    out: dict[str, Any] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if sep and not os.path.isfile(item):
            key = key.strip()
            if key not in schema:
                diags.error("Invalid backend configuration argument",
                            f"The backend configuration argument \"{key}\" given on the command line is not "
                            "expected for the selected backend type.")
                continue
            out[key] = _typed(value, schema[key], key, diags)
            continue
        out.update(_from_file(item, schema, diags))
    return out, diags


def _typed(value: str, kind: str, key: str, diags: Diagnostics) -> Any:
    if kind == "bool":
        from .settings import FALSE, TRUE
        if value in TRUE or value in FALSE:
            return value in TRUE
        diags.error("Invalid backend configuration argument", f"The value for \"{key}\" must be a bool.")
        return None
    if kind == "number":
        try:
            return Decimal(value)
        except ArithmeticError:
            diags.error("Invalid backend configuration argument", f"The value for \"{key}\" must be a number.")
            return None
    return value


def _from_file(path: str, schema: Mapping[str, str], diags: Diagnostics) -> dict[str, Any]:
    from tfconsole.config.body import parse_file
    from tfconsole.config.model import static_value

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        diags.error("Failed to read file", f"The backend configuration file \"{path}\" could not be read: {exc}")
        return {}
    body, d = parse_file(text, path)
    diags.append(d)
    if body is None:
        return {}
    out: dict[str, Any] = {}
    for name, attr in body.attributes.items():
        if name not in schema:
            diags.error("Unsupported argument", f"An argument named \"{name}\" is not expected here.", attr.range)
            continue
        try:
            out[name] = static_value(attr.expr)
        except ValueError as exc:
            diags.error("Invalid backend configuration", f"\"{name}\" must be a constant value: {exc}", attr.range)
    for block in getattr(body, "blocks", []) or []:
        diags.error("Unsupported block type", "A backend configuration file has arguments only.",
                    getattr(block, "range", None))
    return out
