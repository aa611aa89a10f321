"""Filesystem functions. Relative paths resolve against FuncContext.base_dir."""
from __future__ import annotations

import base64
import os
import re
import stat

from ..types import BOOL, DYNAMIC, STRING, SetType
from ..values import Null, TMap, TSet, Unknown, unmark_deep
from . import FunctionError, Param, register


def expand_home(path: str, ctx) -> str:
    if not path.startswith("~"):
        return path
    if len(path) > 1 and path[1] not in "/\\":
        raise FunctionError("failed to expand ~: cannot expand user-specific home dir")
    home = ctx.home_dir or os.environ.get("HOME") or os.path.expanduser("~")
    return home + path[1:]


def go_clean(path: str) -> str:
    """Go's filepath.Clean for slash-separated paths."""
    if path == "":
        return "."
    rooted = path.startswith("/")
    parts: list[str] = []
    for p in path.split("/"):
        if p in ("", "."):
            continue
        if p == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not rooted:
                parts.append("..")
            continue
        parts.append(p)
    out = "/".join(parts)
    if rooted:
        return "/" + out
    return out or "."


def resolve_path(path: str, ctx) -> str:
    path = expand_home(path, ctx)
    if not os.path.isabs(path):
        path = os.path.join(ctx.base_dir, path)
    return go_clean(path)


def read_file_bytes(path: str, ctx) -> bytes:
    full = resolve_path(path, ctx)
    try:
        with open(full, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise FunctionError(
            f'no file exists at "{full}"; this function works only with files that are distributed '
            "as part of the configuration source code, so if this file will be created by a resource "
            "in this configuration you must instead obtain this result from an attribute of that "
            "resource", 0) from None
    except OSError:
        raise FunctionError(f'failed to read file "{full}"', 0) from None


def read_file_text(path: str, ctx) -> str:
    raw = read_file_bytes(path, ctx)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        full = resolve_path(path, ctx)
        raise FunctionError(
            f'contents of "{full}" are not valid UTF-8; use the filebase64 function to obtain the '
            "Base64 encoded contents or the other file functions (e.g. filemd5, filesha256) to obtain "
            "file hashing results instead") from None


@register("file", [Param("path", STRING)], STRING)
def _file(args, ctx):
    return read_file_text(args[0], ctx)


@register("filebase64", [Param("path", STRING)], STRING)
def _filebase64(args, ctx):
    return base64.b64encode(read_file_bytes(args[0], ctx)).decode("ascii")


@register("fileexists", [Param("path", STRING)], BOOL)
def _fileexists(args, ctx):
    full = resolve_path(args[0], ctx)
    try:
        st = os.stat(full)
    except FileNotFoundError:
        return False
    except OSError:
        raise FunctionError(f'failed to stat "{full}"') from None
    if stat.S_ISREG(st.st_mode):
        return True
    if stat.S_ISDIR(st.st_mode):
        raise FunctionError(f'"{full}" is a directory, not a file')
    raise FunctionError(f'"{full}" is not a regular file')


def _glob_regex(pattern: str) -> re.Pattern:
    """doublestar-style glob: ** crosses directories, {a,b} alternatives, [..] classes."""
    out = []
    i = 0
    n = len(pattern)
    depth = 0
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                # "**/" matches zero or more directories; "**" at the end matches anything
                if pattern.startswith("**/", i):
                    out.append("(?:[^/]*(?:/[^/]*)*/)?")
                    i += 3
                    continue
                out.append(".*")
                i += 2
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j < 0:
                raise FunctionError(f"failed to glob pattern ({pattern}): syntax error in pattern")
            body = pattern[i + 1:j]
            if body.startswith("!") or body.startswith("^"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = j + 1
            continue
        elif c == "{":
            depth += 1
            out.append("(?:")
        elif c == "}" and depth:
            depth -= 1
            out.append(")")
        elif c == "," and depth:
            out.append("|")
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(c))
        i += 1
    if depth:
        raise FunctionError(f"failed to glob pattern ({pattern}): syntax error in pattern")
    return re.compile("^" + "".join(out) + "$", re.S)


@register("fileset", [Param("path", STRING), Param("pattern", STRING)], SetType(STRING))
def _fileset(args, ctx):
    path, pattern = args
    root = resolve_path(path, ctx)
    rx = _glob_regex(go_clean(pattern) if pattern else pattern)
    found = []
    if os.path.isdir(root):
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for fn in sorted(filenames):
                full = os.path.join(dirpath, fn)
                if not os.path.isfile(full):
                    continue
                rel = os.path.relpath(full, root).replace(os.sep, "/")
                if rx.match(rel):
                    found.append(rel)
    return TSet(found, STRING)


@register("templatefile", [Param("path", STRING), Param("vars", DYNAMIC, allow_unknown=True)], DYNAMIC,
          nested_unknowns=True)
def _templatefile(args, ctx):
    path, vars_ = args
    if type(vars_) is Unknown:
        return Unknown(DYNAMIC)
    if not isinstance(vars_, dict):
        raise FunctionError("invalid vars value: must be a map", 1)
    for k in vars_:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", k):
            raise FunctionError(f'invalid template variable name "{k}": must start with a letter, '
                                "followed by zero or more letters, digits, and underscores", 1)
    text = read_file_text(path, ctx)
    if ctx.render_template is None:
        raise FunctionError("templatefile is not available in this context")
    return ctx.render_template(text, dict(vars_), resolve_path(path, ctx))


@register("abspath", [Param("path", STRING)], STRING)
def _abspath(args, ctx):
    p = args[0].replace("\\", "/")
    if not p.startswith("/"):
        p = os.path.abspath(ctx.base_dir).replace(os.sep, "/") + "/" + p
    return go_clean(p)


@register("dirname", [Param("path", STRING)], STRING)
def _dirname(args, ctx):
    p = args[0]
    i = p.rfind("/")
    return go_clean(p[:i + 1]) if i >= 0 else "."


@register("basename", [Param("path", STRING)], STRING)
def _basename(args, ctx):
    p = args[0]
    if p == "":
        return "."
    p = p.rstrip("/")
    if p == "":
        return "/"
    i = p.rfind("/")
    return p[i + 1:] if i >= 0 else p


@register("pathexpand", [Param("path", STRING)], STRING)
def _pathexpand(args, ctx):
    return expand_home(args[0], ctx)
