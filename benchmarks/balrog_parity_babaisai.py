"""Baba Is AI side by side: upstream (baba-is-ai run through BALROG's wrapper) and ours.

Plays the same agent, uniformly random over BALROG's five actions (idle, up,
right, down, left), for the same number of episodes of every level on both:

* upstream: ``baba.make("env/<level>")`` from a local checkout of
  nacloos/baba-is-ai, wrapped in BALROG's own ``BabaIsAIWrapper`` (loaded from a
  local checkout of balrog-ai/BALROG), which resets the level when nothing IS
  YOU; 100 steps per episode, BALROG's default for this family. Its picture is
  replaced by a 1x1 image (the wrapper renders one every step; it plays no part
  in the game). This side runs in ``--python``, an interpreter that has
  baba-is-ai's requirements (gym<=0.25, numpy<2, pygame, matplotlib, opencv,
  pillow), in subprocesses; nothing of upstream is imported here.
* ours: ``gymnasium.make("DungeonBench/BabaIsAI-<level>-v0")``, seeds 0..N-1.

It prints, per level, the success rate on each side with its standard error,
whether they agree within two standard errors of the difference, the mean
number of "nothing IS YOU" resets per episode, and two structural comparisons
of the starting boards: the distribution of active-rule patterns (nouns other
than baba and wall written X) and of entity counts (objects, rule blocks),
each as a total-variation distance between the two sides (0 = identical),
and the mean number of steps from baba to the nearest other object. "ours
redrawn" is the share of our episodes whose first draw was rejected (a stacked
start cell, or no certificate; see levels.py).

Usage (fetch both repositories first, e.g. with the `fetch` tool):

    python benchmarks/balrog_parity_babaisai.py --baba PATH/baba-is-ai \\
        --balrog PATH/BALROG --python /path/to/venv-with-gym/bin/python \\
        --episodes 200 --workers 2 [--levels goto_win,make_win] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parity_stats import agree, rate, total_variation  # noqa: E402

ACTIONS = ("idle", "up", "right", "down", "left")
STEPS = 100
PLAIN = {"baba", "wall"}


# --------------------------------------------------------------- upstream side
def _upstream_worker(baba_path: str, balrog_path: str, level: str, episodes: int,
                     seed: int) -> None:
    """Runs inside the upstream interpreter: one JSON line per episode."""
    import importlib.util
    import random

    import numpy as np
    sys.path.insert(0, baba_path)
    import baba  # noqa: F401  (registers the levels)
    spec = importlib.util.spec_from_file_location(
        "balrog_babaisai_base",
        os.path.join(balrog_path, "balrog", "environments", "babaisai", "base.py"))
    base = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(base)

    np.random.seed(seed)  # baba-is-ai draws its layouts from numpy's global generator
    rng = random.Random(seed)
    inner = baba.make(f"env/{level}")
    inner.render = lambda *args, **kwargs: np.zeros((1, 1, 3), np.uint8)
    resets = [0]
    inner_reset = inner.reset

    def counting_reset(*args, **kwargs):
        resets[0] += 1
        return inner_reset(*args, **kwargs)

    inner.reset = counting_reset
    env = base.BabaIsAIWrapper(inner)
    for _ in range(episodes):
        env.reset()
        board = _upstream_board(inner)
        resets[0] = 0
        for _t in range(STEPS):
            _obs, reward, done, _info = env.step(rng.choice(ACTIONS))
            if done:
                break
        print(json.dumps({"success": env.progression == 1.0, "resets": resets[0],
                          "board": board}), flush=True)


def _upstream_board(inner) -> list[list]:
    """Entities of an upstream grid as [kind name, x, y] (border walls left out)."""
    out = []
    grid = inner.grid
    for k, stack in enumerate(grid.grid):
        x, y = k % grid.width, k // grid.width
        for e in stack:
            if e is None or e.type == "wall":
                continue
            if e.type == "rule_object":
                name = e.object.removeprefix("f").upper()
            elif e.type == "rule_is":
                name = "IS"
            elif e.type == "rule_property":
                name = {"is_agent": "YOU", "is_goal": "WIN", "is_stop": "STOP",
                        "is_push": "PUSH"}.get(e.property, e.property.upper())
            else:
                name = e.type.removeprefix("f")
            out.append([name, x, y])
    return out


def run_upstream(args, level: str) -> list[dict]:
    cmd = [args.python, os.path.abspath(__file__), "--_worker", "--baba", args.baba,
           "--balrog", args.balrog, "--levels", level, "--episodes", str(args.episodes),
           "--seed", str(args.seed)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"upstream {level} failed:\n{done.stderr[-3000:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


# ------------------------------------------------------------------- our side
def run_ours(args, level: str) -> list[dict]:
    import random

    import gymnasium as gym

    import dungeonbench_gym  # noqa: F401
    from dungeonbench_gym.games.babaisai.levels import draw_level
    from dungeonbench_gym.games.babaisai.rules import kind_name
    env = gym.make(f"dungeonbench_gym:DungeonBench/BabaIsAI-{level}-v0")
    rng = random.Random(args.seed)
    out = []
    for episode in range(args.episodes):
        env.reset(seed=args.seed + episode)
        board = [[kind_name(k), x, y] for k, x, y in env.unwrapped.board.entities()]
        info = {}
        for _t in range(STEPS):
            _obs, _r, terminated, truncated, info = env.step(rng.randrange(len(ACTIONS)))
            if terminated or truncated:
                break
        out.append({"success": bool(info["success"]), "board": board,
                    "resets": info["metrics"]["you_resets"],
                    "redrawn": draw_level(level, args.seed + episode)[2] > 0})
    return out


# ---------------------------------------------------------------- statistics
def rule_pattern(board: list[list]) -> str:
    """The active rules of a starting board, nouns other than baba/wall as X."""
    cells = {}
    for name, x, y in board:
        if name.isupper():
            cells.setdefault((x, y), []).append(name)
    found = set()
    for (x, y), names in cells.items():
        if "IS" not in names:
            continue
        for dx, dy in ((1, 0), (0, 1)):
            for left in cells.get((x - dx, y - dy), ()):
                for right in cells.get((x + dx, y + dy), ()):
                    if left not in ("IS", "YOU", "WIN", "STOP", "PUSH") and \
                            right in ("YOU", "WIN", "STOP", "PUSH"):
                        noun = left.lower() if left.lower() in PLAIN else "X"
                        found.add(f"{noun} is {right.lower()}")
    return " & ".join(sorted(found))


def entity_counts(board: list[list]) -> str:
    objects = sum(1 for name, _x, _y in board if not name.isupper() and name != "wall")
    words = sum(1 for name, _x, _y in board if name.isupper())
    return f"{objects} objects, {words} words"


def baba_distance(board: list[list]) -> int:
    """Steps from baba to the nearest object other than a wall (the goal or a distractor)."""
    baba = [(x, y) for name, x, y in board if name == "baba"]
    others = [(x, y) for name, x, y in board if not name.isupper() and name not in PLAIN]
    if not baba or not others:
        return -1
    (bx, by), = baba[:1]
    return min(abs(x - bx) + abs(y - by) for x, y in others)


def compare(level: str, up: list[dict], ours: list[dict]) -> dict:
    upstream, mine = rate(e["success"] for e in up), rate(e["success"] for e in ours)
    return {
        "level": level, "n": (len(up), len(ours)),
        "upstream": upstream, "ours": mine, "agree": agree(upstream, mine),
        "resets": (sum(e["resets"] for e in up) / len(up),
                   sum(e["resets"] for e in ours) / len(ours)),
        "rules_tv": total_variation((rule_pattern(e["board"]) for e in up),
                                    (rule_pattern(e["board"]) for e in ours)),
        "counts_tv": total_variation((entity_counts(e["board"]) for e in up),
                                     (entity_counts(e["board"]) for e in ours)),
        "redrawn": sum(e["redrawn"] for e in ours) / len(ours),
        "distance": (sum(baba_distance(e["board"]) for e in up) / len(up),
                     sum(baba_distance(e["board"]) for e in ours) / len(ours)),
    }


def _one_level(args, level: str) -> dict:
    return compare(level, run_upstream(args, level), run_ours(args, level))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baba", required=True, help="checkout of nacloos/baba-is-ai")
    parser.add_argument("--balrog", required=True, help="checkout of balrog-ai/BALROG")
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter with baba-is-ai's requirements (gym<=0.25)")
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--levels", default="", help="comma-separated; default all 40")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--_worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args._worker:
        _upstream_worker(args.baba, args.balrog, args.levels, args.episodes, args.seed)
        return
    from dungeonbench_gym.games.babaisai.levels import LEVELS
    levels = [lv for lv in args.levels.split(",") if lv] or list(LEVELS)
    start = time.time()
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(_one_level, [args] * len(levels), levels))
    print(f"# Baba Is AI parity: random agent, {args.episodes} episodes per level and side, "
          f"{STEPS} steps; {time.time() - start:.0f} s on {os.cpu_count()} cores")
    header = ("| level | upstream success | ours | within 2 SE | resets/episode up / ours "
              "| rule patterns TV | entity counts TV | baba-object distance up / ours "
              "| ours redrawn |")
    print(header)
    print("|" + "---|" * 9)
    for r in results:
        (pu, su), (po, so) = r["upstream"], r["ours"]
        print(f"| {r['level']} | {pu:.3f} ± {su:.3f} | {po:.3f} ± {so:.3f} | "
              f"{'yes' if r['agree'] else 'NO'} | {r['resets'][0]:.2f} / {r['resets'][1]:.2f} | "
              f"{r['rules_tv']:.2f} | {r['counts_tv']:.2f} | "
              f"{r['distance'][0]:.2f} / {r['distance'][1]:.2f} | {100 * r['redrawn']:.0f}% |")
    n = args.episodes * len(results)
    pooled_up = sum(r["upstream"][0] for r in results) / len(results)
    pooled_ours = sum(r["ours"][0] for r in results) / len(results)
    agree = sum(r["agree"] for r in results)
    print(f"\n{agree} of {len(results)} levels agree within 2 SE; mean success "
          f"upstream {pooled_up:.3f}, ours {pooled_ours:.3f} ({n} episodes per side)")


if __name__ == "__main__":
    main()
