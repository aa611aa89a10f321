"""Unit tests of the function library over its Python API."""
from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tfconsole.lang import numbers as N
from tfconsole.lang.funcs import FUNCTIONS, FuncContext, FunctionError, call_function
from tfconsole.lang.types import BOOL, DYNAMIC, NUMBER, STRING, ListType, MapType, ObjectType, SetType, TupleType
from tfconsole.lang.values import Null, Sensitive, TList, TMap, TSet, Unknown, type_of


def _lang(v):
    """Python test data as language values: a float literal becomes the number it spells."""
    if isinstance(v, float):
        return N.parse(repr(v))
    if type(v) is list:
        return [_lang(x) for x in v]
    if type(v) is dict:
        return {k: _lang(x) for k, x in v.items()}
    return v


def _py(v):
    """A fractional result as the nearest float, so tests can compare with float literals."""
    if type(v) is N.Num and not N.is_integer(v):
        return float(v)
    return v


def call(name, *args, ctx=None, expand=False):
    return _py(call_function(name, [_lang(a) for a in args], ctx or FuncContext(base_dir="."),
                             expand_last=expand))


def test_registry_covers_every_category():
    for name in ["abs", "ceil", "floor", "log", "max", "min", "parseint", "pow", "signum", "chomp",
                 "endswith", "format", "formatlist", "indent", "join", "lower", "regex", "regexall",
                 "replace", "split", "startswith", "strcontains", "strrev", "substr", "title", "trim",
                 "trimprefix", "trimsuffix", "trimspace", "upper", "alltrue", "anytrue", "chunklist",
                 "coalesce", "coalescelist", "compact", "concat", "contains", "distinct", "element",
                 "flatten", "index", "keys", "length", "lookup", "matchkeys", "merge", "one", "range",
                 "reverse", "setintersection", "setproduct", "setsubtract", "setunion", "slice", "sort",
                 "sum", "transpose", "values", "zipmap", "base64decode", "base64encode", "base64gzip",
                 "csvdecode", "jsondecode", "jsonencode", "textdecodebase64", "textencodebase64",
                 "urlencode", "yamldecode", "yamlencode", "abspath", "dirname", "pathexpand", "basename",
                 "file", "fileexists", "fileset", "filebase64", "templatefile", "formatdate", "timeadd",
                 "timecmp", "timestamp", "plantimestamp", "base64sha256", "base64sha512", "bcrypt",
                 "filebase64sha256", "filebase64sha512", "filemd5", "filesha1", "filesha256",
                 "filesha512", "md5", "sha1", "sha256", "sha512", "uuid", "uuidv5", "cidrhost",
                 "cidrnetmask", "cidrsubnet", "cidrsubnets", "tobool", "tolist", "tomap", "tonumber",
                 "toset", "tostring", "type", "sensitive", "nonsensitive", "issensitive"]:
        assert name in FUNCTIONS, name
    with pytest.raises(KeyError):
        call("nosuchfunction")


# ---- generic call rules


def test_argument_count_errors():
    with pytest.raises(FunctionError) as e:
        call("abs")
    assert e.value.summary == "Not enough function arguments"
    assert e.value.detail == 'Function "abs" expects 1 argument(s). Missing value for "num".'
    with pytest.raises(FunctionError) as e:
        call("abs", 1, 2)
    assert e.value.summary == "Too many function arguments"
    assert e.value.detail == 'Function "abs" expects only 1 argument(s).'


def test_parameter_conversion_and_null():
    assert call("upper", 1) == "1"
    with pytest.raises(FunctionError) as e:
        call("upper", [1])
    assert e.value.arg_index == 0 and e.value.param_name == "str"
    assert e.value.detail == 'Invalid value for "str" parameter: string required, but have tuple.'
    with pytest.raises(FunctionError) as e:
        call("upper", None)
    assert e.value.detail == 'Invalid value for "str" parameter: argument must not be null.'
    with pytest.raises(FunctionError) as e:
        call("join", ",", [["a"]])
    assert e.value.message == "element 0: string required, but have tuple"


