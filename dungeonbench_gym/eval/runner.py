"""Run agents over envs for a number of seeded episodes, in worker processes.

Each finished episode is one JSON file, written atomically, so an interrupted
run resumes where it stopped: episodes already on disk are neither lost nor
repeated. Episode k of every (agent, env) pair uses seed `seed + k`, so agents
are compared on the same games.

Episodes run in worker processes (`workers.py`): one whose env kills the
interpreter (Frotz exiting on a bad story file, a segfault in a C library) is
recorded as failed in errors.log with the cause, and every other episode runs.
An episode file found broken on resume (cut short by a crash, emptied, missing
fields, or its trajectory so) is named, moved aside (never deleted) and rerun.
An episode that raises (an LLM client error with on_client_error="fail", an env's
exception) keeps what it played: its steps so far go to
`episode-NNNN.failed-<n>.trajectory.jsonl` beside where the episode would be, named in
errors.log; no episode file is written, so a resumed run plays it again.
Every file written here goes through `core.secrets.scrub` first.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import platform
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from ..agents import make_agent
from ..agents.spec import AgentSpec
from ..agents.spec import build as build_agent
from ..core import registry
from ..core.errors import DungeonBenchError
from ..core.secrets import scrub
from .workers import Reaper, Supervisor

# Settings that change what an episode file means: a resumed run must use the same.
EPISODE_SETTINGS = ("seed", "max_steps")


@dataclasses.dataclass(frozen=True)
class EpisodeTask:
    agent: AgentSpec
    env_id: str
    episode: int
    seed: int
    max_steps: int | None = None

    def path(self, out: Path) -> Path:
        return out / "episodes" / self.agent.label / self.env_id / f"episode-{self.episode:04d}.json"

    def trajectory_path(self, out: Path) -> Path:
        return self.path(out).with_suffix(".trajectory.jsonl")

    def failed_trajectory_path(self, out: Path) -> Path:
        """Where the steps of this episode's next failed attempt go: the first free
        `episode-NNNN.failed-<n>.trajectory.jsonl` (earlier attempts are kept). No glob
        of finished episodes or their trajectories matches it."""
        stem = self.path(out).stem
        n = 1
        while (path := self.path(out).with_name(f"{stem}.failed-{n}.trajectory.jsonl")).exists():
            n += 1
        return path


def plan(agents: Iterable[AgentSpec | str], envs: Iterable[str | tuple[str, int]],
         episodes: int = 10, seed: int = 0, max_steps: int | None = None
         ) -> tuple[list[EpisodeTask], list[tuple[str, str]]]:
    """The episode tasks, plus the (agent, env) pairs skipped for having no such agent.
    `envs` holds ids (each gets `episodes`) or (id, episodes) pairs (a suite)."""
    specs = [a if isinstance(a, AgentSpec) else AgentSpec.create(a) for a in agents]
    tasks, skipped = [], []
    for item in envs:
        env_id, count = (item, episodes) if isinstance(item, str) else item
        family = registry.resolve_id(env_id).family
        for spec in specs:
            if spec.kind == "baseline" and make_agent("baseline", family) is None:
                skipped.append((spec.label, env_id))
                continue
            tasks.extend(EpisodeTask(spec, env_id, k, seed + k, max_steps)
                         for k in range(count))
    return tasks, skipped


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def run_episode(task: EpisodeTask) -> dict[str, Any]:
    """Play one episode. Returns the record that goes to disk and, under
    "trajectory", one dict per step (the driver writes both: workers write
    nothing, so they may run on other machines)."""
    entry = registry.resolve_id(task.env_id)
    kwargs: dict[str, Any] = {} if task.max_steps is None else {"max_steps": task.max_steps}
    if task.agent.needs_text:
        kwargs["text"] = True
    kwargs.update(task.agent.env_settings(entry.family))
    if task.agent.needs_pictures and "rgb_array" in _render_modes(entry):
        kwargs["render_mode"] = "rgb_array"
    env = registry.make(entry.id, **kwargs)
    agent = build_agent(task.agent, entry.family)
    labels = env.unwrapped.option_labels() if env.unwrapped.option_table else None
    start = time.perf_counter()
    trajectory: list[dict] = []
    try:
        agent.reset(env, task.seed)
        obs, info = env.reset(seed=task.seed)
        total, steps, terminated, truncated = 0.0, 0, False, False
        while not (terminated or truncated):
            action = agent.act(obs, info)
            label = _label(info, action, labels)
            obs, reward, terminated, truncated, info = env.step(action)
            total += float(reward)
            steps += 1
            step = {"t": steps, "action": action if isinstance(action, str) else int(action),
                    "label": label, "reward": float(reward),
                    "progress": float(info["progress"]), "invalid": bool(info["invalid_action"]),
                    "decision": info["decision"]}
            record = getattr(agent, "last_record", None)
            if record is not None:
                step["agent"] = _jsonable(record)
            trajectory.append(step)
    except Exception as exc:  # noqa: BLE001 - the episode failed: its steps so far are kept
        return {"error": f"{type(exc).__name__}: {exc}", "trajectory": trajectory}
    finally:
        env.close()
    record = {
        "agent": task.agent.label, "agent_spec": _jsonable(task.agent.describe()),
        "env_id": entry.id, "family": entry.family,
        "episode": task.episode, "seed": task.seed,
        "progress": float(info["progress"]), "success": bool(info["success"]),
        "return": total, "steps": steps, "terminated": bool(terminated),
        "truncated": bool(truncated), "invalid_actions": int(info["metrics"]["invalid_actions"]),
        "metrics": _jsonable(info["metrics"]), "seconds": time.perf_counter() - start,
    }
    usage = _llm_usage(agent, trajectory)
    if usage:
        record["llm"] = usage
    record["trajectory"] = trajectory
    return record


def _render_modes(entry) -> list[str]:
    cls = registry.load_entry_point(entry.entry_point)
    return list(getattr(cls, "metadata", {}).get("render_modes", []))


def _label(info: dict, action, labels: list[str] | None) -> str:
    if isinstance(action, str):      # a typed command (text adventures)
        return action
    if labels is not None and 0 <= action < len(labels):
        return labels[action]
    for option in info["options"]:
        if option.index == action:
            return option.label
    return str(action)


def _llm_usage(agent, trajectory: list[dict]) -> dict[str, Any]:
    """Token, latency and fallback totals of an LLM agent's episode."""
    steps = [s["agent"] for s in trajectory if "agent" in s]
    if not steps or "prompt_tokens" not in steps[0]:
        return {}
    client = getattr(agent, "client", None)
    prompt_tokens = sum(int(s.get("prompt_tokens") or 0) for s in steps)
    request_sizes = [int(s["max_request_tokens"]) for s in steps
                     if s.get("max_request_tokens") is not None]
    return {
        "client": _jsonable(client.describe()) if client is not None else {},
        "decisions": len(steps),
        "prompt_tokens": prompt_tokens,
        "prompt_tokens_per_decision": prompt_tokens / len(steps),
        # the largest single request (prompt + completion): what must fit in the context
        "max_request_tokens": max(request_sizes) if request_sizes else None,
        "compacted_decisions": sum(bool(s.get("compaction")) for s in steps),
        "client_errors": sum(int(s.get("client_errors") or 0) for s in steps),
        "completion_tokens": sum(int(s.get("completion_tokens", 0)) for s in steps),
        "fallbacks": sum(bool(s.get("fell_back")) for s in steps),
        # look-up tools (D&D): calls made, and per decision (0 when tools were off)
        "tools": getattr(agent, "tools_status", "off"),   # says why when asked for but not offered
        "tool_calls": sum(int(s.get("tool_count", 0)) for s in steps),
        "tools_per_decision": sum(int(s.get("tool_count", 0)) for s in steps) / len(steps),
        "seconds_in_model": round(sum(float(s.get("latency_s", 0.0)) for s in steps), 3),
    }


