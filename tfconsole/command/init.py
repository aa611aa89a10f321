"""`init`, `providers`, `providers schema -json` and `version`: the commands about providers.

`init` follows Terraform 1.15's order and prints its lines: local modules, providers required by
the configuration (installed from the CLI configuration's local sources, see
providers/plugin/install.py), the backend, providers only the state still needs, then the lock
file. Providers tfconsole has built in are reported as built in and never locked; nothing is
downloaded.
"""
from __future__ import annotations

import json
import os
from typing import Any

from tfconsole.diags import Diagnostics
from tfconsole.providers.plugin import cliconfig, lockfile
from tfconsole.providers.plugin.install import Installer, data_dir, sources_for
from tfconsole.providers.plugin.lockfile import Locks
from tfconsole.providers.plugin.provider_addr import ProviderAddr
from tfconsole.providers.plugin.requirements import (
    ModuleRequirements,
    Requirements,
    merge,
    module_requirements,
    state_requirements,
)
from tfconsole.providers.plugin.versions import constraints_string

_CODES = {"[reset]": "\x1b[0m", "[bold]": "\x1b[1m", "[green]": "\x1b[32m", "[yellow]": "\x1b[33m"}

MESSAGES = {
    "modules": "[reset][bold]Initializing modules...",
    "backend": "\n[reset][bold]Initializing the backend...",
    "pending_config": "\n[reset][bold]Initializing provider plugins found in the configuration...",
    "pending_state": "\n[reset][bold]Initializing provider plugins found in the state...",
    "builtin": "- %s is built in to Terraform",
    "builtin_ours": "- %s is built in to tfconsole",
    "reusing_config": "- Reusing previous version of %s from the dependency lock file",
    "reusing_state": "- Reusing previous version of %s",
    "finding": '- Finding %s versions matching "%s"...',
    "finding_latest": "- Finding latest version of %s...",
    "already_installed": "- Using previously-installed %s v%s",
    "using_cache": "- Using %s v%s from the shared cache directory",
    "installing": "- Installing %s v%s...",
    "installed": "- Installed %s v%s (unauthenticated)",
    "lock_created": "\nTerraform has created a lock file [bold].terraform.lock.hcl[reset] to record the provider\n"
                    "selections it made above. Include this file in your version control repository\n"
                    "so that Terraform can guarantee to make the same selections by default when\n"
                    'you run "terraform init" in the future.',
    "lock_changed": "\nTerraform has made some changes to the provider dependency selections recorded\n"
                    "in the .terraform.lock.hcl file. Review those changes and commit them to your\n"
                    "version control system if they represent changes you intended to make.",
    "success": "\n[reset][bold][green]Terraform has been successfully initialized![reset][green]\n",
    "success_cli": "[reset][green]\nYou may now begin working with Terraform. Try running \"terraform plan\" to see\n"
                   "any changes that are required for your infrastructure. All Terraform commands\n"
                   "should now work.\n\n"
                   "If you ever set or change modules or backend configuration for Terraform,\n"
                   "rerun this command to reinitialize your working directory. If you forget, other\n"
                   "commands will detect it and remind you to do so if necessary.\n",
    "empty": "\n[reset][bold]Terraform initialized in an empty directory![reset]\n\n"
             "The directory has no Terraform configuration files. You may begin working\n"
             "with Terraform immediately by creating Terraform configuration files.\n",
}

CONFIG_ERROR = ("Terraform encountered problems during initialisation, including problems\n"
                "with the configuration, described below.\n\n"
                "The Terraform configuration must be valid before initialization so that\n"
                "Terraform can determine which modules and providers need to be installed.")

INCOMPLETE = ("Due to your customized provider installation methods, Terraform was forced to calculate lock file "
              "checksums locally for the following providers:\n  - {providers}\n\nThe current .terraform.lock.hcl "
              "file only includes checksums for {platform}, so Terraform running on another platform will fail to "
              "install these providers.\n\nTo calculate additional checksums for another platform, run:\n"
              "  terraform providers lock -platform=linux_amd64\n(where linux_amd64 is the platform to generate)")


def colorize(template: str, color: bool) -> str:
    """Terraform's colorstring: codes or nothing, and a reset after any coloured text."""
    text = template.strip()
    used = any(c in text for c in _CODES)
    for code, esc in _CODES.items():
        text = text.replace(code, esc if color else "")
    return text + ("\x1b[0m" if color and used else "")


