"""Solve every Baba Is AI level for many seeds and print per-level figures.

For each of the 40 levels and seeds ``0..N-1`` (``--seeds``, default 50):
generate the board with ``make_level_with_plan`` (which also returns a
certified winning plan), then run the exact shortest-plan search
``solver.solve`` with a state cap (``--max-states``).  Columns:

  certified  boards whose certificate plan wins when replayed (<= 100 steps)
  solved     boards for which ``solve`` found a shortest plan within the cap
             that wins when replayed and is <= 100 steps
  med_len    median shortest-plan length over the solved boards
  med_cert   median certificate-plan length (an upper bound)
  capped     boards where ``solve`` hit the state cap (no shortest plan known)
  secs       wall time for the level (generation + solving)

Usage: python benchmarks/babaisai_solve_all.py [--seeds 50] [--max-states 300000]
"""

from __future__ import annotations

import argparse
import statistics
import time

from dungeonbench_gym.games.babaisai.levels import LEVELS, make_level_with_plan
from dungeonbench_gym.games.babaisai.solver import replay, solve


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--max-states", type=int, default=300_000)
    ap.add_argument("--levels", nargs="*", default=None, help="subset of level names")
    args = ap.parse_args()
    names = args.levels or list(LEVELS)
    print(
        f"{'level':60s} {'certified':>9s} {'solved':>6s} {'med_len':>7s} "
        f"{'med_cert':>8s} {'capped':>6s} {'secs':>6s}",
        flush=True,
    )
    t_all = time.perf_counter()
    tot_solved = tot_cert = 0
    for name in names:
        t0 = time.perf_counter()
        cert = solved = capped = 0
        lens: list[int] = []
        cert_lens: list[int] = []
        for seed in range(args.seeds):
            board, plan = make_level_with_plan(name, seed)
            if replay(board, plan)[1] and len(plan) <= 100:
                cert += 1
                cert_lens.append(len(plan))
            best = solve(board, args.max_states)
            if best is None:
                capped += 1
                continue
            if replay(board, best)[1] and 0 < len(best) <= 100:
                solved += 1
                lens.append(len(best))
        tot_solved += solved
        tot_cert += cert
        med = f"{statistics.median(lens):g}" if lens else "-"
        medc = f"{statistics.median(cert_lens):g}" if cert_lens else "-"
        print(
            f"{name:60s} {cert:9d} {solved:6d} {med:>7s} {medc:>8s} {capped:6d} "
            f"{time.perf_counter() - t0:6.1f}",
            flush=True,
        )
    n = len(names) * args.seeds
    print(
        f"total: certified {tot_cert}/{n}, solved {tot_solved}/{n}, "
        f"{time.perf_counter() - t_all:.0f} s",
        flush=True,
    )


if __name__ == "__main__":
    main()
