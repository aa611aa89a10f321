"""`tfconsole fmt`: rewrite configuration files in Terraform's canonical layout.

Terraform's command, flag for flag: files and directories as arguments (the current directory
by default, "-" for standard input), `-list`, `-write`, `-diff`, `-check` (exit 3 when anything
would change), `-recursive`. A file with syntax errors is left alone and its errors reported
(exit 2). The layout itself lives in tfconsole.config.hclfmt.
"""
from __future__ import annotations

import os
import subprocess
import sys
from typing import IO

from tfconsole.config.hclfmt import format_source
from tfconsole.config.hclparse import parse_config

from .diagview import Located, render, terraform_order
from .goflags import Flag, FlagError, parse, wants_help

# The command's flags, in the form main.py's per-command declarations take.
FLAGS = (
    Flag("list", "bool", True),
    Flag("write", "bool", True),
    Flag("diff", "bool", False),
    Flag("check", "bool", False),
    Flag("recursive", "bool", False),
)

EXTENSIONS = (".tf", ".tfvars", ".tftest.hcl", ".tfmock.hcl", ".tfquery.hcl")

HELP = """\
Usage: tfconsole [global options] fmt [options] [target...]

  Rewrites configuration files (.tf), variables files (.tfvars) and test files
  (.tftest.hcl) in the canonical format. With no target, the current directory
  is formatted; a directory target formats the files in it, a file target that
  file, and a single dash ("-") reads standard input and writes the result to
  standard output.

Options:

  -list=false    Don't list files whose formatting differs (always off for STDIN)
  -write=false   Don't write to source files (always off for STDIN or -check)
  -diff          Display diffs of formatting changes
  -check         Check if the input is formatted: exit status 3 when it is not
  -no-color      If specified, output won't contain any color.
  -recursive     Also process files in subdirectories."""


def _is_ignored(name: str) -> bool:
    """Editor leftovers and hidden files, which Terraform never reads as configuration."""
    return name.startswith(".") or name.endswith("~") or (name.startswith("#") and name.endswith("#"))


def normalize_path(path: str) -> str:
    """A path as Terraform names it in output: relative to the working directory when possible."""
    base = os.path.abspath(".")
    full = path if os.path.isabs(path) else os.path.join(base, path)
    try:
        return os.path.relpath(full, base)
    except ValueError:
        return os.path.normpath(full)


