"""Expression evaluation speed where numbers dominate (the int fast path, fractions on MPFR).

Run: .venv/bin/python benchmarks/lang_numbers.py  — prints the best of 5 runs per expression
(each evaluated 20 times), in milliseconds per evaluation. Compare branches on the same machine.
"""
from __future__ import annotations

import time

from tfconsole.lang.ast import parse_expression
from tfconsole.lang.eval import Scope, _NoData, evaluate

EXPRESSIONS = [
    "[for i in range(1000): i * 2 + 1 - i % 7]",
    "[for i in range(1000): i / 4]",
    "sum([for i in range(1000): i])",
    '[for i in range(1000): "${i}"]',
    "[for i in range(1000): i < 500 ? i : -i]",
    "[for i in range(1000): i * 0.1]",
    "[for i in range(1000): floor(i / 3) + pow(i, 0.5)]",
]


def main() -> None:
    for src in EXPRESSIONS:
        e = parse_expression(src)
        best = float("inf")
        for _ in range(5):
            t = time.perf_counter()
            for _ in range(20):
                evaluate(e, Scope(_NoData()))
            best = min(best, time.perf_counter() - t)
        print(f"{best / 20 * 1000:8.2f} ms  {src}")


if __name__ == "__main__":
    main()
