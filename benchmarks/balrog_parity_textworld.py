"""TextWorld side by side: BALROG's own 75 games, and ours made again from their seeds.

BALROG's TextWorld games are files (made by intelligent-go-explore's scripts and
kept in its `textworld/tw_games/`); ours are generated here from the four seeds
each of those files records (`games/textworld/balrog_games.json`). Two checks:

* the games: for each of the 25 games per task, our generated game's data
  against BALROG's file: the world's facts, the quests (their commands, win and
  fail events), the names and descriptions of every entity, the objective, the
  walkthrough and the maximum score. Lists TextWorld writes from sets are
  compared as multisets (their order follows the generating process's hashing).
* the play: BALROG's `TextWorldWrapper` (loaded from a BALROG checkout) on
  BALROG's file, in `--python`, an interpreter with TextWorld before 1.7 and
  gym 0.23 (BALROG's Treasure Hunter and Coin Collector games are Glulx, which
  TextWorld 1.7 no longer plays), against our env with `text_style="balrog"` on
  our file, fed the same commands: the game's walkthrough, and `--random`
  episodes of commands drawn at random from the admissible ones on our side.
  Compared at every step: the text the model sees (BALROG's long-term context
  and ours), the score (the reward of TextWorld's gym API, which BALROG passes
  on, is the score so far; ours is its change), and the episode's end; at the
  end, BALROG's progression and ours. The screen after the game has ended is counted apart: no answer is
  asked on it, and the interpreters print it differently (Glulx centres
  "*** The End ***" for 80 columns and prints a prompt after it). The random
  episodes also give the random agent's success and progress on both sides
  (mean ± standard error over the episodes).

    python benchmarks/balrog_parity_textworld.py --games PATH/intelligent-go-explore/textworld/tw_games \\
        --balrog PATH/BALROG --python VENV/bin/python [--random 8] [--tasks cooking] [--show 3]

with VENV made by `python -m venv VENV && VENV/bin/pip install textworld==1.6.2 gym==0.23 gymnasium`.
Generating our 75 games takes a few minutes the first time (then they are cached).
"""

from __future__ import annotations

import argparse
import difflib
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FOLDERS = {"treasure_hunter": "treasure_hunter", "cooking": "the_cooking_game",
           "coin_collector": "coin_collector"}
STEPS = 80   # BALROG's textworld_kwargs.max_episode_steps

# Runs in the upstream interpreter: BALROG's wrapper on BALROG's files.
WORKER = r"""
import json, sys, warnings
warnings.filterwarnings("ignore")
balrog_dir, plays_path, out = sys.argv[1:4]
sys.path.insert(0, balrog_dir)
import textworld, textworld.gym
from balrog.environments.textworld.base import TextWorldWrapper
# BALROG's config.yaml, envs.textworld_kwargs
infos = textworld.EnvInfos(objective=True, description=True, score=True, max_score=True, won=True)
results = []
registered = {}
for play in json.load(open(plays_path)):
    path = play["file"]
    if path not in registered:
        registered[path] = textworld.gym.register_game(path, infos, max_episode_steps=80)
    env = TextWorldWrapper(textworld.gym.make(registered[path]), max_steps=80)
    obs = env.reset()
    steps = [{"text": obs["text"]["long_term_context"]}]
    for command in play["commands"]:
        obs, reward, done, info = env.step(command)
        steps.append({"text": obs["text"]["long_term_context"], "reward": float(reward),
                      "done": bool(done), "won": bool(info["won"])})
        if done:
            break
    results.append({"steps": steps, "progression": env.get_stats()["progression"]})
    env.close()
json.dump(results, open(out, "w"))
"""


def _multiset(items) -> list[str]:
    return sorted(json.dumps(item, sort_keys=True) for item in items)


def _quests(quests) -> list:
    return [{k: (_multiset(v) if isinstance(v, list) else v) for k, v in q.items()} for q in quests]


