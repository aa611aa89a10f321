"""Go's regexp package on RE2 (google-re2): regex, regexall and replace.

Terraform compiles patterns with Go's regexp, an RE2 implementation: matching takes time
linear in the input whatever the pattern (no catastrophic backtracking), `$` matches only at
the end of the text unless `(?m)`, and repeated matching follows Go's rules for empty
matches. The text is matched as UTF-8 bytes, as Go does; offsets here are byte offsets.
"""
from __future__ import annotations

import re
from typing import Any, Iterator

from . import FunctionError

__all__ = ["GoRegexp", "compile_go"]

_RE2: Any = None


def _engine() -> tuple[Any, Any]:
    """(the re2 module, its options), loaded on the first pattern: the import costs every
    command that never matches anything."""
    global _RE2
    if _RE2 is None:
        import re2

        opts = re2.Options()
        opts.log_errors = False
        opts.max_mem = 64 << 20  # RE2 refuses patterns whose program needs more ("expression too large")
        _RE2 = (re2, opts)
    return _RE2

# RE2's error texts and Go's regexp/syntax wording for the same codes
_GO_CODES = [
    ("missing )", "missing closing )"),
    ("missing ]", "missing closing ]"),
    ("unexpected )", "unexpected )"),
    ("trailing \\", "trailing backslash at end of expression"),
    ("no argument for repetition operator", "missing argument to repetition operator"),
    ("bad repetition operator", "invalid nested repetition operator"),
    ("invalid repetition size", "invalid repeat count"),
    ("invalid perl operator", "invalid or unsupported Perl syntax"),
    ("invalid named capture group", "invalid named capture"),
    ("invalid character class range", "invalid character class range"),
    ("invalid character class", "invalid character class"),
    ("invalid escape sequence", "invalid escape sequence"),
    ("invalid UTF-8", "invalid UTF-8"),
    ("pattern too large - compile failed", "expression too large"),
    ("pattern too large - reverse compile failed", "expression too large"),
    ("bad repetition operator", "invalid nested repetition operator"),
]


def _go_error(raw: bytes | str) -> str:
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    for code, go in _GO_CODES:
        if text.startswith(code):
            arg = text[len(code):].lstrip(":").strip()
            return f"{go} in {arg}" if arg else go
    return text


_CACHE: dict[str, "GoRegexp"] = {}


def compile_go(pattern: str) -> "GoRegexp":
    """The compiled pattern, or FunctionError("invalid regexp pattern: ...") as Terraform says."""
    r = _CACHE.get(pattern)
    if r is None:
        r = GoRegexp(pattern)
        if len(_CACHE) > 256:
            _CACHE.clear()
        _CACHE[pattern] = r
    return r


class Match:
    """One match: byte spans of the whole match and each group, over the UTF-8 text."""

    __slots__ = ("data", "spans", "re")

    def __init__(self, data: bytes, spans: list[tuple[int, int]], rx: "GoRegexp"):
        self.data = data
        self.spans = spans
        self.re = rx

    def start(self) -> int:
        return self.spans[0][0]

    def end(self) -> int:
        return self.spans[0][1]

    def group(self, k: int | str = 0) -> str | None:
        if isinstance(k, str):
            k = self.re.groupindex[k]
        a, b = self.spans[k]
        if a < 0:
            return None
        return self.data[a:b].decode("utf-8", "replace")

    def groups(self) -> list[str | None]:
        return [self.group(i) for i in range(1, len(self.spans))]


class GoRegexp:
    def __init__(self, pattern: str):
        re2, options = _engine()
        try:
            self._rx = re2.compile(pattern.encode("utf-8", "surrogatepass"), options)
        except re2.error as exc:
            raise FunctionError(f"invalid regexp pattern: {_go_error(exc.args[0] if exc.args else exc)}") \
                from None
        self.pattern = pattern
        self.groups: int = self._rx.groups
        self.groupindex: dict[str, int] = {
            (k.decode("utf-8") if isinstance(k, bytes) else k): v for k, v in self._rx.groupindex.items()}

    def _at(self, data: bytes, pos: int) -> Match | None:
        m = self._rx.search(data, pos)
        if m is None:
            return None
        return Match(data, [m.span(i) for i in range(self.groups + 1)], self)

    def search(self, text: str) -> Match | None:
        return self._at(text.encode("utf-8", "surrogatepass"), 0)

    def find_all(self, text: str) -> Iterator[Match]:
        """Go's allMatches: successive matches; an empty match right after a match is skipped."""
        data = text.encode("utf-8", "surrogatepass")
        end = len(data)
        pos, prev_end = 0, -1
        while pos <= end:
            m = self._at(data, pos)
            if m is None:
                return
            a, b = m.spans[0]
            accept = True
            if b == pos:
                if a == prev_end:
                    accept = False
                pos += _rune_width(data, pos) if pos < end else 1
            else:
                pos = b
            prev_end = b
            if accept:
                yield m

    def replace_all(self, text: str, template: str) -> str:
        """Go's ReplaceAllString: each match replaced by template with $-expansion."""
        data = text.encode("utf-8", "surrogatepass")
        end = len(data)
        out: list[bytes] = []
        last = search = 0
        while search <= end:
            m = self._at(data, search)
            if m is None:
                break
            a, b = m.spans[0]
            out.append(data[last:a])
            if b > last or a == 0:
                out.append(go_expand(template, m).encode("utf-8", "surrogatepass"))
            last = b
            width = _rune_width(data, search) if search < end else 0
            if search + width > b:
                search += width
            elif search + 1 > b:
                search += 1
            else:
                search = b
        out.append(data[last:])
        return b"".join(out).decode("utf-8", "replace")


def _rune_width(data: bytes, i: int) -> int:
    c = data[i]
    if c < 0x80:
        return 1
    n = 2 if c >> 5 == 0b110 else 3 if c >> 4 == 0b1110 else 4 if c >> 3 == 0b11110 else 1
    return n if i + n <= len(data) else 1


_NAME = re.compile(r"[A-Za-z0-9_]+")


def go_expand(template: str, m: Any) -> str:
    """Go's Regexp.Expand: $1, ${1}, $name, ${name} and $$ in a replacement template. A name
    is the longest run of letters, digits and underscores; an unknown group is empty text."""
    out: list[str] = []
    i, n = 0, len(template)
    rx = m.re
    while i < n:
        c = template[i]
        if c != "$" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        d = template[i + 1]
        if d == "$":
            out.append("$")
            i += 2
            continue
        if d == "{":
            j = template.find("}", i + 2)
            name = template[i + 2:j] if j > 0 else ""
            if j < 0 or not _NAME.fullmatch(name):
                out.append(c)
                i += 1
                continue
            i = j + 1
        else:
            mm = _NAME.match(template, i + 1)
            if not mm:
                out.append(c)
                i += 1
                continue
            name = mm.group(0)
            i = mm.end()
        if name.isdigit():
            k = int(name) if len(name) < 10 else -1
            if 0 <= k <= rx.groups:
                out.append(m.group(k) or "")
        elif name in rx.groupindex:
            out.append(m.group(name) or "")
    return "".join(out)