class InitView:
    def __init__(self, cli: Any) -> None:
        self.cli = cli
        self.phase = "config"

    def out(self, code: str, *params: Any) -> None:
        self.cli.out(colorize(MESSAGES[code] % params if params else MESSAGES[code], self.cli.color))

    def blank(self) -> None:
        self.cli.out("")

    def item(self, text: str) -> None:
        """A line under a heading ("- m in m")."""
        self.cli.out(text)

    def say(self, code: str, *params: Any) -> None:
        """The installer's progress events."""
        if code == "pending":
            self.out(f"pending_{self.phase}")
        elif code == "builtin":
            addr, ours = params
            self.out("builtin_ours" if ours else "builtin", addr.for_display())
        elif code == "reusing":
            self.out(f"reusing_{self.phase}", params[0].for_display())
        else:
            self.out(code, params[0].for_display(), *(str(p) for p in params[1:]))


def cli_config(cli: Any) -> cliconfig.CLIConfig:
    """Load the CLI configuration, reporting problems as Terraform does before any command."""
    cfg, diags = cliconfig.load()
    if diags:
        from .views import format_diagnostic

        # Terraform shows these before it knows about colours: boxed, uncoloured
        cli.stderr.write("There are some problems with the CLI configuration:\n")
        for d in diags:
            box = format_diagnostic(d, {}, color=True) if d.detail else summary_only_error(d.summary, True)[:-1]
            cli.stderr.write(box + "\n\n")
        if diags.has_errors:
            cli.stderr.write("As a result of the above problems, Terraform may not behave as intended.\n\n\n")
        cli.stderr.flush()
    return cfg


def summary_only_error(summary: str, color: bool) -> str:
    """A diagnostic with only a summary, as Terraform prints one: the empty line under the summary
    stays (boxed with colours, plain with -no-color)."""
    lines = f"Error: {summary}".split("\n") + [""]
    if not color:
        return "\n" + "\n".join(lines) + "\n"
    return "╷\n" + "\n".join(f"│ {x}" if x else "│" for x in lines) + "\n╵\n"


def python_builtins() -> frozenset[ProviderAddr]:
    """Sources tfconsole serves in-process when no plugin is installed for them."""
    from tfconsole.providers.plugin.provider_addr import AddrError, parse_source
    from tfconsole.providers.registry import default_registry

    out = set()
    for source in default_registry().sources():
        try:
            addr = parse_source(source)
        except AddrError:
            continue
        if not addr.is_builtin:
            out.add(addr)
    return frozenset(out)


class LazyBuiltins:
    """python_builtins(), worked out at the first question: it loads the provider registry and
    scans the installed distributions' entry points, which an init of built-in providers only
    never needs."""

    def __init__(self) -> None:
        self._sources: frozenset[ProviderAddr] | None = None

    def __contains__(self, addr: object) -> bool:
        if self._sources is None:
            self._sources = python_builtins()
        return addr in self._sources


def _plugin_dirs(a: Any) -> list[str]:
    dirs = [d for d in a.all("plugin-dir") if d != "true"]
    if "true" in a.all("plugin-dir") and a.pos:  # "-plugin-dir DIR"
        dirs.append(a.pos.pop(0))
    return dirs


def _empty_dir(path: str) -> bool:
    try:
        names = os.listdir(path)
    except OSError:
        return False
    return not any(n.endswith((".tf", ".tf.json")) and not n.startswith(".") for n in names)


def _store_plugin_dirs(dirs: list[str]) -> None:
    """-plugin-dir is remembered in .terraform/plugin_path (an empty one forgets it), as Terraform does."""
    if not dirs:
        return
    path = os.path.join(data_dir(), "plugin_path")
    if dirs == [""]:
        if os.path.exists(path):
            os.unlink(path)
        return
    os.makedirs(data_dir(), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(dirs, indent=2))


# ---------------------------------------------------------------------------
# init


