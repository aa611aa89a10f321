"""Vertices for named values: input variables, locals, outputs, module expansion, providers,
checks and the root. Each evaluates once per instance of its module."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from tfconsole.addrs import Module as ModulePath
from tfconsole.addrs import ModuleInstance
from tfconsole.config.model import Check, ModuleCall, Output, ProviderBlock, Variable
from tfconsole.diags import Diagnostics, Severity
from tfconsole.lang import ast as A
from tfconsole.lang.eval import evaluate, value_to_display
from tfconsole.lang.types import BOOL, DYNAMIC, NUMBER, STRING, SetType, MapType, ObjectType
from tfconsole.lang.values import (
    EPHEMERAL, SENSITIVE, ConversionError, Null, Sensitive, TMap, TSet, Unknown, contains_ephemeral, contains_marks,
    contains_sensitive, convert, find_infinity, is_null,
    is_wholly_known, mark, type_of, unmark, unmark_deep,
)

from .base import Executable, Node, Referenceable, Referencer, RefKey, expr_keys, keys_for_traversals
from .conditions import judge
from tfconsole.lang.diagvalues import expression_values

if TYPE_CHECKING:
    from tfconsole.walk.context import WalkContext


def _addr_prefix(module: ModulePath) -> str:
    return module.prefix()


class RootNode(Node, Executable):
    kind = "root"
    name = "root"

    def execute(self, ctx: "WalkContext") -> Diagnostics:
        return Diagnostics()


class VariableNode(Node, Executable, Referenceable, Referencer):
    kind = "variable"

    def __init__(self, module: ModulePath, var: Variable, call: ModuleCall | None):
        self.module = module
        self.var = var
        self.call = call  # the module call providing the value (None for root variables)
        self.name = f"{_addr_prefix(module)}var.{var.name}"

    def referenceable_keys(self) -> list[RefKey]:
        return [(self.module, f"var.{self.var.name}")]

    def reference_keys(self) -> list[RefKey]:
        keys: list[RefKey] = []
        if self.call is not None:
            attr = self.call.body.attributes.get(self.var.name)
            parent = ModulePath(self.module.path[:-1])
            if attr is not None:
                keys.extend(expr_keys(parent, attr.expr))
        for rule in self.var.validations:
            keys.extend(k for k in expr_keys(self.module, rule.condition, rule.error_message)
                        if k != (self.module, f"var.{self.var.name}"))
        return keys

    def execute(self, ctx: "WalkContext") -> Diagnostics:
        from tfconsole.walk.context import scope_for

        diags = Diagnostics()
        var = self.var
        for mi in ctx.instances_of(self.module):
            raw: Any = None
            given = False
            rng = var.range
            if self.call is None and ctx.operation == "validate":
                ctx.set_variable(mi, var.name, mark(Unknown(var.type), _var_marks(var)))
                continue
            if self.call is None:
                if var.name in ctx.input_values:
                    raw, given = ctx.input_values[var.name], True
            else:
                attr = self.call.body.attributes.get(var.name)
                if attr is not None:
                    parent = mi.parent()
                    pexp = ctx.module_expansions.get((parent, self.call.name))
                    key = mi.steps[-1][1]
                    scope = scope_for(ctx, parent, key=key, expansion=pexp)
                    raw, d = evaluate(attr.expr, scope)
                    diags.append(d)
                    if d.has_errors:
                        continue
                    if not var.ephemeral and contains_ephemeral(raw):
                        diags.error("Ephemeral value not allowed",
                                    "This input variable is not declared as accepting a ephemeral values, so it "
                                    "cannot be set to a result derived from an ephemeral value.", attr.expr.range)
                        continue
                    given = True
                    rng = attr.range
            if not given or (is_null(raw) and not var.nullable):
                if var.default is not None:
                    from tfconsole.config.model import static_value

                    try:
                        raw = static_value(var.default)
                    except ValueError as exc:
                        diags.error("Invalid default value for variable", str(exc), var.range)
                        continue
                    given = True
                elif not given:
                    if self.call is None:
                        diags.error("No value for required variable",
                                    f"The root module input variable \"{var.name}\" is not set, and has no "
                                    "default value. Use a -var or -var-file command line argument to provide a "
                                    "value for this variable.", var.range)
                    else:
                        diags.error("Missing required argument",
                                    f"The argument \"{var.name}\" is required, but no definition was found.",
                                    self.call.range)
                    continue
            if is_null(raw) and not var.nullable:
                diags.error("Required variable not set",
                            f"Unsuitable value for var.{var.name} set from outside of the configuration: "
                            "required variable may not be set to null.", rng)
                continue
            try:
                value = convert(raw, var.type)
            except ConversionError as exc:
                path = "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in exc.path)
                where = f"attribute \"{exc.path[-1]}\"" if exc.path else ""
                msg = exc.message
                if exc.path:
                    msg = f"attribute \"{exc.path[0]}\": {exc.message}" if len(exc.path) == 1 else \
                        f"{path.lstrip('.')}: {exc.message}"
                del where
                diags.error("Invalid value for input variable",
                            f"The given value is not suitable for var.{var.name} declared at "
                            f"{var.range}: {msg}.", rng)
                continue
            value = mark(value, _var_marks(var))
            ctx.set_variable(mi, var.name, value)
            for rule in var.validations:
                scope = scope_for(ctx, mi)
                ok, d = evaluate(rule.condition, scope)
                _report_named(ctx, "var", "var.", var.name, mi, unmark(ok)[0], d.has_errors, rule, scope)
                if d.has_errors:
                    diags.append(d)
                    continue
                ok, _ = unmark(ok)
                if isinstance(ok, Unknown):
                    continue
                if ok is False:
                    msg = ""
                    if rule.error_message is not None:
                        m, d2 = evaluate(rule.error_message, scope)
                        m, _ = unmark_deep(m)
                        msg = m if isinstance(m, str) else ""
                    diags.error("Invalid value for variable",
                                f"{msg}\n\nThis was checked by the validation rule at {rule.range.long()}.",
                                var.range)
                    diags.items[-1] = replace(diags.items[-1], values=expression_values(rule.condition, scope))
        return diags


def _report_named(ctx: Any, kind: str, prefix: str, name: str, mi: Any, ok: Any, errored: bool, rule: Any,
                  scope: Any) -> None:
    """Record one condition's result of an output, check block or variable (show -json "checks")."""
    status = "error" if errored else "pass" if ok is True else "fail" if ok is False else "unknown"
    message = None
    if status == "fail" and rule.error_message is not None:
        m, _ = evaluate(rule.error_message, scope)
        m, _ = unmark_deep(m)
        message = m.strip() if isinstance(m, str) else None
    _report_status(ctx, kind, prefix, name, mi, status, message)


