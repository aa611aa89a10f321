"""Maps provider source addresses to provider implementations, and holds one command's providers.

Built-ins register in providers/builtin/__init__.py (BUILTINS); third-party Python providers
register through the `tfconsole.providers` entry-point group, each entry point loading a
Provider subclass whose `source` names its address. Provider plugins (executables speaking
Terraform's plugin protocol) are found by providers/plugin/locate.py (installed by `init`,
dev_overrides, plugin dirs).

Which one serves a source is decided in one place, `resolve`: an installed plugin when there is
one, else the built-in, else nothing (item 4 of issue 8: built-ins serve their sources whenever
no plugin is installed for them).

ProviderSession is the set of providers one command uses: one plugin process per provider
configuration, shared schemas, StopProvider to all on cancel, shutdown at the end.
"""
from __future__ import annotations

import atexit
import json
import os
import threading
import weakref
from collections.abc import Callable
from typing import Any

from tfconsole.diags import Diagnostics

from .interface import Provider, Schema

DEFAULT_REGISTRY = "registry.terraform.io"


def normalize_source(source: str) -> str:
    """hashicorp/random -> registry.terraform.io/hashicorp/random; terraform -> builtin."""
    s = source.strip().lower()
    if s in ("terraform", "terraform.io/builtin/terraform", "builtin/terraform"):
        return "terraform.io/builtin/terraform"
    parts = s.split("/")
    if len(parts) == 1:
        return f"{DEFAULT_REGISTRY}/hashicorp/{parts[0]}"
    if len(parts) == 2:
        return f"{DEFAULT_REGISTRY}/{parts[0]}/{parts[1]}"
    return s


class Registry:
    def __init__(self) -> None:
        self._factories: dict[str, Callable[[], Provider]] = {}
        self._loaded_entry_points = False

    def register(self, source: str, factory: Callable[[], Provider]) -> None:
        self._factories[normalize_source(source)] = factory

    def _load_entry_points(self) -> None:
        if self._loaded_entry_points:
            return
        self._loaded_entry_points = True
        from importlib.metadata import entry_points

        for ep in entry_points(group="tfconsole.providers"):
            try:
                cls = ep.load()
            except Exception:  # noqa: BLE001 - a broken plugin is reported when it is needed
                continue
            source = getattr(cls, "source", "") or ep.name
            self._factories.setdefault(normalize_source(source), cls)

    def has(self, source: str) -> bool:
        return self._factory(source) is not None

    def create(self, source: str) -> Provider:
        factory = self._factory(source)
        if factory is None:
            raise KeyError(source)
        return factory()

    def _factory(self, source: str) -> Callable[[], Provider] | None:
        # a registered source wins over an entry point of the same name (setdefault above), so
        # the installed distributions are scanned (15 ms) only for a source not registered
        key = normalize_source(source)
        if key not in self._factories:
            self._load_entry_points()
        return self._factories.get(key)

    def sources(self) -> list[str]:
        self._load_entry_points()
        return sorted(self._factories)


_REGISTRY: Registry | None = None


def default_registry() -> Registry:
    global _REGISTRY
    if _REGISTRY is None:
        reg = Registry()
        from .builtin import BUILTINS

        for source, factory in BUILTINS.items():
            reg.register(source, factory)
        _REGISTRY = reg
    return _REGISTRY


# ---------------------------------------------------------------------------
# plugins or built-ins: the one rule

# Tests only: a JSON object {source: executable}, consulted before the installed plugins.
TEST_EXECUTABLES_ENV = "TFCONSOLE_TEST_PROVIDER_EXECUTABLES"
BUILTIN_ONLY = frozenset({"terraform.io/builtin/terraform"})


def plugin_executable(working_dir: str, source: str) -> str | None:
    """The installed provider executable for a source, or None when no plugin is installed."""
    source = normalize_source(source)
    if source in BUILTIN_ONLY:
        return None
    raw = os.environ.get(TEST_EXECUTABLES_ENV)
    if raw:
        try:
            mapping = {normalize_source(k): v for k, v in json.loads(raw).items()}
        except (ValueError, AttributeError):
            mapping = {}
        if source in mapping:
            return str(mapping[source])
    try:
        from .plugin.locate import provider_executable
    except ImportError:
        return None
    return provider_executable(working_dir, source)


def resolve(source: str, working_dir: str = ".", registry: Registry | None = None) -> tuple[str, str | None]:
    """("plugin", executable) | ("builtin", None) | ("missing", None) for a source address."""
    exe = plugin_executable(working_dir, source)
    if exe:
        return "plugin", exe
    if (registry or default_registry()).has(source):
        return "builtin", None
    return "missing", None


# ---------------------------------------------------------------------------
# the providers of one command

_SESSIONS: weakref.WeakSet[ProviderSession] = weakref.WeakSet()


