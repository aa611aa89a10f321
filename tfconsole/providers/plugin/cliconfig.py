"""Terraform's CLI configuration, as far as provider installation needs it.

Where it comes from (Terraform's order): `TF_CLI_CONFIG_FILE` (or the older `TERRAFORM_CONFIG`),
else `~/.terraformrc`; then, only when no file was named by the environment, every `*.tfrc` and
`*.tfrc.json` in `~/.terraform.d`; `TF_PLUGIN_CACHE_DIR` overrides `plugin_cache_dir`. What it
yields:

* `provider_installation` — its methods in order (`filesystem_mirror`, `network_mirror`, `direct`,
  each with `include`/`exclude` patterns) and `dev_overrides` (which must come first); without the
  block, the implied local directories Terraform searches on this system;
* `plugin_cache_dir` and `plugin_cache_may_break_dependency_lock_file`.

Problems are diagnostics with Terraform's texts; the file is read as data, never evaluated
(only `$VAR` references are expanded, where Terraform expands them).
"""
from __future__ import annotations

import os
import re
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost

from tfconsole.diags import Diagnostics

from . import hcl1
from .provider_addr import DEFAULT_HOST, AddrError, ProviderAddr, parse_part, parse_source

WILDCARD = "*"


def current_platform() -> str:
    """GOOS_GOARCH of this machine, as provider packages are named."""
    try:  # what platform.system() and machine() read on POSIX, without importing `platform` (~1.5 ms)
        un = os.uname()
        osname, machine = un.sysname.lower() or "linux", un.machine.lower()
    except AttributeError:  # no uname (Windows)
        import platform

        osname, machine = platform.system().lower() or "linux", platform.machine().lower()
    arch = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64", "i386": "386",
            "i686": "386", "armv7l": "arm", "armv6l": "arm", "ppc64le": "ppc64le", "s390x": "s390x"}.get(machine,
                                                                                                      machine)
    return f"{osname}_{arch}"


# ---------------------------------------------------------------------------
# matching patterns (include / exclude)


@dataclass(frozen=True)
class Pattern:
    hostname: str
    namespace: str
    type: str

    def matches(self, addr: ProviderAddr) -> bool:
        return (self.hostname in (WILDCARD, addr.hostname) and self.namespace in (WILDCARD, addr.namespace)
                and self.type in (WILDCARD, addr.type))


def parse_patterns(strs: list[str]) -> list[Pattern]:
    """`include`/`exclude` entries: [HOST/]NAMESPACE/TYPE with `*` wildcards; ValueError in
    Terraform's words."""
    out = []
    for s in strs:
        parts = s.split("/")
        if not 2 <= len(parts) <= 3:
            raise ValueError(f'invalid provider matching pattern "{s}": must have either two or three '
                             "slash-separated segments")
        host = DEFAULT_HOST
        if len(parts) == 3:
            host = parts[0].lower() if parts[0] != WILDCARD else WILDCARD
            if host != WILDCARD and not re.match(r"^[a-z0-9.\-:]+$", host):
                raise ValueError(f'invalid hostname in provider matching pattern "{s}"')
            parts = parts[1:]
        ns, ty = parts
        try:
            ty = ty if ty == WILDCARD else parse_part(ty)
        except ValueError:
            raise ValueError(f'invalid provider type "{ty}" in provider matching pattern "{s}": must either be the '
                             "wildcard * or a provider type name") from None
        try:
            ns = ns if ns == WILDCARD else parse_part(ns)
        except ValueError:
            raise ValueError(f'invalid registry namespace "{ty}" in provider matching pattern "{s}": must either '
                             "be the wildcard * or a literal namespace") from None
        if host == WILDCARD and not (ns == WILDCARD and ty == WILDCARD):
            raise ValueError(f'invalid provider matching pattern "{s}": hostname can be a wildcard only if both '
                             "namespace and provider type are also wildcards")
        if ns == WILDCARD and ty != WILDCARD:
            raise ValueError(f'invalid provider matching pattern "{s}": namespace can be a wildcard only if the '
                             "provider type is also a wildcard")
        out.append(Pattern(host, ns, ty))
    return out


