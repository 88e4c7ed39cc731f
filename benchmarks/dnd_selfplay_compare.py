"""The D&D engine's self-play speed in two checkouts, measured in the same run.

A change that must not slow the engine (a refactor) is measured against the code before it:
each round plays one self-play pass (``benchmarks/dnd_selfplay.py``'s heuristic vs heuristic
over every encounter, and every day with ``--days``) in a fresh process of each checkout, the
two taking turns to go first, so that the machine's slow spells fall on both alike. Per
scenario the fastest pass of each checkout counts; the overall figure is decisions over the
summed fastest seconds. Play must be identical in both (the same decisions and wins), else the
change was not a refactor and the script says so.

    git worktree add /tmp/before <commit-before>
    python benchmarks/dnd_selfplay_compare.py /tmp/before --seeds 5 --rounds 5 --days
    python benchmarks/dnd_selfplay_compare.py /tmp/before --only sniper_ridge,day:border_march

``--only`` plays just the named scenarios in each pass: one scenario's figure in the full run
also carries the state the scenarios before it left in the process, so a single scenario that
looks slower is re-timed alone before it is read as a regression.

The checkout this script sits in is "after"; the figures are decisions/s (higher is faster)
and the option enumeration's p99 in ms; targets: after/before >= 0.95 overall, >= 2,000
decisions/s and p99 <= 5 ms in every scenario.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

# One pass in the checkout given as argv[1]: {scenario: [seconds, decisions, wins, p99 ms]}.
WORKER = r"""
import json, sys
root, seeds, days = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
only = set(filter(None, sys.argv[4].split(",")))
sys.path[:0] = [root, root + "/benchmarks"]
import dnd_selfplay as sp
from dungeonbench_gym.dnd.scenario import encounter_names, load_encounter
jobs = []
for name in encounter_names():
    s = load_encounter(name)
    s.build(0)   # warm the shared map caches, as dnd_selfplay does
    jobs.append((name, lambda s=s: sp._selfplay(s, seeds)))
if days:
    from dungeonbench_gym.dnd.day import day_names, load_day
    jobs += [("day:" + d, lambda day=load_day(d): sp._day_selfplay(day, seeds)) for d in day_names()]
out = {}
for name, job in jobs:
    if only and name not in only:
        continue
    seconds, decisions, wins, _, enum_ms = job()
    out[name] = [seconds, decisions, wins, sp._quantile(enum_ms, 0.99)]
print(json.dumps(out))
"""


def one_pass(root: Path, seeds: int, days: bool, only: str = "") -> dict:
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONHASHSEED": "0"}
    done = subprocess.run([sys.executable, "-c", WORKER, str(root), str(seeds), "1" if days else "0", only],
                          cwd=root, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{root}: the self-play pass failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before", type=Path, help="a checkout of the code before the change")
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--days", action="store_true")
    p.add_argument("--only", default="", metavar="NAMES",
                   help="comma-separated scenarios to play alone in each pass (day:<name> for a day), so "
                        "that one scenario is timed without the others' effect on the process")
    args = p.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": HERE}
    passes: dict[str, list[dict]] = {"before": [], "after": []}
    for r in range(args.rounds):
        order = ("before", "after") if r % 2 == 0 else ("after", "before")
        for side in order:
            passes[side].append(one_pass(trees[side], args.seeds, args.days, args.only))
        print(f"round {r + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    names = list(passes["after"][0])
    best = {side: {n: min((run[n] for run in runs), key=lambda v: v[0]) for n in names}
            for side, runs in passes.items()}
    print(f"{args.seeds} seeds, fastest of {args.rounds} passes per checkout, alternating; "
          f"before = {trees['before']}, after = {trees['after']}")
    print(f"{'scenario':24} {'before dec/s':>12} {'after dec/s':>12} {'ratio':>6} {'after p99 ms':>12}")
    differ = []
    for n in names:
        b, a = best["before"][n], best["after"][n]
        if b[1:3] != a[1:3]:
            differ.append(n)
        print(f"{n:24} {b[1] / b[0]:12.0f} {a[1] / a[0]:12.0f} {(a[1] / a[0]) / (b[1] / b[0]):6.3f} {a[3]:12.2f}")
    rate = {side: sum(v[1] for v in best[side].values()) / sum(v[0] for v in best[side].values())
            for side in best}
    slow = [n for n in names if best["after"][n][1] / best["after"][n][0] < 2000]
    worst = max(best["after"][n][3] for n in names)
    print(f"{'overall':24} {rate['before']:12.0f} {rate['after']:12.0f} {rate['after'] / rate['before']:6.3f}")
    print(f"after: >= 2,000 decisions/s in {len(names) - len(slow)} of {len(names)}"
          + (f" (below: {', '.join(slow)})" if slow else "") + f"; worst p99 {worst:.2f} ms")
    if differ:
        print(f"play differs (decisions or wins) in {len(differ)}: {', '.join(differ)}: not a refactor")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
