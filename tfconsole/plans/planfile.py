"""The saved plan file (`plan -out`): a versioned zip of JSON documents and the configuration.

Layout (format version 1):

    tfconsole-plan.json   plan metadata and changes (values in the encoding of plans/codec.py)
    variables.json        the input variable values the plan was made with
    tfstate               the prior state (refreshed), as a v4 state file
    tfstate-prev          the state before refresh, as a v4 state file
    tfstate-planned       the planned state, when the plan has one
    tfconfig/<path>       the configuration snapshot: every .tf / .tf.json file the plan read

Reading is data-only: no entry is ever unpickled, evaluated or executed, and a hostile,
truncated or foreign file ends as PlanFileError with a message for the user. Bounded work:
the zip's central directory is checked before it is parsed (entry count, directory size, no
zip64), every entry is read with a byte limit whatever its header claims, and every path of
the configuration snapshot must be a plain relative path (no "..", no absolute path, no
symlink entry) that stays inside the temporary directory it is written to.

Modules outside the root directory (`source = "../modules/x"`) are kept by storing the
snapshot from the nearest directory containing every module; "config.root" in the metadata
names the root module's directory inside the snapshot.
"""
from __future__ import annotations

import io
import json
import math
import os
import posixpath
import struct
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import zipfile

from tfconsole import TERRAFORM_VERSION, __version__
from tfconsole.diags import Diagnostics

from . import Plan, StateMeta
from .codec import (
    CodecError,
    decode_change,
    decode_change_runs,
    decode_output_change,
    decode_resource,
    decode_value,
    encode_change_runs,
    encode_output_change,
    encode_value,
    field,
    strings,
)

try:
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is a dependency; without it only speed differs
    _orjson = None  # type: ignore[assignment]

FORMAT = "tfconsole-plan"
# 2: a change leaves out the fields holding their default (plans.codec.encode_change); a
# version 1 file, with every field, reads the same. 3: changes and drift are runs of changes
# of one resource (plans.codec.encode_change_runs). An older tfconsole refuses a newer version
# by its number instead of calling the file damaged.
FORMAT_VERSION = 3
READ_VERSIONS = (1, 2, 3)
META = "tfconsole-plan.json"
VARIABLES = "variables.json"
PRIOR_STATE = "tfstate"
PREV_RUN_STATE = "tfstate-prev"
PLANNED_STATE = "tfstate-planned"
CONFIG_DIR = "tfconfig/"
CONFIG_SUFFIXES = (".tf", ".tf.json")
OLD_PICKLE_MAGIC = b"tfconsole-plan-v1\n"

# Limits against hostile files (Terraform has none; these are far above any real plan).
MAX_FILE_BYTES = 1 << 30            # the plan file itself
MAX_ENTRIES = 20_000                # entries in the zip
MAX_DIRECTORY_BYTES = 8 << 20       # the zip's central directory
MAX_DOCUMENT_BYTES = 128 << 20      # one JSON document or state file, uncompressed
MAX_CONFIG_FILE_BYTES = 64 << 20    # one configuration file, uncompressed
MAX_TOTAL_BYTES = 1 << 30           # everything, uncompressed
MAX_DEPTH_ABOVE_ROOT = 32           # "../" levels of module directories above the root


class PlanFileError(Exception):
    """The file is not a plan file this tfconsole can read; str() is the reason."""


# ---------------------------------------------------------------- writing

def write_plan(plan: Plan, path: str) -> Diagnostics:
    """Write the plan file atomically (temp file, fsync, rename), mode 0600."""
    diags = Diagnostics()
    try:
        data = plan_bytes(plan)
    except (CodecError, PlanFileError) as exc:
        diags.error("Failed to write plan file", f"The plan could not be saved to {path}: {exc}.")
        return diags
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        diags.error("Failed to write plan file", f"Error writing {path}: {exc.strerror or exc}.")
    return diags