# ---------------------------------------------------------------------------
# the configuration


@dataclass
class Method:
    kind: str  # "filesystem_mirror" | "network_mirror" | "direct"
    location: str = ""  # the mirror's path or URL
    include: list[Pattern] = field(default_factory=list)
    exclude: list[Pattern] = field(default_factory=list)
    implied: bool = False  # one of the directories searched when there is no provider_installation block

    def can_handle(self, addr: ProviderAddr) -> bool:
        if any(p.matches(addr) for p in self.exclude):
            return False
        return not self.include or any(p.matches(addr) for p in self.include)

    def for_display(self, addr: ProviderAddr) -> str:
        if self.kind == "direct":
            return f"registry {addr.hostname}"
        return self.location


@dataclass
class ProviderInstallation:
    methods: list[Method] = field(default_factory=list)
    dev_overrides: dict[ProviderAddr, str] = field(default_factory=dict)


@dataclass
class CLIConfig:
    plugin_cache_dir: str = ""
    plugin_cache_may_break_lock_file: bool = False
    installation: list[ProviderInstallation] = field(default_factory=list)

    @property
    def dev_overrides(self) -> dict[ProviderAddr, str]:
        return self.installation[0].dev_overrides if self.installation else {}

    def merge(self, other: CLIConfig) -> CLIConfig:
        """Terraform's Merge: the receiver's cache directory wins, installation blocks accumulate."""
        return CLIConfig(self.plugin_cache_dir or other.plugin_cache_dir,
                         self.plugin_cache_may_break_lock_file or other.plugin_cache_may_break_lock_file,
                         self.installation + other.installation)


def _home() -> str:
    return os.environ.get("HOME") or os.path.expanduser("~")


def config_dir() -> str:
    return os.path.join(_home(), ".terraform.d")


def _override() -> str:
    return os.environ.get("TF_CLI_CONFIG_FILE") or os.environ.get("TERRAFORM_CONFIG") or ""


def load() -> tuple[CLIConfig, Diagnostics]:
    diags = Diagnostics()
    cfg = CLIConfig()
    path = _override()
    must_exist = bool(path)
    if not path:
        path = os.path.join(_home(), ".terraformrc")
    if os.path.exists(path):
        main, d = load_file(path)
        diags.append(d)
        cfg = cfg.merge(main)
    elif must_exist:
        diags.warning("Unable to open CLI configuration file", f'The CLI configuration file at "{path}" does not '
                      "exist.")
    if not must_exist and os.path.isdir(config_dir()):
        try:
            names = sorted(os.listdir(config_dir()))
        except OSError as exc:
            names = []
            diags.error(f"Error reading {config_dir()}: {exc}")
        for name in names:
            if name.endswith((".tfrc", ".tfrc.json")):
                more, d = load_file(os.path.join(config_dir(), name))
                diags.append(d)
                cfg = cfg.merge(more)
    env = CLIConfig(os.environ.get("TF_PLUGIN_CACHE_DIR", ""),
                    os.environ.get("TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE", "") not in ("", "0"))
    cfg = env.merge(cfg)
    diags.append(_validate(cfg))
    return cfg, diags


def _validate(cfg: CLIConfig) -> Diagnostics:
    diags = Diagnostics()
    if len(cfg.installation) > 1:
        diags.error("No more than one provider_installation block may be specified")
    if cfg.plugin_cache_dir:
        try:
            os.stat(cfg.plugin_cache_dir)
        except OSError as exc:
            diags.error(f"The specified plugin cache dir {cfg.plugin_cache_dir} cannot be opened: stat "
                        f"{cfg.plugin_cache_dir}: {exc.strerror.lower() if exc.strerror else exc}")
    return diags


