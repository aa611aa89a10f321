"""Diagnostics: what went wrong, where, and about which address.

Engine functions return values plus Diagnostics; raising is reserved for bugs.
This module must not import anything else from tfconsole.
"""
from __future__ import annotations

from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from enum import Enum
from typing import Iterable, Iterator


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Pos:
    line: int
    column: int
    byte: int = 0


@dataclass(frozen=True, slots=True)
class SourceRange:
    filename: str
    start: Pos
    end: Pos

    def __str__(self) -> str:
        return f"{self.filename}:{self.start.line}"

    def long(self) -> str:
        """file:line,col-col (or file:line,col-line,col), as Terraform prints ranges in details."""
        if self.start.line == self.end.line:
            return f"{self.filename}:{self.start.line},{self.start.column}-{self.end.column}"
        return f"{self.filename}:{self.start.line},{self.start.column}-{self.end.line},{self.end.column}"

    def to_json(self) -> dict:
        return {
            "filename": self.filename,
            "start": {"line": self.start.line, "column": self.start.column, "byte": self.start.byte},
            "end": {"line": self.end.line, "column": self.end.column, "byte": self.end.byte},
        }


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: Severity
    summary: str
    detail: str = ""
    subject: SourceRange | None = None
    address: str | None = None
    # the source line(s) to quote under "on FILE line N", filled in by the loader
    snippet: str | None = None
    context: str | None = None
    # the signature of the function whose call failed, "f(a, b)": shown as "while calling f(a, b)"
    function_call: str | None = None
    # what the failing expression referred to, as Terraform annotates an expression error:
    # (traversal, statement) pairs such as ("var.x", "is 5"), sorted by traversal
    values: tuple[tuple[str, str], ...] = ()
    # raised by a check block's assertion: an apply approved up front drops its plan's (the
    # apply evaluates the checks again), as Terraform does
    from_check: bool = False

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def to_json(self) -> dict:
        out: dict = {"severity": self.severity.value, "summary": self.summary, "detail": self.detail}
        if self.address:
            out["address"] = self.address
        if self.subject:
            out["range"] = self.subject.to_json()
        return out


# Diagnostic.context of a diagnostic Terraform reports with no location or address (a plain Go
# error, tfdiags.Sourceless): nothing attaches the resource's block or address to it
SOURCELESS = "sourceless"


def error(summary: str, detail: str = "", subject: SourceRange | None = None,
          address: str | None = None) -> Diagnostic:
    return Diagnostic(Severity.ERROR, summary, detail, subject, address)


def warning(summary: str, detail: str = "", subject: SourceRange | None = None,
            address: str | None = None) -> Diagnostic:
    return Diagnostic(Severity.WARNING, summary, detail, subject, address)


@dataclass
class Diagnostics:
    items: list[Diagnostic] = field(default_factory=list)

    def append(self, d: Diagnostic | "Diagnostics" | Iterable[Diagnostic] | None) -> "Diagnostics":
        # every vertex appends several (mostly empty) collections: the exact type first
        if type(d) is Diagnostics:
            if d.items:
                self.items.extend(d.items)
            return self
        if d is None:
            return self
        if isinstance(d, Diagnostic):
            self.items.append(d)
        else:
            self.items.extend(d)
        return self

    extend = append

    def error(self, summary: str, detail: str = "", subject: SourceRange | None = None,
              address: str | None = None) -> "Diagnostics":
        return self.append(error(summary, detail, subject, address))

    def warning(self, summary: str, detail: str = "", subject: SourceRange | None = None,
                address: str | None = None) -> "Diagnostics":
        return self.append(warning(summary, detail, subject, address))

    @property
    def has_errors(self) -> bool:
        if not self.items:
            return False
        return any(d.severity is Severity.ERROR for d in self.items)

    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.is_error]

    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if not d.is_error]

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __bool__(self) -> bool:
        return bool(self.items)


class DiagnosticsError(Exception):
    """Carries diagnostics across a boundary that cannot return them (threads, callbacks)."""

    def __init__(self, diags: Diagnostics | Iterable[Diagnostic]):
        self.diags = diags if isinstance(diags, Diagnostics) else Diagnostics(list(diags))
        super().__init__("; ".join(d.summary for d in self.diags))