def plan_bytes(plan: Plan) -> bytes:
    import zipfile  # here, not at the top: ~3 ms of start-up for commands that never read or write a plan file

    from tfconsole.states.statefile import write_state

    entries = snapshot_entries(plan)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, allowZip64=False) as zf:
        _put(zf, META, _dumps(_metadata(plan), fast=_identities_finite(plan)))
        _put(zf, VARIABLES, json.dumps({"variables": {k: encode_value(v) for k, v in plan.variables.items()},
                                        "apply_time_variables": list(plan.apply_time_variables)},
                                       separators=(",", ":"), allow_nan=False))
        for name, st in ((PRIOR_STATE, plan.prior_state), (PREV_RUN_STATE, plan.prev_run_state),
                         (PLANNED_STATE, plan.planned_state)):
            if st is not None:
                _put(zf, name, write_state(st))
        for name, text in sorted(entries.items()):
            _put(zf, CONFIG_DIR + name, text)
    return buf.getvalue()


def _dumps(doc: Any, fast: bool = True) -> bytes:
    """Compact JSON of a plan document: orjson (C, several times the standard encoder's speed
    on a large plan's 10+ MB), or the standard encoder for what orjson refuses (integers beyond
    64 bits, lone surrogates). Either is read back by json.loads. orjson would write a NaN or
    an infinity as null, so `fast` is for documents known to hold none; the standard encoder
    refuses them."""
    if fast and _orjson is not None:
        try:
            return _orjson.dumps(doc)
        except TypeError:
            pass
    return json.dumps(doc, separators=(",", ":"), allow_nan=False).encode("utf-8")


def _put(zf: zipfile.ZipFile, name: str, text: str | bytes) -> None:
    import zipfile

    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = 0o100600 << 16  # a regular file, owner read/write
    info.compress_type = zipfile.ZIP_DEFLATED
    data = text.encode("utf-8") if isinstance(text, str) else text
    # the fastest deflate level: a large plan's metadata is highly repetitive, so level 1 still
    # shrinks it 40-80x, in a fraction of the default level's time
    zf.writestr(info, data, compresslevel=1)


def _identities_finite(plan: Plan) -> bool:
    """No NaN or infinity in the metadata: values are encoded with those tagged (encode_value),
    paths, names and check results hold none; only resource identities are provider JSON data
    written as they are."""
    return all(_finite(c.before_identity) and _finite(c.after_identity) for c in (*plan.changes, *plan.drift))


def _finite(j: Any) -> bool:
    if j is None:
        return True
    t = type(j)
    if t is float:
        return math.isfinite(j)
    if t is dict:
        return all(_finite(x) for x in j.values())
    if t is list or t is tuple:
        return all(_finite(x) for x in j)
    return True


def _metadata(plan: Plan) -> dict:
    meta = plan.prior_state_meta
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION, "tfconsole_version": __version__,
        "terraform_version": TERRAFORM_VERSION, "timestamp": plan.timestamp,
        "destroy": plan.destroy, "refresh_only": plan.refresh_only, "errored": plan.errored,
        "applyable": plan.applyable, "targets": list(plan.targets), "excludes": list(plan.excludes),
        "replace": list(plan.replace),
        "prior_state_meta": None if meta is None else {"lineage": meta.lineage, "serial": meta.serial},
        "config": {"root": plan.config_root},
        "changes": encode_change_runs(plan.changes),
        "drift": encode_change_runs(plan.drift),
        "output_changes": [encode_output_change(o) for o in plan.output_changes],
        "expansions": [{"resource": str(ra), "mode": mode, "keys": list(keys)}
                       for ra, (mode, keys) in plan.expansions.items()],
        "checks": plan.checks,
    }


# ---------------------------------------------------------------- the snapshot's paths

def snapshot_root(display_paths: list[str], root_dir: str) -> str:
    """The root module's directory inside the snapshot: "" unless some module lives above the
    root ("../x/main.tf"), then the last N components of root_dir for N levels of "..".
    Raises PlanFileError when the modules cannot be stored that way."""
    up = 0
    for p in display_paths:
        parts = posixpath.normpath(p.replace(os.sep, "/")).split("/")
        n = 0
        while n < len(parts) and parts[n] == "..":
            n += 1
        up = max(up, n)
    if up == 0:
        return ""
    comps = [c for c in os.path.abspath(root_dir).split(os.sep) if c]
    if up > min(len(comps), MAX_DEPTH_ABOVE_ROOT):
        raise PlanFileError(f"a module directory lies {up} levels above the root module")
    return "/".join(comps[-up:])


