"""A small re-creation of the terraform-plugin-framework's planning rules for built-in providers.

The hashicorp utility providers (random, null, local, time, http, external) are written with
the plugin framework, whose generic behaviour decides much of what a plan looks like:

* attributes with a `Default` take it when the configuration leaves them null;
* when the planned object differs from the prior state, every computed attribute that the
  configuration leaves null becomes unknown ("known after apply");
* attribute plan modifiers then run: `UseStateForUnknown` copies the prior value back,
  `RequiresReplace` asks for replacement when the planned value differs from the prior one;
* the resource's own ModifyPlan runs last.

When replacement is needed the engine plans the new object as a create (prior null), so the
planned value returned here is already the create plan; `requires_replace` names the paths.

Resource and data-source types are described by `ResourceType` / `DataSourceType` subclasses;
`FrameworkProvider` dispatches the Provider interface calls to them.
"""
from __future__ import annotations

import datetime as _dt
import math
import re
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any, Callable

from tfconsole.diags import Diagnostics
from tfconsole.lang.numbers import Num, is_integer
from tfconsole.lang.types import BOOL, NUMBER, STRING, ListType, MapType, ObjectType, SetType, Type
from tfconsole.lang.values import (
    ConversionError, Null, Sensitive, TList, TMap, TSet, Unknown, convert, equal, format_number, is_null,
    is_wholly_known,
)

from ..interface import (
    ApplyRequest, ApplyResponse, Attr, EphemeralOpened, BlockSchema, NestedBlock, PlanRequest, PlanResponse,
    Provider, ReadResponse, Schema,
)

NO_DEFAULT = object()
INT64 = NUMBER  # the framework's Int64 attributes are numbers that must be whole


@dataclass(frozen=True)
class A:
    """One attribute with the framework details the interface's `Attr` does not carry."""

    type: Type
    required: bool = False
    optional: bool = False
    computed: bool = False
    sensitive: bool = False
    # RequiresReplace(): replace when the planned value differs from the prior state
    force_new: bool = False
    # RequiresReplaceIf(fn): fn(ctx, name) -> bool decides (ctx is a PlanContext)
    replace_if: Callable[["PlanContext", str], bool] | None = None
    default: Any = NO_DEFAULT
    use_state: bool = False  # UseStateForUnknown()
    int64: bool = False  # value must be a whole number
    validators: tuple = ()  # fn(name, value, config, diags); called only for known non-null values
    deprecated: str = ""
    description: str = ""
    # semantic equality (e.g. "644" == "0644" for file permissions): fn(a, b) -> bool
    semantic_equal: Callable[[Any, Any], bool] | None = None

    def to_attr(self) -> Attr:
        return Attr(self.type, required=self.required, optional=self.optional, computed=self.computed,
                    sensitive=self.sensitive, force_new=self.force_new or self.replace_if is not None,
                    description=self.description)


@dataclass(frozen=True)
class Block:
    """A nested block (only SingleNestedBlock is needed here: data http's `retry`)."""

    attrs: dict[str, A]
    nesting: str = "single"

    def schema(self) -> NestedBlock:
        return NestedBlock(BlockSchema({k: a.to_attr() for k, a in self.attrs.items()}), nesting=self.nesting)


@dataclass
class PlanContext:
    prior: dict[str, Any] | None
    planned: dict[str, Any]
    config: dict[str, Any]
    diags: Diagnostics
    provider: "FrameworkProvider"
    replace: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------
# values


def coerce(value: Any, ty: Type) -> Any:
    """Convert a language value to an attribute's type, keeping unknowns; nulls become None."""
    if type(value) is Sensitive:
        value = value.value
    if value is None or type(value) is Null:
        return None
    if type(value) is Unknown:
        return Unknown(ty)
    return _strip_nulls(convert(value, ty))