def compare_game(ours: dict, theirs: dict) -> list[str]:
    """The parts of a game that differ (empty: the same game)."""
    checks = {
        "world": (_multiset(ours["world"]), _multiset(theirs["world"])),
        "quests": (_quests(ours["quests"]), _quests(theirs["quests"])),
        "entities": (ours["infos"], theirs["infos"]),
        "objective": (ours["objective"], theirs["objective"]),
        "walkthrough": (ours["metadata"].get("walkthrough"), theirs["metadata"].get("walkthrough")),
        "max_score": (ours["metadata"].get("max_score"), theirs["metadata"].get("max_score")),
    }
    return [name for name, (a, b) in checks.items() if a != b]


def balrog_file(games_dir: str, task: str, name: str) -> str:
    found = glob.glob(os.path.join(games_dir, FOLDERS[task], f"{name}.*"))
    story = [f for f in found if f.endswith((".ulx", ".z8"))]
    if not story:
        raise SystemExit(f"{games_dir}: BALROG's game {FOLDERS[task]}/{name} is missing")
    return story[0]


def our_plays(task: str, index: int, commands_list: list[list[str] | None], rng) -> list[dict]:
    """Play our game `index` with each command list (None: random admissible commands)."""
    from dungeonbench_gym.games.textworld.env import TextWorldEnv
    env = TextWorldEnv(task, text=True, text_style="balrog", max_steps=STEPS)
    plays = []
    for commands in commands_list:
        obs, info = env.reset(options={"game": index})
        steps = [{"text": info["text"]["long_term"]}]
        played = []
        for n in range(STEPS):
            if commands is not None:
                if n >= len(commands):
                    break
                command = commands[n]
            else:
                labels = [o.label for o in info["options"]]
                command = labels[int(rng.integers(len(labels)))]
            obs, reward, term, trunc, info = env.step(command)
            played.append(command)
            steps.append({"text": info["text"]["long_term"], "reward": float(reward),
                          "score": float(info["metrics"]["score"]),
                          "done": bool(term or trunc), "won": bool(info["success"])})
            if term or trunc:
                break
        plays.append({"commands": played, "steps": steps, "progression": info["progress"]})
    env.close()
    return plays


def upstream_plays(plays: list[dict], python: str, balrog: str) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        paths = {name: os.path.join(tmp, name) for name in ("plays.json", "worker.py", "out.json")}
        with open(paths["plays.json"], "w") as f:
            json.dump([{"file": p["file"], "commands": p["commands"]} for p in plays], f)
        with open(paths["worker.py"], "w") as f:
            f.write(WORKER)
        subprocess.run([python, paths["worker.py"], balrog, paths["plays.json"], paths["out.json"]],
                       check=True)
        with open(paths["out.json"]) as f:
            return json.load(f)


def _rate(values: list[float]) -> str:
    """mean ± standard error (sample SD / sqrt(n))."""
    n = len(values)
    if not n:
        return "-"
    se = float(np.std(values, ddof=1) / np.sqrt(n)) if n > 1 else 0.0
    return f"{np.mean(values):.3f} ± {se:.3f}"


def compare_play(ours: dict, theirs: dict) -> tuple[int, int, int, int, list[str]]:
    """(steps compared, texts differing on screens a model answers, final screens
    differing, rewards or ends differing, first text diff)."""
    texts = finals = other = 0
    first: list[str] = []
    ends_at = len(theirs["steps"])
    if ends_at != len(ours["steps"]):
        other += 1
    for step, (a, b) in enumerate(zip(theirs["steps"], ours["steps"])):
        final = step > 0 and (a["done"] or b["done"])   # the episode is over: no answer asked
        if a["text"] != b["text"]:
            if final:
                finals += 1
                continue
            texts += 1
            if not first:
                after = f" (after {ours['commands'][step - 1]!r})" if step else ""
                first = [f"step {step}{after}:"] + list(difflib.unified_diff(
                    a["text"].splitlines(), b["text"].splitlines(), "balrog", "ours",
                    lineterm="", n=1))
        # TextWorld's gym API (BALROG's) gives the score so far as the reward;
        # ours gives its change: compared with our score
        if step and (a["reward"] != b["score"] or a["done"] != b["done"] or a["won"] != b["won"]):
            other += 1
            if not first:
                first = [f"step {step}: upstream reward {a['reward']} done {a['done']} won {a['won']}, "
                         f"ours score {b['score']} done {b['done']} won {b['won']}"]
    if abs(theirs["progression"] - ours["progression"]) > 1e-9:
        other += 1
    return min(ends_at, len(ours["steps"])), texts, finals, other, first


