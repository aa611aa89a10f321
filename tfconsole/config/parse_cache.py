"""The parse cache: configuration files already parsed, kept as JSON in the user's cache directory.

An unchanged file then costs a read and a decode instead of a parse. Entries are keyed by the
BLAKE2b digest of the file's content together with everything that decides what parsing produces (the
grammar tables, and the source of the parser, the tree builder and the number parser), so any
change to either makes a new key; old entries are simply never read again.

The cache is data, never code: entries are JSON, decoded by a fixed table of node types with
every field's type checked; an entry that fails any check is ignored (and rebuilt). It lives in
`$XDG_CACHE_HOME/tfconsole` (or `~/.cache/tfconsole`), a directory of mode 0700 owned by the
user, with files of mode 0600; a directory or file owned by someone else, or writable by others,
is not used. Every failure (no home, read-only disk, a planted file) only costs a parse.
"""
from __future__ import annotations

import os
from itertools import repeat
from typing import Any

from tfconsole.diags import Diagnostics, SourceRange
from tfconsole.lang.strings import nfc
from tfconsole.lang.values import note_wholly_known

from . import body as _body
from .cache_store import read_json, remove_entry, write_json

__all__ = ["CACHE_FORMAT", "NotCacheable", "code_key", "decode_body", "encode_body", "entry_key",
           "parse_file_cached", "read_json", "write_json"]

CACHE_FORMAT = 4

try:  # CPython's own BLAKE2: hashlib would load OpenSSL first (2-3 ms of every command)
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover - other interpreters
    from hashlib import blake2b as _blake2b


def _digest(data: bytes = b"") -> Any:
    return _blake2b(data, digest_size=32)


# ---------------------------------------------------------------------------
# what decides a parse result


_CODE_KEY: str | None = None


def code_key() -> str:
    """A hash of everything besides the file that decides what parsing it produces."""
    global _CODE_KEY
    if _CODE_KEY is None:
        _CODE_KEY = _stamped_code_key()
    return _CODE_KEY


def _code_files() -> list[str]:
    """The files that decide a parse result: python-hcl2's grammar, the shipped tables, and the
    source of the parser, its tree and number codec, and this module."""
    from tfconsole.lang import ast, values

    from . import body, hcl_tables

    here = os.path.dirname(os.path.abspath(__file__))
    # hcl_parser's path, not the module: a run whose files are all cached never loads the parser
    return [hcl_tables.grammar_path() or "", hcl_tables.SHIPPED, ast.__file__ or "", values.__file__ or "",
            body.__file__ or "", os.path.join(here, "hcl_parser.py"), hcl_tables.__file__ or "",
            os.path.abspath(__file__)]


def _stamped_code_key() -> str:
    """code_key through a small entry that maps the code files' (path, size, mtime) to their hash:
    hashing ~1 MB of grammar, tables and source cost every command ~2 ms; a stat is enough to
    know none of them changed. The stamp is taken before the files are read, so a file changed
    meanwhile only makes the next command hash again; without a cache directory, the hash."""
    stamp: list[Any] = [CACHE_FORMAT]
    for path in _code_files():
        try:
            st = os.stat(path)
        except OSError:
            return _hashed_code_key()
        stamp.append([path, st.st_size, st.st_mtime_ns])
    name = _digest(repr(stamp).encode("utf-8", "surrogatepass")).hexdigest()
    doc = read_json("codekey", name)
    if type(doc) is dict and doc.get("stamp") == stamp:
        key = doc.get("key")
        if type(key) is str and len(key) == 64 and key.isalnum():
            return key
    key = _hashed_code_key()
    write_json("codekey", name, {"stamp": stamp, "key": key})
    return key


