"""String functions."""
from __future__ import annotations

import re
import unicodedata

from ..types import BOOL, DYNAMIC, NUMBER, STRING, ListType, ObjectType, TupleType
from ..values import Null, TList, Unknown, is_null, unmark
from . import FunctionError, Param, register
from ._gofmt import go_format, graphemes
from ._re2 import GoRegexp, compile_go
from ._util import check_size, whole


def _nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


@register("chomp", [Param("str", STRING)], STRING)
def _chomp(args, ctx):
    return re.sub(r"(?:\r\n?|\n)*\Z", "", args[0])


@register("endswith", [Param("str", STRING), Param("suffix", STRING)], BOOL)
def _endswith(args, ctx):
    return args[0].endswith(args[1])


@register("startswith", [Param("str", STRING), Param("prefix", STRING)], BOOL)
def _startswith(args, ctx):
    return args[0].startswith(args[1])


@register("strcontains", [Param("str", STRING), Param("substr", STRING)], BOOL)
def _strcontains(args, ctx):
    return args[1] in args[0]


@register("format", [Param("format", STRING)], STRING,
          variadic=Param("args", DYNAMIC, allow_null=True))
def _format(args, ctx):
    return go_format(args[0], list(args[1:]))


def _formatlist_impl(args, ctx):
    fmt = args[0]
    rest = list(args[1:])
    n = -1
    nidx = -1
    for i, a in enumerate(rest):
        if isinstance(a, list):
            if n < 0:
                n, nidx = len(a), i
            elif len(a) != n:
                raise FunctionError(f"argument {i + 1} has length {len(a)}, which is inconsistent with "
                                    f"argument {nidx + 1} of length {n}", i + 1)
    if n < 0:
        n = 1
    out = []
    for k in range(n):
        row = [a[k] if isinstance(a, list) else a for a in rest]
        try:
            out.append(go_format(fmt, row))
        except FunctionError as exc:
            raise FunctionError(f"error on format iteration {k}: {exc.message}") from None
    return TList(out, STRING)


register("formatlist", [Param("format", STRING)], ListType(STRING),
         variadic=Param("args", DYNAMIC, allow_null=True))(_formatlist_impl)


@register("indent", [Param("spaces", NUMBER), Param("str", STRING)], STRING)
def _indent(args, ctx):
    n = max(whole(args[0], "spaces", 0), 0)
    check_size(len(args[1]) + n * args[1].count("\n"))
    return args[1].replace("\n", "\n" + " " * n)


@register("join", [Param("separator", STRING)], STRING, variadic=Param("lists", ListType(STRING)))
def _join(args, ctx):
    if len(args) < 2:
        raise FunctionError("at least one list is required")
    items = []
    for li in args[1:]:
        for x in li:
            if is_null(x):
                raise FunctionError(f"element {len(items)} is null")
            items.append(x)
    return args[0].join(items)


def _simple_case(s: str, upper: bool) -> str:
    out = []
    for ch in s:
        c = ch.upper() if upper else ch.lower()
        out.append(c if len(c) == 1 else ch)
    return "".join(out)


@register("lower", [Param("str", STRING)], STRING)
def _lower(args, ctx):
    return _simple_case(args[0], False)


@register("upper", [Param("str", STRING)], STRING)
def _upper(args, ctx):
    return _simple_case(args[0], True)


def _regex_result_type(pat: GoRegexp):
    named = len(pat.groupindex)
    if pat.groups == 0:
        return STRING
    if named and named != pat.groups:
        raise FunctionError("invalid regular expression: can't mix capture group names and unnamed "
                            "capture groups", 0)
    if named:
        return ObjectType(tuple(sorted((k, STRING) for k in pat.groupindex)))
    return TupleType(tuple(STRING for _ in range(pat.groups)))


def _compile(p: str) -> GoRegexp:
    try:
        return compile_go(p)
    except FunctionError as exc:
        raise FunctionError(exc.message, 0) from None


def _regex_rt(args):
    p = args[0]
    if isinstance(p, str):
        return _regex_result_type(_compile(p))
    return DYNAMIC


