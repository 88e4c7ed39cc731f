"""Generated Boxoban levels per tier, beside DeepMind's: what they are like, what they cost.

Generates seeds 0..N-1 of each tier with `generate_level` (no cache), checks every
level independently (well-formed, the stored solution replays to solved, a fresh
solver run agrees on the push count), and prints per tier: room size (floor cells),
pushes and moves of the fewest-push plan (walking included; the calibration's
figures), the share of levels whose fewest-push plan and whose fewest-moves plan take
more than 100 moves (BALROG's episode length), the solver's effort, the mean distance
from a box to its nearest goal, and seconds per level. With `--official DIR` (a copy of
github.com/deepmind/boxoban-levels) it measures N levels drawn from DeepMind's files of
the same tier with the same solver, and prints the total variation between the two
samples over the calibration bins (`boxoban.level_bin`), and the share of the two-sample
differences expected by chance (the same statistic between two halves of DeepMind's).

    python benchmarks/boxoban_levels.py --seeds 200 --official boxoban-levels --workers 2
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from collections import Counter
from multiprocessing import Pool

from dungeonbench_gym.games.minihack import boxoban as bx

OFFICIAL_EFFORT = 400_000
STEPS = 100  # BALROG's MiniHack episode


def describe(rows, solution: bx.Solution) -> dict:
    board = bx.parse_board(rows)
    fewest = len(solution.moves)
    if fewest > STEPS:   # only then can the fewest-moves plan matter (it is never longer)
        shortest = bx.solve_fewest_moves(rows, max_effort=2_000_000)
        fewest = len(shortest.moves) if shortest else float("nan")
    distance = statistics.fmean(min(abs(b[0] - g[0]) + abs(b[1] - g[1]) for g in board.goals)
                                for b in board.boxes)
    return {"floor": bx.SIZE * bx.SIZE - len(board.walls), "pushes": solution.pushes,
            "moves": len(solution.moves), "fewest_moves": fewest, "effort": solution.effort,
            "distance": distance,
            "bin": bx.level_bin(rows, solution.pushes, len(solution.moves))}


def ours(job: tuple[str, int]) -> dict:
    tier, seed = job
    start = time.perf_counter()
    level = bx.generate_level(seed, tier)
    seconds = time.perf_counter() - start
    bx.check_boxoban_rows(level.rows)
    assert bx.is_solved(bx.replay(level.rows, level.solution)), f"seed {seed}: bad solution"
    again = bx.solve(level.rows, max_effort=bx.MAX_EFFORT)
    assert again is not None and again.pushes == level.pushes, f"seed {seed}: re-solve"
    return {**describe(level.rows, again), "seconds": seconds}


def official(rows) -> dict | None:
    solution = bx.solve(rows, max_effort=OFFICIAL_EFFORT)
    return None if solution is None else describe(rows, solution)


def official_levels(root: str, tier: str, n: int, seed: int = 0) -> list[tuple[str, ...]]:
    """n levels drawn (seeded) from DeepMind's files of a tier (medium: its train split)."""
    folder = os.path.join(root, tier, "train") if tier == "medium" else os.path.join(root, tier)
    levels = [rows for name in sorted(os.listdir(folder)) if name.endswith(".txt")
              for rows in bx.read_level_file(os.path.join(folder, name))]
    return random.Random(seed).sample(levels, min(n, len(levels)))


def total_variation(a: list[dict], b: list[dict]) -> float:
    ca, cb = Counter(r["bin"] for r in a), Counter(r["bin"] for r in b)
    return 0.5 * sum(abs(ca[k] / len(a) - cb[k] / len(b)) for k in set(ca) | set(cb))


def summary(label: str, rows: list[dict]) -> str:
    med = lambda key: statistics.median(r[key] for r in rows)  # noqa: E731
    mean = lambda key: statistics.fmean(r[key] for r in rows)  # noqa: E731
    over = sum(r["moves"] > STEPS for r in rows) / len(rows)
    over_fewest = sum(not r["fewest_moves"] <= STEPS for r in rows) / len(rows)
    seconds = (f"{mean('seconds'):.2f} / {max(r['seconds'] for r in rows):.1f}"
               if "seconds" in rows[0] else "-")
    return (f"| {label} | {len(rows)} | {med('floor'):.0f} | {med('pushes'):.0f} / "
            f"{mean('pushes'):.1f} | {med('moves'):.0f} / {mean('moves'):.1f} | {over:.1%} / "
            f"{over_fewest:.1%} | "
            f"{med('effort'):.0f} | {mean('distance'):.2f} | {seconds} |")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=50, help="levels per tier (seeds 0..N-1)")
    parser.add_argument("--tiers", nargs="+", default=list(bx.TIERS), choices=bx.TIERS)
    parser.add_argument("--official", default=None,
                        help="a copy of github.com/deepmind/boxoban-levels to compare with")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)

    print(f"python {platform.python_version()} on {platform.machine()}, {args.seeds} levels "
          f"per tier and side, {args.workers} worker(s)\n")
    print("| tier | levels | floor cells (median) | pushes median / mean | moves median / mean "
          "| over 100 moves: fewest-push plan / fewest moves | solver effort (median) | "
          "box-goal distance | s per level mean / max |\n|---|---|---|---|---|---|---|---|---|")
    notes = []
    with Pool(args.workers) as pool:
        for tier in args.tiers:
            generated = pool.map(ours, [(tier, s) for s in range(args.seeds)], chunksize=4)
            print(summary(f"{tier}, ours", generated), flush=True)
            if args.official:
                drawn = official_levels(args.official, tier, 2 * args.seeds)
                theirs = [r for r in pool.map(official, drawn, chunksize=8) if r is not None]
                print(summary(f"{tier}, DeepMind", theirs[:args.seeds]), flush=True)
                half = len(theirs) // 2
                notes.append(f"{tier}: bins total variation ours vs DeepMind "
                             f"{total_variation(generated, theirs[:args.seeds]):.3f}; "
                             f"DeepMind vs DeepMind (two samples of {half}) "
                             f"{total_variation(theirs[:half], theirs[half:]):.3f}")
    for note in notes:
        print(f"\n{note}")


if __name__ == "__main__":
    main()
