"""Starting a provider executable the way go-plugin does, and stopping it.

Start: the environment Terraform gives a plugin (magic cookie, PLUGIN_PROTOCOL_VERSIONS=5,6,
the port range, and a private 0700 directory for the unix socket), then the handshake line on
stdout: CORE-VERSION|APP-VERSION|NETWORK|ADDRESS|PROTOCOL|SERVER-CERT[|MUX]. Then a gRPC
channel to that address.

TLS: we offer no client certificate, so a Go provider serves plaintext on a socket in our
private directory (what Terraform does under TF_DISABLE_PLUGIN_TLS); grpcio cannot negotiate
the P-521 / TLS 1.3 that go-plugin's automatic mutual TLS uses with a current Go. A provider
that serves TLS anyway (the PyPI `tf` framework always does, with its own certificate) sends
its certificate in the handshake, and we trust exactly that certificate.

Lifetime: every provider is started by one dedicated launcher thread that lives as long as the
process, with PR_SET_PDEATHSIG=SIGKILL set in the child, so the kernel kills the provider when
tfconsole dies even by SIGKILL (Linux sends that signal when the *thread* that forked the child
exits, hence the long-lived thread). Providers run in their own session so a terminal's Ctrl-C
reaches tfconsole only, which then stops them through the protocol. Stop: the go-plugin
controller's Shutdown call, a short wait, then SIGKILL.
"""
from __future__ import annotations

import base64
import concurrent.futures
import contextlib
import ctypes
import os
import queue
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from .log import ProviderLog

MAGIC_COOKIE_KEY = "TF_PLUGIN_MAGIC_COOKIE"
MAGIC_COOKIE_VALUE = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2"
START_TIMEOUT = 60.0  # Terraform waits a minute for a plugin's handshake
SHUTDOWN_GRACE = 2.0
MAX_MESSAGE = 256 << 20  # Terraform accepts responses up to 256 MiB (large schemas)
_PR_SET_PDEATHSIG = 1


class LaunchError(Exception):
    """The provider could not be started or did not complete the handshake."""


@dataclass(frozen=True)
class Handshake:
    core_version: int
    protocol_version: int
    network: str  # "unix" | "tcp"
    address: str
    protocol: str  # "grpc"
    server_cert: bytes | None  # DER
    mux: bool = False

    @property
    def target(self) -> str:
        return f"unix:{self.address}" if self.network == "unix" else self.address


def parse_handshake(line: str) -> Handshake:
    parts = line.strip().split("|")
    if len(parts) < 4:
        raise LaunchError(f"unrecognized remote plugin message: {line.strip()[:200]!r}")
    try:
        core, app = int(parts[0]), int(parts[1])
    except ValueError:
        raise LaunchError(f"unrecognized remote plugin message: {line.strip()[:200]!r}") from None
    if core != 1:
        raise LaunchError(f"incompatible core API version with plugin: plugin version {core}, ours 1")
    protocol = parts[4] if len(parts) > 4 and parts[4] else "netrpc"
    cert = None
    if len(parts) > 5 and parts[5]:
        text = parts[5]
        cert = base64.b64decode(text + "=" * (-len(text) % 4))
    mux = len(parts) > 6 and parts[6].strip().lower() == "true"
    return Handshake(core, app, parts[2], parts[3], protocol, cert, mux)


# ---------------------------------------------------------------------------
# the launcher thread


def _load_prctl() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    fn.restype = ctypes.c_int
    return fn


_PRCTL = _load_prctl()  # resolved before any fork: the child only calls it


class _Launcher:
    """One long-lived thread that forks every provider (see the module docstring for why)."""

    def __init__(self) -> None:
        self._queue: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def spawn(self, argv: list[str], env: dict[str, str], cwd: str | None) -> subprocess.Popen:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="tfconsole-provider-launcher", daemon=True)
                self._thread.start()
        fut: concurrent.futures.Future = concurrent.futures.Future()
        self._queue.put((argv, env, cwd, fut))
        return fut.result()

    def _run(self) -> None:
        while True:
            argv, env, cwd, fut = self._queue.get()
            try:
                fut.set_result(_popen(argv, env, cwd))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                fut.set_exception(exc)