def main() -> int:
    from dungeonbench_gym.games.textworld import games

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--games", required=True, help="intelligent-go-explore's textworld/tw_games")
    p.add_argument("--balrog", required=True, help="a checkout of balrog-ai/BALROG")
    p.add_argument("--python", required=True, help="an interpreter with textworld<1.7, gym 0.23")
    p.add_argument("--tasks", default=",".join(games.TASKS))
    p.add_argument("--random", type=int, default=2, help="random episodes per game")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--show", type=int, default=2, help="text differences printed per task")
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    print("| task | games identical | plays | steps compared | texts differing | final screens "
          "differing | scores, ends or progression differing | walkthrough wins up / ours | "
          "random success up / ours | random progress up / ours | time |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    bad = 0
    for task in args.tasks.split(","):
        start = time.perf_counter()
        same, differing = 0, []
        plays = []
        for index, entry in enumerate(games.BALROG_GAMES[task]):
            ours = games.game(task, index)
            theirs_file = balrog_file(args.games, task, entry["name"])
            with open(ours.json_path, encoding="utf-8") as f:
                ours_data = json.load(f)
            with open(os.path.splitext(theirs_file)[0] + ".json", encoding="utf-8") as f:
                theirs_data = json.load(f)
            parts = compare_game(ours_data, theirs_data)
            same += not parts
            if parts:
                differing.append(f"{entry['name']}: {', '.join(parts)}")
            for play in our_plays(task, index, [list(ours.walkthrough)] + [None] * args.random, rng):
                plays.append({**play, "file": theirs_file, "walkthrough": len(plays) % (1 + args.random) == 0})
        theirs = upstream_plays(plays, args.python, args.balrog)
        steps = texts = finals = other = 0
        wins = [0, 0]
        random_runs: dict[str, list[list[float]]] = {"success": [[], []], "progress": [[], []]}
        shown = 0
        for mine, up in zip(plays, theirs):
            n, t, f, o, first = compare_play(mine, up)
            steps, texts, finals, other = steps + n, texts + t, finals + f, other + o
            if mine["walkthrough"]:
                wins[0] += up["progression"] == 1.0
                wins[1] += mine["progression"] == 1.0
            else:
                for side, played in enumerate((up, mine)):
                    last = played["steps"][-1]
                    random_runs["success"][side].append(float(len(played["steps"]) > 1 and last["won"]))
                    random_runs["progress"][side].append(float(played["progression"]))
            if first and shown < args.show:
                shown += 1
                print("  " + "\n    ".join(first[:12]))
        total = len(games.BALROG_GAMES[task])
        bad += (total - same) + texts + other
        print(f"| {task} | {same}/{total} | {len(plays)} | {steps} | {texts} | {finals} | {other} | "
              f"{wins[0]} / {wins[1]} of {total} | "
              + " | ".join(f"{_rate(random_runs[k][0])} / {_rate(random_runs[k][1])}"
                           for k in ("success", "progress"))
              + f" | {time.perf_counter() - start:.0f} s |", flush=True)
        for line in differing[:5]:
            print(f"  differs: {line}")
    print(f"\n{bad} differences in all")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