def test_expand_last():
    assert call("max", [2, 9, 4], expand=True) == 9
    assert call("join", "-", [["a"], ["b"]], expand=True) == "a-b"
    with pytest.raises(FunctionError) as e:
        call("max", None, expand=True)
    assert e.value.summary == "Invalid expanding argument value"
    assert call("max", Unknown(ListType(NUMBER)), expand=True) == Unknown(DYNAMIC)


def test_unknowns_short_circuit_with_return_type():
    assert call("upper", Unknown(STRING)) == Unknown(STRING)
    assert call("join", ",", ["a", Unknown(STRING)]) == Unknown(STRING)
    assert call("split", ",", Unknown(STRING)) == Unknown(ListType(STRING))
    assert call("keys", Unknown(MapType(STRING))) == Unknown(ListType(STRING))
    assert call("regex", "(a)(b)", Unknown(STRING)) == Unknown(TupleType((STRING, STRING)))


def test_functions_that_handle_unknowns():
    assert call("length", ["a", Unknown(STRING)]) == 2
    assert call("length", Unknown(STRING)) == Unknown(NUMBER)
    assert call("keys", {"a": Unknown(STRING)}) == ["a"]
    assert call("coalesce", Unknown(STRING), "x") == Unknown(STRING)
    assert call("coalesce", None, Unknown(STRING)) == Unknown(STRING)
    got = call("tolist", ["a", Unknown(STRING)])
    assert isinstance(got, TList) and got[1] == Unknown(STRING)
    got = call("concat", ["a"], [Unknown(STRING)])
    assert got == ["a", Unknown(STRING)]
    assert call("issensitive", Unknown(STRING)) == Unknown(BOOL)


def test_sensitive_marks():
    assert call("upper", Sensitive("abc")) == Sensitive("ABC")
    assert call("join", ",", ["a", Sensitive("b")]) == Sensitive("a,b")
    assert call("upper", Sensitive(Unknown(STRING))) == Sensitive(Unknown(STRING))
    assert call("sensitive", "x") == Sensitive("x")
    assert call("nonsensitive", Sensitive("x")) == "x"
    assert call("nonsensitive", "x") == "x"
    assert call("issensitive", Sensitive(1)) is True
    assert call("issensitive", 1) is False
    assert call("length", Sensitive([1, 2])) == Sensitive(2)
    merged = call("merge", {"a": Sensitive(1)}, {"b": 2})
    assert merged == {"a": Sensitive(1), "b": 2}
    got = call("concat", [Sensitive(1)], [2])
    assert got == [Sensitive(1), 2]
    assert call("jsonencode", {"a": Sensitive(1)}) == Sensitive('{"a":1}')


# ---- numeric


def test_numeric():
    assert call("abs", -12.5) == 12.5
    assert call("ceil", 4.1) == 5 and call("floor", -4.1) == -5
    assert call("log", 16, 2) == 4
    assert call("max", 1, 7.5, 3) == 7.5 and call("min", 5, -2) == -2
    assert call("parseint", "FF", 16) == 255 and call("parseint", "-1010", 2) == -10
    assert call("parseint", "Zz", 62) == 3817
    assert call("pow", 2, 10) == 1024
    assert call("signum", -3) == -1
    with pytest.raises(FunctionError, match="base must be a whole number between 2 and 62"):
        call("parseint", "1", 1)
    with pytest.raises(FunctionError, match="must pass at least one number"):
        call("max")


# ---- strings


def test_format_verbs():
    assert call("format", "%5.2f|%-5d|%05d|%x|%X|%o|%b|%e|%g|%t|%q", 3.14159, 42, 42, 255, 255, 8, 5,
                1234.5678, 1234.5678, True, "hi") == \
        ' 3.14|42   |00042|ff|FF|10|101|1.234568e+03|1234.5678|true|"hi"'
    assert call("format", "%[2]s %[1]s %s", "a", "b") == "b a b"
    assert call("format", "%v|%#v|%v", "a", "a", [1, "x"]) == 'a|"a"|[1,"x"]'
    assert call("format", "100%%") == "100%"
    with pytest.raises(FunctionError) as e:
        call("format", "%d", 1.5)
    assert e.value.message == 'unsupported value for "%d" at 0: an integer is required'
    with pytest.raises(FunctionError) as e:
        call("format", "%s", "a", "b")
    assert e.value.detail == ('Invalid value for "args" parameter: too many arguments; only 1 used by '
                              'format string.')
    assert call("formatlist", "%s-%s", ["a", "b"], "c") == TList(["a-c", "b-c"], STRING)