def _popen(argv: list[str], env: dict[str, str], cwd: str | None) -> subprocess.Popen:
    parent = os.getpid()
    prctl = _PRCTL
    sigkill = int(signal.SIGKILL)

    def in_child() -> None:
        # only async-signal-safe work here: one libc call resolved before the fork
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, sigkill, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the signal was armed
            os._exit(1)

    # preexec_fn with threads: the child runs only a libc call resolved before the fork (no
    # allocation, no locks) and exits if its parent is already gone
    return subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=in_child,  # noqa: PLW1509
                            start_new_session=True, close_fds=True)


LAUNCHER = _Launcher()


# ---------------------------------------------------------------------------
# a running provider


def plugin_environment(socket_dir: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PLUGIN_CLIENT_CERT", None)  # no client certificate: see the TLS note above
    env[MAGIC_COOKIE_KEY] = MAGIC_COOKIE_VALUE
    env["PLUGIN_PROTOCOL_VERSIONS"] = "5,6"
    env["PLUGIN_MIN_PORT"] = "10000"
    env["PLUGIN_MAX_PORT"] = "25000"
    env["PLUGIN_UNIX_SOCKET_DIR"] = socket_dir
    # go-plugin before 1.5 makes its socket in the temporary directory: keep that one private too
    env["TMPDIR"] = socket_dir
    return env


class PluginProcess:
    """A started provider: its process, handshake, gRPC channel and log."""

    def __init__(self, executable: str, log: ProviderLog, *, cwd: str | None = None,
                 start_timeout: float = START_TIMEOUT):
        self.executable = executable
        self.log = log
        self.socket_dir = tempfile.mkdtemp(prefix="tfconsole-plugin-")
        os.chmod(self.socket_dir, 0o700)
        self.proc: subprocess.Popen | None = None
        self.handshake: Handshake | None = None
        self.channel: Any = None
        self._closed = False
        self._readers: list[threading.Thread] = []
        try:
            self._start(cwd, start_timeout)
        except BaseException:
            self.kill()
            raise

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def _start(self, cwd: str | None, timeout: float) -> None:
        try:
            self.proc = LAUNCHER.spawn([self.executable], plugin_environment(self.socket_dir), cwd)
        except OSError as exc:
            raise LaunchError(f"could not start {self.executable}: {exc.strerror or exc}") from exc
        self._stderr = _LineReader(self.proc.stderr.fileno(), lambda line: self.log.feed(line, "stderr"))
        self._readers.append(self._stderr.start())
        line = self._read_handshake(timeout)
        hs = parse_handshake(line)
        if hs.protocol != "grpc":
            raise LaunchError("the plugin uses the legacy net/rpc protocol, which Terraform 0.12 and later "
                              "do not support")
        if hs.protocol_version not in (5, 6):
            raise LaunchError(f"the plugin speaks plugin protocol {hs.protocol_version}; tfconsole supports 5 and 6")
        self.handshake = hs
        self._read_in_background(self.proc.stdout, "stdout")
        self.channel = _connect(hs, timeout)

    def _read_handshake(self, timeout: float) -> str:
        assert self.proc is not None and self.proc.stdout is not None
        result: queue.Queue = queue.Queue()
        stdout = self.proc.stdout

        def first_line() -> None:
            try:
                result.put(stdout.readline().decode("utf-8", "replace"))
            except (OSError, ValueError):
                result.put("")

        threading.Thread(target=first_line, name="plugin-handshake", daemon=True).start()
        try:
            line = result.get(timeout=timeout)
        except queue.Empty:
            raise LaunchError(f"timeout while waiting for plugin to start ({timeout:.0f}s)") from None
        if not line.strip():
            code = self.proc.wait(timeout=5) if self.proc.poll() is None else self.proc.returncode
            for reader in self._readers:  # let the last words on stderr arrive
                reader.join(timeout=1.0)
            tail = "\n".join(ln.message for ln in self.log.tail(10))
            raise LaunchError(f"plugin exited before completing the handshake (exit status {code})"
                              + (f":\n{tail}" if tail else ""))
        return line

    def _read_in_background(self, stream: Any, name: str) -> None:
        log = self.log

        def pump() -> None:
            try:
                for raw in iter(stream.readline, b""):
                    log.feed(raw.decode("utf-8", "replace"), name)
            except (OSError, ValueError):
                pass

        t = threading.Thread(target=pump, name=f"plugin-{name}", daemon=True)
        t.start()
        self._readers.append(t)

    def drain_stderr(self) -> None:
        """Read and log everything the provider has written to stderr so far (called as each call
        ends, so the lines it wrote during the call are attributed to it)."""
        self._stderr.read_available()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def exit_description(self) -> str:
        """How the process ended, for diagnostics ('' while it runs)."""
        if self.proc is None or self.proc.poll() is None:
            return ""
        code = self.proc.returncode
        if code < 0:
            try:
                return f"was killed by signal {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with status {code}"

    def shutdown(self, grace: float = SHUTDOWN_GRACE) -> None:
        """Ask go-plugin to shut down, wait a little, then kill. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self.channel is not None and self.alive():
            from .protocol import SHUTDOWN_METHOD, controller_empty

            empty = controller_empty()
            # a provider that cannot shut down is killed below
            with contextlib.suppress(Exception):
                call = self.channel.unary_unary(SHUTDOWN_METHOD, request_serializer=empty.SerializeToString,
                                                response_deserializer=empty.FromString)
                call(empty(), timeout=grace)
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=grace)
        self.kill()

    def kill(self) -> None:
        """SIGKILL and reap the process, close the channel and pipes, remove the socket directory."""
        self._closed = True
        if self.channel is not None:
            with contextlib.suppress(Exception):
                self.channel.close()
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=5)
        for reader in self._readers:  # the provider's last lines reach its log before we return
            if reader is not threading.current_thread():
                reader.join(timeout=1.0)
        for stream in (self.proc.stdout, self.proc.stderr) if self.proc is not None else ():
            if stream is not None:
                with contextlib.suppress(Exception):
                    stream.close()
        shutil.rmtree(self.socket_dir, ignore_errors=True)


class _LineReader:
    """Lines from a pipe, read by a background thread as they come and, on demand, by whoever
    needs them read now (read_available); one lock makes both take the bytes in order."""

    def __init__(self, fd: int, emit: Any):
        self.fd = fd
        self.emit = emit
        self.partial = b""
        self.lock = threading.Lock()
        self.eof = False
        os.set_blocking(fd, False)  # never wait for bytes while holding the lock

    def start(self) -> threading.Thread:
        t = threading.Thread(target=self._run, name="plugin-stderr", daemon=True)
        t.start()
        return t

    def _run(self) -> None:
        import select

        while not self.eof:
            try:
                select.select([self.fd], [], [])
            except (OSError, ValueError):
                break
            self.read_available(block=True)

    def read_available(self, block: bool = False) -> None:
        import fcntl
        import struct
        import termios

        with self.lock:
            if self.eof:
                return
            try:
                pending = struct.unpack("i", fcntl.ioctl(self.fd, termios.FIONREAD, b"\0\0\0\0"))[0]
                if pending == 0 and not block:
                    return
                # readable with nothing pending: the end of the stream (b""), or someone read it first
                data = os.read(self.fd, pending if pending > 0 else 1)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                self.eof = True
                data, self.partial = self.partial, b""
                if data:
                    self.emit(data.decode("utf-8", "replace"))
                return
            *lines, self.partial = (self.partial + data).split(b"\n")
            for line in lines:
                self.emit(line.decode("utf-8", "replace"))


def _connect(hs: Handshake, timeout: float) -> Any:
    import grpc

    options: list[tuple[str, Any]] = [("grpc.max_receive_message_length", MAX_MESSAGE), ("grpc.max_send_message_length", MAX_MESSAGE),
               ("grpc.enable_retries", 0)]
    if hs.server_cert:
        pem = ssl.DER_cert_to_PEM_cert(hs.server_cert).encode()
        creds = grpc.ssl_channel_credentials(root_certificates=pem)
        # go-plugin names its certificates "localhost"
        options.append(("grpc.ssl_target_name_override", "localhost"))
        channel = grpc.secure_channel(hs.target, creds, options=options)
    else:
        channel = grpc.insecure_channel(hs.target, options=options)
    try:
        grpc.channel_ready_future(channel).result(timeout=timeout)
    except grpc.FutureTimeoutError:
        channel.close()
        raise LaunchError(f"could not connect to the plugin at {hs.target}") from None
    return channel


def wait_gone(pid: int, timeout: float = 5.0) -> bool:
    """True once no process has this pid (used by tests and the cleanup path)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        time.sleep(0.05)
    return False