def _strip_nulls(v: Any) -> Any:
    t = type(v)
    if t is Null:
        return None
    if t is TMap:
        return TMap({k: _strip_nulls(x) for k, x in v.items()}, v.etype)
    if t is TList:
        return TList([_strip_nulls(x) for x in v], v.etype)
    if t is TSet:
        return TSet([_strip_nulls(x) for x in v], v.etype, ordered=True)
    if t is dict:
        return {k: _strip_nulls(x) for k, x in v.items()}
    return v


def coerce_object(obj: dict[str, Any] | None, attrs: dict[str, A], blocks: dict[str, Block] | None = None,
                  strict: bool = False, diags: Diagnostics | None = None) -> dict[str, Any]:
    """Every schema attribute of obj converted to its type (missing ones null)."""
    obj = obj or {}
    out: dict[str, Any] = {}
    for name, a in attrs.items():
        raw = obj.get(name)
        try:
            out[name] = coerce(raw, a.type)
        except ConversionError as exc:
            if diags is not None:
                diags.error("Incorrect attribute value type",
                            f'Inappropriate value for attribute "{name}": {exc.message}.')
            out[name] = None
    for name, b in (blocks or {}).items():
        raw = obj.get(name)
        if type(raw) is Sensitive:
            raw = raw.value
        if raw is None or type(raw) is Null:
            out[name] = None
        elif type(raw) is Unknown:
            out[name] = Unknown(ObjectType.of({k: a.type for k, a in b.attrs.items()}))
        else:
            if isinstance(raw, list):  # a single block given as a one-element list
                raw = raw[0] if raw else None
            out[name] = None if raw is None else coerce_object(raw, b.attrs, None, strict, diags)
    return out


def objects_equal(a: dict[str, Any], b: dict[str, Any], attrs: dict[str, A]) -> bool:
    for name, spec in attrs.items():
        if not values_equal(a.get(name), b.get(name), spec):
            return False
    return True


def values_equal(x: Any, y: Any, spec: A | None = None) -> bool:
    if type(x) is Unknown or type(y) is Unknown:
        return type(x) is Unknown and type(y) is Unknown
    if is_null(x) or is_null(y):
        return is_null(x) and is_null(y)
    if spec is not None and spec.semantic_equal is not None:
        try:
            return spec.semantic_equal(x, y)
        except (TypeError, ValueError):
            return False
    return _deep_equal(x, y)


def _deep_equal(x: Any, y: Any) -> bool:
    if type(x) is Unknown or type(y) is Unknown:
        return type(x) is Unknown and type(y) is Unknown
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(_deep_equal(x[k], y[k]) for k in x)
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(_deep_equal(p, q) for p, q in zip(x, y))
    return equal(x, y)


def map_elements(v: Any) -> dict[str, Any]:
    """Elements of a map value; a null or unknown map has none (as the framework's Elements())."""
    if isinstance(v, dict):
        return dict(v)
    return {}


def known(v: Any) -> bool:
    return v is not None and type(v) is not Unknown and type(v) is not Null


def str_map(d: dict[str, str] | None) -> TMap | None:
    if d is None:
        return None
    return TMap(d, STRING)


def str_list(items: list[str]) -> TList:
    return TList(list(items), STRING)


# ---------------------------------------------------------------------------
# plan modifiers and validators shared by several providers


def requires_replace_if_values_not_null(ctx: PlanContext, name: str) -> bool:
    """random/null `keepers`/`triggers`: replace unless the change only adds or removes null values."""
    if ctx.prior is None:
        return False
    cfg_val = ctx.config.get(name)
    state_val = ctx.prior.get(name)
    if values_equal(cfg_val, state_val):
        return False
    cfg_elems = map_elements(cfg_val)
    if state_val is None:
        if all(v is None for v in cfg_elems.values()):
            return False
        return True
    state_elems = map_elements(state_val)
    all_new_null = True
    for k, v in cfg_elems.items():
        if k not in state_elems and v is None:
            continue
        if k in state_elems and values_equal(v, state_elems[k]):
            continue
        all_new_null = False
        break
    for k in state_elems:
        if k not in cfg_elems:
            all_new_null = False
            break
    return not all_new_null