def test_string_functions():
    assert call("chomp", "a\n\r\n") == "a"
    assert call("indent", 2, "a\nb") == "a\n  b"
    assert call("join", ", ", ["a", "b"]) == "a, b"
    assert call("lower", "ÀB") == "àb" and call("upper", "ß") == "ß"
    assert call("regex", "(\\d+)-(\\d+)", "12-34") == ["12", "34"]
    assert call("regex", "(?P<a>x)(?P<b>y)?", "x") == {"a": "x", "b": Null(STRING)}
    assert type_of(call("regexall", "[a-z]+", "ab1cd")) == ListType(STRING)
    assert call("replace", "hello world", "/(h)(e)/", "$2$1") == "ehllo world"
    assert call("replace", "a.b", ".", "-") == "a-b"
    assert call("split", ",", "a,b") == TList(["a", "b"], STRING)
    assert call("strrev", "a\u0301bc") == "cb\u00e1"  # strings are NFC, as in cty
    assert call("substr", "hello world", -5, 3) == "wor"
    assert call("title", "o'neil foo_bar") == "O'Neil Foo_bar"
    assert call("trim", "?!hi?!", "!?") == "hi"
    assert call("trimspace", " \t x \n") == "x"
    assert call("startswith", "abc", "a") is True and call("strcontains", "abc", "x") is False
    with pytest.raises(FunctionError, match="pattern did not match"):
        call("regex", "x", "abc")


# ---- collections


def test_collection_result_types():
    assert type_of(call("concat", TList(["a"], STRING), TList([1], NUMBER))) == ListType(STRING)
    assert type_of(call("concat", ["a"], [1])) == TupleType((STRING, NUMBER))
    assert type_of(call("keys", {"b": 1, "a": 2})) == TupleType((STRING, STRING))
    assert type_of(call("keys", TMap({"a": 1}, NUMBER))) == ListType(STRING)
    assert call("values", {"b": 1, "a": "x"}) == ["x", 1]
    assert type_of(call("merge", TMap({"a": 1}, NUMBER), TMap({"b": 2}, NUMBER))) == MapType(NUMBER)
    assert type_of(call("merge", {"a": 1}, {"b": "x"})) == ObjectType((("a", NUMBER), ("b", STRING)))
    assert type_of(call("reverse", TSet(["b", "a"], STRING))) == ListType(STRING)
    assert type_of(call("zipmap", ["a", "b"], [1, "x"])) == ObjectType((("a", NUMBER), ("b", STRING)))
    assert type_of(call("setproduct", ["a"], [1])) == ListType(TupleType((STRING, NUMBER)))
    assert call("one", TList([], STRING)) == Null(STRING)
    assert call("flatten", [["a", ["b"]], [], "c"]) == ["a", "b", "c"]


