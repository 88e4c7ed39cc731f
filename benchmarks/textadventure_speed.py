"""Text-adventure speed: valid-action detection per step, and our env against raw Frotz.

For each story (the shipped games; `--story FILE` adds one of yours, with
`--walkthrough`), the walkthrough is played from the start in four ways, in the
same run:

  raw        Jericho's FrotzEnv.step on the walkthrough's commands: the interpreter alone
  env-1      DungeonBench's TextAdventureEnv, the detector on one interpreter
  env-2      the same with two interpreter threads (the env's default)
  jericho    Jericho's own FrotzEnv.get_valid_actions() at each step, where it can run:
             only for story files Jericho supports (it knows their md5) and with the
             spaCy English model installed; otherwise the reason is printed

Detection times are per step, from a fresh env (cold cache); `warm` replays the
same walkthrough on the same env (every state cached). The env's step time
includes detection (the options of the next state). Each way runs `--repeats`
times; medians over steps are pooled over repeats. Ratios: env steps/s over raw
steps/s from the same run.

    python benchmarks/textadventure_speed.py --repeats 3 [--story 905.z5 --walkthrough w.txt]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
import warnings


def _percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def raw_steps(story: str, commands: list[str]) -> float:
    import jericho
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frotz = jericho.FrotzEnv(story, seed=1)
    frotz.reset()
    start = time.perf_counter()
    for command in commands:
        frotz.step(command)
    elapsed = time.perf_counter() - start
    frotz.close()
    return elapsed


def env_run(story: str, achievements: str | None, commands: list[str], workers: int):
    """(step seconds, cold detection seconds per step, warm ones, option counts)."""
    from dungeonbench_gym.games.textadventure.env import TextAdventureEnv

    env = TextAdventureEnv(story_file=story, achievements=achievements,
                           detector_workers=workers, turn_limit=10**6)
    env.reset(seed=0)
    cold, counts = [env.valid_actions.seconds], [len(env.valid_actions.labels)]
    start = time.perf_counter()
    for command in commands:
        env.step(command)
        cold.append(env.valid_actions.seconds)
        counts.append(len(env.valid_actions.labels))
    elapsed = time.perf_counter() - start
    env.reset(seed=0)
    warm = [env.valid_actions.seconds]
    for command in commands:
        env.step(command)
        warm.append(env.valid_actions.seconds)
    env.close()
    return elapsed, cold, warm, counts


def jericho_detection(story: str, commands: list[str]):
    """Seconds per step of Jericho's get_valid_actions, or the reason it cannot run."""
    import jericho
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frotz = jericho.FrotzEnv(story)
    if not frotz.is_fully_supported or not frotz.bindings:
        return None, (f"Jericho does not support this story (no bindings for md5 "
                      f"{__import__('hashlib').md5(open(story, 'rb').read()).hexdigest()})")
    try:
        import spacy
        spacy.load("en_core_web_sm")
    except Exception as error:  # the model is a separate download
        return None, f"Jericho's detector needs spaCy's en_core_web_sm ({type(error).__name__})"
    frotz.reset()
    times = []
    for command in [None, *commands]:
        if command is not None:
            frotz.step(command)
        start = time.perf_counter()
        frotz.get_valid_actions()
        times.append(time.perf_counter() - start)
    frotz.close()
    return times, ""


def main(argv=None) -> None:
    from dungeonbench_gym.games.textadventure.check import read_walkthrough
    from dungeonbench_gym.games.textadventure.env import game_files, shipped_games

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--story", help="another story file to measure")
    p.add_argument("--walkthrough", help="its commands, one per line")
    p.add_argument("--achievements", help="its achievements file (optional)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)

    stories = []
    for game in shipped_games():
        files = game_files(game)
        stories.append((game, str(files["story"]), str(files["achievements"]),
                        read_walkthrough(files["walkthrough"])))
    if args.story:
        if not args.walkthrough:
            p.error("--story needs --walkthrough")
        stories.append((os.path.basename(args.story), args.story, args.achievements,
                        read_walkthrough(args.walkthrough)))

    report = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, "
                         f"Python {platform.python_version()}", "repeats": args.repeats,
              "stories": {}}
    for name, story, achievements, commands in stories:
        raw, runs = [], {1: [], 2: []}
        cold = {1: [], 2: []}
        warm, counts = [], []
        for _ in range(args.repeats):
            raw.append(raw_steps(story, commands))
            for workers in (1, 2):
                elapsed, c, w, n = env_run(story, achievements, commands, workers)
                runs[workers].append(elapsed)
                cold[workers] += c
                if workers == 2:
                    warm += w
                    counts = n
        steps = len(commands)
        raw_rate = steps / statistics.median(raw)
        entry = {"steps": steps, "options_median": statistics.median(counts),
                 "options_max": max(counts), "raw_steps_per_s": round(raw_rate, 1)}
        for workers in (1, 2):
            rate = steps / statistics.median(runs[workers])
            entry[f"env{workers}_steps_per_s"] = round(rate, 2)
            entry[f"env{workers}_ratio_vs_raw"] = round(rate / raw_rate, 4)
            entry[f"detect{workers}_ms_median"] = round(1e3 * statistics.median(cold[workers]), 1)
            entry[f"detect{workers}_ms_p90"] = round(1e3 * _percentile(cold[workers], 0.9), 1)
            entry[f"detect{workers}_ms_max"] = round(1e3 * max(cold[workers]), 1)
        entry["detect_warm_ms_median"] = round(1e3 * statistics.median(warm), 3)
        times, why = jericho_detection(story, commands)
        if times is None:
            entry["jericho"] = f"not run: {why}"
        else:
            entry["jericho_ms_median"] = round(1e3 * statistics.median(times), 1)
            entry["jericho_over_ours"] = round(statistics.median(times) /
                                               statistics.median(cold[2]), 2)
        report["stories"][name] = entry

    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"text adventures: {report['machine']}; {args.repeats} repeats; walkthroughs; "
          "detection from a fresh env (cold cache)")
    for name, e in report["stories"].items():
        print(f"\n{name}: {e['steps']} steps, options per step median {e['options_median']} "
              f"max {e['options_max']}")
        print(f"  raw Frotz           {e['raw_steps_per_s']:>9.1f} steps/s")
        for workers in (1, 2):
            print(f"  env, {workers} thread{'s' if workers > 1 else ' '}      "
                  f"{e[f'env{workers}_steps_per_s']:>9.2f} steps/s  "
                  f"({e[f'env{workers}_ratio_vs_raw']:.4f}x raw)  detection "
                  f"median {e[f'detect{workers}_ms_median']} ms, p90 "
                  f"{e[f'detect{workers}_ms_p90']} ms, max {e[f'detect{workers}_ms_max']} ms")
        print(f"  detection, warm cache: median {e['detect_warm_ms_median']} ms")
        if "jericho" in e:
            print(f"  Jericho get_valid_actions: {e['jericho']}")
        else:
            print(f"  Jericho get_valid_actions: median {e['jericho_ms_median']} ms "
                  f"({e['jericho_over_ours']}x ours)")


if __name__ == "__main__":
    main()
