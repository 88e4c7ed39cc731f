"""Run agents over envs for a number of seeded episodes, in a process pool.

Each finished episode is one JSON file, written atomically, so an interrupted
run resumes where it stopped: episodes already on disk are neither lost nor
repeated. Episode k of every (agent, env) pair uses seed `seed + k`, so agents
are compared on the same games.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from ..agents import make_agent
from ..agents.spec import AgentSpec
from ..agents.spec import build as build_agent
from ..core import registry
from ..core.errors import DungeonBenchError

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
    return {
        "client": _jsonable(client.describe()) if client is not None else {},
        "decisions": len(steps),
        "prompt_tokens": sum(int(s.get("prompt_tokens", 0)) for s in steps),
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
    tmp.write_text(json.dumps(record, indent=1, sort_keys=True))
    os.replace(tmp, path)


def load_records(out: Path) -> list[dict]:
    return [json.loads(p.read_text())
            for p in sorted((Path(out) / "episodes").glob("*/*/episode-*[0-9].json"))]


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


def run(tasks: list[EpisodeTask], out: str | os.PathLike, workers: int = 1,
        progress_bar: bool = True, settings: dict | None = None, backend: str = "process",
        ray_address: str | None = None) -> dict[str, int]:
    """Run every task not yet on disk. Returns counts of done, skipped-as-present, failed.

    `settings` (seed, max_steps, agents, envs, episodes) are recorded in run.json;
    a later run into the same folder must use the same seed and max_steps.
    backend "process": a local process pool of `workers`; "ray": Ray tasks, on the
    cluster at `ray_address` (or a local Ray instance with `workers` CPUs when None).
    Either way only this process writes files, as each episode comes back.
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
    todo = [t for t in tasks if not t.path(out).exists()]
    counts = {"ran": 0, "already_done": len(tasks) - len(todo), "failed": 0}
    _write_atomic(out / "run.json", {
        "settings": settings, "tasks": len(tasks), "workers": workers,
        "python": platform.python_version(),
        "machine": f"{platform.machine()} {os.cpu_count()} CPUs", "started": time.time()})
    bar = tqdm(total=len(tasks), initial=counts["already_done"], unit="ep",
               disable=not progress_bar, dynamic_ncols=True)
    errors = out / "errors.log"
    try:
        if backend == "ray":
            _run_ray(todo, out, workers, ray_address, counts, errors, bar)
        elif workers <= 1:
            for task in todo:
                _finish(task, _call(task), out, counts, errors)
                bar.update()
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                futures = {pool.submit(_call, t): t for t in todo}
                for fut in as_completed(futures):
                    _finish(futures[fut], fut.result(), out, counts, errors)
                    bar.update()
    finally:
        bar.close()
    return counts


def _run_ray(todo, out, workers, address, counts, errors, bar) -> None:
    try:
        import ray
    except ImportError as exc:
        raise DungeonBenchError("--backend ray needs Ray: pip install 'dungeonbench-gym[ray]'"
                                ) from exc
    started_here = not ray.is_initialized()
    if started_here:
        if address:
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
        else:
            ray.init(num_cpus=max(1, workers), include_dashboard=False,
                     ignore_reinit_error=True, log_to_driver=False)
    try:
        remote = ray.remote(num_cpus=1)(_call)
        pending = {remote.remote(task): task for task in todo}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                _finish(pending.pop(ref), ray.get(ref), out, counts, errors)
                bar.update()
    finally:
        if started_here:
            ray.shutdown()


def _call(task: EpisodeTask) -> dict:
    try:
        return run_episode(task)
    except Exception as exc:  # noqa: BLE001 - one failed episode must not end the run
        return {"error": f"{type(exc).__name__}: {exc}"}


def _finish(task: EpisodeTask, record: dict, out: Path, counts: dict, errors: Path) -> None:
    if "error" in record:
        counts["failed"] += 1
        with errors.open("a") as f:
            f.write(f"{task.agent.label} {task.env_id} episode {task.episode}: "
                    f"{record['error']}\n")
        return
    trajectory = record.pop("trajectory", [])
    path = task.trajectory_path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w") as f:
        for step in trajectory:
            f.write(json.dumps(step, sort_keys=True) + "\n")
    os.replace(tmp, path)
    # the episode file is written last: it marks the episode done for a resumed run
    _write_atomic(task.path(out), record)
    counts["ran"] += 1