def _report_status(ctx: Any, kind: str, prefix: str, name: str, mi: Any, status: str, message: str | None) -> None:
    from tfconsole.plans.checks import named_addrs

    static, dynamic = named_addrs(kind, prefix, name, mi)
    ctx.checks.report(static, dynamic, status, message if status == "fail" else None)


def _var_marks(var: Variable) -> int:
    """The marks a variable's value carries from its declaration."""
    return (SENSITIVE if var.sensitive else 0) | (EPHEMERAL if var.ephemeral else 0)


class LocalNode(Node, Executable, Referenceable, Referencer):
    kind = "local"

    def __init__(self, module: ModulePath, name: str, expr: A.Expr, rng: Any):
        self.module = module
        self.local_name = name
        self.expr = expr
        self.range = rng
        self.name = f"{_addr_prefix(module)}local.{name}"

    def referenceable_keys(self) -> list[RefKey]:
        return [(self.module, f"local.{self.local_name}")]

    def reference_keys(self) -> list[RefKey]:
        return expr_keys(self.module, self.expr)

    def execute(self, ctx: "WalkContext") -> Diagnostics:
        from tfconsole.lang.shared import evaluate_shared, walk_memo
        from tfconsole.walk.context import scope_for

        diags = Diagnostics()
        memo = walk_memo(ctx)  # a local several module calls compute alike is computed once
        for mi in ctx.instances_of(self.module):
            v, d = evaluate_shared(self.expr, scope_for(ctx, mi), memo)
            diags.append(d)
            ctx.set_local(mi, self.local_name, v)
        return diags


