"""The HCL parse tables: python-hcl2's grammar analysed once by Lark, kept as plain data.

tfconsole parses configuration with its own LALR driver (hcl_parser.py) over the tables Lark
computes from python-hcl2's grammar (`hcl2.lark`, with the corrections below). Building them
costs Lark about 2.5 s, so the package ships them as JSON (`hcl2_tables.json`) together with the
SHA-256 of the grammar text they were made from. At run time the installed python-hcl2's grammar
is hashed: if it matches, the shipped tables are used; if python-hcl2 changed its grammar, the
tables are rebuilt with Lark and kept in the user's cache directory (as JSON, through
cache_store). Nothing here is ever unpickled or executed: the tables are numbers and strings.

Regenerate the shipped file after changing the corrections or upgrading python-hcl2:

    .venv/bin/python -m tfconsole.config.hcl_tables --write
"""
from __future__ import annotations

import json
import os
from typing import Any

TABLES_FORMAT = 1
SHIPPED = os.path.join(os.path.dirname(__file__), "hcl2_tables.json")

# Corrections to python-hcl2's grammar so that what Terraform accepts parses:
# - nested unary operators (!!x, - -1): the operand of a unary operator may itself be one;
# - a minus directly before a number literal is an operator, not part of the literal, so 3-0.5
#   lexes as 3, -, 0.5 (the unary minus of a literal is folded back by the compiler).
# And one addition: a start symbol for a lone expression (-var values, template
# interpolations, the console), so those parse with their own positions.
GRAMMAR_PATCHES = [
    ("!unary_op : (MINUS | NOT) expr_term", "!unary_op : (MINUS | NOT) (expr_term | unary_op)"),
    ("INT_LITERAL: NEGATIVE_DECIMAL? DECIMAL+", "INT_LITERAL: DECIMAL+"),
    (('FLOAT_LITERAL: (NEGATIVE_DECIMAL? DECIMAL+ | NEGATIVE_DECIMAL+) "." DECIMAL+ (EXP_MARK)?\n'
      '               | (NEGATIVE_DECIMAL? DECIMAL+ | NEGATIVE_DECIMAL+) (EXP_MARK)'),
     'FLOAT_LITERAL: DECIMAL+ "." DECIMAL+ (EXP_MARK)?\n               | DECIMAL+ (EXP_MARK)'),
]
EXPR_START_RULE = "\nexpr_only : new_line_or_comment? expression new_line_or_comment?\n"
START_SYMBOLS = ("start", "expr_only")


class GrammarChanged(Exception):
    """python-hcl2's grammar no longer has a line the corrections expect."""


def grammar_path() -> str | None:
    """Where python-hcl2's grammar file is (None: python-hcl2 is not installed). Located, not
    imported: importing python-hcl2 would load Lark (60 ms); found as an import would find it
    (sys.meta_path) without importlib.util, which a cached run does not otherwise load."""
    import sys

    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec = find("hcl2", None) if find is not None else None
        if spec is not None:
            locations = spec.submodule_search_locations
            return os.path.join(next(iter(locations)), "hcl2.lark") if locations else None
    return None


def grammar_text() -> str:
    """python-hcl2's grammar with tfconsole's corrections and the expression start rule."""
    path = grammar_path()
    if path is None:
        raise GrammarChanged("python-hcl2 is not installed")
    with open(path, encoding="utf-8") as f:
        grammar = f.read()
    for old, new in GRAMMAR_PATCHES:
        if old not in grammar:
            raise GrammarChanged(f"python-hcl2's grammar no longer contains {old.splitlines()[0]!r}")
        grammar = grammar.replace(old, new)
    return grammar + EXPR_START_RULE


def grammar_key(grammar: str) -> str:
    import hashlib  # only where the tables are loaded or built: a cached run never asks

    return hashlib.sha256(f"format {TABLES_FORMAT}\n{grammar}".encode()).hexdigest()