def _write_atomic(path: Path, record: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(scrub(record), indent=1, sort_keys=True))
    os.replace(tmp, path)


# What an episode file must hold, and of which type, for summaries and resume to use it.
_NUMBER = (int, float)
RECORD_FIELDS: dict[str, tuple[type, ...]] = {
    "agent": (str,), "env_id": (str,), "family": (str,), "episode": (int,), "seed": (int,),
    "progress": _NUMBER, "success": (bool,), "return": _NUMBER, "steps": (int,),
    "terminated": (bool,), "truncated": (bool,), "invalid_actions": (int,), "metrics": (dict,),
}
EPISODE_GLOB = "*/*/episode-*[0-9].json"


def record_problem(record: Any) -> str | None:
    """What makes a parsed episode record unusable, or None."""
    if not isinstance(record, dict):
        return f"holds a JSON {type(record).__name__}, not an object"
    missing = [k for k in RECORD_FIELDS if k not in record]
    if missing:
        return f"lacks the field{'s' * (len(missing) > 1)} {', '.join(missing)}"
    for key, kinds in RECORD_FIELDS.items():
        value = record[key]
        if not isinstance(value, kinds) or (kinds != (bool,) and isinstance(value, bool)):
            return f"field '{key}' is {type(value).__name__} {value!r}, not {kinds[0].__name__}"
    if not (math.isfinite(record["progress"]) and 0.0 <= record["progress"] <= 1.0):
        return f"field 'progress' is {record['progress']!r}, not in [0, 1]"
    return None


