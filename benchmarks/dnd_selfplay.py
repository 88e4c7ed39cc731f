"""Heuristic-vs-heuristic self-play over every D&D encounter: speed, option enumeration, memory.

The heuristic planner plays both sides through the engine's option lists (no Gym layer), so the
figures measure the rules engine itself:

  decisions/s     decisions surfaced and applied per second (one core)
  episodes/s      whole battles per second
  enum p50/p99/max  time to build one decision's option list (``Battle.decision``), ms
  win             the heuristic party's win rate over the seeds
  max opts        the largest option count of any surfaced decision (N = 64 is the cap)
  mem/env         tracemalloc: bytes held by one freshly built battle (scenario data shared)
  env steps/s     the Gym layer too: a random masked party through DnDEncounterEnv (observation
                  encoding, info, enemy turns inside step), 5 seeds

Targets (issue 3): >= 2,000 decisions/s on one core, p99 enumeration <= 5 ms.

Each scenario's battles are played `--repeats` times (default 5) and the fastest pass is reported
(the battles are identical in every pass; the fastest is the least disturbed by other processes).
The passes go in rounds over all the scenarios rather than back to back, so a slow spell of the
machine (a shared VM's speed moves by up to 2x for seconds at a time with nothing else running)
costs a scenario one pass, not all of them; a fixed pure-Python probe timed before each round
shows how fast the machine was. ``--days`` also plays every Day-track day (the planner on both
sides, intermissions included) and reports it the same way.

Usage: python benchmarks/dnd_selfplay.py [--seeds 20] [--repeats 5] [--days] [--json results/dnd_selfplay.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
import tracemalloc

import numpy as np

from dungeonbench_gym.dnd import heuristic
from dungeonbench_gym.dnd.day import DayRun
from dungeonbench_gym.dnd.advice.intermission import plan_intermission
from dungeonbench_gym.dnd.scenario import encounter_names, load_encounter
from dungeonbench_gym.games.dnd.env import DnDEncounterEnv


def _quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def _play(start, seeds: int) -> tuple:
    """One pass over the seeds: (seconds, decisions, wins, max options, enumeration times in ms).
    ``start(seed)`` gives a battle or a day run; the planner makes every decision of it."""
    enum_ms: list[float] = []
    decisions = wins = max_options = 0
    clock = time.perf_counter
    t0 = clock()
    for seed in range(seeds):
        game = start(seed)
        day = hasattr(game, "phase")   # a DayRun: fights, intermissions and rests
        while not (game.over if day else game.outcome is not None):
            t = clock()
            d = game.decision   # builds the option list (a battle caches it)
            enum_ms.append((clock() - t) * 1000)
            max_options = max(max_options, len(d.options))
            if day:
                game.choose(heuristic.choose(game.battle) if game.phase == "battle" else plan_intermission(game))
            else:
                game.choose(heuristic.choose(game))
            decisions += 1
        wins += game.full_clear if day else game.outcome == "win"
    return clock() - t0, decisions, wins, max_options, enum_ms


def _selfplay(s, seeds: int) -> tuple:
    """_play over an encounter's battles."""
    return _play(s.build, seeds)


def _day_selfplay(day, seeds: int) -> tuple:
    """_play over whole days: fights and intermissions."""
    return _play(lambda seed: DayRun(day, seed), seeds)


def machine_probe_ms() -> float:
    """A fixed pure-Python workload (dict and integer arithmetic, no engine code), best of 3, in ms:
    printed per round so that a run's figures can be read against the machine's speed at the time
    (lower is faster; on the dev VMs it has read between about 25 and 100 ms with nothing else running)."""
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        d: dict = {}
        acc = 0
        for i in range(200_000):
            d[i & 1023] = d.get(i & 1023, 0) + i
            acc += (i * 7) % 13
        best = min(best, time.perf_counter() - t0)
    return best * 1000


def _summary(name: str, seeds: int, passes: list) -> dict:
    assert len({p[1:4] for p in passes}) == 1, f"{name}: self-play is not deterministic"
    elapsed, decisions, wins, max_options, enum_ms = min(passes, key=lambda p: p[0])
    return {"scenario": name, "episodes": seeds, "decisions": decisions, "seconds": elapsed,
            "decisions_per_s": decisions / elapsed, "episodes_per_s": seeds / elapsed,
            "enum_p50_ms": statistics.median(enum_ms), "enum_p99_ms": _quantile(enum_ms, 0.99),
            "enum_max_ms": max(enum_ms), "win_rate": wins / seeds, "max_options": max_options,
            "passes_s": sorted(p[0] for p in passes)}