def path_list(names: list[str]) -> str:
    return "[" + ",".join(names) + "]"


def at_least(minimum: int) -> Callable:
    def check(name: str, value: Any, config: dict, diags: Diagnostics) -> None:
        if isinstance(value, (int, Num)) and value < minimum:
            diags.error("Invalid Attribute Value",
                        f"Attribute {name} value must be at least {minimum}, got: {fmt_int(value)}")
    return check


def one_of(*choices: str) -> Callable:
    def check(name: str, value: Any, config: dict, diags: Diagnostics) -> None:
        if value not in choices:
            shown = "[" + " ".join(go_quote(go_quote(c)) for c in choices) + "]"
            diags.error("Invalid Attribute Value Match",
                        f"Attribute {name} value must be one of: {shown}, got: {go_quote(value)}")
    return check


def regex_matches(pattern: str, message: str) -> Callable:
    rx = re.compile(pattern)

    def check(name: str, value: Any, config: dict, diags: Diagnostics) -> None:
        if isinstance(value, str) and not rx.search(value):
            diags.error("Invalid Attribute Value Match", f"Attribute {name} {message}, got: {value}")
    return check


def exactly_one_of(names: list[str], config: dict, diags: Diagnostics) -> None:
    vals = [config.get(n) for n in names]
    if any(type(v) is Unknown for v in vals):
        return
    count = sum(1 for v in vals if v is not None)
    if count == 0:
        diags.error("Invalid Attribute Combination",
                    f"No attribute specified when one (and only one) of {path_list(names)} is required")
    elif count > 1:
        diags.error("Invalid Attribute Combination",
                    f"{count} attributes specified when one (and only one) of {path_list(names)} is required")


def at_least_one_of(names: list[str], config: dict, diags: Diagnostics) -> None:
    if any(config.get(n) is not None for n in names):
        return
    diags.error("Missing Attribute Configuration",
                f"At least one of these attributes must be configured: {path_list(names)}")


def conflicts_with(name: str, other: str, config: dict, diags: Diagnostics) -> None:
    if config.get(name) is not None and config.get(other) is not None:
        diags.error("Invalid Attribute Combination",
                    f'Attribute "{other}" cannot be specified when "{name}" is specified')


def also_requires(name: str, other: str, config: dict, diags: Diagnostics) -> None:
    if config.get(name) is not None and config.get(other) is None:
        diags.error("Invalid Attribute Combination",
                    f'Attribute "{other}" must be specified when "{name}" is specified')


# ---------------------------------------------------------------------------
# Go formatting helpers (messages quote Go's formatting)


def fmt_int(v: Any) -> str:
    return format_number(v) if isinstance(v, (int, Num)) else str(v)


def go_quote(s: str) -> str:
    """strconv.Quote: a double-quoted Go string literal."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\a":
            out.append("\\a")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
        elif ch == "\v":
            out.append("\\v")
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\x{o:02x}")
        elif not ch.isprintable() and o > 0x7F:
            out.append(f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


_DUR_UNITS = {
    "ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0,
}
_DUR_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)([a-z\u00b5\u03bc]+)")


def parse_go_duration(s: str) -> float:
    """time.ParseDuration, in seconds. Raises ValueError with Go's message."""
    orig = s
    if s in ("0", "+0", "-0"):
        return 0.0
    if not s:
        raise ValueError(f"time: invalid duration {go_quote(orig)}")
    sign = 1.0
    if s[0] in "+-":
        sign = -1.0 if s[0] == "-" else 1.0
        s = s[1:]
    total = 0.0
    pos = 0
    if not s:
        raise ValueError(f"time: invalid duration {go_quote(orig)}")
    while pos < len(s):
        m = _DUR_PART.match(s, pos)
        if not m or m.group(1) in ("", "."):
            raise ValueError(f"time: invalid duration {go_quote(orig)}")
        unit = m.group(2)
        if unit not in _DUR_UNITS:
            if m.group(1) and not m.group(2):
                raise ValueError(f"time: missing unit in duration {go_quote(orig)}")
            raise ValueError(f"time: unknown unit {go_quote(unit)} in duration {go_quote(orig)}")
        total += float(m.group(1)) * _DUR_UNITS[unit]
        pos = m.end()
    return sign * total