def snapshot_entries(plan: Plan) -> dict[str, str]:
    """Snapshot path -> text of the configuration files, each path checked."""
    out: dict[str, str] = {}
    for display, text in plan.config_files.items():
        name = posixpath.normpath(posixpath.join(plan.config_root, display.replace(os.sep, "/")))
        check_relative_path(name)
        out[name] = text
    return out


def check_relative_path(name: str) -> None:
    """A plain relative path of a configuration file: no "..", ".", empty or absolute parts."""
    check_relative_dir(name)
    if not name.endswith(CONFIG_SUFFIXES):
        raise PlanFileError(f"the configuration snapshot holds {name!r}, which is not a .tf or .tf.json file")


def check_relative_dir(name: str) -> None:
    parts = name.split("/")
    if (not name or "\\" in name or "\x00" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":")
            or any(p in ("", ".", "..") for p in parts)):
        raise PlanFileError(f"the configuration snapshot holds an unsafe path {name!r}")


# ---------------------------------------------------------------- reading

def load_plan(path: str) -> tuple[Plan | None, Diagnostics]:
    """Read a plan file; on failure, Terraform's "Failed to load ... as a plan file" error."""
    diags = Diagnostics()
    try:
        return read_plan(path), diags
    except PlanFileError as exc:
        diags.error(f"Failed to load \"{path}\" as a plan file", f"Error: {exc}")
        return None, diags


def read_plan(path: str) -> Plan:
    """The plan in the file at path; PlanFileError when it is not a readable plan file."""
    if os.path.isdir(path):
        raise PlanFileError("the specified path is a directory, not a plan file. You can use the global -chdir "
                            "flag to use this directory as the configuration root.")
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_FILE_BYTES:
                raise PlanFileError(f"the file is {size} bytes, more than a plan file may be "
                                    f"({MAX_FILE_BYTES} bytes)")
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise PlanFileError(f"open {path}: {(exc.strerror or str(exc)).lower()}") from None
    return parse_plan(data)


def parse_plan(data: bytes) -> Plan:
    import zipfile

    if data.startswith(OLD_PICKLE_MAGIC):
        raise PlanFileError("this plan file was written by an older tfconsole in a format that is no longer read "
                            "(it could run code when loaded); create a new plan with \"tfconsole plan -out=FILE\"")
    _check_directory(data)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            docs, config = _read_entries(zf)
    except PlanFileError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError, RuntimeError,
            NotImplementedError, ValueError, KeyError) as exc:
        raise PlanFileError(f"the plan file is damaged: {exc}") from None
    try:
        return _build_plan(docs, config)
    except (CodecError, RecursionError) as exc:
        raise PlanFileError(f"the plan file is damaged: {exc if isinstance(exc, CodecError) else 'nested too deeply'}"
                            ) from None


def _check_directory(data: bytes) -> None:
    """Bound the work zipfile will do before it parses the central directory: find the end
    record, refuse zip64 archives, too many entries or a huge directory."""
    if not data.startswith(b"PK\x03\x04"):
        raise PlanFileError("the file is not a tfconsole plan file (not a zip archive)")
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - 22 - 0xFFFF))
    if end < 0 or len(data) - end < 22:
        raise PlanFileError("the plan file is truncated or damaged (no zip directory)")
    entries, dir_size = struct.unpack("<HI", data[end + 10:end + 16])
    if entries == 0xFFFF or dir_size == 0xFFFFFFFF or data[max(0, end - 20):end - 16] == b"PK\x06\x07":
        raise PlanFileError("the plan file is a zip64 archive, which tfconsole never writes")
    if entries > MAX_ENTRIES:
        raise PlanFileError(f"the plan file has {entries} entries, more than the {MAX_ENTRIES} allowed")
    if dir_size > MAX_DIRECTORY_BYTES:
        raise PlanFileError(f"the plan file's zip directory is {dir_size} bytes, more than the "
                            f"{MAX_DIRECTORY_BYTES} allowed")