def test_collection_values():
    assert call("chunklist", [1, 2, 3], 2) == TList([TList([1, 2], NUMBER), TList([3], NUMBER)],
                                                    ListType(NUMBER))
    assert call("coalesce", "", "b") == "b"
    assert call("coalescelist", [], ["c"]) == ["c"]
    assert call("compact", ["a", "", None, "b"]) == TList(["a", "b"], STRING)
    assert call("contains", ["a", "b"], "b") is True
    assert call("distinct", ["a", "b", "a"]) == TList(["a", "b"], STRING)
    assert call("element", ["a", "b", "c"], 4) == "b" and call("element", ["a", "b", "c"], -1) == "c"
    assert call("index", ["a", "b"], "b") == 1
    assert call("lookup", {"a": 1}, "b", "x") == "x"
    assert call("matchkeys", ["i-1", "i-2"], ["w", "e"], ["e"]) == TList(["i-2"], STRING)
    assert call("range", 1, 4, 0.5) == TList(_lang([1, 1.5, 2, 2.5, 3, 3.5]), NUMBER)
    assert call("setunion", ["b"], ["a", "b"]) == TSet(["a", "b"], STRING)
    assert call("setintersection", ["a", "b"], ["b"]) == TSet(["b"], STRING)
    assert call("setsubtract", ["a", "b"], ["a"]) == TSet(["b"], STRING)
    assert call("slice", [1, 2, 3], 1, 2) == [2]
    assert call("sort", ["b", "a", "B"]) == TList(["B", "a", "b"], STRING)
    assert call("sum", [1, 2.5]) == 3.5 and call("sum", [0.1, 0.2]) == 0.3
    assert call("transpose", {"a": ["1", "2"], "b": ["2"]}) == \
        TMap({"1": TList(["a"], STRING), "2": TList(["a", "b"], STRING)}, ListType(STRING))
    assert call("alltrue", []) is True and call("anytrue", []) is False
    with pytest.raises(FunctionError, match="no non-null, non-empty-string arguments"):
        call("coalesce", None, "")
    with pytest.raises(FunctionError, match="start index must not be greater than end index"):
        call("slice", [1, 2], 2, 1)


# ---- encoding


def test_encoding():
    assert call("jsonencode", {"b": "<a>", "a": 1.5e20}) == '{"a":150000000000000000000,"b":"\\u003ca\\u003e"}'
    assert call("jsondecode", '{"b":[1,"x",null]}') == {"b": [1, "x", None]}
    assert call("base64encode", "Hello") == "SGVsbG8="
    assert call("base64decode", "SGVsbG8=") == "Hello"
    assert call("base64gzip", "hello") == "H4sIAAAAAAAA/8pIzcnJBwAAAP//AQAA//+GphA2BQAAAA=="
    assert call("csvdecode", "a,b\n1,2\n") == TList([{"a": "1", "b": "2"}],
                                                  ObjectType((("a", STRING), ("b", STRING))))
    assert call("urlencode", "a b&c") == "a+b%26c"
    assert call("textencodebase64", "hello", "UTF-16LE") == "aABlAGwAbABvAA=="
    assert call("textdecodebase64", "aABlAGwAbABvAA==", "UTF-16LE") == "hello"
    assert call("yamlencode", {"a": 1, "b": ["x"], "c": "m\nl"}) == '"a": 1\n"b":\n- "x"\n"c": |-\n  m\n  l\n'
    assert call("yamlencode", 1) == "1\n...\n"
    assert call("yamldecode", "a: yes\nb: 0x1F\nc: '1'") == {"a": True, "b": 31, "c": "1"}
    with pytest.raises(FunctionError, match="failed to decode base64 data"):
        call("base64decode", "!!")


# ---- filesystem


def test_filesystem(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.txt").write_text("hello\n")
    (tmp_path / "sub" / "b.txt").write_text("b")
    (tmp_path / "t.tftpl").write_text("Hi ${name}")
    rendered = []

    def render(text, vars_, filename, base_dir=None):
        rendered.append((text, vars_, filename))
        return text.replace("${name}", vars_["name"])

    ctx = FuncContext(base_dir=str(tmp_path), render_template=render)
    assert call("file", "a.txt", ctx=ctx) == "hello\n"
    assert call("fileexists", "a.txt", ctx=ctx) is True
    assert call("fileexists", "nope", ctx=ctx) is False
    assert call("fileset", ".", "**/*.txt", ctx=ctx) == TSet(["a.txt", "sub/b.txt"], STRING)
    assert call("filemd5", "a.txt", ctx=ctx) == "b1946ac92492d2347c6235b4d2611184"
    assert call("templatefile", "t.tftpl", {"name": "Bob"}, ctx=ctx) == "Hi Bob"
    assert rendered[0][1] == {"name": "Bob"}
    assert call("dirname", "a/b/c.txt") == "a/b" and call("basename", "a/b/c.txt") == "c.txt"
    assert call("abspath", "x/../y", ctx=ctx) == str(tmp_path) + "/y"
    assert call("pathexpand", "~/x", ctx=FuncContext(home_dir="/home/me")) == "/home/me/x"
    with pytest.raises(FunctionError, match="no file exists at"):
        call("file", "missing", ctx=ctx)


# ---- date/time, crypto, ip


def test_datetime():
    ctx = FuncContext(now=lambda: dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=dt.timezone.utc))
    assert call("timestamp", ctx=ctx) == "2024-05-06T07:08:09Z"
    assert call("plantimestamp", ctx=ctx) == "2024-05-06T07:08:09Z"
    assert call("formatdate", "DD MMM YYYY hh:mm ZZZ", "2018-01-02T23:12:01Z") == "02 Jan 2018 23:12 UTC"
    assert call("timeadd", "2017-11-22T00:00:00Z", "10m1.5s") == "2017-11-22T00:10:01Z"
    assert call("timecmp", "2017-11-22T00:00:00Z", "2017-11-22T01:00:00+01:00") == 0
    with pytest.raises(FunctionError, match="missing required time introducer 'T'"):
        call("formatdate", "YYYY", "2018-01-02")


