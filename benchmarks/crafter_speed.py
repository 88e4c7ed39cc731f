"""Crafter speed: our CrafterEnv against raw crafter.Env, in the same run.

Four ways of playing, each stepped with uniformly random actions (all 17 indices,
from a seeded generator, the same sequence for every way):

  raw     crafter.Env(seed=...) as published (draws a 64x64 picture every step)
  tensor  DungeonBench/Crafter-v0 (gymnasium.make), numeric observation, no picture
  text    the same with text=True (info["text"] every step)
  pixels  the same with pixels=True (picture in the observation every step)

The main figure times only `step` calls: every reset (start and after a death
or the step limit) is taken out of the clock for every way alike, and reported
apart as seconds per reset (world generation). A second figure counts the
resets in (random play dies every ~150-200 steps, so resets weigh heavily). Each way runs `--repeats` times, the ways
interleaved; the figure is the median (or `--stat best`) of the repeats. Ratios
are against raw from the same run.

    python benchmarks/crafter_speed.py --steps 3000 --repeats 5 [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

import numpy as np

WAYS = ("raw", "tensor", "text", "pixels")


def _make(way: str, seed: int):
    if way == "raw":
        import crafter
        env = crafter.Env(seed=seed)

        def reset():
            env.reset()

        def step(a):
            return env.step(a)[2]
    else:
        import dungeonbench_gym
        kwargs = {"text": way == "text", "pixels": way == "pixels"}
        env = dungeonbench_gym.make("Crafter-v0", **kwargs)

        def reset():
            env.reset(seed=seed)

        def step(a):
            _, _, terminated, truncated, _ = env.step(a)
            return terminated or truncated
    return reset, step


def run_once(way: str, steps: int, seed: int) -> dict:
    reset, step = _make(way, seed)
    actions = np.random.default_rng(seed).integers(0, 17, steps).tolist()
    t0 = time.perf_counter()
    reset()
    reset_time, resets = time.perf_counter() - t0, 1
    step_time = 0.0
    for a in actions:
        t0 = time.perf_counter()
        done = step(a)
        step_time += time.perf_counter() - t0
        if done:
            t0 = time.perf_counter()
            reset()
            reset_time += time.perf_counter() - t0
            resets += 1
    return {"steps_per_s": steps / step_time, "reset_s": reset_time / resets, "resets": resets,
            "with_resets_steps_per_s": steps / (step_time + reset_time)}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=3000, help="timed steps per repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stat", choices=("median", "best"), default="median")
    parser.add_argument("--ways", nargs="+", choices=WAYS, default=list(WAYS))
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    ways = ["raw"] + [w for w in args.ways if w != "raw"]

    runs = {w: [] for w in ways}
    for r in range(args.repeats):
        for w in ways:
            runs[w].append(run_once(w, args.steps, args.seed + r))
    pick = statistics.median if args.stat == "median" else max
    result = {"steps": args.steps, "repeats": args.repeats, "stat": args.stat,
              "machine": f"{platform.machine()}, {platform.python_implementation()} "
                         f"{platform.python_version()}", "ways": {}}
    raw = pick(x["steps_per_s"] for x in runs["raw"])
    raw_all = pick(x["with_resets_steps_per_s"] for x in runs["raw"])
    for w in ways:
        sps = pick(x["steps_per_s"] for x in runs[w])
        sps_all = pick(x["with_resets_steps_per_s"] for x in runs[w])
        result["ways"][w] = {
            "steps_per_s": round(sps, 1),
            "ratio_to_raw": round(sps / raw, 2),
            "reset_s": round(statistics.median(x["reset_s"] for x in runs[w]), 3),
            "resets": sum(x["resets"] for x in runs[w]),
            "with_resets_steps_per_s": round(sps_all, 1),
            "with_resets_ratio_to_raw": round(sps_all / raw_all, 2),
            "all_steps_per_s": [round(x["steps_per_s"], 1) for x in runs[w]],
        }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"Crafter, {args.steps} random steps x {args.repeats} repeats "
              f"({args.stat}), resets excluded from the clock")
        print(f"{'way':8} {'steps/s':>9} {'x raw':>7} {'s/reset':>8} "
              f"{'steps/s incl. resets':>21} {'x raw':>7}")
        for w, v in result["ways"].items():
            print(f"{w:8} {v['steps_per_s']:9.1f} {v['ratio_to_raw']:7.2f} {v['reset_s']:8.3f} "
                  f"{v['with_resets_steps_per_s']:21.1f} {v['with_resets_ratio_to_raw']:7.2f}")
    return result


if __name__ == "__main__":
    main()