def _hashed_code_key() -> str:
    from tfconsole.lang import ast, values

    from . import body, hcl_parser, hcl_tables

    h = _digest(f"format {CACHE_FORMAT}\n".encode())
    # the grammar and the shipped tables, without loading them: a run whose files are all
    # cached never needs the parser
    try:
        h.update(f"tables format {hcl_tables.TABLES_FORMAT}\n{hcl_tables.grammar_text()}".encode())
        with open(hcl_tables.SHIPPED, "rb") as f:
            h.update(_digest(f.read()).digest())
    except (OSError, hcl_tables.GrammarChanged) as exc:
        h.update(repr(exc).encode())
    for mod in (ast, values, body, hcl_parser, hcl_tables):
        try:
            with open(mod.__file__ or "", "rb") as f:
                h.update(f.read())
        except OSError:
            h.update(b"unreadable " + repr(mod).encode())
    h.update(__file__.encode())
    with open(__file__, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


# text -> its entry key: a module called six times is read six times, and its digest need be
# computed once; a hit compares the texts themselves, so it is exact
_KEYS: dict[str, str] = {}


def entry_key(text: str) -> str:
    key = _KEYS.get(text)
    if key is None:
        key = _digest(code_key().encode() + b"\0" + text.encode("utf-8", "surrogatepass")).hexdigest()
        if len(_KEYS) >= 64:  # a load's files, not every text a long console session ever read
            _KEYS.clear()
        _KEYS[text] = key
    return key


# ---------------------------------------------------------------------------
# parsing through the cache

# (cache key, filename) -> parse result: a module called several times is parsed once
_MEMO: dict[tuple[str, str], Any] = {}
_MEMO_MAX = 512


def parse_file_cached(text: str, filename: str) -> tuple[Any, Diagnostics]:
    """body.parse_file through the parse cache: in this process, then on disk. Only a
    file that parsed without any diagnostic is cached. The Body may be shared by several
    callers: it must not be changed."""
    try:
        key = entry_key(text)
    except (OSError, UnicodeError):
        return _body.parse_file(text, filename)
    body = _MEMO.get((key, filename))
    if body is not None:
        return body, Diagnostics()
    doc = read_json("hcl", key)
    if type(doc) is dict and doc.get("format") == CACHE_FORMAT and doc.get("key") == key:
        try:
            body = decode_body(doc.get("body"), filename, text, key)
        except ValueError:
            body = None
    if body is None:
        body, diags, numbers = _body._parse(text, filename)
        if body is None or len(diags):
            return body, diags
        _store(key, body, numbers, side=False)
    if len(_MEMO) >= _MEMO_MAX:
        _MEMO.clear()
    _MEMO[(key, filename)] = body
    return body, Diagnostics()



def _store(key: str, body: Any, numbers: dict, side: bool) -> None:
    """Write the entry of a parse result. The item nodes of its constant constructors go to an
    entry of their own ("hclitems"), written only with `side`: a first parse leaves them out (most
    commands never ask for them, and encoding them was a tenth of a cold `init`); the first run
    that does ask parses the file again and writes both, as after any miss."""
    try:
        doc = encode_body(body, numbers, side)
    except NotCacheable:
        remove_entry("hcl", key)
        return
    side_part = doc.pop("side")
    if side and side_part["items"]:
        write_json("hclitems", key, {"format": CACHE_FORMAT, "key": key, "side": side_part})
    write_json("hcl", key, {"format": CACHE_FORMAT, "key": key, "body": doc})


# ---------------------------------------------------------------------------
# the codec: Body and expression trees <-> JSON
#
# An entry is {"rng": [line, column, byte, end line, end column, end byte, ...], "body": ...}:
# every distinct range is stored once and nodes refer to their range by index (-1: none), so
# decoding makes each range once. A node is [tag, fields..., range].
#
# A constructor made only of literals (what evaluation treats as a constant) is stored as its
# value, as plain JSON: ["v", value, range, i]. A number is a JSON integer when it is an integer
# of up to 63 bits, else {"#": ["N", text, negated]} or {"#": ["I", hex]} ("#" is never the key
# of such an object: the encoder does not fold one that has it). Its item nodes, with their
# ranges, are item i of the "side" part, stored as an entry of its own and read only when
# something asks for them (i = -1: none stored; an empty constructor has none), so the values of
# a deep-merge module's 15 layers of nested literals are read by orjson at C speed, and their
# 11,000 ranges not at all.


class NotCacheable(Exception):
    """The tree holds something the codec does not store (it is then simply not cached)."""


def encode_body(body: Any, numbers: dict[int, tuple[Any, str, bool]], side: bool = True) -> dict:
    """{"rng", "body", "side": {"rng", "items"}}: the side part holds the item nodes of the
    constructors stored as values (without `side`, none: each is then index -1)."""
    from tfconsole.lang import ast as A

    enc = _Encoder(A, numbers, keep_side=side)
    out = enc.body(body)
    side = enc.side
    return {"rng": enc.rng_list, "body": out,
            "side": {"rng": side.rng_list if side else [], "items": enc.side_items}}


def decode_body(doc: Any, filename: str, text: str | None = None, key: str | None = None) -> Any:
    """The Body stored in `doc`, with `filename` in every range; ValueError if `doc` is not a
    well-formed entry. Given the file's `text` (and its cache `key`), each attribute's expression
    is decoded only when first used (body.LazyAttribute); should that expression's part of the
    entry then turn out malformed, the text is parsed instead and the entry removed. The items of
    constant constructors come from doc["side"] when present, else from the side entry."""
    from tfconsole.lang import ast as A

    try:
        lazy = None if text is None else _LazyFile(text, filename, key)
        dec = _Decoder(A, filename, doc["rng"], lazy, doc.get("side"))
        if lazy is not None:
            lazy.dec = dec
        return dec.body(doc["body"])
    except Exception as exc:  # noqa: BLE001 - whatever a malformed entry trips, it is only a miss
        raise ValueError(f"malformed parse cache entry: {exc!r}") from None


class _Ranges(dict):
    """Range index -> SourceRange, each made when first asked for (a decode of the block and
    attribute structure alone needs few of a file's ranges) and then shared."""

    def __init__(self, filename: str, raw: list):
        super().__init__()
        from .hcl_parser import make_range

        self.filename, self.raw, self.make, self.misses = filename, raw, make_range, 0
        # a range is asked for by each node decoded; constant constructors (read as values) and
        # expressions never used ask for none, so only a file decoded mostly node by node gets
        # all its ranges at once
        self.bulk = max(256, len(raw) // 12)

    def __missing__(self, i: int) -> Any:
        if not self.misses:  # every number of the list at once, in C, at the first range made
            _check(set(map(type, self.raw)) <= {int})
        self.misses += 1
        if self.misses == self.bulk:  # most of them wanted: the rest in one pass
            self.update(enumerate(map(self.make, repeat(self.filename), zip(*[iter(self.raw)] * 6))))
            if type(i) is int and 0 <= i < len(self):
                return dict.__getitem__(self, i)
        j = 6 * i
        sp = tuple(self.raw[j:j + 6])
        if len(sp) != 6 or type(i) is not int or i < 0:
            raise TypeError("range")
        r = self[i] = self.make(self.filename, sp)
        return r


class _LazyFile:
    """What an attribute decoded late needs: the decoder of its entry, and the file's text to
    parse should the entry fail it."""

    def __init__(self, text: str, filename: str, key: str | None):
        self.text, self.filename, self.key = text, filename, key
        self.dec: _Decoder | None = None
        self.parsed: Any = None

    def decoder(self, raw: list, path: tuple[int, ...], name: str) -> Any:
        return lambda: self.expr(raw, path, name)

    def expr(self, raw: list, path: tuple[int, ...], name: str) -> Any:
        try:
            assert self.dec is not None
            return self.dec.expr(raw)
        except Exception:  # noqa: BLE001 - a malformed entry: the file itself decides
            return self.reparsed(path, name)

    def read_side(self) -> Any:
        doc = read_json("hclitems", self.key) if self.key is not None else None
        _check(type(doc) is dict and doc.get("format") == CACHE_FORMAT and doc.get("key") == self.key)
        return doc["side"]  # type: ignore[index]

    def parsed_body(self) -> Any:
        if self.parsed is None:
            body, diags, numbers = _body._parse(self.text, self.filename)
            if body is None or len(diags):
                raise RuntimeError(f"{self.filename}: the parse cache entry for this file is malformed and the "
                                   "file does not parse; run the command again")
            if self.key is not None:  # the entry rebuilt from the file, as a miss would have
                _store(self.key, body, numbers, side=True)
            self.parsed = body
        return self.parsed

    def reparsed_items(self, cls: type, rng: SourceRange | None) -> Any:
        """The items of the constructor of type `cls` at `rng`, from the file parsed again (its
        side entry missing or malformed)."""
        want = None if rng is None else (rng.start.byte, rng.end.byte)
        stack: list[Any] = []
        bodies = [self.parsed_body()]
        while bodies:
            b = bodies.pop()
            stack.extend(a.expr for a in b.attributes.values())
            bodies.extend(k.body for k in b.blocks)
        while stack:
            e = stack.pop()
            if type(e) is cls and e.range is not None and (e.range.start.byte, e.range.end.byte) == want:
                return e.items
            stack.extend(e.children())
        raise RuntimeError(f"{self.filename}: the parse cache entry for this file does not match it; run the "
                           "command again")

    def reparsed(self, path: tuple[int, ...], name: str) -> Any:
        b = self.parsed_body()
        try:
            for i in path:
                b = b.blocks[i].body
            return b.attributes[name].expr
        except (IndexError, KeyError):
            raise RuntimeError(f"{self.filename}: the parse cache entry for this file does not match it; run the "
                               "command again") from None


def _node_table(A: Any) -> list[tuple[str, type, list[tuple[str, str]]]]:
    """tag, class and (slot, kind) of every node type the codec stores, in constructor order."""
    return [
        ("S", A.ScopeTraversal, [("root", "str"), ("steps", "steps")]),
        ("R", A.RelativeTraversal, [("source", "expr"), ("step", "str?"), ("key", "expr?")]),
        ("P", A.Splat, [("source", "expr"), ("each", "expr")]),
        ("A", A.AnonSymbol, []),
        ("T", A.TupleCons, [("items", "exprs")]),
        ("O", A.ObjectCons, [("items", "pairs")]),
        ("K", A.ObjectKey, [("name", "str?"), ("expr", "expr?")]),
        ("C", A.FunctionCall, [("name", "str"), ("args", "exprs"), ("expand_final", "bool")]),
        ("B", A.Binary, [("op", "str"), ("lhs", "expr"), ("rhs", "expr")]),
        ("U", A.Unary, [("op", "str"), ("operand", "expr")]),
        ("Q", A.Conditional, [("cond", "expr"), ("true", "expr"), ("false", "expr")]),
        ("F", A.ForExpr, [("key_var", "str?"), ("val_var", "str"), ("coll", "expr"), ("key", "expr?"),
                          ("value", "expr"), ("cond", "expr?"), ("group", "bool")]),
        ("(", A.Parens, [("inner", "expr")]),
        ("M", A.Template, [("parts", "exprs")]),
        ("W", A.TemplateWrap, [("inner", "expr")]),
        ("?", A.TemplateIf, [("cond", "expr"), ("then", "template"), ("else_", "template?")]),
        ("f", A.TemplateFor, [("key_var", "str?"), ("val_var", "str"), ("coll", "expr"), ("body", "template")]),
    ]


class _NoFold(Exception):
    """A constant constructor that cannot be stored as its value."""


_INT64 = 1 << 63  # orjson's integers: a larger one is stored as a number marker


class _Encoder:
    def __init__(self, A: Any, numbers: dict[int, tuple[Any, str, bool]], fold: bool = True,
                 keep_side: bool = True):
        self.A = A
        self.numbers = numbers
        self.fold = fold  # constant constructors stored as values (not in the side part itself)
        self.keep_side = keep_side  # their item nodes encoded into the side part
        self.side: _Encoder | None = None
        self.side_items: list = []
        self.table = {cls: (tag, fields) for tag, cls, fields in _node_table(A)}
        self.rng_list: list[int] = []
        self._rng: dict[tuple, int] = {}
        self._const: dict[int, bool] = {}

    def r(self, rng: SourceRange | None) -> int:
        if rng is None:
            return -1
        sp = getattr(rng, "span", None)  # a parsed tree's ranges carry their span
        if sp is None:
            s, e = rng.start, rng.end
            sp = (s.line, s.column, s.byte, e.line, e.column, e.byte)
        i = self._rng.get(sp)
        if i is None:
            i = self._rng[sp] = len(self._rng)
            self.rng_list.extend(sp)
        return i

    def body(self, b: Any) -> list:
        attrs = [[a.name, self.expr(a.expr), self.r(a.range), self.r(a.name_range)] for a in b.attributes.values()]
        blocks = [[k.type, list(k.labels), self.body(k.body), self.r(k.range)] for k in b.blocks]
        return [attrs, blocks, self.r(b.range)]

    def expr(self, e: Any) -> Any:
        if e is None:
            return None
        if type(e) is self.A.Literal:
            return self.literal(e)
        try:
            tag, fields = self.table[type(e)]
        except KeyError:
            raise NotCacheable(type(e).__name__) from None
        if (tag == "O" or tag == "T") and self.fold and self.constant(e):
            try:
                value = self.const_value(e)
            except _NoFold:
                pass
            else:
                return ["v", value, self.r(e.range), self.side_index(e, tag)]
        out: list = [tag]
        for name, kind in fields:
            out.append(self.field(getattr(e, name), kind))
        out.append(self.r(e.range))
        return out

    def constant(self, e: Any) -> bool:
        """A constructor made only of literals and such constructors, with every key a name:
        what evaluation treats as a constant (eval._constant_item)."""
        A = self.A
        c = e.const
        if c is not None and c is not A.NOT_CONSTANT:
            return True  # known as a value (hcl_literals), its items perhaps not read yet
        memo = self._const
        hit = memo.get(id(e))
        if hit is not None:
            return hit
        if type(e) is A.ObjectCons:
            ok = all(type(k) is A.ObjectKey and k.name is not None and self.constant_item(v) for k, v in e.items)
        else:
            ok = all(self.constant_item(x) for x in e.items)
        memo[id(e)] = ok  # the tree outlives the encoding: ids stay unique
        return ok

    def constant_item(self, v: Any) -> bool:
        t = type(v)
        return t is self.A.Literal or ((t is self.A.ObjectCons or t is self.A.TupleCons) and self.constant(v))

    def const_value(self, e: Any) -> Any:
        """The JSON form of what evaluating the constant `e` gives (eval._object, _tuple,
        _literal): the decoder reads it back (_Decoder.settled)."""
        A = self.A
        t = type(e)
        if t is A.ObjectCons or t is A.TupleCons:
            c = e.const
            if c is not None and c is not A.NOT_CONSTANT:
                return self.json_value(c)
        if t is A.ObjectCons:
            out = {}
            for k, v in e.items:
                if k.name == "#":
                    raise _NoFold
                out[k.name] = self.const_value(v)
            return out
        if t is A.TupleCons:
            return [self.const_value(x) for x in e.items]
        num = self.numbers.get(id(e))
        if num is not None and num[0] is e:
            v = A.number_literal(num[1])
            if num[2]:
                v = A.numbers.neg(v)
            return v if type(v) is int and -_INT64 < v < _INT64 else {"#": ["N", num[1], num[2]]}
        v = e.value
        if type(v) is str:
            return nfc(v)
        if v is None or type(v) is bool:
            return v
        if type(v) is int:
            return v if -_INT64 < v < _INT64 else {"#": ["I", format(v, "x")]}
        raise NotCacheable(f"literal of type {type(v).__name__}")

    def json_value(self, v: Any) -> Any:
        """const_value of a constant known as its value."""
        t = type(v)
        if t is dict:
            if "#" in v:
                raise _NoFold
            return {k: self.json_value(x) for k, x in v.items()}
        if t is list:
            return [self.json_value(x) for x in v]
        if t is str or t is bool or v is None:
            return v
        if t is int:
            return v if -_INT64 < v < _INT64 else {"#": ["I", format(v, "x")]}
        num = self.numbers.get(id(v))  # any other number: by the text it was read from
        if num is not None and num[0] is v:
            return {"#": ["N", num[1], num[2]]}
        raise NotCacheable(f"constant of type {t.__name__}")

    def side_index(self, e: Any, tag: str) -> int:
        if not self.keep_side or not e.items:
            return -1
        if self.side is None:
            self.side = _Encoder(self.A, self.numbers, fold=False)
        self.side_items.append(self.side.field(e.items, "pairs" if tag == "O" else "exprs"))
        return len(self.side_items) - 1

    def literal(self, e: Any) -> list:
        v = e.value
        num = self.numbers.get(id(e))
        if num is not None and num[0] is e:
            return ["N", num[1], num[2], self.r(e.range)]
        if v is None or type(v) in (str, bool):
            return ["L", v, self.r(e.range)]
        if type(v) is int:
            return ["I", format(v, "x"), self.r(e.range)]  # hex: no limit on digits
        raise NotCacheable(f"literal of type {type(v).__name__}")

    def field(self, v: Any, kind: str) -> Any:
        if kind == "exprs":
            return [self.expr(x) for x in v]
        if kind == "pairs":
            return [[self.expr(k), self.expr(x)] for k, x in v]
        if kind == "steps":
            return [["a", s.name] if type(s) is self.A.AttrStep else ["i", self.index_key(s.key)] for s in v]
        if kind in ("str", "str?", "bool"):
            return v
        return self.expr(v)  # expr, expr?, template, template?

    @staticmethod
    def index_key(k: Any) -> Any:
        if type(k) is str:
            return k
        if type(k) is int:
            return ["x", format(k, "x")]
        raise NotCacheable(f"index of type {type(k).__name__}")


def _check(ok: bool) -> None:
    if not ok:
        raise TypeError("unexpected value")


class _Decoder:
    """Rebuilds a Body; every field's type is checked, any surprise raises."""

    def __init__(self, A: Any, filename: str, rng: Any, lazy: _LazyFile | None = None, side: Any = None):
        self.A = A
        self.lazy = lazy
        self.side = side  # the side part, when the document holds it (else read from its entry)
        self.side_dec: _Decoder | None = None
        self.side_list: list = []
        self.attr_steps: dict[str, Any] = {}
        self.filename = filename
        _check(type(rng) is list and len(rng) % 6 == 0)
        self.R = _Ranges(filename, rng)
        self.nr = len(rng) // 6
        kinds = {"expr": self.expr, "expr?": self.opt_expr, "exprs": self.exprs, "pairs": self.pairs,
                 "steps": self.steps, "str": _str, "str?": _opt_str, "bool": _bool,
                 "template": self.template, "template?": self.opt_template}
        self.table = {tag: (cls, [kinds[kind] for _, kind in fields]) for tag, cls, fields in _node_table(A)}

    def rng(self, i: Any) -> SourceRange | None:
        _check(type(i) is int)
        return self.R[i] if i >= 0 else None

    def body(self, doc: Any, path: tuple[int, ...] = ()) -> Any:
        from .body import Attribute, Block, Body, LazyAttribute

        _check(type(doc) is list and len(doc) == 3 and type(doc[0]) is list and type(doc[1]) is list)
        out = Body(range=self.rng(doc[2]))
        for a in doc[0]:
            _check(type(a) is list and len(a) == 4 and type(a[0]) is str and a[0] not in out.attributes)
            if self.lazy is None:
                out.attributes[a[0]] = Attribute(a[0], self.expr(a[1]), self.rng(a[2]), self.rng(a[3]))
            else:
                _check(type(a[1]) is list)
                out.attributes[a[0]] = LazyAttribute(a[0], self.rng(a[2]), self.rng(a[3]),
                                                     self.lazy.decoder(a[1], path, a[0]))
        for i, b in enumerate(doc[1]):
            _check(type(b) is list and len(b) == 4 and type(b[0]) is str and type(b[1]) is list
                   and all(type(x) is str for x in b[1]))
            out.blocks.append(Block(b[0], list(b[1]), self.body(b[2], (*path, i)), self.rng(b[3])))
        return out

    def expr(self, d: Any) -> Any:
        _check(type(d) is list and len(d) >= 2)
        tag = d[0]
        A = self.A
        if tag == "L":
            _check(len(d) == 3 and (d[1] is None or type(d[1]) in (str, bool)))
            i = d[2]
            if type(i) is not int:
                raise TypeError("range")
            return A.Literal(d[1], self.R[i] if i >= 0 else None)
        if tag == "N":
            _check(len(d) == 4 and type(d[1]) is str and type(d[2]) is bool and len(d[1]) < 100_000)
            v = A.number_literal(d[1])
            return A.Literal(A.numbers.neg(v) if d[2] else v, self.rng(d[3]))
        if tag == "I":
            _check(len(d) == 3 and type(d[1]) is str)
            return A.Literal(int(d[1], 16), self.rng(d[2]))
        # the commonest nodes of large configurations, without the generic field loop
        if tag == "K" and len(d) == 4:
            if d[2] is None:
                if type(d[1]) is not str:
                    raise TypeError("object key")
                return A.ObjectKey(d[1], None, self.rng(d[3]))
            if d[1] is not None:
                raise TypeError("object key")
            return A.ObjectKey(None, self.expr(d[2]), self.rng(d[3]))
        if tag == "v" and len(d) == 4:
            value = self.settled(d[1])
            cls = A.ObjectCons if type(value) is dict else A.TupleCons
            _check(type(value) in (dict, list) and type(d[3]) is int and d[3] >= -1)
            rng, i = self.rng(d[2]), d[3]
            if not value:  # no items
                return cls.constant(value, list, rng)
            return cls.constant(value, lambda: self.side_items(i, cls, rng), rng)
        if tag == "S" and len(d) == 4 and type(d[1]) is str:
            return A.ScopeTraversal(d[1], self.steps(d[2]), self.rng(d[3]))
        if tag == "C" and len(d) == 5 and type(d[1]) is str and type(d[3]) is bool:
            return A.FunctionCall(d[1], self.exprs(d[2]), d[3], self.rng(d[4]))
        if tag == "O" and len(d) == 3:
            return A.ObjectCons(self.pairs(d[1]), self.rng(d[2]))
        if tag == "T" and len(d) == 3:
            return A.TupleCons(self.exprs(d[1]), self.rng(d[2]))
        cls, fields = self.table[tag]
        _check(len(d) == len(fields) + 2)
        args = [f(v) for f, v in zip(fields, d[1:])]
        if cls is A.ObjectKey:
            _check((args[0] is None) != (args[1] is None))
        return cls(*args, self.rng(d[-1]))

    def settled(self, v: Any) -> Any:
        """A constant's value as stored (const_value), checked, its numbers made and every
        container recorded as wholly known; containers are completed in place."""
        t = type(v)
        if t is dict or t is list:
            if t is dict and "#" in v:
                return self.number(v)
            for k, x in (v.items() if t is dict else enumerate(v)):
                tx = type(x)
                if tx is dict or tx is list or (tx is str and not x.isascii()):
                    v[k] = self.settled(x)
                elif not (tx is str or tx is int or tx is bool or x is None):
                    raise TypeError("constant")
            return note_wholly_known(v)
        if t is str:
            return nfc(v)
        if t is int or t is bool or v is None:
            return v
        raise TypeError("constant")

    def number(self, v: dict) -> Any:
        m = v["#"]
        _check(len(v) == 1 and type(m) is list and len(m) in (2, 3) and m[0] in ("N", "I"))
        return self.expr([*m, -1]).value  # a number literal, checked as any other

    def side_items(self, i: int, cls: type, rng: SourceRange | None) -> Any:
        """The item nodes of the constant constructor stored with side index i."""
        try:
            if i < 0:
                raise TypeError("not stored")
            if self.side_dec is None:
                side = self.side
                if side is None:
                    if self.lazy is None:
                        raise TypeError("no side part")
                    side = self.lazy.read_side()
                _check(type(side) is dict and type(side.get("items")) is list)
                self.side_list = side["items"]
                self.side_dec = _Decoder(self.A, self.filename, side["rng"])
            raw = self.side_list[i]
            return self.side_dec.pairs(raw) if cls is self.A.ObjectCons else self.side_dec.exprs(raw)
        except Exception:  # noqa: BLE001 - a missing or malformed side entry: the file itself decides
            if self.lazy is None:
                raise
            return self.lazy.reparsed_items(cls, rng)

    def opt_expr(self, d: Any) -> Any:
        return None if d is None else self.expr(d)

    def exprs(self, v: Any) -> list:
        _check(type(v) is list)
        return [self.expr(x) for x in v]

    def pairs(self, v: Any) -> list:
        _check(type(v) is list)
        expr, R, ObjectKey = self.expr, self.R, self.A.ObjectKey
        out = []
        for p in v:
            if type(p) is not list or len(p) != 2:
                raise TypeError("object item")
            k = p[0]
            # a key written as a name, the commonest node of large configurations, inline
            if type(k) is list and len(k) == 4 and k[0] == "K" and k[2] is None and type(k[1]) is str \
                    and type(k[3]) is int:
                i = k[3]
                key = ObjectKey(k[1], None, R[i] if i >= 0 else None)
            else:
                key = expr(k)
            out.append((key, expr(p[1])))
        return out

    def template(self, d: Any) -> Any:
        t = self.expr(d)
        _check(type(t) is self.A.Template)
        return t

    def opt_template(self, d: Any) -> Any:
        return None if d is None else self.template(d)

    def steps(self, v: Any) -> tuple:
        _check(type(v) is list)
        out = []
        attrs = self.attr_steps
        for s in v:
            _check(type(s) is list and len(s) == 2)
            if s[0] == "a":
                step = attrs.get(s[1])
                if step is None:  # one (immutable) step per name: local.layer_00 is named 150 times
                    step = attrs[_str(s[1])] = self.A.AttrStep(s[1])
                out.append(step)
                continue
            _check(s[0] == "i")
            k = s[1]
            if type(k) is list:
                _check(len(k) == 2 and k[0] == "x" and type(k[1]) is str)
                out.append(self.A.IndexStep(int(k[1], 16)))
            else:
                out.append(self.A.IndexStep(_str(k)))
        return tuple(out)


def _str(v: Any) -> str:
    _check(type(v) is str)
    return v


def _opt_str(v: Any) -> str | None:
    _check(v is None or type(v) is str)
    return v


def _bool(v: Any) -> bool:
    _check(type(v) is bool)
    return v