def load_file(path: str) -> tuple[CLIConfig, Diagnostics]:
    diags = Diagnostics()
    cfg = CLIConfig()
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        diags.error(f"Error reading {path}: {exc}")
        return cfg, diags
    try:
        items = hcl1.parse_json(text) if path.endswith(".json") else hcl1.parse(text)
    except ValueError as exc:
        diags.error(f"Error parsing {path}: {exc}")
        return cfg, diags
    for item in items:
        key = item.keys[0]
        if key == "plugin_cache_dir" and item.assign:
            if not isinstance(item.value, str):
                diags.error(f"Error parsing {path}: {item.pos()}: plugin_cache_dir: expected a string")
                continue
            cfg.plugin_cache_dir = _expand_env(item.value)[0]
        elif key == "plugin_cache_may_break_dependency_lock_file" and item.assign:
            cfg.plugin_cache_may_break_lock_file = item.value is True
    inst, d = _decode_installation(items)
    diags.append(d)
    cfg.installation = inst
    return cfg, diags


_ENV_REF = re.compile(r"\$(?:\{([^}]*)\}|([A-Za-z0-9_]+)|(.))")


def _expand_env(s: str) -> tuple[str, list[str]]:
    """Go's os.Expand with the environment: $NAME and ${NAME}; returns the unset names too."""
    unset: list[str] = []

    def sub(m: re.Match) -> str:
        name = m.group(1) if m.group(1) is not None else m.group(2)
        if name is None:
            return m.group(0)
        if name not in os.environ:
            if name not in unset:
                unset.append(name)
            return ""
        return os.environ[name]

    return _ENV_REF.sub(sub, s), unset


def _strings(value: object) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return list(value)
    return None


def _decode_installation(items: list[hcl1.Item]) -> tuple[list[ProviderInstallation], Diagnostics]:
    diags = Diagnostics()
    out = []
    for block in items:
        if block.keys[0] != "provider_installation":
            continue
        where = block.pos()
        if (block.assign and not block.json) or not block.is_object:
            diags.error("Invalid provider_installation block", f"The provider_installation block at {where} must "
                        "not be introduced with an equals sign.")
            continue
        if len(block.keys) > 1 and not block.json:
            diags.error("Invalid provider_installation block", f"The provider_installation block at {where} must "
                        "not have any labels.")
        pi = ProviderInstallation()
        for m in block.value:
            _decode_method(pi, block, m, diags)
        out.append(pi)
    return out, diags


def _decode_method(pi: ProviderInstallation, block: hcl1.Item, m: hcl1.Item, diags: Diagnostics) -> None:
    where = block.pos()
    bad = "Invalid provider_installation method block"
    if (m.assign and not m.json) or not m.is_object:
        diags.error(bad, f"The items inside the provider_installation block at {where} must all be blocks.")
        return
    if len(m.keys) > 1 and not m.json:
        diags.error(bad, f"The blocks inside the provider_installation block at {where} may not have any labels.")
    kind = m.keys[0]
    if kind == "dev_overrides":
        _decode_dev_overrides(pi, block, m, diags)
        return
    if kind not in ("direct", "filesystem_mirror", "network_mirror"):
        diags.error(bad, f'Unknown provider installation method "{kind}" at {m.pos()}.')
        return
    fields: dict[str, object] = {}
    for it in m.value:
        fields[it.keys[0]] = it.value
    include, exclude = _strings(fields.get("include", [])), _strings(fields.get("exclude", []))
    if include is None or exclude is None:
        diags.error(bad, f"Invalid {kind} block at {where}: include and exclude must be lists of strings.")
        return
    location = ""
    need = {"filesystem_mirror": "path", "network_mirror": "url"}.get(kind)
    if need:
        location = fields.get(need, "")  # type: ignore[assignment]
        if not isinstance(location, str) or not location:
            diags.error(bad, f'Invalid {kind} block at {where}: "{need}" argument is required.')
            return
    patterns = []
    for which, strs in (("inclusion", include), ("exclusion", exclude)):
        try:
            patterns.append(parse_patterns(strs))
        except ValueError as e:
            diags.error(f"Invalid provider source {which} patterns", f"CLI config specifies invalid provider "
                        f"{which} patterns: {e}.")
            return
    inc, exc = patterns
    pi.methods.append(Method(kind, location, inc, exc))


