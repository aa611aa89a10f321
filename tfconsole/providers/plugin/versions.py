"""Version numbers and version constraints with Terraform's semantics.

One implementation serves both places Terraform uses constraints:

* provider selection (`required_providers` versions, the lock file's `constraints`): Terraform parses
  these "Ruby style" — `~>`, `>=`, `<=`, `>`, `<`, `=`, `!=`, comma-separated — with strict syntax
  (one space at most after an operator, no `v` prefix, at most three numbers) and lets a
  prerelease match only when a `=` constraint names it exactly;
* `required_version`, checked against the Terraform release tfconsole is compatible with. Terraform
  checks it with a more permissive grammar (a `v` prefix, any spacing, more than three numbers) in
  which `~> 1` means "1 or newer" rather than "1.x" — `core=True` selects those rules.

Constraint strings are also written back in Terraform's normalised form (`constraints_string`),
which is what the lock file records and what `init` prints. Parsing errors carry Terraform's
wording; callers turn them into diagnostics.
"""
from __future__ import annotations

import re
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from functools import total_ordering

_ASCII_DIGITS = frozenset("0123456789")
_ASCII_ALPHA = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_SPACE = frozenset(" \t\n\r\v\f")
_EXTRA = _ASCII_DIGITS | _ASCII_ALPHA | frozenset(".-")
_NUM_NAMES = ("major", "minor", "patch")


class VersionError(ValueError):
    """A version or constraint string Terraform would reject; the message is Terraform's."""


def _extra_less(a: str, b: str) -> bool:
    """Prerelease ordering: dot-separated parts, numeric parts before (and below) textual ones."""
    pa, pb = a.split("."), b.split(".")
    for x, y in zip(pa, pb):
        if x == y:
            continue
        xn, yn = x.isdigit(), y.isdigit()
        if xn != yn:
            return xn
        if xn:
            return (len(x), x) < (len(y), y)
        return x < y
    return len(pa) < len(pb)


@total_ordering
@dataclass(frozen=True)
class Version:
    major: int
    minor: int = 0
    patch: int = 0
    prerelease: str = ""
    metadata: str = ""

    def __str__(self) -> str:
        s = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            s += "-" + self.prerelease
        if self.metadata:
            s += "+" + self.metadata
        return s

    def same(self, other: Version) -> bool:
        """Equal ignoring build metadata."""
        return (self.major, self.minor, self.patch, self.prerelease) == (
            other.major, other.minor, other.patch, other.prerelease)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        a, b = (self.major, self.minor, self.patch), (other.major, other.minor, other.patch)
        if a != b:
            return a < b
        if self.prerelease == other.prerelease:
            return False
        if not self.prerelease:
            return False
        if not other.prerelease:
            return True
        return _extra_less(self.prerelease, other.prerelease)


# ---------------------------------------------------------------------------
# the scanner: operator, separator, numbers, prerelease, metadata, remainder


@dataclass
class _Raw:
    op: str
    sep: str
    nums: list[str]
    num_count: int
    pre: str
    meta: str
    rest: str


def _scan(s: str) -> _Raw:
    n, i = len(s), 0
    while i < n and not (s[i] in _ASCII_DIGITS or s[i] in _SPACE or s[i] in _ASCII_ALPHA or s[i] in ".*"):
        i += 1
    op, j = s[:i], i
    while i < n and (s[i] in _SPACE or s[i] == "v"):
        i += 1
    sep = s[j:i]
    nums: list[str] = []
    count = 0
    while i < n:
        start = i
        if s[i] in _ASCII_DIGITS:
            while i < n and s[i] in _ASCII_DIGITS:
                i += 1
        elif s[i] in "*xX":
            i += 1
        else:
            break
        count += 1
        if len(nums) < 3:
            nums.append(s[start:i])
        if i + 1 < n and s[i] == "." and (s[i + 1] in _ASCII_DIGITS or s[i + 1] in "*xX"):
            i += 1
            continue
        break
    pre = meta = ""
    if count and i + 1 < n and s[i] == "-" and s[i + 1] in _EXTRA:
        j = i + 1
        while j < n and s[j] in _EXTRA:
            j += 1
        pre, i = s[i + 1:j], j
    if count and i + 1 < n and s[i] == "+" and s[i + 1] in _EXTRA:
        j = i + 1
        while j < n and s[j] in _EXTRA:
            j += 1
        meta, i = s[i + 1:j], j
    return _Raw(op, sep, nums + [""] * (3 - len(nums)), count, pre, meta, s[i:])