def build_tables(grammar: str) -> dict:
    """Run Lark's LALR analysis and contextual-lexer construction, and keep their results as data.

    The driver reproduces exactly what Lark's parser would do with these tables: the same
    tokens (per-state terminal alternations in Lark's order, keywords carved out of NAME the way
    Lark's 'unless' callbacks do), the same reductions and the same tree shapes."""
    from hcl2.postlexer import OPERATOR_TYPES
    from lark import Lark
    from lark.lexer import UnlessCallback

    lark = Lark(grammar, parser="lalr", lexer="contextual", propagate_positions=True,
                start=list(START_SYMBOLS))
    table = lark.parser.parser.parser.parse_table
    clexer = lark.parser.lexer
    regex: dict[str, str] = {t.name: t.pattern.to_regexp() for t in lark.terminals}
    if lark.lexer_conf.g_regex_flags:
        raise GrammarChanged("the grammar sets global regex flags")

    lexers: list[dict] = []
    lexer_index: dict[int, int] = {}

    def lexer_of(basic: Any) -> int:
        if id(basic) in lexer_index:
            return lexer_index[id(basic)]
        scanner = basic.scanner
        unless: dict[str, dict[str, str]] = {}
        for name, cb in basic.callback.items():
            if not isinstance(cb, UnlessCallback):
                raise GrammarChanged(f"unexpected lexer callback on {name}")
            words: dict[str, str] = {}
            for t in cb.scanner.terminals:
                if t.pattern.type != "str" or t.pattern.flags:
                    raise GrammarChanged(f"unexpected keyword terminal {t.name}")
                words.setdefault(t.pattern.value, t.name)
            unless[name] = words
        lexers.append({"terminals": [t.name for t in scanner.terminals], "unless": unless,
                       "ignore": sorted(basic.ignore_types)})
        lexer_index[id(basic)] = len(lexers) - 1
        return len(lexers) - 1

    first = {name: first_chars(rx) for name, rx in regex.items()}
    rules: list = []
    rule_index: dict[int, int] = {}

    def rule_of(rule: Any) -> int:
        if id(rule) in rule_index:
            return rule_index[id(rule)]
        keep = rule.options.keep_all_tokens
        for sym in rule.expansion:
            if sym.is_term and sym.filter_out and not keep:
                raise GrammarChanged(f"rule {rule} filters out a token: the driver keeps every token")
        if rule.options.empty_indices and any(rule.options.empty_indices):
            raise GrammarChanged(f"rule {rule} has [optional] placeholders")
        if rule.origin.name.startswith("_") and rule.options.expand1:
            raise GrammarChanged(f"inlined rule {rule} also expands a single child")
        splice = [i for i, sym in enumerate(rule.expansion) if not sym.is_term and sym.name.startswith("_")]
        rules.append([str(rule.origin.name), str(rule.alias or rule.origin.name), len(rule.expansion),
                      bool(rule.options.expand1 and not rule.alias), splice])
        rule_index[id(rule)] = len(rules) - 1
        return len(rules) - 1

    from lark.parsers.lalr_analysis import Shift

    # Lark numbers states and rules in an order that depends on string hashing; renumber them
    # canonically (rules sorted, states breadth-first from the start states, symbols sorted) so
    # the same grammar always gives the same file.
    raw = table.states
    all_rules = {id(arg): arg for row in raw.values() for action, arg in row.values() if action is not Shift}
    for rule in sorted(all_rules.values(), key=lambda r: (r.origin.name, [x.name for x in r.expansion])):
        rule_of(rule)
    order: dict[int, int] = {}
    queue = [table.start_states[name] for name in sorted(START_SYMBOLS)]
    for st in queue:
        if st in order:
            continue
        order[st] = len(order)
        for sym in sorted(raw[st]):
            action, arg = raw[st][sym]
            if action is Shift and arg not in order:
                queue.append(arg)
    if len(order) != len(raw):
        raise GrammarChanged("unreachable parser states")
    by_new = sorted(order, key=order.__getitem__)
    states = []
    for st in by_new:
        row: dict[str, int] = {}
        for sym in sorted(raw[st]):
            action, arg = raw[st][sym]
            # shift to state s -> s; reduce by rule r -> -(r + 1)
            row[sym] = order[arg] if action is Shift else -(rule_of(arg) + 1)
        states.append(row)
    state_lexer = [lexer_of(clexer.lexers[st]) for st in by_new]
    root = lexer_of(clexer.root_lexer)
    return {
        "format": TABLES_FORMAT,
        "grammar_sha256": grammar_key(grammar),
        "regex": regex,
        "first": first,
        "lexers": lexers,
        "root_lexer": root,
        "state_lexer": state_lexer,
        "states": states,
        "rules": rules,
        "operators": sorted(OPERATOR_TYPES),
        "start_states": {k: order[v] for k, v in table.start_states.items()},
        "end_states": {k: order[v] for k, v in table.end_states.items()},
    }