class FmtCommand:
    def __init__(self, stdout: IO[str], stderr: IO[str], stdin: IO[bytes] | None = None) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.stdin = stdin
        self.sources: dict[str, bytes] = {}
        self.diags: list[Located] = []

    # -- entry point
    def run(self, argv: list[str]) -> int:
        if wants_help(argv):
            self.stdout.write(HELP + "\n")
            return 0
        try:
            opts, args, color = parse(argv, FLAGS)
        except FlagError as exc:
            self.stderr.write(HELP + "\n")
            self.stderr.write(f"Error parsing command-line flags: {exc}\n\n")
            return 1
        self.color = color
        self.list, self.write, self.diff = opts["list"], opts["write"], opts["diff"]
        self.recursive = opts["recursive"]
        paths: list[str] = ["."]
        if args and args[0] == "-":
            self.list = self.write = False
            paths = []
        elif args:
            paths = args
        list_requested = self.list
        check = opts["check"]
        # -check lists into a buffer that decides the exit code; otherwise output goes out as
        # each file is processed
        self.buffer: list[bytes] | None = [] if check else None
        if check:
            self.list, self.write = True, False
        self.process(paths)
        self.show_diagnostics()
        if any(d.error for d in self.diags):
            return 2
        if self.buffer is not None:
            listed = b"".join(self.buffer)
            if list_requested and listed:
                self._ui_write(listed)
            return 3 if listed else 0
        return 0

    def _ui_write(self, data: bytes) -> None:
        """Terraform's UI writer: one trailing newline is replaced by the UI's own."""
        if data.endswith(b"\n"):
            data = data[:-1]
        out = getattr(self.stdout, "buffer", None)
        self.stdout.flush()
        if out is not None:
            out.write(data + b"\n")
            out.flush()
        else:
            self.stdout.write(data.decode("utf-8", "surrogateescape") + "\n")
            self.stdout.flush()

    def output(self, data: bytes) -> None:
        if self.buffer is not None:
            self.buffer.append(data)
        else:
            self._ui_write(data)

    # -- walking the arguments
    def process(self, paths: list[str]) -> None:
        if not paths:
            data = self.stdin.read() if self.stdin is not None else sys.stdin.buffer.read()
            self.process_file("<stdin>", data)
            return
        for raw in paths:
            path = normalize_path(raw)
            if not os.path.exists(path):
                self.error(f"No file or directory at {path}")
                return
            if os.path.isdir(path):
                self.process_dir(path)
                continue
            if not path.endswith(EXTENSIONS):
                self.error("Only .tf, .tfvars, and .tftest.hcl files can be processed with terraform fmt")
                continue
            self.read_and_process(path)

    def process_dir(self, path: str) -> None:
        try:
            entries = sorted(os.scandir(path), key=lambda e: e.name)
        except FileNotFoundError:
            self.error(f"There is no configuration directory at {path}")
            return
        except OSError:
            self.error(f"Cannot read directory {path}")
            return
        for entry in entries:
            if _is_ignored(entry.name):
                continue
            sub = os.path.join(path, entry.name)
            if entry.is_dir(follow_symlinks=False):
                if self.recursive:
                    self.process_dir(sub)
                continue
            if entry.name.endswith(EXTENSIONS):
                self.read_and_process(normalize_path(sub))

    def read_and_process(self, path: str) -> None:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            self.error(f"Failed to read file {path}")
            return
        self.process_file(path, data)

    def process_file(self, path: str, src: bytes) -> None:
        self.sources[path] = src
        parsed = parse_config(src, path)
        if parsed.diags:
            self.diags.extend(Located(d.summary, d.detail, d.subject, d.context) for d in parsed.diags)
            return
        result = format_source(parsed)
        if result != src:
            if self.list:
                self.output(path.encode() + b"\n")
            if self.write and not self.write_file(path, result):
                return
            if self.diff:
                diff = unified_diff(src, result, path)
                if diff is None:
                    self.error(f"Failed to generate diff for {path}")
                    return
                self.output(diff)
        if not self.list and not self.write and not self.diff:
            self.output(result)

    def write_file(self, path: str, data: bytes) -> bool:
        """Replace the file's content atomically, keeping its permissions (and any symlink)."""
        target = os.path.realpath(path)
        try:
            mode = os.stat(target).st_mode & 0o7777
            import tempfile  # only when writing: `plan` reaches this module through console's go_quote

            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".fmt-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
                os.chmod(tmp, mode)
                os.replace(tmp, target)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            self.error(f"Failed to write {path}")
            return False
        return True

    # -- diagnostics
    def error(self, summary: str) -> None:
        self.diags.append(Located(summary, "", None))

    def show_diagnostics(self) -> None:
        for d in sorted(self.diags, key=terraform_order):
            write_text(self.stderr, render(d, self.sources, self.color) + "\n")


def write_text(stream: IO[str], text: str) -> None:
    """Text that may carry undecodable source bytes (as surrogate escapes) written byte-exact."""
    raw = getattr(stream, "buffer", None)
    stream.flush()
    if raw is not None:
        raw.write(text.encode("utf-8", "surrogateescape"))
        raw.flush()
    else:
        stream.write(text.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
        stream.flush()


def unified_diff(old: bytes, new: bytes, path: str) -> bytes | None:
    """`diff -u` between the two versions, labelled old/PATH and new/PATH (Terraform runs the
    system's diff the same way); Python's difflib stands in when there is no diff program."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tfconsole-fmt-") as tmp:
        a, b = os.path.join(tmp, "old"), os.path.join(tmp, "new")
        with open(a, "wb") as f:
            f.write(old)
        with open(b, "wb") as f:
            f.write(new)
        try:
            proc = subprocess.run(["diff", f"--label=old/{path}", f"--label=new/{path}", "-u", a, b],
                                  capture_output=True, timeout=60, check=False)
        except (OSError, subprocess.SubprocessError):
            return _difflib_diff(old, new, path)
        out = proc.stdout + proc.stderr
        return out if out else None


def _difflib_diff(old: bytes, new: bytes, path: str) -> bytes:
    import difflib

    lines = difflib.diff_bytes(difflib.unified_diff, old.splitlines(True), new.splitlines(True),
                               f"old/{path}".encode(), f"new/{path}".encode(), n=3)
    return b"".join(x if x.endswith(b"\n") else x + b"\n\\ No newline at end of file\n" for x in lines)
