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
from ..core import registry
from ..core.errors import DungeonBenchError

# Settings that change what an episode file means: a resumed run must use the same.
EPISODE_SETTINGS = ("seed", "max_steps")


@dataclasses.dataclass(frozen=True)
class EpisodeTask:
    agent: str
    env_id: str
    episode: int
    seed: int
    max_steps: int | None = None

    def path(self, out: Path) -> Path:
        return out / "episodes" / self.agent / self.env_id / f"episode-{self.episode:04d}.json"


def plan(agents: Iterable[str], env_ids: Iterable[str], episodes: int, seed: int = 0,
         max_steps: int | None = None) -> tuple[list[EpisodeTask], list[tuple[str, str]]]:
    """The episode tasks, plus the (agent, env) pairs skipped for having no such agent."""
    tasks, skipped = [], []
    for agent in agents:
        make_agent(agent, "")  # an unknown name fails here, before any episode
    for env_id in env_ids:
        family = registry.resolve_id(env_id).family
        for agent in agents:
            if agent != "random" and make_agent(agent, family) is None:
                skipped.append((agent, env_id))
                continue
            tasks.extend(EpisodeTask(agent, env_id, k, seed + k, max_steps)
                         for k in range(episodes))
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
    """Play one episode; returns the record that goes to disk."""
    entry = registry.resolve_id(task.env_id)
    kwargs = {} if task.max_steps is None else {"max_steps": task.max_steps}
    env = registry.make(entry.id, **kwargs)
    agent = make_agent(task.agent, entry.family)
    start = time.perf_counter()
    try:
        agent.reset(env.unwrapped, task.seed)
        obs, info = env.reset(seed=task.seed)
        total, steps, terminated, truncated = 0.0, 0, False, False
        while not (terminated or truncated):
            obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
            total += float(reward)
            steps += 1
    finally:
        env.close()
    return {
        "agent": task.agent, "env_id": entry.id, "family": entry.family,
        "episode": task.episode, "seed": task.seed,
        "progress": float(info["progress"]), "success": bool(info["success"]),
        "return": total, "steps": steps, "terminated": bool(terminated),
        "truncated": bool(truncated), "invalid_actions": int(info["metrics"]["invalid_actions"]),
        "metrics": _jsonable(info["metrics"]), "seconds": time.perf_counter() - start,
    }


def _write_atomic(path: Path, record: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=1, sort_keys=True))
    os.replace(tmp, path)


def load_records(out: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((out / "episodes").glob("*/*/*.json"))]


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


def run(tasks: list[EpisodeTask], out: str | os.PathLike, workers: int = 1,
        progress_bar: bool = True, settings: dict | None = None) -> dict[str, int]:
    """Run every task not yet on disk. Returns counts of done, skipped-as-present, failed.

    `settings` (seed, max_steps, agents, envs, episodes) are recorded in run.json;
    a later run into the same folder must use the same seed and max_steps.
    """
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
        if workers <= 1:
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


def _call(task: EpisodeTask) -> dict:
    try:
        return run_episode(task)
    except Exception as exc:  # noqa: BLE001 - one failed episode must not end the run
        return {"error": f"{type(exc).__name__}: {exc}"}


def _finish(task: EpisodeTask, record: dict, out: Path, counts: dict, errors: Path) -> None:
    if "error" in record:
        counts["failed"] += 1
        with errors.open("a") as f:
            f.write(f"{task.agent} {task.env_id} episode {task.episode}: {record['error']}\n")
        return
    _write_atomic(task.path(out), record)
    counts["ran"] += 1
