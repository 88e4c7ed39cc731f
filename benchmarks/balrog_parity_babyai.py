"""BabyAI side by side: upstream (BALROG's Minigrid fork through BALROG's wrapper) and ours.

Plays the same agent, uniformly random over BALROG's six BabyAI actions (turn
left, turn right, go forward, pick up, drop, toggle), or with `--agent bot`
minigrid's own BabyAIBot (each side's minigrid: the fork's upstream, the release
ours is built on; an oracle that reads the level, so its success and its steps
per solved episode measure how solvable and how long the missions are), on
BALROG's five tasks:

* upstream: ``BabyAI-MixedTrainLocal-v0`` from a local checkout of
  BartekCupial/Minigrid (the fork BALROG installs), made again until its task is
  the one wanted (as BALROG's ``make_babyai_env`` does), with ``num_dists=0``,
  wrapped in BALROG's own ``BabyAITextCleanLangWrapper`` (loaded from a local
  checkout of balrog-ai/BALROG); episodes end at the level's own step limit.
  The wrapper's picture is replaced by a 1x1 image (it renders one every step;
  it plays no part in the game). The fork runs in a subprocess with its
  checkout first on ``PYTHONPATH``, so it shadows the minigrid release ours uses.
* ours: ``gymnasium.make("DungeonBench/BabyAI-<Task>-v0", on_invalid="passthrough")``,
  so a useless action is the wasted step it is upstream, not the fallback.

Per task it prints both success rates with standard errors, whether they agree
within two standard errors of the difference, and structural statistics of
the starting layouts on both sides: grid size and step limit, the mission
templates (colours and object types written C and T) as a total-variation
distance, the share of locked doors, objects per layout, and how often an
object starts next to the agent.

Usage (fetch both repositories first, e.g. with the `fetch` tool; `git archive
HEAD minigrid | tar -x -C DIR` gives a checkout of the fork's package):

    python benchmarks/balrog_parity_babyai.py --minigrid FORK_DIR --balrog BALROG_DIR \\
        --episodes 200 [--tasks goto,open] [--seed 0] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parity_stats import agree, rate, total_variation  # noqa: E402

TASKS = ("goto", "pickup", "open", "putnext", "pick_up_seq_go_to")
OUR_IDS = {"goto": "BabyAI-GoTo-v0", "pickup": "BabyAI-Pickup-v0", "open": "BabyAI-Open-v0",
           "putnext": "BabyAI-PutNext-v0", "pick_up_seq_go_to": "BabyAI-PickUpSeqGoTo-v0"}
N_ACTIONS = 6
ACTION_NAMES = ("turn left", "turn right", "go forward", "pick up", "drop", "toggle")
COLOURS = ("red", "green", "blue", "purple", "yellow", "grey")
KINDS = ("key", "ball", "box", "door")


def layout_stats(level) -> dict:
    """What the structural comparison reads from a freshly reset minigrid level."""
    grid = level.grid
    ax, ay = (int(v) for v in level.agent_pos)
    objects, locked, beside = 0, 0, False
    for x in range(grid.width):
        for y in range(grid.height):
            cell = grid.get(x, y)
            if cell is None or cell.type == "wall":
                continue
            objects += 1
            locked += cell.type == "door" and cell.is_locked
            beside = beside or (cell.type != "door" and abs(x - ax) + abs(y - ay) == 1)
    return {"size": f"{grid.width}x{grid.height}", "max_steps": int(level.max_steps),
            "mission": level.mission, "objects": objects, "locked": locked, "beside": beside}


# --------------------------------------------------------------- upstream side
def _bot_action(bot, last):
    """The bot's next action (None at the end: go forward), as an index."""
    choice = bot.replan(last)
    return 2 if choice is None else int(choice)


def _upstream_worker(balrog_path: str, task: str, episodes: int, seed: int,
                     agent: str = "random") -> None:
    """Runs with the fork first on sys.path: one JSON line per episode."""
    import importlib.util
    import random

    import gymnasium as gym
    import minigrid
    import numpy as np
    minigrid.register_minigrid_envs()
    spec = importlib.util.spec_from_file_location(
        "balrog_babyai_wrapper",
        os.path.join(balrog_path, "balrog", "environments", "babyai_text", "clean_lang_wrapper.py"))
    wrapper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wrapper)
    rng = random.Random(seed)
    for episode in range(episodes):
        while True:   # BALROG's make_babyai_env: make again until the task is the one wanted
            env = gym.make("BabyAI-MixedTrainLocal-v0", num_dists=0)
            if env.unwrapped.action_kinds[0].replace(" ", "_") == task:
                break
        env.unwrapped.get_pov_render = lambda *a, **k: np.zeros((1, 1, 3), np.uint8)
        env = wrapper.BabyAITextCleanLangWrapper(env)
        env.reset(seed=seed + episode)
        stats = layout_stats(env.unwrapped)
        bot, last, steps = None, None, 0
        if agent == "bot":
            from minigrid.utils.baby_ai_bot import BabyAIBot
            bot = BabyAIBot(env.unwrapped)
        for _t in range(env.max_steps):
            if bot is not None:
                last = _bot_action(bot, last)
                name = ACTION_NAMES[last]
            else:
                name = rng.choice(ACTION_NAMES)
            _o, _r, terminated, truncated, _i = env.step(name)
            steps += 1
            if terminated or truncated:
                break
        print(json.dumps({"success": env.progression == 1.0, "steps": steps, **stats}),
              flush=True)