class OutputNode(Node, Executable, Referenceable, Referencer):
    kind = "output"

    def __init__(self, module: ModulePath, out: Output, destroy: bool = False):
        self.module = module
        self.out = out
        self.destroy = destroy
        self.name = f"{_addr_prefix(module)}output.{out.name}"

    def referenceable_keys(self) -> list[RefKey]:
        return [(self.module, f"output.{self.out.name}")]

    def reference_keys(self) -> list[RefKey]:
        keys = expr_keys(self.module, self.out.expr)
        keys.extend(keys_for_traversals(self.module, self.out.depends_on))
        for p in self.out.preconditions:
            keys.extend(expr_keys(self.module, p.condition, p.error_message))
        return keys

    def execute(self, ctx: "WalkContext") -> Diagnostics:
        from tfconsole.walk.context import scope_for

        diags = Diagnostics()
        for mi in ctx.instances_of(self.module):
            if self.destroy and mi.is_root:
                with ctx.lock:
                    ctx.root_outputs.pop(self.out.name, None)
                continue
            scope = scope_for(ctx, mi)
            failed = False
            for rule in self.out.preconditions:
                status, message, d = judge(rule, scope, "Module output value precondition failed")
                diags.append(d)
                failed = failed or d.has_errors
                _report_status(ctx, "output_value", "output.", self.out.name, mi, status, message)
            if self.out.expr is None or failed:  # a failed precondition: no value, as Terraform records none
                continue
            if mi.is_root and self.out.ephemeral:
                diags.error("Ephemeral output not allowed",
                            "Ephemeral outputs are not allowed in context of a root module", self.out.range)
                continue
            v, d = evaluate(self.out.expr, scope)
            diags.append(d)
            if d.has_errors:
                continue
            if not self.out.ephemeral and contains_ephemeral(v):
                diags.error("Ephemeral value not allowed",
                            "This output value is not declared as returning an ephemeral value, so it cannot be "
                            "set to a result derived from an ephemeral value.", self.out.expr.range, address=None)
                continue
            if mi.is_root and not self.out.sensitive and contains_sensitive(v):
                diags.error("Output refers to sensitive values",
                            "To reduce the risk of accidentally exporting sensitive data that was intended to "
                            "be only internal, Terraform requires that any root module output containing "
                            "sensitive data be explicitly marked as sensitive, to confirm your intent.\n\n"
                            "If you do intend to export this data, annotate the output value as sensitive by "
                            "adding the following argument:\n    sensitive = true", self.out.range)
                continue
            if mi.is_root and ctx.operation == "apply" and find_infinity(v):
                # Terraform plans this and then fails to save state; say so with the location
                diags.error("Failed to serialize output value in state",
                            f'An error occured while serializing output value "{self.out.name}": cannot '
                            "serialize infinity as JSON.", self.out.expr.range or self.out.range)
                continue
            if self.out.sensitive:
                v = mark(v)
            if self.out.ephemeral:
                v = mark(v, EPHEMERAL)
            ctx.set_output(mi, self.out.name, v)
            if mi.is_root:
                with ctx.lock:
                    ctx.root_outputs[self.out.name] = (v, self.out.sensitive)
        return diags


class ModuleExpandNode(Node, Executable, Referenceable, Referencer):
    """Evaluates a module call's count/for_each in every instance of the calling module."""

    kind = "module_expand"

    def __init__(self, parent: ModulePath, call: ModuleCall):
        self.module = parent
        self.call = call
        self.child_path = parent.child(call.name)
        self.name = f"{_addr_prefix(parent)}module.{call.name} (expand)"

    def referenceable_keys(self) -> list[RefKey]:
        return [(self.module, f"module.{self.call.name}")]

    def reference_keys(self) -> list[RefKey]:
        keys = expr_keys(self.module, self.call.count, self.call.for_each)
        keys.extend(keys_for_traversals(self.module, self.call.depends_on))
        return keys

    def execute(self, ctx: "WalkContext") -> Diagnostics:
        from tfconsole.walk.context import scope_for

        from .resource import evaluate_expansion

        diags = Diagnostics()
        validating = ctx.operation == "validate"
        for mi in ctx.instances_of(self.module):
            exp, d = evaluate_expansion(self.call.count, self.call.for_each, scope_for(ctx, mi),
                                        f"module.{self.call.name}", allow_unknown=validating)
            diags.append(d)
            if d.has_errors or exp is None:
                continue
            if validating and (self.call.count is not None or self.call.for_each is not None):
                # validate walks one representative instance of a repeated module
                from tfconsole.walk.context import Expansion

                exp = Expansion(exp.mode, [None], unknown=True)
            ctx.register_module_expansion(mi, self.call.name, exp)
        return diags