def format_go_duration(seconds: float) -> str:
    """time.Duration.String for durations of whole nanoseconds."""
    ns = int(round(seconds * 1e9))
    if ns == 0:
        return "0s"
    neg = ns < 0
    ns = abs(ns)
    if ns < 1_000_000_000:
        if ns < 1_000:
            text = f"{ns}ns"
        elif ns < 1_000_000:
            text = _trim(ns / 1e3) + "\u00b5s"
        else:
            text = _trim(ns / 1e6) + "ms"
    else:
        h, rem = divmod(ns, 3600 * 10**9)
        m, rem = divmod(rem, 60 * 10**9)
        secs = _trim(rem / 1e9)
        text = ""
        if h:
            text += f"{h}h"
        if h or m:
            text += f"{m}m"
        text += f"{secs}s"
    return ("-" if neg else "") + text


def _trim(x: float) -> str:
    text = f"{x:.9f}".rstrip("0").rstrip(".")
    return text or "0"


# ---------------------------------------------------------------------------
# RFC 3339 time values (timetypes.RFC3339 and Go's time.Time arithmetic)

_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def parse_rfc3339(s: str) -> _dt.datetime:
    """time.Parse(time.RFC3339, s). Raises ValueError with a Go-like message."""
    m = _RFC3339.match(s)
    if not m:
        raise ValueError(f'parsing time {go_quote(s)} as "2006-01-02T15:04:05Z07:00": cannot parse '
                         f'{go_quote(s)} as RFC3339')
    y, mo, d, h, mi, sec = (int(m.group(i)) for i in range(1, 7))
    frac = m.group(7)
    micro = int((frac[1:] + "000000")[:6]) if frac else 0
    zone = m.group(8)
    if zone in ("Z", "z"):
        tz = _dt.timezone.utc
    else:
        sign = -1 if zone[0] == "-" else 1
        zh, zm = int(zone[1:3]), int(zone[4:6])
        if zh > 23 or zm > 59:
            raise ValueError(f'parsing time {go_quote(s)}: time zone offset out of range')
        tz = _dt.timezone(sign * _dt.timedelta(hours=zh, minutes=zm))
    try:
        return _dt.datetime(y, mo, d, h, mi, sec, micro, tzinfo=tz)
    except ValueError as exc:
        raise ValueError(f"parsing time {go_quote(s)}: {exc}") from None


def format_rfc3339(t: _dt.datetime) -> str:
    off = t.utcoffset() or _dt.timedelta(0)
    base = t.strftime("%Y-%m-%dT%H:%M:%S")
    if off == _dt.timedelta(0):
        return base + "Z"
    total = int(off.total_seconds())
    sign = "-" if total < 0 else "+"
    total = abs(total)
    return f"{base}{sign}{total // 3600:02d}:{(total % 3600) // 60:02d}"


def add_date(t: _dt.datetime, years: int = 0, months: int = 0, days: int = 0) -> _dt.datetime:
    """Go's Time.AddDate: fields added, then normalised (Jan 31 + 1 month = Mar 2 or 3)."""
    total_months = (t.year + years) * 12 + (t.month - 1) + months
    y, m0 = divmod(total_months, 12)
    first = t.replace(year=y, month=m0 + 1, day=1)
    return first + _dt.timedelta(days=t.day - 1 + days)


def unix_seconds(t: _dt.datetime) -> int:
    return math.floor(t.timestamp())