def run_init(cli: Any, a: Any) -> int:
    from tfconsole.config.loader import load_config

    if a.bool("json"):
        from .jsonops import start
        from .jsonui import init_view

        start(cli)
        view = init_view(cli, InitView)
    else:
        view = InitView(cli)
    cfg = cli_config(cli)
    plugin_dirs = _plugin_dirs(a)
    _store_plugin_dirs(plugin_dirs)
    if _empty_dir("."):
        view.out("empty")
        return 0
    root, diags = load_config(".")
    if root is not None:
        cli.files = {k: v for m in root.descendants() for k, v in m.files.items()}
    version_errors = [d for d in diags if d.summary in ("Unsupported Terraform Core version",
                                                        "Invalid required_version constraint")]
    if version_errors:
        cli.diags(Diagnostics(version_errors))
        return 1
    if root is not None and a.bool("backend", True) and a.bool("cloud", True):
        from tfconsole.backends import check_backend

        backend_errors = check_backend(root, init=True)
        if backend_errors.has_errors:
            cli.diags(backend_errors)
            return 1
    if a.bool("get", True) and root is not None:
        from .modules import install

        install(root, view.item, heading=lambda: view.out("modules"))
    if diags.has_errors or root is None:
        if cli.json_view is not None:
            cli.diags(Diagnostics().error(CONFIG_ERROR))
        else:
            cli.stderr.write(summary_only_error(CONFIG_ERROR, cli.color))
        cli.diags(diags)
        return 1
    previous, d = lockfile.load(lockfile.LOCK_FILE)
    warnings = Diagnostics(list(diags.warnings()))
    if d.has_errors:
        cli.diags(warnings.append(d))
        return 1
    mreqs, d = module_requirements(root)
    if d.has_errors:
        cli.diags(warnings.append(d))
        return 1
    inst = _installer(cli, view, cfg, plugin_dirs)
    ok, config_locks = _providers_from_config(cli, view, inst, cfg, mreqs.flatten(), previous, a, warnings)
    if not ok:
        return 1
    view.blank()
    if a.bool("backend", True):
        view.out("backend")
        from tfconsole.backends.migrate import init_backend

        message, d = init_backend(root, ".", a.value("backend-config", []) or [], reconfigure=a.bool("reconfigure"),
                                  migrate=a.bool("migrate-state"), force_copy=a.bool("force-copy"))
        if d.has_errors:
            cli.diags(warnings.append(d))
            return 1
        warnings.append(d)
        if message:
            cli.out(message)
    view.blank()
    ok, state_locks = _providers_from_state(cli, view, inst, cfg, root, mreqs.flatten(), config_locks, previous,
                                            warnings)
    if not ok:
        return 1
    view.blank()
    if not _save_locks(cli, view, previous, _merge_locks(config_locks, state_locks or Locks()), a, inst, warnings):
        return 1
    view.blank()
    cli.diags(warnings)
    view.out("success")
    if not os.environ.get("TF_IN_AUTOMATION"):
        view.out("success_cli")
    return 0


def _installer(cli: Any, view: InitView, cfg: cliconfig.CLIConfig, plugin_dirs: list[str]) -> Installer:
    if plugin_dirs:
        methods = [cliconfig.Method("filesystem_mirror", d) for d in plugin_dirs]
    else:
        methods = cliconfig.installation_methods(cfg)
    cache = cfg.plugin_cache_dir if cfg.plugin_cache_dir and os.path.isdir(cfg.plugin_cache_dir) else ""
    return Installer(".", sources_for(methods, cache), cliconfig.current_platform(), cache,
                     cfg.plugin_cache_may_break_lock_file, LazyBuiltins(), say=view.say)  # type: ignore[arg-type]


def _without_overrides(reqs: Requirements, cfg: cliconfig.CLIConfig) -> Requirements:
    return {a: c for a, c in reqs.items() if a not in cfg.dev_overrides}


def _legacy(reqs: Requirements) -> Diagnostics:
    diags = Diagnostics()
    for addr in sorted(reqs):
        if addr.is_legacy:
            diags.error("Invalid legacy provider address", "This configuration or its associated state refers to "
                        f'the unqualified provider "{addr.type}".\n\nYou must complete the Terraform 0.13 upgrade '
                        "process before upgrading to later versions.")
    return diags


