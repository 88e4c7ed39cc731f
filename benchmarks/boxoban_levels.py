"""Generated Boxoban levels per tier: how hard they are and how long one takes to make.

Generates seeds 0..N-1 of each tier with `generate_level` (no cache), checks every
level independently (well-formed, the stored solution replays to solved, and a fresh
solver run agrees on the push count), and prints per tier: levels, median / mean
pushes, median / max solver effort, seconds per level (mean / max). Pure Python on
one core; the figures are what the tier thresholds in boxoban.py were set against.

    python benchmarks/boxoban_levels.py --seeds 50
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time

from dungeonbench_gym.games.minihack.boxoban import (
    TIER_SPECS,
    TIERS,
    check_boxoban_rows,
    generate_level,
    is_solved,
    replay,
    solve,
)


def verify(level) -> None:
    """Raise AssertionError unless the level is well-formed and solved as claimed."""
    check_boxoban_rows(level.rows)
    assert is_solved(replay(level.rows, level.solution)), f"seed {level.seed}: bad solution"
    again = solve(level.rows, max_effort=TIER_SPECS[level.tier].max_effort)
    assert again is not None and again.pushes == level.pushes, f"seed {level.seed}: re-solve"


def run_tier(tier: str, seeds: range) -> dict:
    pushes, efforts, seconds = [], [], []
    for seed in seeds:
        start = time.perf_counter()
        level = generate_level(seed, tier)
        seconds.append(time.perf_counter() - start)
        verify(level)
        pushes.append(level.pushes)
        efforts.append(level.effort)
    return {
        "tier": tier,
        "levels": len(seeds),
        "pushes_median": statistics.median(pushes),
        "pushes_mean": round(statistics.fmean(pushes), 1),
        "effort_median": statistics.median(efforts),
        "effort_max": max(efforts),
        "seconds_per_level": round(statistics.fmean(seconds), 3),
        "seconds_max": round(max(seconds), 3),
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=50, help="levels per tier (seeds 0..N-1)")
    parser.add_argument("--tiers", nargs="+", default=list(TIERS), choices=TIERS)
    parser.add_argument("--json", action="store_true", help="also print the rows as JSON")
    args = parser.parse_args(argv)

    print(f"# python {platform.python_version()} on {platform.machine()}, "
          f"{args.seeds} seeds per tier", flush=True)
    header = ("tier", "levels", "pushes med", "pushes mean", "effort med", "effort max",
              "s/level", "s max")
    print("  ".join(f"{h:>11}" for h in header), flush=True)
    rows = []
    for tier in args.tiers:
        row = run_tier(tier, range(args.seeds))
        rows.append(row)
        print("  ".join(f"{v:>11}" for v in row.values()), flush=True)
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()


if __name__ == "__main__":
    main()