def _read_entries(zf: zipfile.ZipFile) -> tuple[dict[str, bytes], dict[str, str]]:
    import zipfile

    docs: dict[str, bytes] = {}
    config: dict[str, str] = {}
    infos = zf.infolist()
    names = {i.filename for i in infos}
    if META not in names:
        if "tfplan" in names:
            raise PlanFileError("the file is a Terraform plan file, not a tfconsole plan file")
        raise PlanFileError("the file is not a tfconsole plan file (it has no plan metadata)")
    if len(names) != len(infos):
        raise PlanFileError("the plan file holds the same entry twice")
    total = sum(i.file_size for i in infos)
    if total > MAX_TOTAL_BYTES:
        raise PlanFileError(f"the plan file would unpack to {total} bytes, more than the {MAX_TOTAL_BYTES} allowed")
    for info in infos:
        name = info.filename
        if info.is_dir():
            continue
        if (info.external_attr >> 16) & 0o170000 not in (0, 0o100000):
            raise PlanFileError(f"the plan file entry {name!r} is not a regular file (a symlink or device)")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise PlanFileError(f"the plan file entry {name!r} uses an unsupported compression method")
        if name.startswith(CONFIG_DIR):
            rel = name[len(CONFIG_DIR):]
            check_relative_path(rel)
            config[rel] = _read(zf, info, MAX_CONFIG_FILE_BYTES).decode("utf-8")
        elif name in (META, VARIABLES, PRIOR_STATE, PREV_RUN_STATE, PLANNED_STATE):
            docs[name] = _read(zf, info, MAX_DOCUMENT_BYTES)
        else:
            raise PlanFileError(f"the plan file holds an unexpected entry {name!r}")
    return docs, config