def _wild(s: str) -> bool:
    return s in ("*", "x", "X")


def parse_version(s: str) -> Version:
    """An exact version such as a lock file's `version` or a mirror directory name."""
    if not s.strip():
        raise VersionError("empty specification")
    raw = _scan(s)
    op = raw.op.strip()
    if op in (">", ">=", "<", "<=", "!", "!=", "~>", "^", "~"):
        raise VersionError(f"can't use constraint operator {_q(raw.op)}; an exact version is required")
    if op:
        raise VersionError(f"invalid sequence {_q(raw.op)} at start of specification")
    if raw.sep:
        if "v" in raw.sep:
            raise VersionError('a "v" prefix should not be used')
        raise VersionError("extraneous spaces at start of specification")
    if raw.rest:
        rest = raw.rest.strip()
        if not rest:
            raise VersionError("extraneous spaces at end of specification")
        if s.startswith("v"):
            raise VersionError('a "v" prefix should not be used')
        if rest.startswith((",", "|")):
            raise VersionError("can't specify multiple versions; a single exact version is required")
        if rest.startswith("-"):
            raise VersionError("can't specify version range; a single exact version is required")
        if s.strip().startswith(rest):
            raise VersionError("invalid specification; required format is three positive integers "
                               "separated by periods")
        raise VersionError(f"invalid characters {_q(rest)}")
    if raw.num_count > 3:
        raise VersionError("too many numbered portions; only three are allowed (major, minor, patch)")
    for idx, part in enumerate(raw.nums):
        if _wild(part):
            raise VersionError(f"can't use wildcard for {_NUM_NAMES[idx]} number; an exact version is required")
    a, b, c = (int(x) if x else 0 for x in raw.nums)
    return Version(a, b, c, raw.pre, raw.meta)


