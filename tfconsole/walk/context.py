"""The shared context of one walk, and the Data implementation expressions evaluate against.

WalkContext holds everything vertices share: configuration, the state (behind a lock), the
changes being planned, named values (variables, locals, module outputs), resource instance
values, the instance expander, provider instances and the hooks. Vertices touch it only
through its methods, which take the lock.
"""
from __future__ import annotations

import os
import threading
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from tfconsole.addrs import (
    AbsResource,
    AbsResourceInstance,
    InstanceKey,
    ModuleInstance,
    Resource,
    intern_resource,
)
from tfconsole.addrs import (
    Module as ModulePath,
)
from tfconsole.config.model import Module, ResourceConfig
from tfconsole.diags import Diagnostics, Pos, SourceRange
from tfconsole.lang.eval import NOT_FOUND, EvalError, Scope
from tfconsole.lang.types import DYNAMIC
from tfconsole.lang.values import (
    EPHEMERAL,
    ConversionError,
    Unknown,
    convert,
    is_wholly_known,
    mark,
    unmark_deep,
)
from tfconsole.plans import Action, ResourceInstanceChange
from tfconsole.providers.interface import Provider, Schema
from tfconsole.states.objcodec import EncodeOnRead, decode_object, encode_object, mark_stored
from tfconsole.states.state import ObjectState, State
from tfconsole.states.sync import SyncState

from .hooks import Hook


@dataclass
class Expansion:
    mode: str  # "" | "list" | "map"
    keys: list[InstanceKey]
    each_values: dict[InstanceKey, Any] = field(default_factory=dict)
    unknown: bool = False
    _key_set: frozenset = field(default=frozenset(), init=False, repr=False, compare=False)

    def has_key(self, key: InstanceKey) -> bool:
        """key in keys, without a list scan per lookup (keys may still grow after creation)."""
        ks = self._key_set
        if len(ks) != len(self.keys):
            ks = self._key_set = frozenset(self.keys)
        return key in ks


