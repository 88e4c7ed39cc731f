"""Calibrate the Boxoban tiers against DeepMind's level files; rewrites boxoban_tiers.json.

DeepMind's medium and hard levels are its unfiltered levels that trained agents failed
to solve. We cannot rerun those agents, so each tier is matched on what the filter
produced. This script solves DeepMind's tier levels with our solver and counts their
push counts (our candidates are drawn at those push counts, `boxoban.draw_candidate`),
then solves our candidates the same way, bins both by room size, pushes and moves
(`boxoban.level_bin`), and sets per bin the probability that `generate_level` keeps a
candidate, so that the kept levels fall into the bins as DeepMind's do:

    keep(b) = min(1, (official share of b / candidate share of b) / c)

with c the largest ratio over bins with enough candidates to estimate it, but at most
--max-scale (a bin whose ratio is larger keeps everything and stays under-represented;
so does a bin with too few candidates): c is how many candidates a level costs, so the
cap trades the last of the match for generation time. The expected total variation
between kept levels and DeepMind's is printed and stored.
Only the histograms and the table are stored, never DeepMind's levels.

    git clone https://github.com/deepmind/boxoban-levels   # or any copy of it
    python scripts/calibrate_boxoban.py --official boxoban-levels --workers 2

Rerun it whenever the candidate generator changes (bump GENERATOR_VERSION first).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path

from dungeonbench_gym.games.minihack import boxoban as bx

OFFICIAL_EFFORT = 400_000  # enough for every DeepMind level we measured
MIN_SUPPORT = 8  # candidates a bin needs before its ratio sets the scale c


def official_files(root: Path, tier: str, medium_files: int) -> list[Path]:
    if tier == "hard":
        return sorted((root / "hard").glob("*.txt"))
    return sorted((root / "medium" / "train").glob("*.txt"))[:medium_files]


def measure(rows, max_effort: int = OFFICIAL_EFFORT) -> tuple[int, int, int, int, int] | None:
    """(bin, floor cells, pushes, moves, effort) of a level, None if the solver gives up."""
    found = bx.solve(rows, max_effort=max_effort)
    if found is None:
        return None
    floor = bx.SIZE * bx.SIZE - sum(row.count(bx.WALL) for row in rows)
    return (bx.level_bin(rows, found.pushes, len(found.moves)), floor, found.pushes,
            len(found.moves), found.effort)


def candidate(job: tuple[str, int, tuple[int, ...]]) -> tuple[int, int, int, int, int] | None:
    """A candidate as generate_level draws it (its own seeded stream), measured with the
    generator's effort cap."""
    tier, index, push_counts = job
    rng = random.Random(f"dungeonbench_gym/boxoban/calibrate/{tier}/{index}")
    return measure(bx.draw_candidate(rng, push_counts), bx.MAX_EFFORT)


def histogram(rows) -> list[int]:
    counts = [0] * bx.NUM_BINS
    for row in rows:
        counts[row[0]] += 1
    return counts


def acceptance(official: list[int], candidates: list[int],
               max_scale: float) -> tuple[list[float], float, float]:
    """(keep probability per bin, expected share of candidates kept, total variation
    between the expected kept histogram and the official one)."""
    n_off, n_cand = sum(official), sum(candidates)
    ratios = [(o / n_off) / (c / n_cand) if c else 0.0 for o, c in zip(official, candidates)]
    scale = min(max_scale, max((r for r, c in zip(ratios, candidates) if c >= MIN_SUPPORT),
                               default=1.0))
    accept = [round(min(1.0, r / scale), 6) if o else 0.0 for r, o in zip(ratios, official)]
    kept = [c * a for c, a in zip(candidates, accept)]
    total = sum(kept)
    tv = 0.5 * sum(abs(k / total - o / n_off) for k, o in zip(kept, official))
    return accept, total / n_cand, tv


