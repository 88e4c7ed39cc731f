"""Decision statistics of the D&D envs per family, in the manner of DungeonBench's Table 3.

Plays every registered ``DnD-*`` id through the Gym layer with two party agents, the heuristic
baseline (``games/dnd/agent.py``) and the random masked agent, over N seeds each, and prints one
Markdown table per agent: for each family (the encounter file's ``family``: duel, objective,
boss; ``day`` for the Day track) the decisions per episode (mean), options per decision (mean of
the episodes' ``options_mean``: option slots shown, i.e. after splitting at 64), the largest
number of legal choices any decision had before splitting (``legal_options_max``: the paper's
"max options"), the win rate (the share of a day's fights won for days), and the episodes played. The figures come from the env's end-of-episode ``info["metrics"]``.

Usage: python benchmarks/dnd_decision_stats.py [--seeds 5] [--ids DnD-Encounter-WolfPack-v0 ...]
       [--json results/dnd_decision_stats.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections import defaultdict

import dungeonbench_gym
from dungeonbench_gym.agents.base import RandomAgent
from dungeonbench_gym.core.registry import REGISTRY
from dungeonbench_gym.games.dnd.agent import HeuristicPartyAgent

AGENTS = {"heuristic": HeuristicPartyAgent, "random": RandomAgent}
FAMILY_ORDER = ("duel", "objective", "boss", "day")


def family_of(env_id: str) -> str:
    entry = REGISTRY[env_id]
    if "day" in entry.kwargs:
        return "day"
    from dungeonbench_gym.dnd.scenario import load_encounter
    return load_encounter(entry.kwargs["scenario"]).family


def play(env_id: str, agent_name: str, seed: int) -> dict:
    env = dungeonbench_gym.make(env_id)
    agent = AGENTS[agent_name]()
    try:
        obs, info = env.reset(seed=seed)
        agent.reset(env, seed)
        done = False
        while not done:
            obs, _, term, trunc, info = env.step(agent.act(obs, info))
            done = term or trunc
        return dict(info["metrics"])
    finally:
        env.close()


def run(ids: list[str], seeds: int) -> dict:
    results: dict = {a: defaultdict(list) for a in AGENTS}
    for env_id in ids:
        fam = family_of(env_id)
        for agent_name in AGENTS:
            for seed in range(seeds):
                m = play(env_id, agent_name, seed)
                m["id"] = env_id
                results[agent_name][fam].append(m)
    return results


def summarise(episodes: list[dict]) -> dict:
    return {
        "episodes": len(episodes),
        "envs": len({e["id"] for e in episodes}),
        "decisions_per_episode": statistics.fmean(e["decisions"] for e in episodes),
        "options_per_decision": statistics.fmean(e["options_mean"] for e in episodes),
        "max_options": max(e["legal_options_max"] for e in episodes),
        "max_slots": max(e["options_max"] for e in episodes),
        "win": statistics.fmean(float(e.get("win", e.get("encounters_won", 0) / max(1, e.get("encounters", 1))))
                                for e in episodes),
    }


def markdown(results: dict, seeds: int, seconds: float) -> str:
    out = [(f"Machine: {platform.machine()} {platform.processor() or ''} ({os.cpu_count()} cores), "
            f"Python {platform.python_version()}; {seeds} seeds per env and agent; {seconds:.0f} s."), ""]
    for agent_name, fams in results.items():
        out += [f"### Party agent: {agent_name}", "",
                "| Family | Envs | Episodes | Decisions / episode | Options / decision | Max options (legal) "
                "| Max slots shown | Win |",
                "|---|---|---|---|---|---|---|---|"]
        for fam in sorted(fams, key=lambda f: (FAMILY_ORDER.index(f) if f in FAMILY_ORDER else 99, f)):
            s = summarise(fams[fam])
            out.append(f"| {fam} | {s['envs']} | {s['episodes']} | {s['decisions_per_episode']:.1f} | "
                       f"{s['options_per_decision']:.1f} | {s['max_options']} | {s['max_slots']} | {s['win']:.2f} |")
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5, help="episodes per env and agent (default 5)")
    ap.add_argument("--ids", nargs="*", help="env ids (default: every registered DnD-* id)")
    ap.add_argument("--json", help="also write the per-family figures here")
    args = ap.parse_args(argv)
    ids = args.ids or sorted(i for i in dungeonbench_gym.ids() if i.startswith("DnD-"))
    t0 = time.perf_counter()
    results = run(ids, args.seeds)
    seconds = time.perf_counter() - t0
    print(markdown(results, args.seeds, seconds))
    if args.json:
        os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"seeds": args.seeds, "seconds": seconds, "machine": platform.platform(),
                       "cpus": os.cpu_count(),
                       "families": {a: {fam: summarise(eps) for fam, eps in fams.items()}
                                    for a, fams in results.items()}}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
