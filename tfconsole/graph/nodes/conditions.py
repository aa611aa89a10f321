"""Custom conditions (preconditions, postconditions, check assertions) judged as Terraform
judges them, and their failures worded and placed as Terraform reports them.

Every diagnostic about a condition points at the condition expression itself and says what the
values it referred to were (`count.index is 1`), so the reader sees why it failed. A condition
that is not yet known passes for now (a check assertion says so in a warning); one that is null
or not a bool is an error in the configuration, whatever the rule's severity.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from tfconsole.config.model import CheckRule
from tfconsole.diags import Diagnostic, Diagnostics, Severity
from tfconsole.lang.eval import Scope, evaluate
from tfconsole.lang.values import Unknown, is_null, unmark_deep

# what an empty or broken error_message leaves to say
NO_MESSAGE = "This check failed, but has an invalid error message as described in the other accompanying messages."


def about_condition(rule: CheckRule, scope: Scope, severity: Severity, summary: str, detail: str,
                    address: str | None = None, from_check: bool = False) -> Diagnostic:
    """A diagnostic placed on the rule's condition, with the values the condition read."""
    from tfconsole.lang.diagvalues import expression_values

    expr = rule.condition
    return Diagnostic(severity, summary, detail, getattr(expr, "range", None) or rule.range, address,
                      values=expression_values(expr, scope), from_check=from_check)


def judge(rule: CheckRule, scope: Scope, summary: str, severity: Severity = Severity.ERROR,
          address: str | None = None, from_check: bool = False) -> tuple[str, str | None, Diagnostics]:
    """(status, failure message, diagnostics) of one rule: status "pass", "fail", "unknown" or
    "error"; a failure's diagnostic has `severity` and `summary` ("Resource precondition failed")."""
    diags = Diagnostics()
    ok, d = evaluate(rule.condition, scope)
    if d.has_errors:
        return "error", None, diags.append(_tagged(d, address, from_check))
    ok, _ = unmark_deep(ok)
    if isinstance(ok, Unknown):
        if from_check:
            diags.append(about_condition(rule, scope, Severity.WARNING, "Check block assertion known after apply",
                                         "The condition could not be evaluated at this time, a result will be "
                                         "known when this plan is applied.", address, True))
        return "unknown", None, diags
    if type(ok) is str and ok in ("true", "false"):  # converted to bool, as cty converts a condition's result
        ok = ok == "true"
    if is_null(ok) or type(ok) is not bool:
        detail = "Condition expression must return either true or false, not null." if is_null(ok) else \
            "Invalid condition result value: a bool is required."
        diags.append(about_condition(rule, scope, Severity.ERROR, "Invalid condition result", detail, address,
                                     from_check))
        return "error", None, diags
    if ok:
        return "pass", None, diags
    message = ""
    if rule.error_message is not None:
        m, d = evaluate(rule.error_message, scope)
        diags.append(_tagged(d, address, from_check))
        m, _ = unmark_deep(m)
        message = m.strip() if isinstance(m, str) else ""
    diags.append(about_condition(rule, scope, severity, summary, message or NO_MESSAGE, address, from_check))
    return "fail", message, diags


def _tagged(d: Diagnostics, address: str | None, from_check: bool) -> Diagnostics:
    if not d or (address is None and not from_check):
        return d
    return Diagnostics([replace(x, address=x.address or address, from_check=from_check) for x in d])