class WalkContext:
    def __init__(self, *, config: Module, state: State, operation: str, hook: Hook, working_dir: str,
                 workspace: str = "default", input_values: dict[str, Any] | None = None,
                 journal: Any = None, session: Any = None) -> None:
        self.config = config
        # the walk's state: vertices read and change it only through this SyncState (its lock,
        # and the journal that makes each completed change durable during an apply)
        self.sync = SyncState(state, journal)
        self.refreshed_sync: SyncState | None = None  # the prior state after refresh (plan)
        self.operation = operation  # "plan" | "apply" | "destroy" | "refresh" | "validate"
        self.hook = hook
        self.working_dir = working_dir
        self.workspace = workspace
        self.input_values = input_values or {}
        self.lock = threading.RLock()  # the walk's own bookkeeping (values, expansions, changes)
        # module instance -> its Data for expressions (one per module instance, not per scope)
        self._module_data: dict[ModuleInstance, ModuleData] = {}
        # named values
        self.variables: dict[tuple[ModuleInstance, str], Any] = {}
        self.locals: dict[tuple[ModuleInstance, str], Any] = {}
        self.outputs: dict[tuple[ModuleInstance, str], Any] = {}
        self.root_outputs: dict[str, tuple[Any, bool]] = {}
        from tfconsole.plans.checks import CheckResults

        self.checks = CheckResults()  # what each checkable object's conditions gave (show -json "checks")
        # expansion
        self.module_instances: dict[ModulePath, list[ModuleInstance]] = {ModulePath(): [ModuleInstance()]}
        self.module_expansions: dict[tuple[ModuleInstance, str], Expansion] = {}
        self.resource_expansions: dict[AbsResource, Expansion] = {}
        # resource instance values as expressions see them, per resource (the interned address,
        # found by identity: see addrs.intern_resource) and instance key
        self.instance_values: dict[AbsResource, dict[InstanceKey, Any]] = {}
        self._resource_cache: dict[AbsResource, Any] = {}
        self._resource_build_lock = threading.Lock()
        # per resource, bumped by every change that invalidates its cached value
        self._resource_generation: dict[AbsResource, int] = {}
        # planning output
        self.changes: dict[tuple[AbsResourceInstance, str | None], ResourceInstanceChange] = {}
        self.drift: list[ResourceInstanceChange] = []
        # providers: the command's session decides plugin or built-in and owns plugin processes
        if session is None:
            from tfconsole.providers.registry import ProviderSession

            session = ProviderSession(working_dir, hook=hook)
        self.session = session
        self.providers: dict[str, Provider] = {}
        self.provider_schemas: dict[str, tuple[dict[str, Schema], dict[str, Schema]]] = {}
        self.check_warnings: list[Any] = []
        self.stop_requested = threading.Event()
        # plan options
        self.refresh = True
        self.refresh_only = False
        self.destroy_mode = False
        self.moved_from: dict[AbsResourceInstance, AbsResourceInstance] = {}
        # ephemeral resource instances open in this walk (graph/nodes/ephemeral.py closes them)
        self.ephemeral_open: dict[AbsResourceInstance, Any] = {}
        # ephemeral resource instances whose provider deferred opening them: never opened, so
        # never closed, and a reference to them is Terraform's "has expired" error
        self.ephemeral_deferred: set[AbsResourceInstance] = set()

    @property
    def state(self) -> State:
        """The walk's State itself: for whoever set the walk up, once no worker runs."""
        return self.sync.unwrap()

    @property
    def journal(self) -> Any:
        return self.sync.journal

    @property
    def refreshed(self) -> State | None:
        return self.refreshed_sync.unwrap() if self.refreshed_sync is not None else None

    @refreshed.setter
    def refreshed(self, state: State | None) -> None:
        self.refreshed_sync = SyncState(state) if state is not None else None

    # ---- state changes: each through SyncState (under its lock, journaled during an apply)
    def save_raw(self, addr: AbsResourceInstance, obj: ObjectState | None, provider: str,
                 each: str | None = None) -> None:
        if obj is None and self.sync.current(addr) is None:
            return
        self.sync.set_current(addr, obj, provider, each)

    def save_object(self, addr: AbsResourceInstance, provider: str, value: dict[str, Any], schema: Schema,
                    status: str, private: str | None, dependencies: list[str], cbd: bool, each: str,
                    identity: tuple[Any, int] = (None, 0)) -> None:
        """Store an object; `identity`: its identity JSON data and the type's identity schema
        version (Terraform writes the version even when the provider returned no identity)."""
        attrs, sens = encode_object(value, schema)
        obj = ObjectState(attributes=attrs, status=status, schema_version=schema.version,
                          sensitive_attributes=sens, private=private, dependencies=sorted(dependencies),
                          create_before_destroy=cbd, identity=identity[0],
                          identity_schema_version=identity[1])
        self.save_raw(addr, obj, provider, each)

    def depose(self, addr: AbsResourceInstance, key: str, provider: str) -> None:
        self.sync.depose_current(addr, provider, key)

    def remove_deposed(self, addr: AbsResourceInstance, key: str, provider: str) -> None:
        self.sync.set_deposed(addr, key, None, provider)

    def store_data_result(self, addr: AbsResourceInstance, provider: str, value: dict[str, Any], schema: Schema,
                          each: str) -> None:
        attrs, sens = encode_object(value, schema)
        obj = ObjectState(attributes=attrs, schema_version=schema.version, sensitive_attributes=sens)
        self.sync.set_current(addr, obj, provider, each)
        if self.refreshed_sync is not None:
            self.refreshed_sync.set_current(addr, obj, provider, each)

    def forget_data(self, addr: AbsResourceInstance) -> None:
        provider = self.sync.provider_of(addr.abs_resource())
        if provider is not None:
            self.sync.set_current(addr, None, provider)
        if self.refreshed_sync is not None and self.refreshed_sync.resource(addr.abs_resource()) is not None:
            self.refreshed_sync.set_current(addr, None, provider or "")

    def refreshed_object(self, addr: AbsResourceInstance, provider: str, value: dict[str, Any] | None,
                         schema: Schema, old: ObjectState, private: Any = NOT_FOUND,
                         identity: tuple[Any, int] | None = None) -> None:
        refreshed = self.refreshed_sync
        if refreshed is None:
            return
        if value is None:
            refreshed.set_current(addr, None, provider)
            return
        # encoded when first read: a plan neither saved nor applied never reads it
        obj = EncodeOnRead(value, schema, old.status, old.private if private is NOT_FOUND else private,
                           old.dependencies, old.create_before_destroy,
                           old.identity if identity is None else identity[0],
                           old.identity_schema_version if identity is None else identity[1])
        refreshed.set_current(addr, obj, provider)

    def record_drift(self, addr: AbsResourceInstance, provider: str, before: Any, after: Any,
                     schema: Schema) -> None:
        action = Action.DELETE if after is None else Action.UPDATE
        with self.lock:
            self.drift.append(ResourceInstanceChange(addr, action, provider, before, after,
                                                     schema.block.implied_type()))

    def run_provisioners(self, addr: AbsResourceInstance, rc: ResourceConfig, value: Any,
                         when_destroy: bool) -> Diagnostics:
        from tfconsole.diags import Diagnostics
        from tfconsole.lang.eval import evaluate

        diags = Diagnostics()
        for p in rc.provisioners:
            if p.when_destroy != when_destroy:
                continue
            if p.type != "local-exec":
                diags.error("Unsupported provisioner", f"The provisioner \"{p.type}\" is not supported by "
                            "tfconsole; only local-exec is.", p.range, address=str(addr))
                return diags
            with self.lock:
                exp = self.resource_expansions.get(addr.abs_resource())
            scope = scope_for(self, addr.module, key=addr.key, expansion=exp, self_value=value)
            config: dict[str, Any] = {}
            for name, attr in p.body.attributes.items():
                v, d = evaluate(attr.expr, scope)
                diags.extend(d)
                config[name] = v
            if diags.has_errors:
                return diags
            try:
                from tfconsole.providers.builtin.provisioners import run_local_exec
            except ImportError:
                diags.error("Provisioner unavailable", "The local-exec provisioner is not installed.", p.range)
                return diags
            self.hook.pre_provision(str(addr), p.type)
            # marks kept: a sensitive command's output is suppressed by the provisioner
            d = run_local_exec(config, self.working_dir,
                               lambda line, a=str(addr): self.hook.provision_output(a, "local-exec", line))
            self.hook.post_provision(str(addr), p.type, "failed" if d.has_errors else None)
            if d.has_errors and p.on_failure_continue:
                continue
            if d.has_errors:
                for x in d:
                    diags.error(x.summary if x.summary else "local-exec provisioner error", x.detail,
                                _open_brace(p), address=str(addr))
                return diags
        return diags

    # ---- named values
    def set_variable(self, mi: ModuleInstance, name: str, value: Any) -> None:
        with self.lock:
            self.variables[(mi, name)] = value

    def set_local(self, mi: ModuleInstance, name: str, value: Any) -> None:
        with self.lock:
            self.locals[(mi, name)] = value

    def set_output(self, mi: ModuleInstance, name: str, value: Any) -> None:
        with self.lock:
            self.outputs[(mi, name)] = value

    # ---- expansion
    def instances_of(self, path: ModulePath) -> list[ModuleInstance]:
        with self.lock:
            return list(self.module_instances.get(path, []))

    def register_module_expansion(self, parent: ModuleInstance, call: str, exp: Expansion) -> None:
        with self.lock:
            self.module_expansions[(parent, call)] = exp
            path = parent.module().child(call)
            lst = self.module_instances.setdefault(path, [])
            have = set(lst)
            for k in exp.keys:
                mi = parent.child(call, k)
                if mi not in have:
                    have.add(mi)
                    lst.append(mi)

    def register_resource_expansion(self, addr: AbsResource, exp: Expansion) -> None:
        addr = intern_resource(addr)
        with self.lock:
            self.resource_expansions[addr] = exp
            self._resource_cache.pop(addr, None)
            self._resource_generation[addr] = self._resource_generation.get(addr, 0) + 1

    # ---- resource values
    def set_instance_value(self, addr: AbsResourceInstance, value: Any) -> None:
        ra = addr.abs_resource()
        with self.lock:
            values = self.instance_values.get(ra)
            if value is None:
                if values is not None:
                    values.pop(addr.key, None)
            elif values is None:
                self.instance_values[ra] = {addr.key: value}
            else:
                values[addr.key] = value
            self._resource_cache.pop(ra, None)
            self._resource_generation[ra] = self._resource_generation.get(ra, 0) + 1

    def instance_value(self, addr: AbsResourceInstance) -> Any:
        return self.instance_value_of(addr.abs_resource(), addr.key)

    def instance_value_of(self, ra: AbsResource, key: InstanceKey) -> Any:
        """instance_value of ra's instance `key`, without making its address unless it must be
        decoded from state. (Single dict reads are atomic: no lock.)"""
        values = self.instance_values.get(ra)
        if values is not None:
            v = values.get(key, NOT_FOUND)
            if v is not NOT_FOUND:
                return v
        return self._decode_from_state(ra.instance(key))

    def _decode_from_state(self, addr: AbsResourceInstance) -> Any:
        obj = self.sync.current(addr)
        provider = self.sync.provider_of(addr.abs_resource())
        if obj is None or provider is None:
            return NOT_FOUND
        schema = self.schema_for(provider, addr.resource)
        if schema is None:
            return NOT_FOUND
        value = decode_object(obj.attributes, schema, obj.sensitive_attributes)
        with self.lock:
            self.instance_values.setdefault(addr.abs_resource(), {})[addr.key] = value
        return value

    def schema_for(self, provider_addr: str, res: Resource) -> Schema | None:
        source = provider_source_of(provider_addr)
        schemas = self.provider_schemas.get(source)
        if schemas is None:
            schemas = self.session.schemas(source)
            if schemas is None:
                return None
            self.provider_schemas[source] = schemas
        return (schemas[0] if res.mode == "managed" else schemas[1]).get(res.type)

    def read_stored(self, provider: Provider, addr: AbsResourceInstance, obj: ObjectState,
                    schema: Schema) -> tuple[dict[str, Any] | None, Diagnostics]:
        """A stored object as a value of the provider's current schema, with its sensitive marks.
        A plugin upgrades it first (UpgradeResourceState with the stored schema version), as
        Terraform does before every read of a stored object."""
        if not provider.wire_protocol:
            return decode_object(obj.attributes, schema, obj.sensitive_attributes), Diagnostics()
        value, diags = provider.upgrade_resource_state(addr.resource.type, obj.schema_version, obj.attributes or {})
        if value is None or diags.has_errors:
            if value is None and not diags.has_errors:
                diags.error("Provider produced invalid object",
                            f"Provider {provider.source} returned no object when upgrading the stored state of "
                            f"{addr}.")
            return None, diags
        return mark_stored(value, schema, obj.sensitive_attributes), diags

    def stored_identity(self, provider: Provider, addr: AbsResourceInstance, obj: ObjectState) -> tuple[Any, Diagnostics]:
        """A stored object's identity (JSON data) at the provider's current identity schema
        version: upgraded by UpgradeResourceIdentity when stored at an older one, as Terraform
        does after upgrading the object itself."""
        ischema = provider.identity_schemas().get(addr.resource.type)
        current = ischema.version if ischema is not None else 0
        if obj.identity_schema_version == current:
            return obj.identity, Diagnostics()
        if obj.identity_schema_version > current:
            return None, Diagnostics().error(
                "Resource instance managed by newer provider version",
                f"The current state of {addr} was created by a newer provider version than is currently "
                f"selected. Upgrade the {addr.resource.type.split('_', 1)[0]} provider to work with this state.")
        return provider.upgrade_resource_identity(addr.resource.type, obj.identity_schema_version, obj.identity)

    def resource_value(self, addr: AbsResource, rng: SourceRange | None) -> Any:
        cached = self._resource_cache.get(addr, NOT_FOUND)  # one dict read is atomic: no lock
        if cached is not NOT_FOUND:
            return cached
        # one thread builds a resource's value while the others wait for it, rather than each
        # building the same list of every instance at once. The wait is bounded, so a caller
        # that happens to hold the context lock can never deadlock with the builder.
        if self._resource_build_lock.acquire(timeout=1.0):
            try:
                return self._build_resource_value(addr)
            finally:
                self._resource_build_lock.release()
        return self._build_resource_value(addr)

    def _build_resource_value(self, addr: AbsResource) -> Any:
        with self.lock:
            cached = self._resource_cache.get(addr, NOT_FOUND)
            if cached is not NOT_FOUND:
                return cached
            exp = self.resource_expansions.get(addr)
            generation = self._resource_generation.get(addr, 0)
        if exp is None or exp.unknown:
            # an ephemeral resource's value is ephemeral even before anything is known of it
            return mark(Unknown(DYNAMIC), EPHEMERAL) if addr.resource.mode == "ephemeral" else Unknown(DYNAMIC)
        addr = intern_resource(addr)
        if exp.mode == "":
            v = self.instance_value_of(addr, None)
            value = Unknown(DYNAMIC) if v is NOT_FOUND else v
        elif exp.mode == "list":
            items = []
            for k in sorted(exp.keys):  # type: ignore[type-var]
                v = self.instance_value_of(addr, k)
                items.append(Unknown(DYNAMIC) if v is NOT_FOUND else v)
            value = items
        else:
            obj = {}
            for k in sorted(exp.keys):  # type: ignore[type-var]
                v = self.instance_value_of(addr, k)
                obj[k] = Unknown(DYNAMIC) if v is NOT_FOUND else v
            value = obj
        with self.lock:
            # not cached when an instance value changed while it was being built
            if generation == self._resource_generation.get(addr, 0):
                self._resource_cache[addr] = value
        return value

    # ---- changes
    def record_change(self, change: ResourceInstanceChange) -> None:
        with self.lock:
            self.changes[(change.addr, change.deposed)] = change

    def change_for(self, addr: AbsResourceInstance) -> ResourceInstanceChange | None:
        with self.lock:
            return self.changes.get((addr, None))