def _memory_and_env(name: str, s) -> dict:
    """tracemalloc bytes of one fresh battle, and the Gym layer's speed with a random masked party."""
    clock = time.perf_counter
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    battle = s.build(12345)
    _ = battle.decision
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    mem = sum(st.size_diff for st in after.compare_to(before, "filename"))
    del battle
    env = DnDEncounterEnv(name)
    rng = np.random.default_rng(0)
    steps, t0 = 0, clock()
    for seed in range(5):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
            done = term or trunc
    return {"mem_per_env_kb": mem / 1024, "env_steps_per_s": steps / (clock() - t0)}


def run_scenario(name: str, seeds: int, repeats: int = 5) -> dict:
    """One encounter's figures, its passes back to back (main() spreads them over rounds)."""
    s = load_encounter(name)
    s.build(0)   # warm the shared map caches once, as a long-running env would
    row = _summary(name, seeds, [_selfplay(s, seeds) for _ in range(repeats)])
    row.update(_memory_and_env(name, s))
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=5, help="self-play passes per scenario; the fastest is reported")
    ap.add_argument("--days", action="store_true", help="also play every Day-track day")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    names = encounter_names()
    scenarios = {n: load_encounter(n) for n in names}
    for s in scenarios.values():
        s.build(0)   # warm the shared map caches once, as a long-running env would
    jobs = [(n, lambda s=s: _selfplay(s, args.seeds)) for n, s in scenarios.items()]
    if args.days:
        from dungeonbench_gym.dnd.day import day_names, load_day
        jobs += [(f"day:{d}", lambda day=load_day(d): _day_selfplay(day, args.seeds)) for d in day_names()]
    passes: dict = {n: [] for n, _ in jobs}
    probes = []
    for _ in range(args.repeats):   # rounds over everything: a slow spell costs each one pass at most
        probes.append(machine_probe_ms())
        for n, job in jobs:
            passes[n].append(job())
    probes.append(machine_probe_ms())
    rows = []
    for n, _ in jobs:
        row = _summary(n, args.seeds, passes[n])
        if n in scenarios:
            row.update(_memory_and_env(n, scenarios[n]))
        rows.append(row)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}; one process, heuristic vs heuristic, {args.seeds} seeds, "
          f"fastest of {args.repeats} passes (in rounds)")
    print("machine probe before each round and at the end (ms, lower is faster): "
          + ", ".join(f"{p:.0f}" for p in probes))
    head = f"{'scenario':22} {'dec/s':>7} {'ep/s':>6} {'p50ms':>6} {'p99ms':>6} {'maxms':>6} {'win':>5} {'maxopt':>6} {'KB/env':>7} {'env st/s':>8}"
    print(head)
    for r in rows:
        extra = (f" {r['mem_per_env_kb']:7.0f} {r['env_steps_per_s']:8.0f}" if "mem_per_env_kb" in r else "")
        print(f"{r['scenario']:22} {r['decisions_per_s']:7.0f} {r['episodes_per_s']:6.1f} {r['enum_p50_ms']:6.2f} "
              f"{r['enum_p99_ms']:6.2f} {r['enum_max_ms']:6.2f} {r['win_rate']:5.2f} {r['max_options']:6d}{extra}")
    enc = [r for r in rows if r["scenario"] in scenarios]
    total_d = sum(r["decisions"] for r in enc)
    total_s = sum(r["seconds"] for r in enc)
    print(f"{'encounters':22} {total_d / total_s:7.0f} {sum(r['episodes'] for r in enc) / total_s:6.1f}")
    slow = [r["scenario"] for r in rows if r["decisions_per_s"] < 2000]
    worst = max(r["enum_p99_ms"] for r in rows)
    print(f"targets (issue 3): >= 2,000 decisions/s: {len(rows) - len(slow)} of {len(rows)}"
          + (f" (below: {', '.join(slow)})" if slow else "") + f"; p99 <= 5 ms: worst {worst:.2f} ms")
    if args.json:
        os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
        with open(args.json, "w") as f:
            json.dump({"machine_probe_ms": probes, "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
