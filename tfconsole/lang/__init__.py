"""The expression language: parsing (ast.py), evaluation (eval.py), values and types,
and the function library (funcs/). No knowledge of graphs, state or providers."""
from __future__ import annotations

from typing import Any

from tfconsole.diags import Diagnostics


def evaluate_source(expr_text: str, base_dir: str = ".") -> tuple[Any, Diagnostics]:
    """Evaluate a standalone expression that refers to nothing but functions and literals."""
    from .ast import ParseError, parse_expression
    from .eval import Scope, _NoData, evaluate

    diags = Diagnostics()
    try:
        expr = parse_expression(expr_text)
    except ParseError as exc:
        diags.error("Invalid expression", exc.message, exc.range)
        return None, diags
    return evaluate(expr, Scope(_NoData(), base_dir=base_dir))
