"""`dungeonbench-gym export balrog RESULTS OUT`: a `--suite balrog` run in BALROG's
submission layout (balrog-ai/experiments, `submissions/LLM/<date>_<agent>/`).

    OUT/
      summary.json                     BALROG's keys: average_progress, standard_error,
                                       environments{env: progression_percentage,
                                       standard_error, episodes_played}, total_input_tokens,
                                       total_output_tokens, client, agent
      <env>/<env>_summary.json         per env: progression_percentage, standard_error,
                                       average_steps, episodes_played, tasks{...},
                                       input_tokens, output_tokens
      <env>/<task>/<task>_run_NN.json  one episode log per episode (BALROG's keys; BALROG's
                                       path, so env/goto_win's is env/goto_win/env/goto_win_run_00)
      <env>/<task>/<task>_run_NN.csv   its steps: Step, Action, Reasoning, Observation,
                                       Reward, Done
      metadata.yaml, README.md         what the leaderboard shows; how the run was made
      dungeonbench_extra.json          families BALROG does not have, and what is missing:
                                       ours, never in summary.json

Envs and tasks are named as BALROG names them (`balrog_name`: the NetHack family is
`nle`, BabyAI's tasks are `BabyAI-MixedTrainLocal-v0/<task>`, Baba Is AI's `env/<level>`).
Standard errors are BALROG's (`balrog/utils.py`): the population standard deviation
over episodes divided by sqrt(n), per task and per env, in percent; the overall
error is sqrt(sum of the env errors squared) / number of envs; the average is the
mean of the env averages.
"""

from __future__ import annotations

import csv
import datetime
import json
import math
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from ..core import registry
from ..core.errors import DungeonBenchError
from .runner import EPISODE_GLOB, read_record
from .summary import combine_families

# our family -> BALROG's env name
BALROG_ENVS = {"babyai": "babyai", "babaisai": "babaisai", "crafter": "crafter",
               "textworld": "textworld", "minihack": "minihack", "nethack": "nle"}
_BABYAI_TASK = "BabyAI-MixedTrainLocal-v0/{task}"
_TEXTWORLD_TASKS = {"treasure_hunter": "treasure_hunter", "cooking": "the_cooking_game",
                    "coin_collector": "coin_collector"}


def balrog_name(env_id: str) -> tuple[str, str] | None:
    """(BALROG env, BALROG task) of one of our ids, or None where BALROG has no such task."""
    try:
        entry = registry.resolve_id(env_id)
    except DungeonBenchError:
        return None
    env = BALROG_ENVS.get(entry.family)
    kwargs = entry.kwargs or {}
    if env == "babyai":
        return env, _BABYAI_TASK.format(task=kwargs["task"])
    if env == "babaisai":
        return env, f"env/{kwargs['level']}"
    if env == "crafter":
        return env, "default"
    if env == "textworld":
        return env, _TEXTWORLD_TASKS[kwargs["task"]]
    if env == "minihack":
        return env, f"MiniHack-{kwargs['task']}-v0"
    if env == "nle" and entry.id == "NetHack-v0":
        return env, "NetHackChallenge-v0"
    return None


def _mean_se(values: list[float]) -> tuple[float, float]:
    """Mean and BALROG's standard error (population SD / sqrt(n); 0 for one episode)."""
    n = len(values)
    if not n:
        return 0.0, 0.0
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / n)
    return mean, sd / math.sqrt(n)


def _episodes(results: Path) -> list[tuple[dict, list[dict]]]:
    found = []
    for path in sorted((results / "episodes").glob(EPISODE_GLOB)):
        record, problem = read_record(path)
        if record is None:
            raise DungeonBenchError(f"{path}: {problem}; rerun the eval to repair it, then export")
        steps = []
        trajectory = path.with_suffix(".trajectory.jsonl")
        if trajectory.is_file():
            steps = [json.loads(line) for line in trajectory.read_text().splitlines() if line]
        found.append((record, steps))
    return found


