"""llama-cpp-python's OpenAI-compatible server, serving the shipped SmolLM2: a real
server on loopback for the tests and `benchmarks/llm_server.py` (llama-cpp-python's
`[server]` extra, in the local-llm group).

`llama_server()` starts `python -m llama_cpp.server` (this interpreter's, so the venv's) on
127.0.0.1 and a free port, waits until GET /v1/models answers, yields the base URL
("http://127.0.0.1:<port>/v1") and always stops the server (SIGTERM, then SIGKILL) and
removes its log. A server that dies or never answers fails with its log's tail.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

MODEL_ALIAS = "smollm2"
CONTEXT_TOKENS = 4096
START_TIMEOUT_S = 60.0
PORTS = range(8780, 8800)   # loopback ports tried, first free one taken
INSTALL_HINT = ("the server-backed tests need llama-cpp-python's server: "
                "pip install 'dungeonbench-gym[local-llm]' (llama-cpp-python[server])")


class ServerFailed(RuntimeError):
    """The server could not be started, or died before it answered."""


def free_port(ports: range = PORTS) -> int:
    """The first port of `ports` nothing listens on, nor is bound to, on 127.0.0.1."""
    for port in ports:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise ServerFailed(f"no free port in {ports.start}-{ports.stop - 1} on 127.0.0.1")


def server_command(port: int, model: str | Path | None = None) -> list[str]:
    if model is None:
        from dungeonbench_gym.llm.local import bundled_model_path

        model = bundled_model_path()
    return [sys.executable, "-m", "llama_cpp.server", "--model", str(model),
            "--model_alias", MODEL_ALIAS, "--n_ctx", str(CONTEXT_TOKENS),
            "--host", "127.0.0.1", "--port", str(port),
            "--chat_format", "chatml-function-calling", "--n_threads", "2"]


def _tail(log: Path, lines: int = 25) -> str:
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:]) or "(empty log)"


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def stop(process: subprocess.Popen, grace_s: float = 10.0) -> None:
    """SIGTERM, then SIGKILL if it is still there after `grace_s`."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class Server:
    """A started server: `base_url`, `process`, `port`, `start_s` (seconds until it answered)."""

    def __init__(self, process: subprocess.Popen, port: int, log: Path, start_s: float):
        self.process, self.port, self.log, self.start_s = process, port, log, start_s
        self.base_url = f"http://127.0.0.1:{port}/v1"

    def kill(self) -> None:
        """Stop the server at once (SIGKILL), as a crash would."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def log_tail(self) -> str:
        return _tail(self.log)


@contextlib.contextmanager
def running_server(port: int | None = None, timeout_s: float = START_TIMEOUT_S) -> Iterator[Server]:
    """A llama-cpp-python server for the duration of the block (see the module text)."""
    if importlib.util.find_spec("llama_cpp") is None \
            or importlib.util.find_spec("llama_cpp.server") is None:
        raise ServerFailed(f"llama_cpp.server is not installed: {INSTALL_HINT}")
    port = port if port is not None else free_port()
    fd, name = tempfile.mkstemp(prefix=f"llama-server-{port}-", suffix=".log")
    log = Path(name)
    process = None
    try:
        with os.fdopen(fd, "wb") as sink:
            started = time.monotonic()
            process = subprocess.Popen(server_command(port), stdout=sink, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL)
        models = f"http://127.0.0.1:{port}/v1/models"
        while not _answers(models):
            if process.poll() is not None:
                hint = f"\n{INSTALL_HINT}" if "No module named" in _tail(log) else ""
                raise ServerFailed(f"llama_cpp.server on port {port} exited with status "
                                   f"{process.returncode} before it answered; its log ends:\n"
                                   f"{_tail(log)}{hint}")
            if time.monotonic() - started > timeout_s:
                raise ServerFailed(f"llama_cpp.server on port {port} did not answer GET "
                                   f"/v1/models within {timeout_s:.0f}s; its log ends:\n{_tail(log)}")
            time.sleep(0.2)
        yield Server(process, port, log, time.monotonic() - started)
    finally:
        if process is not None:
            stop(process)
        with contextlib.suppress(OSError):
            log.unlink()


@contextlib.contextmanager
def llama_server(port: int | None = None, timeout_s: float = START_TIMEOUT_S) -> Iterator[str]:
    """The base URL of a running server, for the duration of the block."""
    with running_server(port, timeout_s) as server:
        yield server.base_url