def read_record(path: Path) -> tuple[dict | None, str | None]:
    """(record, None) for a usable episode file, (None, what is wrong) otherwise."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror})"
    if not data.strip():
        return None, "is empty"
    try:
        record = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "is not UTF-8 text"
    except json.JSONDecodeError as exc:
        return None, f"is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
    problem = record_problem(record)
    return (None, problem) if problem else (record, None)


def trajectory_problem(path: Path, steps: int) -> str | None:
    """What is wrong with an episode's trajectory file (one JSON object per step), or None."""
    try:
        lines = path.read_bytes().decode("utf-8").splitlines()
    except FileNotFoundError:
        return "is missing"
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    except UnicodeDecodeError:
        return "is not UTF-8 text"
    for n, line in enumerate(lines, 1):
        try:
            step = json.loads(line)
        except json.JSONDecodeError as exc:
            return f"line {n} is not valid JSON ({exc.msg})"
        if not isinstance(step, dict):
            return f"line {n} is not a JSON object"
    if len(lines) != steps:
        return f"has {len(lines)} steps, its episode file says {steps}"
    return None


def _warn_corrupt(path: Path, problem: str) -> None:
    print(f"warning: skipped corrupt episode file {path}: {problem}", file=sys.stderr)


def load_records(out: Path, on_corrupt: Callable[[Path, str], None] | None = _warn_corrupt
                 ) -> list[dict]:
    """Every usable episode record under `out`/episodes. A corrupt file is skipped and
    reported to `on_corrupt(path, problem)` (default: a warning on stderr); nothing moves:
    summaries are read-only. (`run` moves corrupt files aside and reruns them.)"""
    records = []
    for path in sorted((Path(out) / "episodes").glob(EPISODE_GLOB)):
        record, problem = read_record(path)
        if record is not None:
            records.append(record)
        elif on_corrupt is not None:
            on_corrupt(path, problem)
    return records


def _task_problem(task: "EpisodeTask", out: Path) -> str | None:
    """Why the episode file on disk for `task` cannot count as that episode done."""
    path = task.path(out)
    record, problem = read_record(path)
    if problem:
        return problem
    expected = {"agent": task.agent.label, "env_id": registry.resolve_id(task.env_id).id,
                "episode": task.episode, "seed": task.seed}
    for key, value in expected.items():
        if record[key] != value:
            return f"field '{key}' is {record[key]!r}, this episode's is {value!r}"
    problem = trajectory_problem(task.trajectory_path(out), record["steps"])
    if problem:
        return f"its trajectory file {task.trajectory_path(out).name} {problem}"
    return None


def _move_aside(task: "EpisodeTask", out: Path) -> Path:
    """Rename the episode file and its trajectory to <name>.corrupt-<n> (the first free n,
    the same for both): kept for a look, invisible to resume and summaries."""
    paths = [task.path(out), task.trajectory_path(out)]
    n = 1
    while any(p.with_name(f"{p.name}.corrupt-{n}").exists() for p in paths):
        n += 1
    for p in paths:
        if p.exists():
            os.replace(p, p.with_name(f"{p.name}.corrupt-{n}"))
    return paths[0].with_name(f"{paths[0].name}.corrupt-{n}")


def _remove_stale_temporaries(out: Path) -> None:
    """*.tmp files are writes cut short by a kill: never complete, so never kept."""
    for tmp in [*out.glob("*.tmp"), *(out / "episodes").glob("*/*/*.tmp")]:
        with contextlib.suppress(OSError):
            tmp.unlink()