def _providers_from_config(cli: Any, view: InitView, inst: Installer, cfg: cliconfig.CLIConfig, reqs: Requirements,
                           previous: Locks, a: Any, warnings: Diagnostics) -> tuple[bool, Locks]:
    warnings.append(cliconfig.dev_override_warning(cfg, at_init=True))
    reqs = _without_overrides(reqs, cfg)
    bad = _legacy(reqs)
    if bad.has_errors:
        cli.diags(warnings.append(bad))
        return False, previous
    upgrade = a.bool("upgrade")
    if upgrade and a.get("lockfile") == "readonly":
        cli.diags(Diagnostics().error("The -upgrade flag conflicts with -lockfile=readonly."))
        return False, previous
    view.phase = "config"
    res = inst.ensure(previous, reqs, upgrade=upgrade)
    warnings.append(Diagnostics(res.diags.warnings()))
    if res.diags.has_errors:
        cli.diags(warnings.append(res.diags.errors()))
        return False, res.locks
    return True, res.locks


def _providers_from_state(cli: Any, view: InitView, inst: Installer, cfg: cliconfig.CLIConfig, root: Any,
                          config_reqs: Requirements, config_locks: Locks, previous: Locks,
                          warnings: Diagnostics) -> tuple[bool, Locks | None]:
    warnings.append(cliconfig.dev_override_warning(cfg, at_init=True))
    state = _current_state(root)
    if state is None:
        return True, None
    reqs = {addr: config_reqs.get(addr, cs) for addr, cs in state_requirements(state).items()}
    bad = _legacy(reqs)
    if bad.has_errors:
        cli.diags(warnings.append(bad))
        return False, None
    view.phase = "state"
    res = inst.ensure(_merge_locks(config_locks, previous), _without_overrides(reqs, cfg))
    warnings.append(Diagnostics(res.diags.warnings()))
    if res.diags.has_errors:
        cli.diags(warnings.append(res.diags.errors()))
        return False, None
    return True, res.locks


def _current_state(root: Any) -> Any:
    """The state as the configured backend holds it, or None when there is none yet."""
    try:
        from tfconsole.backends import open_backend

        # the backend as commands open it (backends.backend_for), without building their Context
        backend, _ = open_backend(root, ".")
        mgr = backend.state_manager(lock=False, operation="OperationTypeInvalid")
    except Exception:  # noqa: BLE001 - a backend problem is reported by the commands that use it
        return None
    path = getattr(mgr, "path", None)  # an unavailable backend's stand-in has none
    if not getattr(mgr, "remote", False) and (path is None or not os.path.exists(path)):
        return None
    state, d = mgr.load()
    return None if d.has_errors else state


def _merge_locks(base: Locks, more: Locks) -> Locks:
    out = base.copy()
    for addr, lk in more.providers.items():
        if out.get(addr) is None:
            out.set(lockfile.ProviderLock.new(addr, lk.version, lk.constraints, list(lk.hashes)))
    return out


def _save_locks(cli: Any, view: InitView, previous: Locks, new: Locks, a: Any, inst: Installer,
                warnings: Diagnostics) -> bool:
    if new.same_selections(previous):
        return True
    if a.get("lockfile") == "readonly":
        if new.providers.keys() != previous.providers.keys():
            cli.diags(warnings.append(Diagnostics().error(
                "Provider dependency changes detected", "Changes to the required provider dependencies were "
                'detected, but the lock file is read-only. To use and record these requirements, run "terraform '
                'init" without the "-lockfile=readonly" flag.')))
            return False
        warnings.warning("Provider lock file not updated", "Changes to the provider selections were detected, but "
                         "not saved in the .terraform.lock.hcl file. To record these selections, run \"terraform "
                         "init\" without the \"-lockfile=readonly\" flag.")
        return True
    incomplete = sorted(set(inst.incomplete))
    if incomplete:
        warnings.warning("Incomplete lock file information for providers", INCOMPLETE.format(
            providers="\n  - ".join(incomplete), platform=cliconfig.current_platform()))
    view.out("lock_created" if previous.empty() else "lock_changed")
    d = lockfile.save(new, lockfile.LOCK_FILE)
    if d.has_errors:
        cli.diags(warnings.append(d))
        return False
    return True


# ---------------------------------------------------------------------------
# providers, providers schema -json, version


