"""Validity of the D&D Day track: is a day harder than its fights played alone, and does a
planning party beat a random one?

For every day in scenarios/dnd/days/ and seeds 0..N-1 this plays:
* the heuristic party on the day (battles by ``heuristic.choose``, intermissions by
  ``advice.intermission.plan_intermission``);
* the same party on the day's fights played alone (``DayRun(rested=True)``: every fight at full
  strength, no intermission), the control;
* a random party (uniform over the legal options, battles and intermissions), on the day.
Enemies are always the heuristic. Prints a Markdown table: full clears and fights won.

    python benchmarks/dnd_day_validity.py --seeds 20
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from dungeonbench_gym.dnd import heuristic
from dungeonbench_gym.dnd.day import DayRun, day_names, load_day
from dungeonbench_gym.dnd.advice.intermission import plan_intermission


def play(day, seed: int, party: str, rested: bool) -> DayRun:
    run = DayRun(day, seed, rested=rested)
    rng = np.random.default_rng(10_000 + seed)
    while not run.over:
        if not run.party_to_decide():
            run.choose(heuristic.choose(run.battle))
        elif party == "random":
            run.choose(int(rng.integers(len(run.decision.options))))
        elif run.phase == "battle":
            run.choose(heuristic.choose(run.battle))
        else:
            run.choose(plan_intermission(run))
    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--days", nargs="*", default=None, help="day names (default: all)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    print(f"D&D Day validity, seeds 0-{args.seeds - 1} ({platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()})\n")
    print("| day | fights | baseline: full clears (day) | baseline: full clears (fights alone) "
          "| baseline: fights won (day / alone) | baseline: short rests/day | random: full clears (day) "
          "| random: fights won |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    totals = np.zeros(6)
    for name in args.days or day_names():
        d = load_day(name)
        n = len(d.stages)
        day_runs = [play(d, s, "baseline", False) for s in range(args.seeds)]
        alone = [play(d, s, "baseline", True) for s in range(args.seeds)]
        rand = [play(d, s, "random", False) for s in range(args.seeds)]
        row = (sum(r.full_clear for r in day_runs), sum(r.full_clear for r in alone),
               sum(r.encounters_won for r in day_runs), sum(r.encounters_won for r in alone),
               sum(r.full_clear for r in rand), sum(r.encounters_won for r in rand))
        totals += row
        rests = sum(r.short_rests_used for r in day_runs) / args.seeds
        print(f"| {d.name} | {n} | {row[0]}/{args.seeds} | {row[1]}/{args.seeds} | "
              f"{row[2]}/{n * args.seeds} / {row[3]}/{n * args.seeds} | {rests:.2f} | {row[4]}/{args.seeds} | "
              f"{row[5]}/{n * args.seeds} |")
    print(f"\nAll days: full clears {int(totals[0])} (day) vs {int(totals[1])} (fights alone); fights won "
          f"{int(totals[2])} vs {int(totals[3])}; random party {int(totals[4])} clears, {int(totals[5])} fights. "
          f"{time.perf_counter() - t0:.0f} s.")


if __name__ == "__main__":
    main()