def check_resumable(out: Path, settings: dict) -> None:
    """Refuse to mix episodes made with other seeds or step limits into `out`."""
    path = out / "run.json"
    if not path.exists():
        return
    before = json.loads(path.read_text()).get("settings", {})
    for key in EPISODE_SETTINGS:
        if key in before and before[key] != settings[key]:
            raise DungeonBenchError(
                f"{out} holds episodes made with {key}={before[key]!r}, this run asks for "
                f"{key}={settings[key]!r}: resuming would mix them. Use another --out, "
                f"or the same {key}.")


BACKENDS = ("process", "ray")
IN_PROCESS = 0   # workers=0: episodes in this process (no isolation: for debuggers, profilers)


def run(tasks: list[EpisodeTask], out: str | os.PathLike, workers: int = 1,
        progress_bar: bool = True, settings: dict | None = None, backend: str = "process",
        ray_address: str | None = None) -> dict[str, int]:
    """Run every task not yet on disk. Returns counts of done, skipped-as-present, failed,
    and corrupt (episode files found broken, moved aside and rerun).

    `settings` (seed, max_steps, agents, envs, episodes) are recorded in run.json;
    a later run into the same folder must use the same seed and max_steps.
    backend "process": `workers` worker processes (at least one; 0 plays in this
    process, unprotected); "ray": Ray tasks, on the cluster at `ray_address` (or a local
    Ray instance with `workers` CPUs when None). Either way only this process writes
    files, as each episode comes back.
    """
    if backend not in BACKENDS:
        raise DungeonBenchError(f"backend {backend!r}: use one of {', '.join(BACKENDS)}")
    from tqdm import tqdm

    out = Path(out)
    settings = dict(settings or {})
    if tasks:
        settings.setdefault("seed", tasks[0].seed - tasks[0].episode)
        settings.setdefault("max_steps", tasks[0].max_steps)
    check_resumable(out, settings)
    errors = out / "errors.log"
    _remove_stale_temporaries(out)
    todo, corrupt = [], 0
    for task in tasks:
        if not task.path(out).exists():
            todo.append(task)
            continue
        problem = _task_problem(task, out)
        if problem:
            moved = _move_aside(task, out)
            _log(errors, f"{task.path(out)}: corrupt episode file: {problem}; moved to "
                         f"{moved.name} and the episode is rerun", echo=True)
            todo.append(task)
            corrupt += 1
    counts = {"ran": 0, "already_done": len(tasks) - len(todo), "failed": 0, "corrupt": corrupt}
    _write_atomic(out / "run.json", {
        "settings": settings, "tasks": len(tasks), "workers": workers, "backend": backend,
        "python": platform.python_version(),
        "machine": f"{platform.machine()} {os.cpu_count()} CPUs", "started": time.time()})
    bar = tqdm(total=len(tasks), initial=counts["already_done"], unit="ep",
               disable=not progress_bar, dynamic_ncols=True)
    try:
        with _sigterm_as_exit():
            if backend == "ray":
                _run_ray(todo, out, workers, ray_address, counts, errors, bar)
            elif workers == IN_PROCESS:
                for task in todo:
                    _finish(task, _call(task), out, counts, errors)
                    bar.update()
            else:
                # Always in worker processes, even for one worker: no family can be vouched
                # for (a user's story file, NLE's and Crafter's C code), and one worker's
                # start (a fresh interpreter) costs well under a second once per run.
                with Supervisor(workers, target=f"{__name__}:_call",
                                registry_files=_runtime_registry_files(),
                                echo=lambda text: bar.write(text.rstrip("\n"), file=sys.stderr)
                                ) as pool:
                    for task, record in pool.run(todo):
                        _finish(task, record, out, counts, errors)
                        bar.update()
    finally:
        bar.close()
    return counts