def provider_source_of(provider_addr: str) -> str:
    """provider["registry.terraform.io/hashicorp/null"].alias -> registry.terraform.io/hashicorp/null"""
    start = provider_addr.find('["')
    end = provider_addr.find('"]')
    if start < 0 or end < 0:
        return provider_addr
    return provider_addr[start + 2:end]


class ModuleData:
    """The Data protocol for expressions inside one module instance."""

    def __init__(self, ctx: WalkContext, mi: ModuleInstance) -> None:
        self.ctx = ctx
        self.mi = mi
        self.mod = ctx.config.module_at(mi.module())
        self._addrs: dict[Resource, AbsResource] = {}  # the resources referred to from here
        self._configs: dict[Resource, ResourceConfig] = {}  # and their blocks, once found

    def _abs(self, res: Resource) -> AbsResource:
        addr = self._addrs.get(res)
        if addr is None:
            addr = self._addrs[res] = intern_resource(AbsResource(self.mi, res))
        return addr

    def _where(self) -> str:
        return "the root module" if self.mi.is_root else f"module.{'.module.'.join(n for n, _ in self.mi.steps)}"

    def get_variable(self, name: str, rng: SourceRange | None) -> Any:
        if self.mod is None or name not in self.mod.variables:
            raise EvalError("Reference to undeclared input variable",
                            f"An input variable with the name \"{name}\" has not been declared. This variable "
                            f"can be declared with a variable \"{name}\" {{}} block.", rng)
        # one dict read is atomic: no lock (every expression's references pass here)
        v = self.ctx.variables.get((self.mi, name), NOT_FOUND)
        return Unknown(self.mod.variables[name].type) if v is NOT_FOUND else v

    def get_local(self, name: str, rng: SourceRange | None) -> Any:
        if self.mod is None or name not in self.mod.locals:
            raise EvalError("Reference to undeclared local value",
                            f"A local value with the name \"{name}\" has not been declared.", rng)
        v = self.ctx.locals.get((self.mi, name), NOT_FOUND)  # atomic, as a variable's
        return Unknown(DYNAMIC) if v is NOT_FOUND else v

    def get_module(self, name: str, rng: SourceRange | None) -> Any:
        if self.mod is None or name not in self.mod.module_calls:
            raise EvalError("Reference to undeclared module",
                            f"No module call named \"{name}\" is declared in {self._where()}.", rng)
        child = self.mod.children.get(name)
        with self.ctx.lock:
            exp = self.ctx.module_expansions.get((self.mi, name))
        if exp is None or exp.unknown:
            return Unknown(DYNAMIC)

        def outputs_of(mi: ModuleInstance) -> dict[str, Any]:
            return self._module_outputs(child, mi)

        if exp.mode == "":
            return outputs_of(self.mi.child(name, None))
        if exp.mode == "list":
            return [outputs_of(self.mi.child(name, k)) for k in sorted(exp.keys)]  # type: ignore[type-var]
        return {k: outputs_of(self.mi.child(name, k)) for k in sorted(exp.keys)}  # type: ignore[type-var]

    def _module_outputs(self, child: Module | None, mi: ModuleInstance) -> dict[str, Any]:
        out = {}
        outputs = self.ctx.outputs
        for oname in (child.outputs if child else ()):
            v = outputs.get((mi, oname), NOT_FOUND)  # one dict read is atomic: no lock
            out[oname] = Unknown(DYNAMIC) if v is NOT_FOUND else v
        return out

    def get_module_instance(self, name: str, key: Any, rng: SourceRange | None) -> Any:
        """module.NAME[key] without building every instance's outputs to index one; NOT_FOUND
        sends anything unusual (errors included) to get_module and the index."""
        if self.mod is None or name not in self.mod.module_calls:
            return NOT_FOUND
        exp = self.ctx.module_expansions.get((self.mi, name))
        if exp is None or exp.unknown or not (exp.mode == "list" and type(key) is int or
                                              exp.mode == "map" and type(key) is str) or not exp.has_key(key):
            return NOT_FOUND
        return self._module_outputs(self.mod.children.get(name), self.mi.child(name, key))

    def _resource_config(self, res: Resource, rng: SourceRange | None) -> ResourceConfig:
        rc = self._configs.get(res)  # (res is the evaluator's one object per name: found by identity)
        if rc is not None:
            return rc
        table = (self.mod.ephemeral_resources if res.mode == "ephemeral" else self.mod.resources) if self.mod else {}
        rc = table.get(res)
        if rc is not None:
            self._configs[res] = rc
        if rc is None and res.mode == "ephemeral":
            raise EvalError("Reference to undeclared resource",
                            f"An ephemeral resource \"{res.type}\" \"{res.name}\" has not been declared in "
                            f"{self._where()}.", rng)
        if rc is None:
            if res.mode == "managed":
                raise EvalError("Reference to undeclared resource",
                                f"A managed resource \"{res.type}\" \"{res.name}\" has not been declared in "
                                f"{self._where()}.", rng)
            raise EvalError("Reference to undeclared resource",
                            f"A data resource \"{res.type}\" \"{res.name}\" has not been declared in "
                            f"{self._where()}.", rng)
        return rc

    def get_resource(self, res: Resource, rng: SourceRange | None) -> Any:
        self._resource_config(res, rng)
        addr = self._abs(res)
        if res.mode == "ephemeral" and self.ctx.ephemeral_deferred:
            self._not_deferred(addr, None, rng)
        return self.ctx.resource_value(addr, rng)

    def _not_deferred(self, addr: AbsResource, key: Any, rng: SourceRange | None) -> None:
        """Terraform registers no value for an ephemeral resource instance whose opening the
        provider deferred; evaluating a reference to it then fails as for an expired one."""
        with self.ctx.lock:
            deferred = sorted(str(a) for a in self.ctx.ephemeral_deferred
                               if a.abs_resource() == addr and (key is None or a.key == key))
        if deferred:
            raise EvalError("Ephemeral resource instance has expired",
                            f"The remote object for {deferred[0]} is no longer available due to a renewal error, "
                            "so Terraform cannot evaluate this expression.", rng)

    def get_resource_instance(self, res: Resource, key: Any, rng: SourceRange | None) -> Any:
        self._resource_config(res, rng)
        addr = self._abs(res)
        if res.mode == "ephemeral" and self.ctx.ephemeral_deferred:
            self._not_deferred(addr, key, rng)
        exp = self.ctx.resource_expansions.get(addr)  # one dict read is atomic: no lock
        if exp is None or exp.unknown:
            return NOT_FOUND
        if exp.mode == "list" and isinstance(key, int) and not isinstance(key, bool) or \
                exp.mode == "map" and isinstance(key, str):
            if not exp.has_key(key):
                return NOT_FOUND
            v = self.ctx.instance_value_of(addr, key)
            return Unknown(DYNAMIC) if v is NOT_FOUND else v
        return NOT_FOUND

    def get_path(self, name: str, rng: SourceRange | None) -> Any:
        if name == "module":
            rel = os.path.relpath(self.mod.dir if self.mod else ".", self.ctx.config.dir)
            return rel
        if name == "root":
            return "."
        if name == "cwd":
            return os.path.abspath(self.ctx.working_dir)
        raise EvalError("Invalid \"path\" attribute",
                        f"The \"path\" object does not have an attribute named \"{name}\". The supported "
                        "attributes are path.cwd, path.module, and path.root.", rng)

    def call_provider_function(self, name: str, args: list[Any], rng: SourceRange | None) -> Any:
        """provider::LOCAL::FUNCTION(args): a provider-defined function, called (as Terraform
        does) on an unconfigured instance of the provider. Unknown arguments give an unknown
        result unless the parameter accepts them; a sensitive argument marks the result."""
        parts = name.split("::")
        rp = self.mod.required_providers.get(parts[1]) if self.mod is not None and len(parts) == 3 else None
        provider = self.ctx.session.for_schemas(rp.source) if rp is not None else None
        sig = provider.functions().get(parts[2]) if provider is not None else None
        if provider is None or sig is None:
            raise EvalError("Call to unknown function", f"There is no function named \"{name}\".", rng)
        params = list(sig.params) + [sig.variadic] * max(0, len(args) - len(sig.params)) if sig.variadic \
            else list(sig.params)
        # "while calling provider::p::f(a, b...)" under the quoted call, as for any function
        shown = f"{name}({', '.join([p[0] for p in sig.params] + ([sig.variadic[0] + '...'] if sig.variadic else []))})"
        if len(args) != len(params):
            raise EvalError("Incorrect function argument count" if args else "Not enough function arguments",
                            f"Function \"{name}\" expects {len(sig.params)} argument(s).", rng)
        clean, marked = unmark_deep(list(args))
        values = []
        for (pname, ptype, allow_null, allow_unknown), v in zip(params, clean):
            if not allow_unknown and not is_wholly_known(v):
                return mark(Unknown(sig.returns), marked)
            if v is None and not allow_null:
                raise EvalError("Invalid function argument", f"Invalid value for \"{pname}\" parameter: argument "
                                "must not be null.", rng, function_call=shown)
            try:
                values.append(convert(v, ptype))
            except ConversionError as exc:
                raise EvalError("Invalid function argument",
                                f"Invalid value for \"{pname}\" parameter: {exc.message}.", rng,
                                function_call=shown) from None
        result, diags = provider.call_function(parts[2], values)
        if diags.has_errors:
            err = diags.errors()[0]
            raise EvalError(err.summary, err.detail, rng, function_call=shown)
        return mark(result, marked)

    def get_terraform(self, name: str, rng: SourceRange | None) -> Any:
        if name == "workspace":
            return self.ctx.workspace
        if name == "applying":
            # true only while applying; ephemeral, since plan and apply see different values
            return mark(self.ctx.operation == "apply", EPHEMERAL)
        raise EvalError("Invalid \"terraform\" attribute",
                        f"The \"terraform\" object does not have an attribute named \"{name}\". The only "
                        "supported attribute is terraform.workspace, the name of the currently-selected "
                        "workspace.", rng)