def now_utc() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def rfc3339_validator(name: str, value: Any, config: dict, diags: Diagnostics) -> None:
    try:
        parse_rfc3339(value)
    except ValueError as exc:
        diags.error("Invalid RFC3339 String Value",
                    "A string value was provided that is not valid RFC3339 string format.\n\n"
                    f"Path: {name}\nGiven Value: {value}\nError: {exc}")


def rfc3339_semantic_equal(a: str, b: str) -> bool:
    return parse_rfc3339(a) == parse_rfc3339(b)


# ---------------------------------------------------------------------------
# resource / data source definitions


class ResourceType:
    """One managed resource type. Subclasses set `attrs` and override the CRUD hooks."""

    name: str = ""
    attrs: dict[str, A] = {}
    version: int = 0
    importable: bool = False

    def __init__(self, provider: "FrameworkProvider") -> None:
        self.p = provider

    def schema(self) -> Schema:
        return Schema(BlockSchema({k: a.to_attr() for k, a in self.attrs.items()}), version=self.version)

    # hooks ------------------------------------------------------------------
    def validate(self, config: dict[str, Any], diags: Diagnostics) -> None:
        """Cross-attribute validation (ConfigValidators); config is coerced, may hold unknowns."""

    def modify_attrs(self, ctx: PlanContext) -> None:
        """Attribute plan modifiers that run before RequiresReplace (e.g. number/numeric sync)."""

    def modify_plan(self, ctx: PlanContext) -> None:
        """The resource's ModifyPlan, after attribute plan modifiers."""

    def create(self, planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        raise NotImplementedError

    def update(self, prior: dict[str, Any], planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        return dict(planned)

    def delete(self, prior: dict[str, Any], diags: Diagnostics) -> None:
        return None

    def read(self, state: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        return state

    def import_state(self, id_: str, diags: Diagnostics) -> dict[str, Any] | None:
        diags.error("Resource Import Not Implemented",
                    f"This resource does not support import. Please contact the provider developer for "
                    f"additional information.")
        return None


class DataSourceType:
    name: str = ""
    attrs: dict[str, A] = {}
    blocks: dict[str, Block] = {}

    def __init__(self, provider: "FrameworkProvider") -> None:
        self.p = provider

    def schema(self) -> Schema:
        return Schema(BlockSchema({k: a.to_attr() for k, a in self.attrs.items()},
                                  {k: b.schema() for k, b in self.blocks.items()}))

    def validate(self, config: dict[str, Any], diags: Diagnostics) -> None:
        pass

    def read(self, config: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        raise NotImplementedError


class EphemeralType(DataSourceType):
    """One ephemeral resource type: `open` gives its value from the validated config (computed
    attributes filled in); nothing of it is ever stored."""

    def open(self, config: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        raise NotImplementedError


def validate_attrs(attrs: dict[str, A], raw: dict[str, Any], diags: Diagnostics,
                   blocks: dict[str, Block] | None = None, prefix: str = "") -> dict[str, Any]:
    """Schema-level checks (as Terraform core and the framework do them) and the coerced config."""
    raw = raw or {}
    known_names = set(attrs) | set(blocks or {})
    for name in raw:
        if name not in known_names:
            diags.error("Unsupported argument", f'An argument named "{prefix}{name}" is not expected here.')
    cfg: dict[str, Any] = {}
    checks: list[tuple[str, A, Any]] = []
    for name, a in attrs.items():
        v = raw.get(name)
        if type(v) is Sensitive:
            v = v.value
        if v is None or type(v) is Null:
            cfg[name] = None
            if a.required:
                diags.error("Missing required argument",
                            f'The argument "{prefix}{name}" is required, but no definition was found.')
            continue
        if not a.optional and not a.required:
            diags.error("Value for unconfigurable attribute",
                        f'Can\'t configure a value for "{prefix}{name}": its value will be decided '
                        "automatically based on the result of applying this configuration.")
            cfg[name] = None
            continue
        try:
            cv = coerce(v, a.type)
        except ConversionError as exc:
            diags.error("Incorrect attribute value type",
                        f'Inappropriate value for attribute "{prefix}{name}": {exc.message}.')
            cfg[name] = None
            continue
        cfg[name] = cv
        if a.int64 and type(cv) is Num and not is_integer(cv):
            diags.error("Value Conversion Error",
                        f"An unexpected error was encountered trying to convert the value of attribute "
                        f'"{prefix}{name}" to a whole number: {cv} has a fractional part.')
            continue
        if a.deprecated and type(cv) is not Unknown:
            diags.warning("Attribute Deprecated", a.deprecated)
        if type(cv) is not Unknown and a.validators:
            checks.append((name, a, cv))
    for name, a, cv in checks:  # validators see the whole configuration
        for check in a.validators:
            check(prefix + name, cv, cfg, diags)
    for name, b in (blocks or {}).items():
        v = raw.get(name)
        if type(v) is Sensitive:
            v = v.value
        if isinstance(v, list):
            if len(v) > 1:
                diags.error("Too many blocks", f'No more than 1 "{name}" blocks are allowed')
            v = v[0] if v else None
        if v is None or type(v) is Null:
            cfg[name] = None
        elif type(v) is Unknown:
            cfg[name] = v
        else:
            cfg[name] = validate_attrs(b.attrs, v, diags, None, prefix=f"{prefix}{name}.")
    return cfg


class FrameworkProvider(Provider):
    resource_types: tuple[type[ResourceType], ...] = ()
    data_source_types: tuple[type[DataSourceType], ...] = ()
    ephemeral_types: tuple[type[EphemeralType], ...] = ()

    def __init__(self, base_dir: str = ".") -> None:
        self.base_dir = base_dir
        self._resources = {cls.name: cls(self) for cls in self.resource_types}
        self._data_sources = {cls.name: cls(self) for cls in self.data_source_types}
        self._ephemerals = {cls.name: cls(self) for cls in self.ephemeral_types}

    # paths relative to the working directory terraform runs in
    def path(self, p: str) -> str:
        import os

        if os.path.isabs(p):
            return p
        return os.path.join(self.base_dir, p)

    # schemas ------------------------------------------------------------------
    def resource_schemas(self) -> dict[str, Schema]:
        return {n: r.schema() for n, r in self._resources.items()}

    def data_source_schemas(self) -> dict[str, Schema]:
        return {n: d.schema() for n, d in self._data_sources.items()}

    def ephemeral_resource_schemas(self) -> dict[str, Schema]:
        return {n: e.schema() for n, e in self._ephemerals.items()}

    def _ephemeral(self, type_name: str, config: dict[str, Any],
                   diags: Diagnostics) -> tuple[EphemeralType | None, dict[str, Any]]:
        e = self._ephemerals.get(type_name)
        if e is None:
            diags.error("Invalid ephemeral resource type",
                        f'The provider {self.source} does not support ephemeral resource type "{type_name}".')
            return None, {}
        cfg = validate_attrs(e.attrs, config, diags, e.blocks)
        if not diags.has_errors:
            e.validate(cfg, diags)
        return e, cfg

    def validate_ephemeral_resource(self, type_name: str, config: dict[str, Any]) -> Diagnostics:
        diags = Diagnostics()
        self._ephemeral(type_name, config, diags)
        return diags

    def open_ephemeral_resource(self, type_name: str, config: dict[str, Any]) -> EphemeralOpened:
        diags = Diagnostics()
        e, cfg = self._ephemeral(type_name, config, diags)
        if e is None or diags.has_errors:
            return EphemeralOpened(None, diags=diags)
        for name, a in e.attrs.items():
            if cfg.get(name) is None and a.default is not NO_DEFAULT:
                cfg[name] = a.default
        result = e.open(cfg, diags)
        return EphemeralOpened(result, diags=diags)

    def _resource(self, type_name: str, diags: Diagnostics) -> ResourceType | None:
        r = self._resources.get(type_name)
        if r is None:
            diags.error("Invalid resource type",
                        f'The provider {self.source} does not support resource type "{type_name}".')
        return r

    # validate -----------------------------------------------------------------
    def validate_resource(self, type_name: str, config: dict[str, Any]) -> Diagnostics:
        diags = Diagnostics()
        r = self._resource(type_name, diags)
        if r is None:
            return diags
        cfg = validate_attrs(r.attrs, config, diags)
        if not diags.has_errors:
            r.validate(cfg, diags)
        return diags

    def validate_data_source(self, type_name: str, config: dict[str, Any]) -> Diagnostics:
        diags = Diagnostics()
        d = self._data_sources.get(type_name)
        if d is None:
            diags.error("Invalid data source",
                        f'The provider {self.source} does not support data source "{type_name}".')
            return diags
        cfg = validate_attrs(d.attrs, config, diags, d.blocks)
        if not diags.has_errors:
            d.validate(cfg, diags)
        return diags

    # plan ---------------------------------------------------------------------
    def plan_resource(self, req: PlanRequest) -> PlanResponse:
        diags = Diagnostics()
        r = self._resource(req.type_name, diags)
        if r is None:
            return PlanResponse(planned=req.proposed, diags=diags)
        if req.proposed is None:  # destroy
            return PlanResponse(planned=None, diags=diags)  # type: ignore[arg-type]
        config = coerce_object(req.config, r.attrs, diags=diags)
        if req.prior is None:
            planned = self._plan_create(r, config, diags)
            return PlanResponse(planned=planned, diags=diags, private=req.prior_private)
        prior = coerce_object(req.prior, r.attrs)
        proposed = coerce_object(req.proposed, r.attrs)
        # the proposed new state: configuration, and prior values for computed attributes left null
        planned = {}
        for name, a in r.attrs.items():
            cv = config.get(name)
            if name in (req.proposed or {}):
                planned[name] = proposed.get(name)
            elif a.computed and cv is None:
                planned[name] = prior.get(name)
            else:
                planned[name] = cv
        for name, a in r.attrs.items():
            if a.default is not NO_DEFAULT and config.get(name) is None:
                planned[name] = a.default
        if not objects_equal(planned, prior, r.attrs):
            for name, a in r.attrs.items():
                if a.computed and config.get(name) is None and a.default is NO_DEFAULT:
                    planned[name] = Unknown(a.type)
        # semantic equality keeps the prior spelling
        for name, a in r.attrs.items():
            if a.semantic_equal is not None and known(planned.get(name)) and known(prior.get(name)) \
                    and values_equal(planned[name], prior[name], a):
                planned[name] = prior[name]
        ctx = PlanContext(prior, planned, config, diags, self)
        r.modify_attrs(ctx)
        for name, a in r.attrs.items():
            if a.use_state and type(planned.get(name)) is Unknown and prior.get(name) is not None:
                planned[name] = prior[name]
            if a.force_new and not values_equal(planned.get(name), prior.get(name), a):
                ctx.replace.append(name)
            elif a.replace_if is not None and not values_equal(planned.get(name), prior.get(name), a) \
                    and a.replace_if(ctx, name):
                ctx.replace.append(name)
        r.modify_plan(ctx)
        if diags.has_errors:
            return PlanResponse(planned=planned, diags=diags)
        # as Terraform core does with RequiresReplace paths: only those whose final planned value
        # differs from the prior state count (ModifyPlan may have settled an unknown)
        ctx.replace = [n for n in ctx.replace
                       if not values_equal(planned.get(n), prior.get(n), r.attrs.get(n))]
        if ctx.replace:
            create_planned = self._plan_create(r, config, diags)
            seen: list[str] = []
            for n in ctx.replace:
                if n not in seen:
                    seen.append(n)
            return PlanResponse(planned=create_planned, requires_replace=[(n,) for n in seen], diags=diags,
                                private=req.prior_private)
        return PlanResponse(planned=planned, diags=diags, private=req.prior_private)

    def _plan_create(self, r: ResourceType, config: dict[str, Any], diags: Diagnostics) -> dict[str, Any]:
        planned: dict[str, Any] = {}
        for name, a in r.attrs.items():
            cv = config.get(name)
            if cv is not None:
                planned[name] = cv
            elif a.default is not NO_DEFAULT:
                planned[name] = a.default
            elif a.computed:
                planned[name] = Unknown(a.type)
            else:
                planned[name] = None
        ctx = PlanContext(None, planned, config, diags, self)
        r.modify_attrs(ctx)
        r.modify_plan(ctx)
        return planned

    # apply --------------------------------------------------------------------
    def apply_resource(self, req: ApplyRequest) -> ApplyResponse:
        diags = Diagnostics()
        r = self._resource(req.type_name, diags)
        if r is None:
            return ApplyResponse(None, diags)
        if req.planned is None:
            prior = coerce_object(req.prior, r.attrs)
            r.delete(prior, diags)
            return ApplyResponse(None if not diags.has_errors else req.prior, diags)
        planned = coerce_object(req.planned, r.attrs)
        if req.prior is None:
            new = r.create(planned, diags)
        else:
            new = r.update(coerce_object(req.prior, r.attrs), planned, diags)
        if new is not None:
            new = {k: (None if type(v) is Unknown else v) for k, v in new.items()} if diags.has_errors else new
            if not diags.has_errors and not is_wholly_known(new):
                diags.error("Provider returned invalid result object after apply",
                            f"After the apply operation, the provider still indicated an unknown value for "
                            f"{req.type_name}. All values must be known after apply, so this is always a bug "
                            "in the provider and should be reported in the provider's own repository.")
        return ApplyResponse(new, diags, private=req.private)

    # read / import ---------------------------------------------------------------
    def read_resource(self, type_name: str, state: dict[str, Any], private: str | None,
                      identity: Any = None) -> ReadResponse:
        diags = Diagnostics()
        r = self._resource(type_name, diags)
        if r is None:
            return ReadResponse(state, diags, private)
        new = r.read(coerce_object(state, r.attrs), diags)
        return ReadResponse(new, diags, private)

    def import_resource(self, type_name: str, id_: str) -> tuple[dict[str, Any] | None, Diagnostics]:
        diags = Diagnostics()
        r = self._resource(type_name, diags)
        if r is None:
            return None, diags
        if not r.importable:
            diags.error("Resource Import Not Implemented",
                        "This resource does not support import. Please contact the provider developer for "
                        "additional information.")
            return None, diags
        state = r.import_state(id_, diags)
        if state is None or diags.has_errors:
            return None, diags
        full = {name: state.get(name) for name in r.attrs}
        return full, diags

    # data sources -----------------------------------------------------------------
    def read_data_source(self, type_name: str, config: dict[str, Any]) -> tuple[dict[str, Any] | None, Diagnostics]:
        diags = Diagnostics()
        d = self._data_sources.get(type_name)
        if d is None:
            diags.error("Invalid data source",
                        f'The provider {self.source} does not support data source "{type_name}".')
            return None, diags
        cfg = validate_attrs(d.attrs, config, diags, d.blocks)
        if diags.has_errors:
            return None, diags
        if not is_wholly_known(cfg):
            # read is deferred to apply; everything computed is unknown meanwhile
            out = dict(cfg)
            for name, a in d.attrs.items():
                if a.computed and out.get(name) is None:
                    out[name] = Unknown(a.type)
            return out, diags
        d.validate(cfg, diags)
        if diags.has_errors:
            return None, diags
        return d.read(cfg, diags), diags


def whole(v: Any) -> int:
    """An Int64 attribute's value as a Python int."""
    if v is None:
        return 0
    return int(v)


__all__ = [
    "A", "Block", "BOOL", "DataSourceType", "FrameworkProvider", "INT64", "ListType", "MapType", "NO_DEFAULT",
    "NUMBER", "PlanContext", "ResourceType", "STRING", "SetType",
]