def describe(label: str, rows, weights=None) -> str:
    """Weighted medians of floor, pushes, moves, effort, and the share over 100 moves."""
    weights = weights or [1.0] * len(rows)

    def median(k):
        pairs = sorted((row[k], w) for row, w in zip(rows, weights))
        half, acc = sum(weights) / 2, 0.0
        for value, w in pairs:
            acc += w
            if acc >= half:
                return value
        return pairs[-1][0]

    over = sum(w for row, w in zip(rows, weights) if row[3] > 100) / sum(weights)
    return (f"{label:<28} floor {median(1):>3}  pushes {median(2):>3}  moves {median(3):>4}  "
            f"effort {median(4):>6}  over 100 moves {over:.1%}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--official", required=True, type=Path,
                   help="a copy of github.com/deepmind/boxoban-levels")
    p.add_argument("--medium-files", type=int, default=3,
                   help="how many medium/train files to measure (1,000 levels each)")
    p.add_argument("--candidates", type=int, default=4_000,
                   help="candidates to measure per tier")
    p.add_argument("--max-scale", type=float, default=2.5,
                   help="at most this many candidates per kept level on average")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", type=Path, default=bx.TIERS_FILE)
    args = p.parse_args(argv)

    start = time.perf_counter()
    tiers, sources = {}, []
    with Pool(args.workers) as pool:
        for tier in bx.TIERS:
            files = official_files(args.official, tier, args.medium_files)
            levels = [rows for path in files for rows in bx.read_level_file(path)]
            if not levels:
                print(f"no {tier} levels under {args.official}", file=sys.stderr)
                return 2
            solved = [row for row in pool.map(measure, levels, chunksize=20) if row is not None]
            over_cap = sum(row[4] > bx.MAX_EFFORT for row in solved)
            push_counts = [0] * (max(row[2] for row in solved) + 1)
            for row in solved:
                push_counts[row[2]] += 1
            official = histogram(solved)
            print(describe(f"DeepMind {tier}", solved), flush=True)
            jobs = [(tier, i, tuple(push_counts)) for i in range(args.candidates)]
            drawn = [row for row in pool.imap(candidate, jobs, chunksize=10) if row is not None]
            candidate_counts = histogram(drawn)
            accept, kept, tv = acceptance(official, candidate_counts, args.max_scale)
            print(describe(f"ours {tier}, candidates", drawn))
            print(describe(f"ours {tier}, kept (expected)", drawn,
                           [accept[row[0]] for row in drawn]))
            rel = files[0].relative_to(args.official).parent
            print(f"  {tier}: {len(levels)} levels ({rel}/{files[0].name}..{files[-1].name}), "
                  f"{len(levels) - len(solved)} unsolved, {over_cap} over the generator's "
                  f"effort cap; {len(drawn)} candidates, {kept:.1%} kept "
                  f"(~{1 / kept:.1f} per level); expected total variation {tv:.3f} "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
            tiers[tier] = {"pushes": push_counts, "official": official,
                           "candidates": candidate_counts, "accept": accept,
                           "kept_share": round(kept, 4), "expected_tv": round(tv, 4)}
            sources.append(f"{tier}: {len(levels)} levels, {rel}/{files[0].name}.."
                           f"{files[-1].name}")
    data = {
        "about": "Boxoban tier calibration (scripts/calibrate_boxoban.py): per bin of "
                 "(floor cells, pushes, moves), DeepMind's level counts, our candidates' "
                 "counts, and the probability that generate_level keeps a candidate.",
        "source": "github.com/deepmind/boxoban-levels (" + "; ".join(sources) + ")",
        "generator_version": bx.GENERATOR_VERSION,
        "bins": {"floor": list(bx.FLOOR_EDGES), "pushes": list(bx.PUSH_EDGES),
                 "moves": list(bx.MOVE_EDGES)},
        "candidates_per_tier": args.candidates,
        "tiers": tiers,
    }
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
