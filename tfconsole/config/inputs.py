"""Root module input variable values from their sources, with Terraform's precedence:
environment (TF_VAR_name) < terraform.tfvars < terraform.tfvars.json < *.auto.tfvars(.json) in
lexical order < -var and -var-file in command-line order."""
from __future__ import annotations

import json
import os
from typing import Any

from tfconsole.diags import Diagnostics, Pos, SourceRange
from tfconsole.lang import ast as A
from tfconsole.lang.types import DynamicType, PrimitiveType, STRING
from tfconsole.lang.values import from_json_implied

from .body import parse_file
from .model import Module, static_value


def collect_inputs(root: Module, working_dir: str, cli: list[tuple[str, str]],
                   environ: dict[str, str] | None = None) -> tuple[dict[str, Any], Diagnostics]:
    """cli: ("var", "name=value") | ("var-file", path) in command-line order."""
    diags = Diagnostics()
    values: dict[str, Any] = {}
    env = os.environ if environ is None else environ
    for k, raw in env.items():
        if k.startswith("TF_VAR_"):
            name = k[7:]
            if name in root.variables:
                v = _raw_value(root, name, raw, f"TF_VAR_{name}", diags)
                if v is not _BAD:
                    values[name] = v
    files = []
    for name in ("terraform.tfvars", "terraform.tfvars.json"):
        p = os.path.join(root.dir, name)
        if os.path.isfile(p):
            files.append(p)
    try:
        autos = sorted(n for n in os.listdir(root.dir) if n.endswith(".auto.tfvars") or n.endswith(".auto.tfvars.json"))
    except OSError:
        autos = []
    files.extend(os.path.join(root.dir, n) for n in autos)
    for p in files:
        values.update(_file_values(root, p, diags, from_cli=False))
    for kind, text in cli:
        if kind == "var":
            if "=" not in text:
                diags.error("Invalid -var option",
                            f"The given -var option {text!r} is not correctly specified. Must be a variable name "
                            "and value separated by an equals sign, like -var=\"key=value\".")
                continue
            name, raw = text.split("=", 1)
            name = name.strip()
            if name not in root.variables:
                diags.error("Value for undeclared variable",
                            f"A variable named \"{name}\" was assigned on the command line, but the root module "
                            "does not declare a variable of that name. To use this value, add a \"variable\" block "
                            "to the configuration.")
                continue
            v = _raw_value(root, name, raw, "-var", diags)
            if v is not _BAD:
                values[name] = v
        else:
            path = text if os.path.isabs(text) else os.path.join(working_dir, text)
            if not os.path.isfile(path):
                diags.error("Failed to read variables file", f"Given variables file {text} does not exist.")
                continue
            values.update(_file_values(root, path, diags, from_cli=True))
    return values, diags


_BAD = object()


def _raw_value(root: Module, name: str, raw: str, where: str, diags: Diagnostics) -> Any:
    var = root.variables.get(name)
    ty = var.type if var else STRING
    if isinstance(ty, PrimitiveType) or (isinstance(ty, DynamicType) and not (raw.strip().startswith(("[", "{")))):
        return raw
    try:
        expr = A.parse_expression(raw, where)
        return static_value(expr)
    except (A.ParseError, ValueError) as exc:
        diags.error("Invalid value for variable" if where != "-var" else "Invalid expression for variable",
                    f"Expected an HCL expression for variable \"{name}\" given by {where}: "
                    f"{getattr(exc, 'message', exc)}")
        return _BAD


def _file_values(root: Module, path: str, diags: Diagnostics, from_cli: bool) -> dict[str, Any]:
    display = os.path.relpath(path, root.dir) if not from_cli else path
    out: dict[str, Any] = {}
    try:
        text = open(path, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError) as exc:
        diags.error("Failed to read variables file", f"Error reading {display}: {exc}")
        return out
    if path.endswith(".json"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            diags.error("Invalid JSON", f"{display}: {exc.msg}",
                        SourceRange(display, Pos(exc.lineno, exc.colno), Pos(exc.lineno, exc.colno)))
            return out
        for k, v in (data or {}).items():
            out[k] = from_json_implied(v)
        return out
    body, d = parse_file(text, display)
    diags.append(d)
    if body is None:
        return out
    for blk in body.blocks:
        diags.error("Unexpected block", f"Blocks are not allowed in variables files ({blk.type}).", blk.range)
    for name, attr in body.attributes.items():
        if name not in root.variables:
            diags.warning("Value for undeclared variable",
                          f"The root module does not declare a variable named \"{name}\" but a value was found in "
                          f"file \"{display}\". If you meant to use this value, add a \"variable\" block to the "
                          "configuration.", attr.range)
            continue
        try:
            out[name] = static_value(attr.expr)
        except ValueError as exc:
            diags.error("Variables not allowed", f"Variables may not be used here: {exc}", attr.range)
    return out
