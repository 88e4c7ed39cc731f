"""Worker processes for the runner: an episode that kills its interpreter loses only itself.

Some envs sit on C code that can end the process: Frotz exits on a story file it cannot
read, NLE's and Crafter's libraries can segfault. Run in the driver (or in a
ProcessPoolExecutor, which breaks as a whole when one worker dies), one such episode
takes the evaluation down. Here every episode runs in a worker process of a small
supervisor:

- Each worker holds at most one task (no prefetch), so a worker that dies loses exactly
  the episode it was playing: that one is recorded as failed with the cause (its exit
  code or signal and the last lines it printed) and a replacement worker takes the
  remaining tasks. There is nothing else of the dead worker's to retry.
- A worker is a fresh interpreter (`python -c <bootstrap>`, talking to the driver over a
  socket pair with multiprocessing's Connection): nothing is forked from a driver that
  may hold threads (tqdm, Ray, an LLM client's pool) or native state (torch, Frotz).
  Unlike multiprocessing's "spawn", it never re-imports the driver's __main__, so a
  script that calls `run()` needs no `if __name__ == "__main__"` guard; unlike
  "forkserver", every worker sees the driver's sys.path and environment of the moment
  (DUNGEONBENCH_ENVS_PATH, API keys).
- Workers end when the driver ends, however it ends: on Linux each asks the kernel for
  SIGKILL when its parent dies (PR_SET_PDEATHSIG), and everywhere a thread in the worker
  exits once its parent is gone. The driver's normal exit, an exception,
  KeyboardInterrupt and SIGTERM (turned into SystemExit by the runner) all run `close()`.
  Workers run in a session of their own, so a Ctrl-C at the terminal reaches the driver
  only, and the driver decides what it means.
- What a worker prints (fds 1 and 2, C libraries included) goes to a file of its own,
  which the driver passes on to its stderr after each episode; the file outlives a dead
  worker, so its last lines go to errors.log with the cause.
"""

from __future__ import annotations

import collections
import ctypes
import faulthandler
import importlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ..core.secrets import scrub

PR_SET_PDEATHSIG = 1        # <linux/prctl.h>
PARENT_POLL_SECONDS = 0.5   # the portable fallback: how often a worker looks for its parent
OUTPUT_TAIL_LINES = 12      # lines of a dead worker's output kept in errors.log
FAULT_REPORT_LINES = 40     # ... or from faulthandler's "Fatal Python error" on, up to this many
CLOSE_GRACE_SECONDS = 5.0   # a worker asked to stop gets this long before SIGTERM
TERM_GRACE_SECONDS = 2.0    # ... and this long after SIGTERM before SIGKILL
WAKE_SECONDS = 1.0          # the driver looks at its workers' exit status at least this often
WORKER_FLAG = "--dungeonbench-worker"   # in every worker's command line, to find them

# Runs first in the worker: only the standard library, until sys.path is the driver's.
_BOOTSTRAP = (
    "import sys\n"
    "from multiprocessing.connection import Connection\n"
    "conn = Connection(int(sys.argv[1]))\n"
    "setup = conn.recv()\n"
    "sys.path[:] = setup['sys_path']\n"
    "from dungeonbench_gym.eval.workers import worker_main\n"
    "worker_main(conn, **setup['args'])\n")


# ------------------------------------------------------------------------ in the worker
def _die_with_parent(parent_pid: int) -> None:
    """End this process when the driver ends, even by SIGKILL."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass   # no usable libc: the polling thread below still covers it
    # The portable fallback, which also covers a driver that died before prctl ran (then
    # the signal never comes): the first look is at once.
    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def worker_main(conn: Connection, parent_pid: int, registry_files: list[str],
                target: str) -> None:
    """A worker's life: take a task, send back what `target` returns, until told to stop."""
    _die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.set_inheritable(conn.fileno(), False)   # a subprocess of the env must not hold it
    faulthandler.enable()   # a segfault leaves the Python stack in the output file
    _register(registry_files)
    module, name = target.split(":")
    call = getattr(importlib.import_module(module), name)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):   # the driver closed the connection (or is gone)
            return
        if task is None:
            return
        result = call(task)
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            # scrubbed here too: a secret a client registered in this process is known only here
            conn.send(scrub(result))
        except (EOFError, OSError):
            return
        except Exception as exc:  # noqa: BLE001 - an unpicklable result fails its task only
            conn.send({"error": f"the episode's result could not be sent back "
                                f"({type(exc).__name__}: {exc})"})


