"""Provider plugins: executables that speak Terraform's plugin protocol (tfplugin5 / tfplugin6).

protocol.py  the protocol's messages, from a compact table of our own
wire.py      values on the wire (msgpack DynamicValues, attribute paths, diagnostics)
schema.py    a provider's schema as providers.interface objects
launcher.py  starting a provider (go-plugin handshake, TLS choice, no orphans) and stopping it
log.py       the provider's stderr, attributed to resources
client.py    gRPC calls with Terraform's error texts
adapter.py   PluginProvider: the provider interface over a plugin
cache.py     schemas cached between commands by the executable's hash
locate.py    which installed executable serves a source (from the installer)
cliconfig.py, hcl1.py, mirror.py, install.py, lockfile.py, versions.py, requirements.py,
provider_addr.py, schema_json.py: Terraform's CLI configuration, installation into
.terraform/providers, the lock file, version constraints, `providers schema -json`
"""
import os

# gRPC's core library logs connection events (a provider closing its end at shutdown) on our
# stderr unless told otherwise; it reads this once, when it is first loaded.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
# Its fork handlers run in every child we fork to start a provider (preexec_fn forces a real
# fork) and, while a channel to another provider is busy, now and then leave that child
# failing inside gRPC before it can exec: "epoll_wait error: Bad file descriptor" (grpc/grpc
# issue 43055). Our children exec at once and never use gRPC, so they need no fork support.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