@contextlib.contextmanager
def _sigterm_as_exit():
    """SIGTERM ends a run like Ctrl-C does: through `finally`, so workers are stopped and
    Ray shut down (only in the main thread, and only where nobody handles SIGTERM yet)."""
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def stop(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _runtime_registry_files() -> list[str]:
    """Registry files registered in this process beyond the built-in ones (a fresh worker
    reads the built-ins and $DUNGEONBENCH_ENVS_PATH by itself, not register_file calls)."""
    builtin = {str(p) for p in registry.builtin_registry_files()}
    return sorted({e.source for e in registry.REGISTRY.values()} - builtin)


def _run_ray(todo, out, workers, address, counts, errors, bar) -> None:
    try:
        import ray
        from ray.exceptions import RayError
    except ImportError as exc:
        raise DungeonBenchError("--backend ray needs Ray: pip install 'dungeonbench-gym[ray]'"
                                ) from exc
    started_here = not ray.is_initialized()
    reaper = None
    if started_here:
        if address:
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
        else:
            reaper = Reaper()   # the local instance's processes end with this one
            try:
                ray.init(num_cpus=max(1, workers), include_dashboard=False,
                         ignore_reinit_error=True, log_to_driver=False)
            except BaseException:
                reaper.release()
                raise
    try:
        # max_retries=0: a task whose worker dies is recorded as failed with Ray's cause,
        # not rerun silently (a crashing env would crash again); a resume reruns it.
        remote = ray.remote(num_cpus=1, max_retries=0)(_call_registered)
        files = _runtime_registry_files()
        pending = {remote.remote(task, files): task for task in todo}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                task = pending.pop(ref)
                try:
                    record = ray.get(ref)
                except RayError as exc:   # WorkerCrashedError, a dead node, ...
                    record = {"error": f"{type(exc).__name__}: {_first_lines(str(exc))}"}
                _finish(task, record, out, counts, errors)
                bar.update()
    finally:
        if started_here:
            ray.shutdown()
        if reaper is not None:
            reaper.release()


def _first_lines(text: str, n: int = 3) -> str:
    return " ".join(line.strip() for line in text.strip().splitlines()[:n])


def _call(task: EpisodeTask) -> dict:
    try:
        return run_episode(task)
    except Exception as exc:  # noqa: BLE001 - one failed episode must not end the run
        return {"error": f"{type(exc).__name__}: {exc}"}


def _call_registered(task: EpisodeTask, registry_files: list[str]) -> dict:
    """`_call` in a Ray worker, which knows only the registry files it read at import."""
    from .workers import _register

    _register(registry_files)
    return _call(task)


def _env_files(task: EpisodeTask) -> dict[str, str]:
    """The files an env is made from (its registry kwargs that name one), for errors.log:
    an interpreter that exits on a bad story file says nothing about which."""
    try:
        kwargs = registry.resolve_id(task.env_id).kwargs
    except DungeonBenchError:
        return {}
    return {k: v for k, v in sorted(kwargs.items())
            if isinstance(v, str) and ("/" in v or os.sep in v) and Path(v).is_file()}


def _log(errors: Path, text: str, echo: bool = False) -> None:
    text = scrub(text)
    errors.parent.mkdir(parents=True, exist_ok=True)
    with errors.open("a") as f:
        f.write(text.rstrip("\n") + "\n")
    if echo:
        print(f"warning: {text}", file=sys.stderr)


def _write_trajectory(path: Path, trajectory: list[dict]) -> None:
    """One JSON object per step, scrubbed, written atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w") as f:
        for step in scrub(trajectory):
            f.write(json.dumps(step, sort_keys=True) + "\n")
    os.replace(tmp, path)


def _finish(task: EpisodeTask, record: dict, out: Path, counts: dict, errors: Path) -> None:
    if "error" in record:
        counts["failed"] += 1
        first, _, rest = str(record["error"]).partition("\n")
        unnamed = [f"{k}={v}" for k, v in _env_files(task).items() if v not in first]
        if unnamed:
            first += f" (env files: {', '.join(unnamed)})"
        if record.get("trajectory"):
            # no episode file: the episode is not done, and a resumed run plays it again
            path = task.failed_trajectory_path(out)
            _write_trajectory(path, record["trajectory"])
            steps = len(record["trajectory"])
            first += f"; its {steps} step{'s' * (steps != 1)} so far are in {path}"
        _log(errors, f"{task.agent.label} {task.env_id} episode {task.episode}: {first}"
                     + (f"\n{rest}" if rest else ""))
        return
    record = dict(record)
    trajectory = record.pop("trajectory", [])
    record = scrub(record)
    _write_trajectory(task.trajectory_path(out), trajectory)
    # the episode file is written last: it marks the episode done for a resumed run
    _write_atomic(task.path(out), record)
    counts["ran"] += 1
