"""TextWorld speed: our TextWorldEnv against raw TextWorld, in the same run; and
generation seconds per game.

For each task, one game (pool index `--game`) and one command sequence: episodes of
seeded random admissible commands, each ended by the game or after 80 steps, recorded
once with our env. The same commands are then played three ways:

  raw     textworld.start(game, EnvInfos(admissible_commands, description, inventory,
          objective, score, max_score, won, lost)), the infos our env asks for
  tensor  DungeonBench/TextWorld-...-v0 (gymnasium.make): slots, mask, hashed
          bag-of-words observation
  text    the same with text=True (info["text"] every step)
  balrog-text  text=True, text_style="balrog" (the BALROG protocol's env): BALROG's
          text, read from a second, untracked copy of the game that plays along

Only `step` calls are timed; resets (episode starts) are timed apart. Each way runs
`--repeats` times, interleaved; the figure is the median. Ratios are against raw from
the same run. Generation: the seconds the cache recorded for each pool game made so
far (accepted seed, and with the rejected Treasure Hunter seeds), and with
`--generate N`, N games made afresh in a temporary cache.

    python benchmarks/textworld_speed.py --steps 400 --repeats 3 [--generate 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time

import numpy as np

WAYS = ("raw", "tensor", "text", "balrog-text")
IDS = {"treasure_hunter": "TextWorld-TreasureHunter-v0", "cooking": "TextWorld-Cooking-v0",
       "coin_collector": "TextWorld-CoinCollector-v0"}
EPISODE_STEPS = 80


def record(task: str, index: int, steps: int, seed: int) -> list[list[tuple[str, int]]]:
    """Episodes of (command, slot) pairs chosen at random among the admissible ones."""
    from dungeonbench_gym.games.textworld.env import TextWorldEnv

    env = TextWorldEnv(task)
    rng = np.random.default_rng(seed)
    episodes, total = [], 0
    while total < steps:
        _, info = env.reset(seed=seed, options={"game": index})
        episode = []
        for _ in range(min(EPISODE_STEPS, steps - total)):
            option = info["options"][int(rng.integers(len(info["options"])))]
            episode.append((option.label, option.index))
            _, _, term, trunc, info = env.step(option.index)
            if term or trunc:
                break
        total += len(episode)
        episodes.append(episode)
    env.close()
    return episodes


def run_once(way: str, task: str, index: int, episodes, seed: int) -> dict:
    from dungeonbench_gym.games.textworld import games
    from dungeonbench_gym.games.textworld.env import request_infos

    if way == "raw":
        import textworld
        env = textworld.start(games.game(task, index).path, request_infos())

        def reset():
            env.reset()

        def step(command, slot):
            env.step(command)
    else:
        import gymnasium as gym
        style = {"text_style": "balrog"} if way == "balrog-text" else {}
        env = gym.make(f"dungeonbench_gym:DungeonBench/{IDS[task]}", text=way != "tensor", **style)

        def reset():
            env.reset(seed=seed, options={"game": index})

        def step(command, slot):
            env.step(slot)

    step_time = reset_time = 0.0
    steps = 0
    for episode in episodes:
        t0 = time.perf_counter()
        reset()
        reset_time += time.perf_counter() - t0
        for command, slot in episode:
            t0 = time.perf_counter()
            step(command, slot)
            step_time += time.perf_counter() - t0
            steps += 1
    env.close()
    return {"steps_per_s": steps / step_time, "reset_s": reset_time / len(episodes),
            "steps": steps}


def generation_figures(fresh: int) -> dict:
    from dungeonbench_gym.games.textworld import games

    out = {}
    for task in games.TASKS:
        made = [g for i in range(games.POOL_SIZE) if (g := games._load(task, i)) is not None]
        entry = {"cached_games": len(made)}
        if made:
            entry["seconds_per_game"] = statistics.mean(g.seconds for g in made)
            entry["seconds_per_game_with_rejected"] = statistics.mean(g.total_seconds for g in made)
            entry["rejected_seeds_per_game"] = statistics.mean(len(g.rejected) for g in made)
            entry["worst_seconds"] = max(g.total_seconds for g in made)
        out[task] = entry
    if fresh:
        saved = os.environ.get("DUNGEONBENCH_CACHE_DIR")
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["DUNGEONBENCH_CACHE_DIR"] = tmp
            try:
                for task in games.TASKS:
                    t0 = time.perf_counter()
                    for i in range(fresh):
                        games.game(task, i)
                    out[task]["fresh_seconds_per_game"] = (time.perf_counter() - t0) / fresh
            finally:
                if saved is None:
                    os.environ.pop("DUNGEONBENCH_CACHE_DIR", None)
                else:
                    os.environ["DUNGEONBENCH_CACHE_DIR"] = saved
    return out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", nargs="*", default=list(IDS), choices=list(IDS))
    parser.add_argument("--game", type=int, default=0, help="pool index of the game played")
    parser.add_argument("--steps", type=int, default=400, help="timed steps per repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--generate", type=int, default=0,
                        help="also make N games per task afresh in a temporary cache")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    import textworld
    results = {"python": platform.python_version(), "textworld": textworld.__version__,
               "steps": args.steps, "repeats": args.repeats, "tasks": {}}
    for task in args.tasks:
        episodes = record(task, args.game, args.steps, args.seed)
        runs = {way: [] for way in WAYS}
        for _ in range(args.repeats):
            for way in WAYS:
                runs[way].append(run_once(way, task, args.game, episodes, args.seed))
        figures = {}
        for way in WAYS:
            figures[way] = {
                "steps_per_s": statistics.median(r["steps_per_s"] for r in runs[way]),
                "reset_s": statistics.median(r["reset_s"] for r in runs[way]),
            }
        for way in WAYS:
            figures[way]["ratio_vs_raw"] = figures[way]["steps_per_s"] / figures["raw"]["steps_per_s"]
        results["tasks"][task] = {"game": args.game, "episodes": len(episodes), "ways": figures}
    results["generation"] = generation_figures(args.generate)

    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print(f"TextWorld {results['textworld']}, Python {results['python']}, "
              f"{args.steps} steps x {args.repeats} repeats (median)")
        for task, entry in results["tasks"].items():
            print(f"\n{task} (game {entry['game']}, {entry['episodes']} episodes)")
            for way, f in entry["ways"].items():
                print(f"  {way:11s} {f['steps_per_s']:8.1f} steps/s  x{f['ratio_vs_raw']:.2f} of raw"
                      f"   reset {f['reset_s'] * 1000:7.1f} ms")
        print("\ngeneration (seconds per game)")
        for task, g in results["generation"].items():
            line = f"  {task:16s} cached {g['cached_games']:2d}"
            if "seconds_per_game" in g:
                line += (f"  accepted seed {g['seconds_per_game']:.1f}  with rejected seeds "
                         f"{g['seconds_per_game_with_rejected']:.1f}"
                         f"  (rejected seeds/game {g['rejected_seeds_per_game']:.1f})"
                         f"  worst {g['worst_seconds']:.1f}")
            if "fresh_seconds_per_game" in g:
                line += f"  fresh {g['fresh_seconds_per_game']:.1f}"
            print(line)
    return results


if __name__ == "__main__":
    main()
