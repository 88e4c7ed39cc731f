"""Solve every Baba Is AI level for many seeds; print per-level and per-family figures.

For each of the 40 levels and seeds ``0..N-1`` (``--seeds``, default 50):
generate the board with ``make_level_with_plan`` (which also returns the
generator's certified winning plan), then run the exact shortest-plan search
``solver.solve`` with a state cap (``--max-states``).  Per level:

  certified  boards whose certificate plan wins when replayed (<= 100 steps)
  solved     boards for which ``solve`` found a shortest plan within the cap
             that wins when replayed and is <= 100 steps
  med_len    median shortest-plan length over the solved boards
  med_cert   median certificate-plan length (an upper bound)
  capped     boards where ``solve`` hit the state cap (no shortest plan known)
  secs       time spent on the level (generation + solving)

A level family is the level name without its distractors ("distr_obj",
"distr_rule", "distr_obj_rule", "distr_win_rule", "irrelevant_rule"): e.g.
goto_win, two_room-break_stop-make_win.  The family table pools the shortest
plans of all its levels' boards.

Usage: python benchmarks/babaisai_solve_all.py [--seeds 50] [--max-states N]
       [--workers 2] [--json results/babaisai_solutions.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from dungeonbench_gym.games.babaisai.levels import LEVELS, make_level_with_plan
from dungeonbench_gym.games.babaisai.solver import replay, solve

DISTRACTORS = {"distr_obj", "distr_rule", "distr_obj_rule", "distr_win_rule", "irrelevant_rule"}


def family(level: str) -> str:
    return "-".join(part for part in level.split("-") if part not in DISTRACTORS)


def solve_level(name: str, seeds: int, max_states: int) -> dict:
    start = time.process_time()
    boards = []
    for seed in range(seeds):
        board, plan = make_level_with_plan(name, seed)
        certified = bool(replay(board, plan)[1]) and len(plan) <= 100
        best = solve(board, max_states)
        shortest = (len(best) if best is not None and replay(board, best)[1]
                    and 0 < len(best) <= 100 else None)
        boards.append({"seed": seed, "certificate": len(plan) if certified else None,
                       "shortest": shortest, "capped": best is None})
    return {"level": name, "family": family(name), "boards": boards,
            "cpu_seconds": round(time.process_time() - start, 1)}


def _median(values) -> str:
    return f"{statistics.median(values):g}" if values else "-"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--max-states", type=int, default=2_000_000)
    ap.add_argument("--levels", nargs="*", default=None, help="subset of level names")
    ap.add_argument("--workers", type=int, default=1, help="levels solved in parallel")
    ap.add_argument("--json", default="", help="also write every board's figures here")
    args = ap.parse_args()
    names = args.levels or list(LEVELS)
    wall = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(solve_level, names, [args.seeds] * len(names),
                                [args.max_states] * len(names)))

    print("| level | certified | shortest found | median shortest | median certified "
          "| hit cap | CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        b = r["boards"]
        short = [x["shortest"] for x in b if x["shortest"] is not None]
        cert = [x["certificate"] for x in b if x["certificate"] is not None]
        print(f"| {r['level']} | {len(cert)} | {len(short)} | {_median(short)} | "
              f"{_median(cert)} | {sum(x['capped'] for x in b)} | {r['cpu_seconds']} |")

    print()
    print("| family | levels | boards | shortest found | median shortest | range |")
    print("|---|---:|---:|---:|---:|---:|")
    families: dict[str, list[dict]] = {}
    for r in results:
        families.setdefault(r["family"], []).append(r)
    for fam, rs in families.items():
        b = [x for r in rs for x in r["boards"]]
        short = [x["shortest"] for x in b if x["shortest"] is not None]
        span = f"{min(short)}-{max(short)}" if short else "-"
        print(f"| {fam} | {len(rs)} | {len(b)} | {len(short)} | {_median(short)} | {span} |")

    n = sum(len(r["boards"]) for r in results)
    n_cert = sum(x["certificate"] is not None for r in results for x in r["boards"])
    n_short = sum(x["shortest"] is not None for r in results for x in r["boards"])
    elapsed = time.perf_counter() - wall
    print(f"\ntotal: certified {n_cert}/{n}, shortest found {n_short}/{n}, cap "
          f"{args.max_states:,} states, {elapsed:.0f} s wall with {args.workers} worker(s)")
    if args.json:
        os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"settings": vars(args), "wall_seconds": round(elapsed, 1),
                       "machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                                   "python": sys.version.split()[0]},
                       "levels": results}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