def first_chars(rx: str) -> str | None:
    """The characters a match of `rx` can start with (sorted), or None when that could be any
    character. Over-approximated wherever the pattern is not plain: the lexer only uses it to
    skip terminals that cannot match here, so a superset is always correct."""
    import re._constants as C
    import re._parser as P

    ANY = None

    def seq(items: Any) -> tuple[set | None, bool]:
        acc: set = set()
        for op, av in items:
            f, nullable = item(op, av)
            if f is ANY:
                return ANY, False
            acc |= f
            if not nullable:
                return acc, False
        return acc, True

    def charset(items: Any) -> set | None:
        out: set = set()
        for op, av in items:
            if op is C.LITERAL:
                out.add(chr(av))
            elif op is C.RANGE and av[1] - av[0] < 4096:
                out.update(chr(c) for c in range(av[0], av[1] + 1))
            else:  # NEGATE, CATEGORY, a huge range
                return ANY
        return out

    def item(op: Any, av: Any) -> tuple[set | None, bool]:
        if op is C.LITERAL:
            return {chr(av)}, False
        if op is C.IN:
            return charset(av), False
        if op is C.BRANCH:
            acc: set = set()
            nullable = False
            for branch in av[1]:
                f, n = seq(branch)
                if f is ANY:
                    return ANY, False
                acc |= f
                nullable = nullable or n
            return acc, nullable
        if op is C.SUBPATTERN:
            if av[1] & (C.SRE_FLAG_IGNORECASE | C.SRE_FLAG_LOCALE):
                return ANY, False
            return seq(av[3])
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            f, n = seq(av[2])
            return f, n or av[0] == 0
        if op is getattr(C, "ATOMIC_GROUP", None):
            return seq(av)
        if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            return set(), True  # zero width: what follows decides
        return ANY, False  # ANY, NOT_LITERAL, back-references, anything else

    parsed = P.parse(rx)
    if parsed.state.flags & (C.SRE_FLAG_IGNORECASE | C.SRE_FLAG_LOCALE):
        return ANY
    chars, nullable = seq(parsed.data)
    if chars is ANY or nullable:
        return ANY
    return "".join(sorted(chars))


def check_tables(data: Any, key: str, deep: bool = True) -> dict:
    """The tables if `data` is a well-formed table document for grammar `key`; raises ValueError.
    `deep=False` checks only the format and the grammar (for the file shipped in the package,
    which is trusted as its code is)."""
    if not isinstance(data, dict) or data.get("format") != TABLES_FORMAT or data.get("grammar_sha256") != key:
        raise ValueError("tables for another grammar or format")
    if not deep:
        return data
    states, rules, lexers = data.get("states"), data.get("rules"), data.get("lexers")
    regex = data.get("regex")
    if not (isinstance(states, list) and isinstance(rules, list) and isinstance(lexers, list)
            and isinstance(regex, dict) and all(isinstance(v, str) for v in regex.values())):
        raise ValueError("malformed tables")
    n_states, n_rules = len(states), len(rules)
    for row in states:
        if not isinstance(row, dict) or not all(isinstance(v, int) and -n_rules <= v < n_states
                                                for v in row.values()):
            raise ValueError("malformed parse table")
    for r in rules:
        if not (isinstance(r, list) and len(r) == 5 and isinstance(r[0], str) and isinstance(r[1], str)
                and isinstance(r[2], int) and isinstance(r[3], bool) and isinstance(r[4], list)):
            raise ValueError("malformed rule")
    for lx in lexers:
        if not (isinstance(lx, dict) and all(isinstance(t, str) and t in regex for t in lx.get("terminals", ()))
                and isinstance(lx.get("unless"), dict) and isinstance(lx.get("ignore"), list)):
            raise ValueError("malformed lexer")
    sl = data.get("state_lexer")
    if not (isinstance(sl, list) and len(sl) == n_states and all(isinstance(i, int) and 0 <= i < len(lexers)
                                                                 for i in sl)):
        raise ValueError("malformed lexer map")
    first = data.get("first")
    if not (isinstance(first, dict) and set(first) == set(regex)
            and all(v is None or isinstance(v, str) for v in first.values())):
        raise ValueError("malformed first characters")
    ops = data.get("operators")
    if not (isinstance(ops, list) and all(isinstance(o, str) for o in ops)):
        raise ValueError("malformed operator list")
    for k in ("start_states", "end_states"):
        if not isinstance(data.get(k), dict) or set(data[k]) != set(START_SYMBOLS):
            raise ValueError("malformed start states")
    return data


def load_tables() -> dict:
    """The tables for the installed python-hcl2 grammar: shipped, cached, or built (then cached)."""
    grammar = grammar_text()
    key = grammar_key(grammar)
    try:
        import orjson  # 2.5x json's speed on these 470 KB (a cold parse pays this once)

        with open(SHIPPED, "rb") as f:
            return check_tables(orjson.loads(f.read()), key, deep=False)
    except (OSError, ValueError):  # orjson.JSONDecodeError is a ValueError
        pass
    from . import cache_store

    cached = cache_store.read_json("tables", key)
    if cached is not None:
        try:
            return check_tables(cached, key)
        except ValueError:
            pass
    data = build_tables(grammar)
    cache_store.write_json("tables", key, data)
    return data


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="Build the HCL parse tables from python-hcl2's grammar.")
    ap.add_argument("--write", action="store_true", help=f"write {SHIPPED}")
    args = ap.parse_args(argv)
    grammar = grammar_text()
    data = build_tables(grammar)
    text = json.dumps(data, separators=(",", ":"), sort_keys=True)
    if args.write:
        with open(SHIPPED, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    print(f"{len(data['states'])} states, {len(data['rules'])} rules, {len(data['lexers'])} lexers, "
          f"{len(text) // 1024} KB, grammar {data['grammar_sha256'][:16]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
