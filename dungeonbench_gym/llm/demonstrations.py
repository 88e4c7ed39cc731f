"""Demonstration episodes for the BALROG protocol's few-shot strategy.

BALROG's few-shot agent opens its chat with a recorded episode of the same task
(observations and the actions taken). Ours are recorded by the project's own
baselines (the BabyAI bot, the Baba Is AI solver, the walkthrough player, ...)
with `scripts/record_balrog_demos.py`, on seeds the suite never plays, and ship
as data: one JSON file per env id in `dungeonbench_gym/llm/demos/`:

    {"env_id": "BabyAI-GoTo-v0", "agent": "baseline", "seed": 1000000,
     "success": true, "steps": [{"observation": "...", "action": "turn left"}, ...]}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.errors import DungeonBenchError, FileFormatError

DEMO_DIR = Path(__file__).resolve().parent / "demos"
RECORD_SCRIPT = "scripts/record_balrog_demos.py"


def env_id_of(env: Any) -> str:
    spec = getattr(env, "spec", None) or getattr(getattr(env, "unwrapped", env), "spec", None)
    if spec is None or not getattr(spec, "id", None):
        raise DungeonBenchError("few-shot demonstrations are looked up by env id: make the env "
                                "with dungeonbench_gym.make or gymnasium.make")
    return spec.id.split("/")[-1]


def demo_path(env_id: str, folder: Path = DEMO_DIR) -> Path:
    return folder / f"{env_id.split('/')[-1]}.json"


def read_demonstration(path: Path) -> list[tuple[str, str]]:
    """The (observation, action) pairs of one demonstration file, checked."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise FileFormatError(path, "(file)", f"is not valid JSON ({exc.msg}, line {exc.lineno})",
                              f"record it again with {RECORD_SCRIPT}") from None
    steps = doc.get("steps") if isinstance(doc, dict) else None
    if not isinstance(steps, list) or not steps:
        raise FileFormatError(path, "steps", "is missing or empty",
                              "give a list of {observation, action} objects")
    pairs = []
    for n, step in enumerate(steps):
        if not (isinstance(step, dict) and isinstance(step.get("observation"), str)
                and isinstance(step.get("action"), str)):
            raise FileFormatError(path, f"steps[{n}]", "needs string fields observation and action",
                                  f"record it again with {RECORD_SCRIPT}")
        pairs.append((step["observation"], step["action"]))
    return pairs


def load_demonstrations(env: Any, folder: Path = DEMO_DIR) -> list[list[tuple[str, str]]]:
    """The recorded demonstration episodes of this env (BALROG's icl_episodes: one)."""
    env_id = env_id_of(env)
    path = demo_path(env_id, folder)
    if not path.is_file():
        raise DungeonBenchError(f"no few-shot demonstration is recorded for {env_id} "
                                f"(looked for {path}): run `python {RECORD_SCRIPT} --envs "
                                f"{env_id}`, or use another strategy")
    return [read_demonstration(path)]


def demonstration_messages(episodes: list[list[tuple[str, str]]]) -> list[dict[str, str]]:
    """The demonstrations as chat turns, each episode between start and end markers."""
    messages: list[dict[str, str]] = []
    for n, episode in enumerate(episodes, 1):
        messages.append({"role": "user", "content": f"--- Demonstration episode {n} begins ---"})
        for observation, action in episode:
            messages.append({"role": "user", "content": "Observation:\n" + observation})
            messages.append({"role": "assistant", "content": action})
        messages.append({"role": "user", "content": f"--- Demonstration episode {n} ends ---"})
    return messages