def _decode_dev_overrides(pi: ProviderInstallation, block: hcl1.Item, m: hcl1.Item, diags: Diagnostics) -> None:
    bad = "Invalid provider_installation method block"
    if pi.methods:
        diags.error(bad, f"The dev_overrides block at {m.pos()} must appear before all other installation methods, "
                    "because development overrides always have the highest priority.")
        return
    for it in m.value:
        raw_addr = it.keys[0]
        if not isinstance(it.value, str):
            diags.error(bad, f"Invalid dev_overrides block at {block.pos()}: each override must be a string path.")
            continue
        try:
            addr = parse_source(raw_addr)
        except AddrError as exc:
            diags.error("Invalid provider installation dev overrides", f'The entry "{raw_addr}" in {block.pos()} is '
                        f"not a valid provider source string.\n\n{exc.summary}: {exc.detail}")
            continue
        path, unset = _expand_env(it.value)
        for name in unset:
            diags.error("Interpolated environment variable not set", f"The environment variable {name} is not set "
                        "or empty and can result in undesired behavior")
        pi.dev_overrides[addr] = os.path.normpath(path) if path else "."


# ---------------------------------------------------------------------------
# what installs providers


def implied_methods(working_dir: str = ".") -> list[Method]:
    """The directories Terraform searches without a provider_installation block: the working
    directory's terraform.d/plugins, ~/.terraform.d/plugins, then the XDG data directories'
    terraform/plugins ($XDG_DATA_HOME or ~/.local/share, then $XDG_DATA_DIRS or
    /usr/local/share:/usr/share). Only existing directories count; `direct` comes last."""
    dirs = [os.path.join(working_dir, "terraform.d", "plugins"), os.path.join(config_dir(), "plugins")]
    data_home = os.environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(data_home):
        data_home = os.path.join(_home(), ".local", "share")
    data_dirs = [d for d in os.environ.get("XDG_DATA_DIRS", "").split(os.pathsep) if os.path.isabs(d)]
    if not os.environ.get("XDG_DATA_DIRS"):
        data_dirs = ["/usr/local/share/", "/usr/share/"]
    dirs += [os.path.join(d, "terraform", "plugins") for d in [data_home] + data_dirs]
    out = [Method("filesystem_mirror", d, implied=True) for d in dirs if os.path.isdir(d)]
    out.append(Method("direct", implied=True))
    return out


def installation_methods(cfg: CLIConfig, working_dir: str = ".") -> list[Method]:
    if cfg.installation:
        return cfg.installation[0].methods
    return implied_methods(working_dir)


def dev_override_warning(cfg: CLIConfig, at_init: bool) -> Diagnostics:
    """Terraform's warning while development overrides are in effect (init's or a run's wording)."""
    diags = Diagnostics()
    if not cfg.dev_overrides:
        return diags
    lines = "".join(f" - {a.for_display()} in {p}\n" for a, p in cfg.dev_overrides.items())
    tail = ("These providers are not installed as part of init since they were overwritten. If this is "
            "unintentional please re-run without the development overrides set." if at_init else
            "The behavior may therefore not match any released version of the provider and applying changes may "
            "cause the state to become incompatible with published releases.")
    diags.warning("Provider development overrides are in effect", "The following provider development overrides "
                  f"are set in the CLI configuration:\n{lines}\n{tail}")
    return diags