def _register(registry_files: list[str]) -> None:
    """Register the registry files the driver registered at run time (a fresh interpreter
    reads the built-in ones and $DUNGEONBENCH_ENVS_PATH by itself, not register_file calls)."""
    from ..core import registry
    from ..core.errors import DungeonBenchError

    known = {e.source for e in registry.REGISTRY.values()}
    for path in registry_files:
        if path not in known:
            try:
                registry.register_file(path)
            except DungeonBenchError:
                pass   # its episodes fail with the registry's own message


# ------------------------------------------------------------------------ in the driver
def describe_exit(returncode: int | None) -> str:
    """Why a worker process ended, in words: 'worker died (killed by SIGSEGV)'."""
    if returncode is None:
        return "worker died (no exit status)"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"worker died (killed by {name})"
    return f"worker died (exit code {returncode})"


class _Worker:
    def __init__(self, number: int, folder: Path, registry_files: list[str], target: str):
        self.log = folder / f"worker-{number}.log"
        self.read_to = 0
        ours, theirs = socket.socketpair()
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _BOOTSTRAP, str(theirs.fileno()), WORKER_FLAG],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=output,
                stderr=subprocess.STDOUT, start_new_session=True)
        theirs.close()
        self.conn = Connection(ours.detach())
        self.task = None
        try:
            self.conn.send({"sys_path": list(sys.path), "args": {
                "parent_pid": os.getpid(), "registry_files": registry_files, "target": target}})
        except OSError:
            pass   # it died at once: its first task will say how

    def new_output(self) -> str:
        """What the worker printed since the last call."""
        try:
            with self.log.open("rb") as f:
                f.seek(self.read_to)
                data = f.read()
        except OSError:
            return ""
        self.read_to += len(data)
        return data.decode("utf-8", "replace")


class Supervisor:
    """`workers` worker processes playing tasks; use as a context manager.

    `target` ("module:function") turns a task into a result dict and must not raise;
    `echo` gets what workers print (default: this process's stderr)."""

    def __init__(self, workers: int, target: str, registry_files: Iterable[str] = (),
                 echo: Callable[[str], None] | None = None):
        self.size = max(1, workers)
        self.target = target
        self.registry_files = list(registry_files)
        self.echo = echo or (lambda text: (sys.stderr.write(text), sys.stderr.flush()))
        self.folder = Path(tempfile.mkdtemp(prefix="dungeonbench-workers-"))
        self.started = 0
        self.workers: list[_Worker] = []

    def __enter__(self) -> "Supervisor":
        return self

    def __exit__(self, kind, value, tb) -> None:
        # a clean end lets workers finish their loop; any other end stops them at once
        self.close(graceful=kind is None)

    def _start(self) -> _Worker:
        self.started += 1
        worker = _Worker(self.started, self.folder, self.registry_files, self.target)
        self.workers.append(worker)
        return worker

    def _echo_output(self, worker: _Worker) -> str:
        text = worker.new_output()
        if text:
            self.echo(scrub(text))
        return text

    def run(self, tasks: Iterable) -> Iterator[tuple[object, dict]]:
        """Yield (task, result) for every task, in the order they finish. A task whose
        worker died comes back as {"error": cause}; the rest go on in a new worker."""
        queue = collections.deque(tasks)
        while len(self.workers) < min(self.size, len(queue)):
            self._start()
        while queue or any(w.task is not None for w in self.workers):
            for worker in list(self.workers):
                if worker.task is None and queue:
                    if worker.process.poll() is not None:   # died between tasks: no loss
                        self._echo_output(worker)
                        worker.conn.close()
                        self.workers.remove(worker)
                        worker = self._start()
                    worker.task = queue.popleft()
                    try:
                        worker.conn.send(worker.task)
                    except OSError:
                        pass   # it died before its first task: noticed below
            busy = [w for w in self.workers if w.task is not None]
            # a dead worker's connection reads as end of file; the timeout covers one whose
            # socket a leftover child of its env still holds open
            wait([w.conn for w in busy], timeout=WAKE_SECONDS)
            for worker in busy:
                result = self._collect(worker)
                if result is None:
                    continue
                task, worker.task = worker.task, None
                if result.get("worker_died"):
                    self.workers.remove(worker)
                    if queue:
                        self._start()
                yield task, result

    def _collect(self, worker: _Worker) -> dict | None:
        """The worker's result if it has one, a death record if it died, else None."""
        try:
            if worker.conn.poll():   # true on a message and on end of file
                result = worker.conn.recv()
                self._echo_output(worker)
                return result
        except Exception:  # noqa: BLE001 - end of file, or a message cut short: it is dying
            pass
        else:
            if worker.process.poll() is None:
                return None
        _end(worker.process, CLOSE_GRACE_SECONDS)   # its connection broke: it may still linger
        return self._death(worker)

    def _death(self, worker: _Worker) -> dict:
        cause = describe_exit(worker.process.returncode)
        lines = [line for line in self._echo_output(worker).splitlines() if line.strip()]
        tail = lines[-OUTPUT_TAIL_LINES:]
        fatal = [i for i, line in enumerate(lines) if line.startswith("Fatal Python error")]
        if fatal:   # the signal and the Python stack where it struck
            tail = lines[fatal[-1]:fatal[-1] + FAULT_REPORT_LINES]
        if tail:
            cause += "; its last output:\n" + "\n".join("    " + line for line in tail)
        worker.conn.close()
        return {"error": scrub(cause), "worker_died": True}

    def close(self, graceful: bool = True) -> None:
        """Stop every worker (ask, then SIGTERM, then SIGKILL); remove their output files."""
        for worker in self.workers:
            if graceful:
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
            worker.conn.close()   # a worker waiting for a task sees end of file and ends
        deadline = time.monotonic() + (CLOSE_GRACE_SECONDS if graceful else 0.0)
        for worker in self.workers:
            _end(worker.process, max(0.0, deadline - time.monotonic()))
            if graceful:
                self._echo_output(worker)
        self.workers.clear()
        shutil.rmtree(self.folder, ignore_errors=True)