def _read(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    """The entry's bytes, never more than limit whatever its header says."""
    if info.file_size > limit:
        raise PlanFileError(f"the plan file entry {info.filename!r} is {info.file_size} bytes, more than the "
                            f"{limit} allowed")
    with zf.open(info) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise PlanFileError(f"the plan file entry {info.filename!r} unpacks to more than {limit} bytes")
    return data


def _json(docs: dict[str, bytes], name: str) -> Any:
    if name not in docs:
        raise PlanFileError(f"the plan file has no {name}")
    try:
        return json.loads(docs[name], parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise PlanFileError(f"{name} is not valid JSON: {exc}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _state(docs: dict[str, bytes], name: str, required: bool) -> Any:
    from tfconsole.states.statefile import read_state

    if name not in docs:
        if required:
            raise PlanFileError(f"the plan file has no {name}")
        return None
    st, d = read_state(docs[name])
    if d.has_errors or st is None:
        err = d.errors()[0] if d.has_errors else None
        why = f"{err.summary}: {err.detail}" if err is not None else "it is empty"
        raise PlanFileError(f"the state snapshot {name} in the plan file is invalid: {why}")
    return st


def _build_plan(docs: dict[str, bytes], config: dict[str, str]) -> Plan:
    meta = _json(docs, META)
    if type(meta) is not dict or meta.get("format") != FORMAT:
        raise PlanFileError("the file is not a tfconsole plan file (unknown metadata)")
    version = meta.get("format_version")
    if version not in READ_VERSIONS or type(version) is not int:
        raise PlanFileError(f"the plan file has format version {json.dumps(version)}; this tfconsole "
                            f"({__version__}) reads versions {' and '.join(map(str, READ_VERSIONS))} only")
    w = META
    plan = Plan(
        destroy=field(meta, "destroy", bool, w), refresh_only=field(meta, "refresh_only", bool, w),
        errored=field(meta, "errored", bool, w), applyable=field(meta, "applyable", bool, w),
        timestamp=field(meta, "timestamp", str, w), targets=strings(meta, "targets", w),
        excludes=strings(meta, "excludes", w), replace=strings(meta, "replace", w),
    )
    if version >= 3:
        plan.changes = decode_change_runs(field(meta, "changes", list, w), f"{w} changes")
        plan.drift = decode_change_runs(field(meta, "drift", list, w), f"{w} drift")
    else:
        plan.changes = [decode_change(c, f"{w} changes[{i}]") for i, c in enumerate(field(meta, "changes", list, w))]
        plan.drift = [decode_change(c, f"{w} drift[{i}]") for i, c in enumerate(field(meta, "drift", list, w))]
    plan.output_changes = [decode_output_change(o, f"{w} output_changes[{i}]")
                           for i, o in enumerate(field(meta, "output_changes", list, w))]
    plan.expansions = _expansions(field(meta, "expansions", list, w))
    checks = field(meta, "checks", list, w)
    if any(type(c) is not dict for c in checks):
        raise CodecError(f"{w}.checks: expected a list of objects")
    plan.checks = checks
    plan.prior_state_meta = _state_meta(field(meta, "prior_state_meta", dict, w, optional=True))
    vdoc = _json(docs, VARIABLES)
    variables = field(vdoc, "variables", dict, VARIABLES)
    plan.variables = {k: decode_value(v, f"{VARIABLES} {k}") for k, v in variables.items()}
    apply_time = field(vdoc, "apply_time_variables", list, VARIABLES, optional=True) or []
    if any(type(n) is not str for n in apply_time):
        raise CodecError(f"{VARIABLES}.apply_time_variables: expected a list of names")
    plan.apply_time_variables = apply_time
    plan.prior_state = _state(docs, PRIOR_STATE, True)
    plan.prev_run_state = _state(docs, PREV_RUN_STATE, True)
    plan.planned_state = _state(docs, PLANNED_STATE, False)
    root = field(field(meta, "config", dict, w), "root", str, w + " config")
    if root:
        check_relative_dir(root)
    plan.config_root = root
    plan.config_files = {posixpath.relpath(name, root or "."): text for name, text in config.items()}
    return plan


def _expansions(items: list) -> dict:
    out: dict = {}
    for i, e in enumerate(items):
        where = f"{META} expansions[{i}]"
        ra = decode_resource(field(e, "resource", str, where), where)
        mode = field(e, "mode", str, where)
        keys = field(e, "keys", list, where)
        if mode not in ("", "list", "map") or any(type(k) not in (int, str, type(None)) for k in keys):
            raise CodecError(f"{where}: invalid expansion")
        out[ra] = (mode, keys)
    return out


def _state_meta(j: dict | None) -> StateMeta | None:
    if j is None:
        return None
    return StateMeta(field(j, "lineage", str, "prior_state_meta"), field(j, "serial", int, "prior_state_meta"))


# ---------------------------------------------------------------- the snapshot on disk

@contextmanager
def materialized_config(plan: Plan) -> Iterator[str]:
    """The plan's configuration snapshot written to a fresh private temporary directory; yields
    the root module's directory there, and removes everything on exit."""
    import shutil
    import tempfile

    tmp = tempfile.mkdtemp(prefix="tfconsole-plan-")
    try:
        for name, text in snapshot_entries(plan).items():
            _write_inside(tmp, name, text)
        root = os.path.join(tmp, *plan.config_root.split("/")) if plan.config_root else tmp
        os.makedirs(root, exist_ok=True)
        yield root
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _write_inside(base: str, name: str, text: str) -> None:
    dest = os.path.join(base, *name.split("/"))
    real_base = os.path.realpath(base)
    parent = os.path.dirname(dest)
    os.makedirs(parent, mode=0o700, exist_ok=True)
    if os.path.commonpath([real_base, os.path.realpath(parent)]) != real_base:
        raise PlanFileError(f"the configuration snapshot path {name!r} leaves its directory")
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def load_plan_config(ctx: Any, plan: Plan, working_dir: str) -> Diagnostics:
    """Load the plan's configuration snapshot into ctx (a core.Context): exactly the files the
    plan was made from, with module directories pointing back at working_dir (path.module,
    file()). The temporary copy is gone when this returns."""
    diags = Diagnostics()
    real = os.path.abspath(working_dir)
    try:
        with materialized_config(plan) as root:
            diags.append(ctx.load_config(root))
            if ctx.config is not None:
                for m in ctx.config.descendants():
                    m.dir = os.path.normpath(os.path.join(real, os.path.relpath(m.dir, root)))
    except (PlanFileError, OSError) as exc:
        diags.error("Failed to read the plan's configuration", f"The configuration snapshot in the plan file "
                    f"could not be unpacked: {exc}.")
    return diags
