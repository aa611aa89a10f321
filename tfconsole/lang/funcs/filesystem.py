"""Filesystem functions. Relative paths resolve against FuncContext.base_dir."""
from __future__ import annotations

import base64
import os
import re
import stat

from ..types import BOOL, DYNAMIC, STRING, SetType
from ..values import Null, TMap, TSet, Unknown, unmark_deep
from . import FunctionError, Param, register
from ._re2 import compile_go


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


# Terraform reads whatever a path names until it ends: /dev/zero never does, a FIFO blocks
# until a writer comes. tfconsole reads only regular files, and at most this much into a value
# (hashing functions stream any size); templates, parsed as HCL, at most TEMPLATE_MAX_BYTES.
MAX_FILE_BYTES = 64 << 20
TEMPLATE_MAX_BYTES = 16 << 20


def _not_found(full: str) -> FunctionError:
    return FunctionError(
        f'no file exists at "{full}"; this function works only with files that are distributed '
        "as part of the configuration source code, so if this file will be created by a resource "
        "in this configuration you must instead obtain this result from an attribute of that "
        "resource", 0)


def open_regular(full: str) -> int:
    """A descriptor for a regular file (never blocking on a FIFO), or the function's error:
    a directory as Go reports it, any other kind of file refused."""
    try:
        fd = os.open(full, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise _not_found(full) from None
    except OSError as exc:
        raise FunctionError(f"open {full}: {(exc.strerror or str(exc)).lower()}", 0) from None
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if stat.S_ISDIR(st.st_mode):
        os.close(fd)
        raise FunctionError(f"read {full}: is a directory", 0)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise FunctionError(f"read {full}: not a regular file (a device, FIFO or socket); tfconsole reads "
                            "only regular files", 0)
    return fd


def read_file_bytes(path: str, ctx, limit: int = MAX_FILE_BYTES) -> bytes:
    full = resolve_path(path, ctx)
    try:
        fd = open_regular(full)
    except FunctionError as exc:
        if exc.message.startswith("read ") or exc.message.startswith("open "):
            raise FunctionError(f"failed to read file: {exc.message}", 0) from None
        raise
    try:
        chunks = []
        total = 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise FunctionError(f'failed to read file: "{full}" is larger than {limit} bytes, the most '
                                    "tfconsole reads into a value", 0)
        return b"".join(chunks)
    except OSError as exc:
        raise FunctionError(f"failed to read file: read {full}: {(exc.strerror or str(exc)).lower()}", 0) \
            from None
    finally:
        os.close(fd)


def hash_file(path: str, ctx, hasher) -> None:
    """Feed a regular file to hasher.update, in pieces (any size, bounded memory)."""
    full = resolve_path(path, ctx)
    try:
        fd = open_regular(full)
    except FunctionError as exc:
        if exc.message.startswith("no file"):
            raise
        raise FunctionError(exc.message) from None  # Terraform reports these for the call, not the path
    try:
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return
            hasher.update(chunk)
    except OSError as exc:
        raise FunctionError(f"read {full}: {(exc.strerror or str(exc)).lower()}") from None
    finally:
        os.close(fd)


def read_file_text(path: str, ctx, limit: int = MAX_FILE_BYTES) -> str:
    raw = read_file_bytes(path, ctx, limit)
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


def _re2_escape(ch: str) -> str:
    return "\\" + ch if ch in "\\.+*?()|[]{}^$" else ch


def _glob_regex(pattern: str):
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
            out.append(_re2_escape(pattern[i + 1]))
            i += 2
            continue
        else:
            out.append(_re2_escape(c))
        i += 1
    if depth:
        raise FunctionError(f"failed to glob pattern ({pattern}): syntax error in pattern")
    # RE2: a pattern of many "**" must not backtrack exponentially over a long path
    try:
        return compile_go("(?s)^" + "".join(out) + "$")
    except FunctionError:
        raise FunctionError(f"failed to glob pattern ({pattern}): syntax error in pattern") from None


@register("fileset", [Param("path", STRING), Param("pattern", STRING)], SetType(STRING))
def _fileset(args, ctx):
    path, pattern = args
    root = resolve_path(path, ctx)
    rx = _glob_regex(go_clean(pattern) if pattern else pattern)
    found = []
    seen = 0
    if os.path.isdir(root):
        for dirpath, dirnames, filenames in os.walk(root):
            seen += len(dirnames) + len(filenames)
            if seen > MAX_FILESET_ENTRIES:
                raise FunctionError(f'failed to glob pattern ({pattern}): more than {MAX_FILESET_ENTRIES} files and '
                                    f'directories under "{root}", the most tfconsole visits for one fileset call')
            dirnames.sort()
            for fn in sorted(filenames):
                full = os.path.join(dirpath, fn)
                if not os.path.isfile(full):
                    continue
                rel = os.path.relpath(full, root).replace(os.sep, "/")
                if rx.search(rel) is not None:
                    found.append(rel)
    return TSet(found, STRING)


# Terraform globs without bound ("/" and "**" walks the whole machine): tfconsole stops here
MAX_FILESET_ENTRIES = 200_000


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
    text = read_file_text(path, ctx, TEMPLATE_MAX_BYTES)
    if ctx.render_template is None:
        raise FunctionError("templatefile is not available in this context")
    # the template's own function calls (file, ...) resolve paths as the caller's do
    return ctx.render_template(text, dict(vars_), resolve_path(path, ctx), ctx.base_dir)


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