def scope_for(ctx: WalkContext, mi: ModuleInstance, *, key: InstanceKey = None, expansion: Expansion | None = None,
              self_value: Any = NOT_FOUND) -> Scope:
    count_index = None
    each = None
    if expansion is not None:
        if expansion.unknown:
            # validate: one representative instance whose key is not known
            from tfconsole.lang.types import NUMBER, STRING

            if expansion.mode == "list":
                count_index = Unknown(NUMBER)
            elif expansion.mode == "map":
                each = (Unknown(STRING), Unknown(DYNAMIC))
        elif expansion.mode == "list":
            count_index = key
        elif expansion.mode == "map":
            each = (key, expansion.each_values.get(key))
    data = ctx._module_data.get(mi)
    if data is None:  # two threads may both make one: equal, either is kept
        data = ctx._module_data[mi] = ModuleData(ctx, mi)
    return Scope(data, count_index=count_index, each=each, self_value=self_value, base_dir=ctx.working_dir)


def is_destroying(action: Action) -> bool:
    return action in (Action.DELETE, Action.DELETE_THEN_CREATE, Action.CREATE_THEN_DELETE)


def _open_brace(p: Any) -> SourceRange:
    """Where Terraform points a provisioner's failure: the opening brace of its block (the
    body's range starts just after it)."""
    b = getattr(p.body, "range", None)
    if b is None or b.start.column < 2:
        return p.range
    return SourceRange(b.filename, Pos(b.start.line, b.start.column - 1, b.start.byte - 1), b.start)