def run_upstream(args, task: str) -> list[dict]:
    cmd = [args.python, os.path.abspath(__file__), "--_worker", "--minigrid", args.minigrid,
           "--balrog", args.balrog, "--tasks", task, "--episodes", str(args.episodes),
           "--seed", str(args.seed), "--agent", args.agent]
    env = dict(os.environ, PYTHONPATH=os.path.abspath(args.minigrid))
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"upstream {task} failed:\n{done.stderr[-3000:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


# ------------------------------------------------------------------- our side
def run_ours(args, task: str) -> list[dict]:
    import random

    import gymnasium as gym

    import dungeonbench_gym  # noqa: F401
    env = gym.make(f"dungeonbench_gym:DungeonBench/{OUR_IDS[task]}", on_invalid="passthrough")
    rng = random.Random(args.seed)
    out = []
    for episode in range(args.episodes):
        env.reset(seed=args.seed + episode)
        stats = layout_stats(env.unwrapped.level)
        info, bot, last, steps = {}, None, None, 0
        if args.agent == "bot":
            from minigrid.utils.baby_ai_bot import BabyAIBot
            bot = BabyAIBot(env.unwrapped.level)
        while True:
            last = _bot_action(bot, last) if bot is not None else rng.randrange(N_ACTIONS)
            _o, _r, terminated, truncated, info = env.step(last)
            steps += 1
            if terminated or truncated:
                break
        out.append({"success": bool(info["success"]), "steps": steps, **stats})
    return out


# ---------------------------------------------------------------- statistics
def template(mission: str) -> str:
    out = mission
    for word in COLOURS:
        out = re.sub(rf"\b{word}\b", "C", out)
    for word in KINDS:
        out = re.sub(rf"\b{word}\b", "T", out)
    return out


def compare(task: str, up: list[dict], ours: list[dict]) -> dict:
    upstream, mine = rate(e["success"] for e in up), rate(e["success"] for e in ours)
    return {
        "task": task, "upstream": upstream, "ours": mine, "agree": agree(upstream, mine),
        "size": (Counter(e["size"] for e in up).most_common(1)[0][0],
                 Counter(e["size"] for e in ours).most_common(1)[0][0]),
        "max_steps": (Counter(e["max_steps"] for e in up).most_common(1)[0][0],
                      Counter(e["max_steps"] for e in ours).most_common(1)[0][0]),
        "templates_tv": total_variation((template(e["mission"]) for e in up),
                                        (template(e["mission"]) for e in ours)),
        "missions_tv": total_variation((e["mission"] for e in up), (e["mission"] for e in ours)),
        "locked": (rate(e["locked"] > 0 for e in up)[0], rate(e["locked"] > 0 for e in ours)[0]),
        "objects": (sum(e["objects"] for e in up) / len(up),
                    sum(e["objects"] for e in ours) / len(ours)),
        "beside": (rate(e["beside"] for e in up)[0], rate(e["beside"] for e in ours)[0]),
        "solved_steps": tuple(_mean([e["steps"] for e in side if e["success"]])
                              for side in (up, ours)),
    }


def _mean(values: list) -> float:
    return sum(values) / len(values) if values else float("nan")


def _one_task(args, task: str) -> dict:
    return compare(task, run_upstream(args, task), run_ours(args, task))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minigrid", required=True,
                        help="directory holding the fork's `minigrid` package")
    parser.add_argument("--balrog", required=True, help="checkout of balrog-ai/BALROG")
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter for the upstream side (gymnasium, numpy, pillow)")
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tasks", default="", help="comma-separated; default all five")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--agent", default="random", choices=("random", "bot"))
    parser.add_argument("--_worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args._worker:
        _upstream_worker(args.balrog, args.tasks, args.episodes, args.seed, args.agent)
        return
    tasks = [t for t in args.tasks.split(",") if t] or list(TASKS)
    start = time.time()
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(_one_task, [args] * len(tasks), tasks))
    print(f"# BabyAI parity: {args.agent} agent, {args.episodes} episodes per task and side; "
          f"{time.time() - start:.0f} s on {os.cpu_count()} cores")
    print("| task | upstream success | ours | within 2 SE | grid up / ours | steps up / ours "
          "| mission templates TV | missions TV | locked door up / ours | objects up / ours "
          "| object beside the agent up / ours | steps per solved episode up / ours |")
    print("|" + "---|" * 12)
    for r in results:
        (pu, su), (po, so) = r["upstream"], r["ours"]
        print(f"| {r['task']} | {pu:.3f} ± {su:.3f} | {po:.3f} ± {so:.3f} | "
              f"{'yes' if r['agree'] else 'NO'} | {r['size'][0]} / {r['size'][1]} | "
              f"{r['max_steps'][0]} / {r['max_steps'][1]} | {r['templates_tv']:.2f} | "
              f"{r['missions_tv']:.2f} | {r['locked'][0]:.2f} / {r['locked'][1]:.2f} | "
              f"{r['objects'][0]:.2f} / {r['objects'][1]:.2f} | "
              f"{r['beside'][0]:.2f} / {r['beside'][1]:.2f} | "
              f"{r['solved_steps'][0]:.1f} / {r['solved_steps'][1]:.1f} |")
    agree = sum(r["agree"] for r in results)
    print(f"\n{agree} of {len(results)} tasks agree within 2 SE")


if __name__ == "__main__":
    main()