def run_providers(cli: Any, a: Any) -> int:
    from tfconsole.config.loader import load_config

    if a.pos and a.pos[0] == "schema":
        return run_providers_schema(cli, a)
    cli_config(cli)
    if _empty_dir("."):
        cli.diags(Diagnostics().error("No configuration files", f"The directory {os.path.abspath('.')} contains no "
                                      "Terraform configuration files."))
        return 1
    root, diags = load_config(".")
    if root is not None:
        cli.files = {k: v for m in root.descendants() for k, v in m.files.items()}
    if diags.has_errors or root is None:
        cli.diags(diags)
        return 1
    mreqs, d = module_requirements(root)
    diags.append(d)
    if diags.has_errors:
        cli.diags(diags)
        return 1
    cli.out("\nProviders required by configuration:")
    cli.out(render_tree(mreqs))
    state_reqs = state_requirements(_current_state(root))
    if state_reqs:
        cli.out("Providers required by state:\n")
        for addr in sorted(state_reqs):
            cli.out(f"    provider[{addr}]\n")
    cli.diags(diags)
    return 0


def render_tree(mreqs: ModuleRequirements) -> str:
    """The requirement tree as Terraform's treeprint draws it (root ".")."""
    lines = ["."]

    def node_lines(node: ModuleRequirements) -> list[tuple[str, ModuleRequirements | None]]:
        items: list[tuple[str, ModuleRequirements | None]] = []
        for addr in sorted(node.requirements, key=str):
            cs = constraints_string(node.requirements[addr])
            items.append((f"provider[{addr}]" + (f" {cs}" if cs else ""), None))
        items += [(f"module.{name}", child) for name, child in node.children.items()]
        return items

    def walk(node: ModuleRequirements, prefix: str) -> None:
        items = node_lines(node)
        for i, (text, child) in enumerate(items):
            last = i == len(items) - 1
            lines.append(prefix + ("└── " if last else "├── ") + text)
            if child is not None:
                walk(child, prefix + ("    " if last else "│\u00a0\u00a0 "))  # treeprint pads with NBSPs

    walk(mreqs, "")
    return "\n".join(lines) + "\n"


def run_providers_schema(cli: Any, a: Any) -> int:
    from tfconsole.config.loader import load_config
    from tfconsole.providers.preflight import schema_of
    from tfconsole.providers.plugin.schema_json import providers_json

    if not a.bool("json"):
        cli.diags(Diagnostics().error("The -json flag is required", "The `terraform providers schema` command "
                                      "requires the `-json` flag."))
        return 1
    root, diags = load_config(".")
    if diags.has_errors or root is None:
        cli.diags(diags)
        return 1
    mreqs, d = module_requirements(root)
    if d.has_errors:
        cli.diags(d)
        return 1
    reqs = mreqs.flatten()
    merge(reqs, state_requirements(_current_state(root)))
    schemas, missing = {}, []
    for addr in sorted(reqs, key=str):
        got = schema_of(".", str(addr))
        if got is None:
            missing.append(addr)
        else:
            schemas[str(addr)] = got
    if missing:
        cli.diags(Diagnostics().error("Failed to load plugin schemas", "Error while loading schemas for plugin "
                                      "components: " + "; ".join(f"provider {m} is not available (run tfconsole "
                                                                 "init)" for m in missing) + "."))
        return 1
    cli.out(providers_json(schemas))
    return 0


def run_version(cli: Any, a: Any) -> int:
    from tfconsole import TERRAFORM_VERSION, __version__

    locks, d = lockfile.load(lockfile.LOCK_FILE)
    selections = {} if d.has_errors else {str(a_): str(lk.version) for a_, lk in sorted(locks.providers.items())}
    platform = cliconfig.current_platform()
    if a.bool("json"):
        cli.out(json.dumps({"terraform_version": TERRAFORM_VERSION, "platform": platform,
                            "provider_selections": dict(sorted(selections.items())), "terraform_outdated": False},
                           indent=2))
        return 0
    cli.out(f"Terraform v{TERRAFORM_VERSION}")
    cli.out(f"on {platform}")
    lines = [f"+ provider {p} (unversioned)" if v == "0.0.0" else f"+ provider {p} v{v}"
             for p, v in selections.items()]
    for line in sorted(lines):
        cli.out(line)
    cli.out(f"(tfconsole v{__version__})")
    return 0


__all__ = ["render_tree", "run_init", "run_providers", "run_providers_schema", "run_version"]