def test_crypto_and_ip():
    assert call("md5", "hello world") == "5eb63bbbe01eeed093cb22bb8f5acdc3"
    assert call("sha256", "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert call("uuidv5", "dns", "www.terraform.io") == "a5008fae-b28c-5ba5-96cd-82b4c53552d6"
    import base64
    import hashlib

    for text in ("", "hello world", "é\u4e16\U0001F600" * 50):  # CPython's own hashes, as hashlib's
        data = text.encode()
        for algo in ("md5", "sha1", "sha256", "sha512"):
            assert call(algo, text) == hashlib.new(algo, data).hexdigest(), algo
        for algo in ("sha256", "sha512"):
            assert call("base64" + algo, text) == base64.b64encode(hashlib.new(algo, data).digest()).decode()
    assert len(call("uuid")) == 36
    h = call("bcrypt", "hello", 4)
    assert h.startswith("$2a$04$") and len(h) == 60
    assert call("cidrhost", "10.12.112.0/20", 16) == "10.12.112.16"
    assert call("cidrnetmask", "172.16.0.0/12") == "255.240.0.0"
    assert call("cidrsubnet", "172.16.0.0/12", 4, 2) == "172.18.0.0/16"
    assert call("cidrsubnets", "10.1.0.0/16", 4, 4, 8, 4) == \
        TList(["10.1.0.0/20", "10.1.16.0/20", "10.1.32.0/24", "10.1.48.0/20"], STRING)


# ---- conversion


def test_conversions():
    assert call("tobool", "true") is True
    assert call("tonumber", "1.5") == 1.5
    assert call("tostring", 1) == "1"
    assert call("tostring", None) == Null(STRING)
    assert call("tolist", ["a", 1]) == TList(["a", "1"], STRING)
    assert call("toset", ["b", "a", "b"]) == TSet(["a", "b"], STRING)
    assert type_of(call("tomap", {"a": 1, "b": True})) == MapType(STRING)
    assert call("type", {"a": [1]}) == "object({\n    a: tuple([number]),\n})"
    with pytest.raises(FunctionError) as e:
        call("tonumber", "abc")
    assert e.value.detail == ('Invalid value for "v" parameter: cannot convert "abc" to number; given '
                              'string must be a decimal representation of a number.')
    with pytest.raises(FunctionError, match="cannot convert number to bool"):
        call("tobool", 1)
    with pytest.raises(FunctionError, match="cannot convert object to map of any single type"):
        call("tomap", {"a": [1], "b": "x"})


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x7f)) | st.text(), st.booleans())
def test_go_json_string_fast_path_matches_the_loop(s, escape_html):
    """jsonencode's strings: the C encoder's fast path for ASCII writes what the Go-rules loop does."""
    from tfconsole.lang.funcs._gofmt import _go_json_string, go_json_string

    assert go_json_string(s, escape_html) == _go_json_string(s, escape_html)


# mostly ASCII text with the characters the two writers treat specially
_json_text = st.text(alphabet='ab<>&\\u"\n\x01\x7f\u00e9\u2028', max_size=6) | st.text(max_size=4)
_json_leaves = st.one_of(_json_text, _json_text, st.none(), st.booleans(), st.integers(min_value=-10**30, max_value=10**30))