def _match_value(pat: GoRegexp, m):
    if pat.groups == 0:
        return m.group(0)
    if pat.groupindex:
        return {k: (m.group(k) if m.group(k) is not None else Null(STRING)) for k in sorted(pat.groupindex)}
    return [g if g is not None else Null(STRING) for g in m.groups()]


@register("regex", [Param("pattern", STRING), Param("string", STRING)], _regex_rt)
def _regex(args, ctx):
    pat = _compile(args[0])
    _regex_result_type(pat)
    m = pat.search(args[1])
    if m is None:
        raise FunctionError("pattern did not match any part of the given string")
    return _match_value(pat, m)


def _regexall_rt(args):
    t = _regex_rt(args)
    return ListType(t)


@register("regexall", [Param("pattern", STRING), Param("string", STRING)], _regexall_rt)
def _regexall(args, ctx):
    pat = _compile(args[0])
    et = _regex_result_type(pat)
    return TList([_match_value(pat, m) for m in pat.find_all(args[1])], et)


@register("replace", [Param("str", STRING), Param("substr", STRING), Param("replace", STRING)], STRING)
def _replace(args, ctx):
    s, sub, rep = args
    if len(sub) > 1 and sub.startswith("/") and sub.endswith("/"):
        try:
            pat = compile_go(sub[1:-1])
        except FunctionError as exc:
            raise FunctionError(exc.message, 1) from None
        return pat.replace_all(s, rep)
    if sub:
        check_size(len(s) + s.count(sub) * (len(rep) - len(sub)))
    else:
        check_size(len(s) + (len(s) + 1) * len(rep))
    return s.replace(sub, rep)


@register("split", [Param("separator", STRING), Param("str", STRING)], ListType(STRING))
def _split(args, ctx):
    sep, s = args
    if sep == "":
        return TList(list(s), STRING)
    return TList(s.split(sep), STRING)


@register("strrev", [Param("str", STRING)], STRING)
def _strrev(args, ctx):
    return "".join(reversed(graphemes(_nfc(args[0]))))


@register("substr", [Param("str", STRING), Param("offset", NUMBER), Param("length", NUMBER)], STRING)
def _substr(args, ctx):
    s = _nfc(args[0])
    offset = whole(args[1], "offset", 1)
    length = whole(args[2], "length", 2)
    gs = graphemes(s)
    total = len(gs)
    if offset < 0:
        offset += total
    elif length == 0:
        return ""
    start = max(offset, 0)
    if start >= total and offset > 0:
        return ""
    if length < 0:
        return "".join(gs[start:])
    end = offset + length
    if end <= 0:
        return "".join(gs[start:])
    return "".join(gs[start:end])


def _is_sep(ch: str) -> bool:
    if ord(ch) <= 0x7F:
        return not (ch.isalnum() or ch == "_")
    if ch.isalpha() or ch.isdigit() or unicodedata.category(ch).startswith("N"):
        return False
    return ch.isspace()


@register("title", [Param("str", STRING)], STRING)
def _title(args, ctx):
    out = []
    prev = " "
    for ch in args[0]:
        if _is_sep(prev):
            t = ch.title()
            out.append(t if len(t) == 1 else ch)
        else:
            out.append(ch)
        prev = ch
    return "".join(out)


@register("trim", [Param("str", STRING), Param("cutset", STRING)], STRING)
def _trim(args, ctx):
    return args[0].strip(args[1]) if args[1] else args[0]


@register("trimprefix", [Param("str", STRING), Param("prefix", STRING)], STRING)
def _trimprefix(args, ctx):
    s, p = args
    return s[len(p):] if p and s.startswith(p) else s


@register("trimsuffix", [Param("str", STRING), Param("suffix", STRING)], STRING)
def _trimsuffix(args, ctx):
    s, p = args
    return s[:-len(p)] if p and s.endswith(p) else s


_GO_SPACE = "\t\n\v\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008" \
            "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


@register("trimspace", [Param("str", STRING)], STRING)
def _trimspace(args, ctx):
    return args[0].strip(_GO_SPACE)