def _client_block(record: dict) -> dict[str, Any]:
    client = (record.get("llm") or {}).get("client") or {}
    spec = record.get("agent_spec") or {}
    return {"client_name": client.get("provider", spec.get("client")),
            "model_id": client.get("model", spec.get("model")),
            "base_url": spec.get("base_url"),
            "generate_kwargs": {"temperature": client.get("temperature"),
                                "max_tokens": client.get("max_tokens")}}


def _agent_block(record: dict) -> dict[str, Any]:
    spec = record.get("agent_spec") or {}
    return {"type": spec.get("strategy", "naive"), "remember_cot": True,
            "max_text_history": spec.get("history", 16), "max_image_history": 0,
            "max_cot_history": 1, "protocol": spec.get("protocol", "options"),
            "dungeonbench_agent": spec.get("label", record.get("agent"))}


def _episode_log(record: dict, steps: list[dict], task: str, index: int) -> dict[str, Any]:
    frequency: Counter = Counter(s.get("label", str(s.get("action"))) for s in steps)
    agent_steps = [s.get("agent") or {} for s in steps]
    log = {"task": task, "action_frequency": dict(frequency),
           "input_tokens": sum(int(a.get("prompt_tokens") or 0) for a in agent_steps),
           "output_tokens": sum(int(a.get("completion_tokens") or 0) for a in agent_steps),
           "episode_return": record["return"], "num_steps": record["steps"],
           "failed_candidates": [a.get("answer") if a.get("answer") is not None
                                 else (a.get("completions") or [""])[-1]
                                 for a in agent_steps if a.get("fell_back")],
           "progression": record["progress"], "process_num": None, "seed": record["seed"],
           "agent": _agent_block(record), "client": _client_block(record),
           "dungeonbench": {"env_id": record["env_id"], "episode": record["episode"],
                            "success": record["success"], "run_index": index}}
    if record["terminated"] or record["truncated"]:
        log["done"] = True
    return log


def _write_csv(path: Path, steps: list[dict]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_MINIMAL)
        writer.writerow(["Step", "Action", "Reasoning", "Observation", "Reward", "Done"])
        for n, step in enumerate(steps):
            agent = step.get("agent") or {}
            following = (steps[n + 1].get("agent") or {}) if n + 1 < len(steps) else {}
            reasoning = (agent.get("completions") or [""])[-1]
            writer.writerow([n, step.get("label", ""), reasoning,
                             following.get("observation", ""), step.get("reward", 0.0),
                             n + 1 == len(steps)])