def _q(s: str) -> str:
    """Go's %q for the plain ASCII strings that reach error messages."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# ---------------------------------------------------------------------------
# constraints

_OPS = ("=", "!=", ">", ">=", "<", "<=", "~>")


@dataclass(frozen=True)
class Constraint:
    """One selection: an operator and a boundary given with `depth` numbers (1..3, or more in the
    permissive grammar); `segments` holds them all, unconstrained trailing numbers as 0."""

    op: str
    segments: tuple[int, ...]
    depth: int
    prerelease: str = ""
    metadata: str = ""
    text: str = field(default="", compare=False)  # as written (the permissive grammar quotes it back)

    @property
    def boundary(self) -> Version:
        s = (self.segments + (0, 0, 0))[:3]
        return Version(s[0], s[1], s[2], self.prerelease, self.metadata)

    def allows(self, v: Version, core: bool = False) -> bool:
        """The version set of this one constraint (prerelease filtering is Constraints' job)."""
        if core:
            return _core_allows(self, v)
        b = self.boundary
        if self.op not in ("=", "!="):
            b = Version(b.major, b.minor, b.patch, b.prerelease)  # metadata counts only for exact matches
        if self.op in ("=", "!="):
            eq = v.same(b) and v.metadata == b.metadata
            return eq if self.op == "=" else not eq
        if self.op == ">":
            return b < v
        if self.op == ">=":
            return not v < b
        if self.op == "<":
            return v < b
        if self.op == "<=":
            return not b < v
        # ~>: the last given number may grow; with one or two numbers the minor may grow
        if self.depth >= 3:
            upper = Version(b.major, b.minor + 1, 0)
        else:
            upper = Version(b.major + 1, 0, 0)
        return not v < b and v < upper


def _core_allows(c: Constraint, v: Version) -> bool:
    """The permissive grammar's meaning, used for `required_version`: numbers compare over all the
    given segments, and `~>` keeps every given number but the last (so `~> 1` is 1.0 or later)."""
    vs = (v.major, v.minor, v.patch)
    cs = c.segments
    less = _segments_less(vs, cs, v.prerelease, c.prerelease)
    greater = _segments_less(cs, vs, c.prerelease, v.prerelease)
    if c.op == "=":
        return not less and not greater
    if c.op == "!=":
        return less or greater
    if c.op == ">":
        return greater
    if c.op == ">=":
        return not less
    if c.op == "<":
        return less
    if c.op == "<=":
        return not greater
    if less or len(cs) > len(vs):
        return False
    return all(vs[i] == cs[i] for i in range(c.depth - 1))


def _segments_less(vs: tuple, cs: tuple, vpre: str, cpre: str) -> bool:
    n = max(len(vs), len(cs))
    a, b = vs + (0,) * (n - len(vs)), cs + (0,) * (n - len(cs))
    if a != b:
        return a < b
    if vpre == cpre:
        return False
    if not vpre:
        return False
    if not cpre:
        return True
    return _extra_less(vpre, cpre)


@dataclass(frozen=True)
class Constraints:
    items: tuple[Constraint, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.items)

    def __add__(self, other: Constraints) -> Constraints:
        return Constraints(self.items + other.items)

    def allows(self, v: Version, core: bool = False) -> bool:
        """Every constraint holds, and a prerelease only where a `=` constraint names it."""
        if not all(c.allows(v, core) for c in self.items):
            return False
        if not v.prerelease or core:
            return True
        return any(c.op == "=" and c.boundary.same(v) for c in self.items)

    def newest(self, versions: list[Version]) -> Version | None:
        for v in sorted(versions, reverse=True):
            if self.allows(v):
                return v
        return None


def parse_constraints(s: str) -> Constraints:
    """Terraform's strict provider-constraint grammar (errors in its words)."""
    items: list[Constraint] = []
    remain = s.strip()
    while remain:
        c, new_remain = _parse_one(remain)
        consumed = remain[:len(remain) - len(new_remain)]
        if isinstance(c, str):
            raise VersionError(f"invalid specification {_q(consumed)}: {c}")
        remain = new_remain.strip()
        if remain:
            if remain.startswith("v"):
                raise VersionError('a "v" prefix should not be used when specifying versions')
            if not remain.startswith(","):
                raise VersionError(f"missing comma after {_q(consumed)}")
            remain = remain[1:].strip()
        items.append(c)
    return Constraints(tuple(items))


def _parse_one(s: str) -> tuple[Constraint | str, str]:
    raw = _scan(s)
    op = raw.op
    if op == "":
        op = "="
    elif op == "=<":
        return f'invalid constraint operator {_q(op)}; did you mean "<="?', raw.rest
    elif op == "=>":
        return f'invalid constraint operator {_q(op)}; did you mean ">="?', raw.rest
    elif op not in _OPS:
        return f"invalid constraint operator {_q(op)}", raw.rest
    if raw.sep and raw.sep != " ":
        if "v" in raw.sep:
            return 'a "v" prefix should not be used when specifying versions', raw.rest
        if raw.op == "":
            return "extraneous spaces at start of specification", raw.rest
        return f"only one space is expected after the operator {_q(raw.op)}", raw.rest
    if raw.sep == " " and raw.op == "":
        return "extraneous spaces at start of specification", raw.rest
    if raw.num_count > 3:
        return "too many numbered portions; only three are allowed (major, minor, patch)", raw.rest
    for idx, part in enumerate(raw.nums):
        if _wild(part):
            return (f"can't use wildcard for {_NUM_NAMES[idx]} number; omit segments that should be "
                    "unconstrained"), raw.rest
    # unconstrained numbers count as zero; `depth` (how many were given) decides what `~>` lets grow
    segs = tuple(int(x) if x else 0 for x in raw.nums)
    return Constraint(op, segs, min(raw.num_count, 3), raw.pre, raw.meta), raw.rest


# The permissive grammar `required_version` (and the configuration loader's first syntax check of
# provider versions) accepts: an optional operator, any spaces, an optional "v", any number of
# dot-separated numbers, then a prerelease (with or without "-" when it starts with a letter)
# and build metadata.
_LOOSE = re.compile(
    r"^\s*(<=|>=|!=|~>|<|>|=|)\s*"
    r"v?([0-9]+(?:\.[0-9]+)*?)"
    r"(?:-([0-9]+[0-9A-Za-z\-~]*(?:\.[0-9A-Za-z\-~]+)*)|-?([A-Za-z\-~]+[0-9A-Za-z\-~]*(?:\.[0-9A-Za-z\-~]+)*))?"
    r"(?:\+([0-9A-Za-z\-~]+(?:\.[0-9A-Za-z\-~]+)*))?\s*$")


def parse_loose(s: str) -> Constraints:
    """The permissive grammar; raises VersionError (Terraform then says the string "does not use
    correct version constraint syntax")."""
    items = []
    for part in s.split(","):
        m = _LOOSE.match(part)
        if m is None:
            raise VersionError(f"malformed constraint: {part}")
        op, nums, pre1, pre2, meta = m.groups()
        segs = tuple(int(x) for x in nums.split("."))
        depth = len(segs)
        if len(segs) < 3:
            segs = segs + (0,) * (3 - len(segs))
        items.append(Constraint(op or "=", segs, depth, pre1 or pre2 or "", meta or "", part))
    return Constraints(tuple(items))


def loose_string(c: Constraint) -> str:
    """A constraint of the permissive grammar the way Terraform quotes it back: as written."""
    return c.text


# ---------------------------------------------------------------------------
# the normalised form written to the lock file and printed by init

_OP_PRIORITY = {">": 1, ">=": 2, "=": 3, "~>p": 4, "~>m": 5, "<=": 6, "<": 7, "!=": 8}


def _norm_key(c: Constraint) -> str:
    if c.op == "~>":
        return "~>p" if c.depth >= 3 else "~>m"
    return c.op


def constraints_string(cs: Constraints) -> str:
    """Terraform's canonical rendering: deduplicated, ordered by boundary then operator."""
    seen: dict[tuple, Constraint] = {}
    for c in cs.items:
        key = (_norm_key(c), c.segments[:3], c.prerelease, c.metadata)
        seen.setdefault(key, c)
    ordered = sorted(seen.values(), key=lambda c: (_BoundaryKey(c), _OP_PRIORITY[_norm_key(c)]))
    out = []
    for c in ordered:
        prefix = {"~>": "~> ", "=": "", ">": "> ", ">=": ">= ", "<": "< ", "<=": "<= ", "!=": "!= "}[c.op]
        b = c.boundary
        body = f"{b.major}.{b.minor}" if c.op == "~>" and c.depth < 3 else f"{b.major}.{b.minor}.{b.patch}"
        if c.prerelease:
            body += "-" + c.prerelease
        if c.metadata:
            body += "+" + c.metadata
        out.append(prefix + body)
    return ", ".join(out)


@total_ordering
class _BoundaryKey:
    def __init__(self, c: Constraint) -> None:
        self.v = c.boundary

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _BoundaryKey) and self.v.same(other.v) and self.v.metadata == other.v.metadata

    def __lt__(self, other: _BoundaryKey) -> bool:
        if self.v.same(other.v):
            return _extra_less(self.v.metadata, other.v.metadata) if self.v.metadata != other.v.metadata else False
        return self.v < other.v