def _end(process: subprocess.Popen, grace: float) -> None:
    """Wait `grace` seconds for the process to exit, then SIGTERM it, then SIGKILL it."""
    try:
        process.wait(grace)
        return
    except subprocess.TimeoutExpired:
        process.terminate()
    try:
        process.wait(TERM_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# ------------------------------------------------------------------------ a reaper
# Ray's own processes do not all share their driver's fate: after a SIGKILL its raylet and
# task workers go at once, but its node agents wait up to 60 s on the dead GCS first. A
# reaper started beside the driver (Linux: it reads /proc) notes the driver's descendants
# twice a second, and SIGKILLs those still alive (same pid, same start time) once the pipe
# from the driver reads end of file without "done" (the driver died).
_REAPER = r"""
import os, signal, sys, threading, time
driver, me = int(sys.argv[1]), os.getpid()

def stat(pid):
    with open(f"/proc/{pid}/stat", "rb") as f:
        data = f.read()
    fields = data[data.rindex(b")") + 2:].split()
    return int(fields[1]), fields[19]   # ppid, start time

seen = {}
lock = threading.Lock()

def scan():
    children = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                ppid, start = stat(int(name))
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append((int(name), start))
    todo = [driver]
    while todo:
        for pid, start in children.get(todo.pop(), []):
            if pid != me:
                with lock:
                    seen[pid] = start
                todo.append(pid)

def watch():
    while True:
        scan()
        time.sleep(0.5)

threading.Thread(target=watch, daemon=True).start()
if sys.stdin.readline().strip() == "done":
    sys.exit(0)
with lock:
    doomed = dict(seen)
for pid, start in doomed.items():
    try:
        if stat(pid)[1] == start:
            os.kill(pid, signal.SIGKILL)
    except (OSError, ValueError, IndexError):
        pass
"""


class Reaper:
    """Kills this process's descendants if it dies without calling `release()` (Linux
    only; elsewhere it does nothing)."""

    def __init__(self):
        self.process = None
        if sys.platform.startswith("linux") and os.path.isdir("/proc"):
            self.process = subprocess.Popen(
                [sys.executable, "-c", _REAPER, str(os.getpid()), "--dungeonbench-reaper"],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, start_new_session=True)

    def release(self) -> None:
        """The driver ends cleanly: the reaper leaves without killing anything."""
        if self.process is not None:
            try:
                self.process.stdin.write(b"done\n")
                self.process.stdin.close()
            except OSError:
                pass
            self.process.wait()
            self.process = None