def _json_values():
    from tfconsole.lang.types import STRING
    from tfconsole.lang.values import TList, TMap

    return st.recursive(_json_leaves, lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(_json_text, inner, max_size=4),
        st.builds(lambda d: TMap(d, STRING), st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=3)),
        st.builds(lambda xs: TList(xs, STRING), st.lists(st.text(max_size=5), max_size=3))), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(_json_values(), st.booleans())
@example({"a": "x<y&z>", "k<": [1, True, None]}, True)
@example(["\x7f", "\u00e9", "\u2028", "\\u0041", "\x01"], False)
@example([10 ** 4001, -(10 ** 3999)], True)
def test_go_json_fast_path_matches_the_go_rules(v, escape_html):
    """jsonencode's values: the C encoder's text, where it is used, is what the Go-rules walk writes."""
    from tfconsole.lang.funcs._gofmt import _go_json, go_json

    assert go_json(v, escape_html) == _go_json(v, escape_html)


# --- the library loads its families on first use


def test_family_table_matches_what_the_families_register() -> None:
    import tfconsole.lang.funcs as F

    F.load_all()
    assert not F._PENDING  # every registered name is in the table, so reachable
    by_family: dict[str, set] = {}
    for name, fn in dict.items(FUNCTIONS):
        if name in F._FAMILY_OF:
            by_family.setdefault(fn.impl.__module__.rsplit(".", 1)[1], set()).add(name)
    assert by_family == {f: set(names.split()) for f, names in F._FAMILY_NAMES.items()}


def test_a_call_loads_only_its_family_and_its_adjustments_come_with_it() -> None:
    import subprocess
    import sys

    code = (
        "import sys, threading\n"
        "from tfconsole.lang.funcs import FUNCTIONS, call_function\n"
        "seen = []\n"
        "def ask(): seen.append(FUNCTIONS['merge'].nested_unknowns)\n"
        "ts = [threading.Thread(target=ask) for _ in range(8)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\n"
        "print(call_function('merge', [{'a': '1'}, {'b': '2'}]))\n"
        "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('tfconsole.lang.funcs.')"
        " and not m.rsplit('.', 1)[1].startswith('_')), all(seen), len(seen))\n"
        "print('nope' in FUNCTIONS, FUNCTIONS.get('type').extra, len(FUNCTIONS))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out == ["{'a': '1', 'b': '2'}", "['collection'] True 8", "False {'console_only': True} 120"]


def test_serialisers_given_the_same_object_again_reuse_their_result(monkeypatch: pytest.MonkeyPatch) -> None:
    """jsonencode / yamlencode of the very object an earlier call had (six module calls encoding
    one deep-merged local) is not encoded again; an equal but distinct object is, and marks and
    unknowns come out as from a first call."""
    import tfconsole.lang.funcs as F

    def enc(name, v):
        return call_function(name, [v], FuncContext(base_dir="."))

    enc("jsonencode", {"warm": 1})  # the family loaded
    encoded: list[object] = []
    fn = FUNCTIONS["jsonencode"]
    real = fn.impl
    monkeypatch.setattr(fn, "impl", lambda args, ctx: encoded.append(args[0]) or real(args, ctx))
    value = {"b": [1, 2, {"c": "<x>"}], "a": True}
    first = enc("jsonencode", value)
    assert enc("jsonencode", value) == first == '{"a":true,"b":[1,2,{"c":"\\u003cx\\u003e"}]}'
    assert len(encoded) == 1
    assert enc("jsonencode", {"b": [1, 2, {"c": "<x>"}], "a": True}) == first and len(encoded) == 2
    secret = Sensitive({"k": "v"})
    for _ in range(2):
        out = enc("jsonencode", secret)
        assert type(out) is Sensitive and out.value == '{"k":"v"}'
    unknown = {"k": Unknown(STRING)}
    assert type(enc("jsonencode", unknown)) is Unknown and type(enc("jsonencode", unknown)) is Unknown
    assert enc("yamlencode", value) == enc("yamlencode", value) == enc("yamlencode", dict(value))
    assert len(F._RESULTS) <= 64