class ProviderSession:
    """The providers one command (a CLI command, or a console plan and its apply) uses.

    Plugins: one process per provider configuration address, started on first use; a process
    started only to read schemas is adopted by the first configuration of its source. Built-ins
    are created fresh for each use, as before. Thread-safe."""

    def __init__(self, working_dir: str = ".", hook: Any = None, registry: Registry | None = None):
        self.working_dir = working_dir
        self.hook = hook
        self.registry = registry or default_registry()
        self.launches = 0
        self.on_crash: Callable[[Any], None] | None = None
        self._lock = threading.RLock()
        self._resolved: dict[str, tuple[str, str | None]] = {}
        self._plugins: dict[str, Any] = {}  # provider configuration address -> PluginProvider
        self._unclaimed: dict[str, Any] = {}  # source -> PluginProvider used only for schemas so far
        self._schema_providers: dict[str, Provider] = {}
        self._closed = False
        _SESSIONS.add(self)

    def resolve(self, source: str) -> tuple[str, str | None]:
        source = normalize_source(source)
        with self._lock:
            got = self._resolved.get(source)
            if got is None:
                got = self._resolved[source] = resolve(source, self.working_dir, self.registry)
            return got

    def has(self, source: str) -> bool:
        return self.resolve(source)[0] != "missing"

    def is_plugin(self, source: str) -> bool:
        return self.resolve(source)[0] == "plugin"

    def _new_plugin(self, source: str, exe: str, name: str) -> Any:
        from .plugin.adapter import PluginProvider

        p = PluginProvider(normalize_source(source), exe, name=name, cwd=self.working_dir,
                           on_launch=self._launched, on_crash=self._crashed)
        hook = self.hook
        if hook is not None:
            p.log.add_listener(lambda prov, line: hook.provider_log(prov, line.resource, line.level, line.message))
        return p

    def _launched(self, p: Any) -> None:
        with self._lock:
            self.launches += 1
        if self.hook is not None:
            self.hook.provider_status(p.name, "started")

    def _crashed(self, p: Any) -> None:
        if self.hook is not None:
            self.hook.provider_status(p.name, "crashed")
        if self.on_crash is not None:
            self.on_crash(p)

    def for_schemas(self, source: str) -> Provider | None:
        """A provider to ask for schemas (a plugin's come from the cache when they can)."""
        source = normalize_source(source)
        kind, exe = self.resolve(source)
        with self._lock:
            if kind == "plugin":
                for p in self._plugins.values():
                    if p.source == source:
                        return p
                p = self._unclaimed.get(source)
                if p is None:
                    p = self._unclaimed[source] = self._new_plugin(source, exe or "", f'provider["{source}"]')
                return p
            if kind == "builtin":
                p = self._schema_providers.get(source)
                if p is None:
                    p = self._schema_providers[source] = self.registry.create(source)
                return p
        return None

    def schemas(self, source: str) -> tuple[dict[str, Schema], dict[str, Schema]] | None:
        p = self.for_schemas(source)
        if p is None:
            return None
        return p.resource_schemas(), p.data_source_schemas()

    def instance(self, provider_addr: str, source: str) -> Provider | None:
        """The provider serving one provider configuration for this command."""
        source = normalize_source(source)
        kind, exe = self.resolve(source)
        if kind == "builtin":
            return self.registry.create(source)
        if kind != "plugin":
            return None
        with self._lock:
            p = self._plugins.get(provider_addr)
            if p is None:
                p = self._unclaimed.pop(source, None)
                if p is not None:
                    p.name = p.log.provider = provider_addr
                else:
                    p = self._new_plugin(source, exe or "", provider_addr)
                self._plugins[provider_addr] = p
            return p

    def configure(self, provider_addr: str, source: str, provider: Provider, config: dict[str, Any],
                  operation: str) -> tuple[Provider, Diagnostics]:
        """Configure the provider of one configuration for a walk. A plugin process keeps its
        configuration for the whole command: configured again with the same, wholly known,
        values it is reused as is; with other values (known only now, at apply) a fresh process
        takes its place, as a provider is configured once per process."""
        if not provider.wire_protocol:
            return provider, provider.configure(config)
        from tfconsole.lang.values import equal, is_wholly_known

        provider.walk_operation = operation  # type: ignore[attr-defined]
        before = getattr(provider, "configured_with", None)
        if before is not None:
            if is_wholly_known(config) and equal(before, config) and getattr(provider, "status", "") == "configured":
                return provider, Diagnostics()
            with self._lock:
                if self._plugins.get(provider_addr) is provider:
                    del self._plugins[provider_addr]
            provider.close()
            fresh = self.instance(provider_addr, source)
            assert fresh is not None
            fresh.walk_operation = operation  # type: ignore[attr-defined]
            provider = fresh
        diags = provider.configure(config)
        provider.configured_with = config  # type: ignore[attr-defined]
        if self.hook is not None:
            self.hook.provider_status(provider_addr, "failed" if diags.has_errors else "configured")
        return provider, diags

    def has_plugins(self) -> bool:
        """Whether a plugin process may be running. Without the lock (two dict reads are atomic):
        a finalizer asks, which may run in a thread that holds it."""
        return bool(self._plugins) or bool(self._unclaimed)

    def plugins(self) -> list[Any]:
        with self._lock:
            return list(self._plugins.values()) + list(self._unclaimed.values())

    def stop_all(self) -> Diagnostics:
        """StopProvider to every running plugin, all at once (Ctrl-C, SIGTERM, the console's x)."""
        diags = Diagnostics()
        threads = []
        for p in self.plugins():
            t = threading.Thread(target=lambda p=p: diags.extend(p.stop()), name="provider-stop", daemon=True)
            t.start()
            threads.append(t)
        for t in threads:
            t.join(timeout=15)
        return diags

    def wait_idle(self, timeout: float | None = None) -> bool:
        return all(p.wait_idle(timeout) for p in self.plugins())

    def close(self) -> None:
        """Shut every plugin process down (Shutdown, a short wait, then kill)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            plugins = self.plugins()
            self._plugins.clear()
            self._unclaimed.clear()
        threads = [threading.Thread(target=p.close, name="provider-close", daemon=True) for p in plugins]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=10)


@atexit.register
def _close_all_sessions() -> None:
    for s in list(_SESSIONS):
        s.close()