def export(results: str | Path, out: str | Path, *, agent: str | None = None,
           name: str | None = None, oss: bool = False, any_protocol: bool = False,
           date: str | None = None) -> dict[str, Any]:
    """Write the submission folder; returns the top-level summary."""
    results, out = Path(results), Path(out)
    episodes = _episodes(results)
    if not episodes:
        raise DungeonBenchError(f"{results}: no episode files under episodes/; run "
                                "`dungeonbench-gym eval --suite balrog ...` first")
    labels = sorted({r["agent"] for r, _ in episodes})
    if agent is None and len(labels) > 1:
        raise DungeonBenchError(f"{results} holds {len(labels)} agents ({', '.join(labels)}): "
                                "choose one with --agent")
    agent = agent or labels[0]
    if agent not in labels:
        raise DungeonBenchError(f"--agent {agent}: not in {results} (found {', '.join(labels)})")
    chosen = [(r, s) for r, s in episodes if r["agent"] == agent]
    protocols = {(r.get("agent_spec") or {}).get("protocol", "options") for r, _ in chosen}
    if protocols != {"balrog"} and not any_protocol:
        raise DungeonBenchError(
            f"agent {agent} played with the {', '.join(sorted(protocols))} protocol, not "
            "BALROG's: its numbers are not comparable with BALROG's leaderboard. Run the eval "
            "with --protocol balrog (or pass --any-protocol to export it anyway, labelled)")
    if out.exists() and any(out.iterdir()):
        raise DungeonBenchError(f"{out} exists and is not empty: give a new folder")

    per_env: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    others: dict[str, list[float]] = defaultdict(list)
    for record, steps in sorted(chosen, key=lambda rs: (rs[0]["env_id"], rs[0]["episode"])):
        named = balrog_name(record["env_id"])
        if named is None:
            others[record["env_id"]].append(record["progress"])
            continue
        per_env[named[0]][named[1]].append((record, steps))

    env_summaries: dict[str, dict[str, Any]] = {}
    first = chosen[0][0]
    for env, tasks in sorted(per_env.items()):
        progress, steps_total, tokens_in, tokens_out, task_summaries = [], 0, 0, 0, {}
        for task, runs in sorted(tasks.items()):
            values = []
            for index, (record, steps) in enumerate(runs):
                log = _episode_log(record, steps, task, index)
                # BALROG's own path: <env>/<task>/<task>_run_NN (a task with a '/' nests twice)
                path = out / env / task / f"{task}_run_{index:02d}.json"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(log, indent=4))
                _write_csv(path.with_suffix(".csv"), steps)
                values.append(log["progression"])
                steps_total += log["num_steps"]
                tokens_in += log["input_tokens"]
                tokens_out += log["output_tokens"]
            mean, se = _mean_se(values)
            task_summaries[task] = {"progression_percentage": 100 * mean,
                                    "standard_error": 100 * se, "episodes_played": len(values)}
            progress += values
        mean, se = _mean_se(progress)
        summary = {"progression_percentage": 100 * mean, "standard_error": 100 * se,
                   "average_steps": steps_total / len(progress), "episodes_played": len(progress),
                   "tasks": task_summaries, "input_tokens": tokens_in, "output_tokens": tokens_out}
        (out / env / f"{env}_summary.json").write_text(json.dumps(summary, indent=4))
        env_summaries[env] = summary

    average, error = combine_families(
        [(s["progression_percentage"], s["standard_error"]) for s in env_summaries.values()]
    ) if env_summaries else (0.0, 0.0)
    top = {"average_progress": average, "standard_error": error,
           "environments": {env: {k: s[k] for k in ("progression_percentage", "standard_error",
                                                     "episodes_played")}
                            for env, s in env_summaries.items()},
           "total_input_tokens": sum(s["input_tokens"] for s in env_summaries.values()),
           "total_output_tokens": sum(s["output_tokens"] for s in env_summaries.values()),
           "client": _client_block(first), "agent": _agent_block(first)}
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(top, indent=4))

    missing = sorted(set(BALROG_ENVS.values()) - set(env_summaries))
    extra = {"note": ("families and tasks BALROG does not have, scored by dungeonbench-gym; "
                      "never part of summary.json"),
             "other_envs": {env_id: {"progression_percentage": 100 * _mean_se(v)[0],
                                     "standard_error": 100 * _mean_se(v)[1],
                                     "episodes_played": len(v)} for env_id, v in others.items()},
             "balrog_envs_missing": missing,
             "protocols": sorted(protocols)}
    (out / "dungeonbench_extra.json").write_text(json.dumps(extra, indent=4))
    day = date or datetime.date.today().isoformat()
    model = _client_block(first)["model_id"] or agent
    (out / "metadata.yaml").write_text(
        f"name: {json.dumps(name or model)}\noss: {'true' if oss else 'false'}\nsite: null\n"
        f"verified: false\ntrajs: True\ndate: {json.dumps(day)}\n")
    lines = [f"# {name or model}", "",
             f"Played with dungeonbench-gym (`--suite balrog --protocol "
             f"{'/'.join(sorted(protocols))}`), agent `{agent}`.", "",
             "Differences from BALROG's own runs are listed in dungeonbench-gym's docs/balrog.md."]
    if missing:
        lines += ["", f"Not played, so the average is over fewer envs than BALROG's: "
                      f"{', '.join(missing)}."]
    if protocols != {"balrog"}:
        lines += ["", "Not BALROG's protocol: these numbers are not comparable with its "
                      "leaderboard."]
    (out / "README.md").write_text("\n".join(lines) + "\n")
    return top