class ProviderNode(Node, Executable, Referencer):
    kind = "provider"

    def __init__(self, module: ModulePath, local_name: str, alias: str | None, source: str,
                 block: ProviderBlock | None):
        self.module = module
        self.local_name = local_name
        self.alias = alias
        self.source = source
        self.block = block
        base = f'provider["{source}"]' + (f".{alias}" if alias else "")
        self.addr = module.prefix() + base
        self.name = self.addr

    def reference_keys(self) -> list[RefKey]:
        if self.block is None:
            return []
        return expr_keys(self.module, *[a.expr for a in self.block.body.attributes.values()])

    def execute(self, ctx: "WalkContext") -> Diagnostics:
        diags = Diagnostics()
        provider = ctx.session.instance(self.addr, self.source)
        if provider is None:
            diags.error("Failed to load plugin schemas",
                        f"Provider {self.source} is not available: tfconsole has no built-in provider with this "
                        "source address and no installed plugin registers it.",
                        self.block.range if self.block else None)
            return diags
        if hasattr(provider, "base_dir"):
            provider.base_dir = ctx.working_dir  # type: ignore[attr-defined]
        config, d = self._config(ctx, provider)
        diags.append(d)
        if diags.has_errors:
            return diags
        if ctx.operation == "validate":
            if provider.wire_protocol and self.block is not None:
                diags.append(provider.validate_provider_config(config))  # type: ignore[attr-defined]
        else:
            # a plugin already configured with the same known values in this command is reused
            provider, d = ctx.session.configure(self.addr, self.source, provider, config, ctx.operation)
            diags.append(d)
        with ctx.lock:
            ctx.providers[self.addr] = provider
        schemas = ctx.session.schemas(self.source) if provider.wire_protocol else None
        with ctx.lock:
            ctx.provider_schemas.setdefault(provider.source or self.source, schemas or
                                            (provider.resource_schemas(), provider.data_source_schemas()))
        return diags

    def _config(self, ctx: "WalkContext", provider: Any) -> tuple[dict[str, Any], Diagnostics]:
        """The provider block's arguments: against the provider's schema for a plugin (every
        attribute present, nested blocks decoded), as plain attributes for a built-in."""
        from tfconsole.walk.context import scope_for

        diags = Diagnostics()
        mis = ctx.instances_of(self.module) or [ModuleInstance()]
        scope = scope_for(ctx, mis[0])
        if provider.wire_protocol:
            from tfconsole.config.body import Body
            from tfconsole.graph.nodes.resource import evaluate_body

            diags.extend(provider.schema_diagnostics())
            if diags.has_errors:
                return {}, diags
            body = self.block.body if self.block is not None else Body()
            evaluated, d = evaluate_body(body, provider.provider_schema().block, scope,
                                         self.block.range if self.block else None, self.addr, ephemeral_ok=True)
            diags.extend(d)
            return unmark_deep(evaluated)[0], diags
        config: dict[str, Any] = {}
        if self.block is not None:
            for name, attr in self.block.body.attributes.items():
                v, d = evaluate(attr.expr, scope)
                diags.append(d)
                config[name] = unmark_deep(v)[0]
        return config, diags


class CheckNode(Node, Executable, Referencer):
    kind = "check"

    def __init__(self, module: ModulePath, check: Check):
        self.module = module
        self.check = check
        self.name = f"{_addr_prefix(module)}check.{check.name}"

    def reference_keys(self) -> list[RefKey]:
        keys: list[RefKey] = []
        for a in self.check.asserts:
            keys.extend(expr_keys(self.module, a.condition, a.error_message))
        return keys

    def execute(self, ctx: "WalkContext") -> Diagnostics:
        from tfconsole.walk.context import scope_for

        diags = Diagnostics()
        if ctx.operation == "validate":
            return diags
        for mi in ctx.instances_of(self.module):
            scope = scope_for(ctx, mi)
            for a in self.check.asserts:
                status, message, d = judge(a, scope, "Check block assertion failed", Severity.WARNING,
                                           from_check=True)
                _report_status(ctx, "check", "check.", self.check.name, mi, status, message)
                # a failed assertion is a warning; a condition that cannot be evaluated, or is null,
                # is an error in the configuration, as in Terraform
                diags.extend(d)
        return diags


def expansion_keys_display(v: Any) -> str:
    return value_to_display(v)


__all__ = [
    "RootNode", "VariableNode", "LocalNode", "OutputNode", "ModuleExpandNode", "ProviderNode", "CheckNode",
    "BOOL", "DYNAMIC", "NUMBER", "STRING", "SetType", "MapType", "ObjectType", "Null", "Sensitive", "TMap",
    "TSet", "is_wholly_known", "type_of",
]
