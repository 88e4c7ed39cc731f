"""Baba Is AI speed: our env against its own bare rule engine, in one run, on one core.

There is no upstream package to compare with (BALROG's is git-only), so "raw"
is the engine itself: `rules.step` on boards from `levels.make_level`, random
moves, a new level when an episode ends. `tensor` and `text` are BabaIsAIEnv
with text=False / text=True on the same level and actions. The loops take
turns in slices (CPU time of this process); ratios are per repeat, median.

    python benchmarks/babaisai_speed.py --level goto_win --steps 20000 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

from dungeonbench_gym.games.babaisai.env import BabaIsAIEnv
from dungeonbench_gym.games.babaisai.levels import LEVELS, make_level
from dungeonbench_gym.games.babaisai.rules import step as engine_step

MAX_STEPS = 100


def engine_loop(level: str, actions: list[int]):
    """A generator: each send(n) plays n random moves on the bare engine, yields seconds."""
    seed = 0
    board = make_level(level, seed)
    moves, t = iter(actions), 0
    n = yield
    while True:
        start = time.process_time()
        for _ in range(n):
            board, won, lost = engine_step(board, next(moves))
            t += 1
            if won or lost or t >= MAX_STEPS:
                seed, t = seed + 1, 0
                board = make_level(level, seed)
        n = yield time.process_time() - start


def env_loop(level: str, actions: list[int], text: bool):
    env = BabaIsAIEnv(level, text=text, max_steps=MAX_STEPS)
    env.reset(seed=0)
    moves = iter(actions)
    n = yield
    while True:
        start = time.process_time()
        for _ in range(n):
            _, _, terminated, truncated, _ = env.step(next(moves))
            if terminated or truncated:
                env.reset()
        n = yield time.process_time() - start


def bench(level: str, steps: int, repeats: int, chunk: int = 1000) -> dict:
    actions = np.random.default_rng(0).integers(0, 5, steps).tolist()
    rates = {"engine": [], "tensor": [], "text": []}
    ratios = {"tensor": [], "text": []}
    for _ in range(repeats):
        loops = {"engine": engine_loop(level, actions), "tensor": env_loop(level, actions, False),
                 "text": env_loop(level, actions, True)}
        seconds = dict.fromkeys(loops, 0.0)
        for loop in loops.values():
            next(loop)
        for done in range(0, steps, chunk):
            for mode, loop in loops.items():
                seconds[mode] += loop.send(min(chunk, steps - done))
        for mode in loops:
            rates[mode].append(steps / seconds[mode])
        for mode in ratios:
            ratios[mode].append(seconds["engine"] / seconds[mode])
    return {"steps_per_second": {m: statistics.median(v) for m, v in rates.items()},
            "ratio_to_engine": {m: statistics.median(v) for m, v in ratios.items()}}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--level", default="goto_win", choices=[*LEVELS, "all"])
    p.add_argument("--steps", type=int, default=20000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json", action="store_true", help="print one JSON object instead")
    args = p.parse_args(argv)
    levels = LEVELS if args.level == "all" else (args.level,)
    results = {lv: bench(lv, args.steps, args.repeats) for lv in levels}
    if args.json:
        print(json.dumps({"machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                                      "python": sys.version.split()[0]},
                          "steps": args.steps, "repeats": args.repeats, "results": results},
                         indent=1))
        return 0
    print(f"Baba Is AI, {args.steps} random steps x {args.repeats} repeats (median), one core, "
          f"CPU time")
    print(f"{'level':<58} {'engine/s':>9} {'tensor/s':>9} {'text/s':>8} {'tensor':>7} {'text':>6}")
    for lv, r in results.items():
        s, q = r["steps_per_second"], r["ratio_to_engine"]
        print(f"{lv:<58} {s['engine']:9,.0f} {s['tensor']:9,.0f} {s['text']:8,.0f} "
              f"{q['tensor']:7.3f} {q['text']:6.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
