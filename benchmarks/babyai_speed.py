"""BabyAI speed: our BabyAIEnv against the raw minigrid level it wraps, in one run.

Three loops play the same games and reset when an episode ends:

  raw     the task's minigrid level object (`make_level(task)`), stepped directly
  tensor  BabyAIEnv(task), text=False (what RL pays)
  text    BabyAIEnv(task, text=True) (what an LLM loop pays, prompt building aside)

Ours gets pre-drawn random indices 0..5 from a seeded generator; a masked-out
index runs the fallback, as in use. So that the raw level does exactly the same
game work (same layouts, same moves, same resets), an untimed tracing pass
records what our env executed (the action after any fallback, and each
episode's layout seed) and the raw loop replays that.

Within a repeat the three loops take turns in short slices (`--chunk` steps,
rotating who goes first), so slow phases of a busy machine hit all of them;
the clock is CPU time of this process (`time.process_time`), so time the
machine gives to other work is not charged to whichever loop was running. The
ratio to raw is computed per repeat from those paired, interleaved timings and
the table gives the median over repeats (the spread beside it); the best and
median steps/s per mode are shown too. Overhead = 1 - ours / raw.

    python benchmarks/babyai_speed.py                     # goto, 20000 steps, 5 repeats
    python benchmarks/babyai_speed.py --task all --steps 50000 --repeats 7 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

from dungeonbench_gym.games.babyai import TASKS, BabyAIEnv, make_level


def trace(task: str, actions: list[int], seed: int, max_steps: int):
    """What BabyAIEnv executes for `actions`: the moves after fallback, the layout seeds."""
    env = BabyAIEnv(task, max_steps=max_steps)
    env.reset(seed=seed)
    executed, layout_seeds = [], [env.layout_seed]
    for a in actions:
        executed.append(a if env.action_masks()[a] else env.fallback_action())
        _, _, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            env.reset()
            layout_seeds.append(env.layout_seed)
    return executed, layout_seeds


def timed_loop(step, on_episode_end, moves):
    """A generator: each send(n) plays the next n moves, yields the CPU seconds they took."""
    clock = time.process_time
    n = yield
    while True:
        start = clock()
        for _ in range(n):
            _, _, terminated, truncated, _ = step(next(moves))
            if terminated or truncated:
                on_episode_end()
        n = yield clock() - start


def raw_loop(task: str, executed: list[int], layout_seeds: list[int], max_steps: int):
    """The raw level replaying the moves and layouts our env executed."""
    level = make_level(task, max_steps=max_steps)
    level.reset(seed=layout_seeds[0])
    seeds = iter(layout_seeds[1:])
    return timed_loop(level.step, lambda: level.reset(seed=next(seeds)), iter(executed))


def our_loop(task: str, actions: list[int], seed: int, max_steps: int, text: bool):
    """BabyAIEnv fed the original indices (masked-out ones fall back)."""
    env = BabyAIEnv(task, max_steps=max_steps, text=text)
    env.reset(seed=seed)
    return timed_loop(env.step, env.reset, iter(actions))


def bench_task(task: str, steps: int, repeats: int, seed: int, max_steps: int,
               chunk: int) -> dict:
    # Python ints, as an agent would pass them (numpy scalars are slower for both).
    actions = np.random.default_rng(seed).integers(0, 6, steps).tolist()
    executed, layout_seeds = trace(task, actions, seed, max_steps)
    rates: dict[str, list[float]] = {"raw": [], "tensor": [], "text": []}
    paired: dict[str, list[float]] = {"tensor": [], "text": []}
    for _ in range(repeats):
        loops = {"raw": raw_loop(task, executed, layout_seeds, max_steps),
                 "tensor": our_loop(task, actions, seed, max_steps, text=False),
                 "text": our_loop(task, actions, seed, max_steps, text=True)}
        seconds = dict.fromkeys(loops, 0.0)
        for loop in loops.values():
            next(loop)
        # Interleave short chunks (rotating the order) so that a busy neighbour
        # on a small machine slows every mode alike.
        order = list(loops)
        for k, done in enumerate(range(0, steps, chunk)):
            n = min(chunk, steps - done)
            for mode in order[k % 3:] + order[:k % 3]:
                seconds[mode] += loops[mode].send(n)
        for mode in loops:
            rates[mode].append(steps / seconds[mode])
        for mode in paired:
            paired[mode].append(seconds["raw"] / seconds[mode])
    out: dict = {"episodes": len(layout_seeds),
                 "fallbacks": sum(a != e for a, e in zip(actions, executed))}
    for mode, values in rates.items():
        out[mode] = {"best": max(values), "median": statistics.median(values), "all": values}
    for mode in ("tensor", "text"):
        out[mode]["paired_ratios"] = paired[mode]
        out[mode]["ratio"] = statistics.median(paired[mode])
        out[mode]["overhead"] = 1.0 - out[mode]["ratio"]
        for stat in ("best", "median"):
            ratio = out[mode][stat] / out["raw"][stat]
            out[mode][f"ratio_{stat}"] = ratio
            out[mode][f"overhead_{stat}"] = 1.0 - ratio
            # extra time per step, in microseconds
            out[mode][f"extra_us_per_step_{stat}"] = 1e6 * (1 / out[mode][stat]
                                                             - 1 / out["raw"][stat])
    return out


def machine() -> dict:
    import minigrid
    return {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(), "python": sys.version.split()[0],
            "numpy": np.__version__, "minigrid": minigrid.__version__}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="goto", choices=[*TASKS, "all"])
    parser.add_argument("--steps", type=int, default=20000, help="steps per loop and repeat")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=500,
                        help="steps per timed slice; the modes take turns slice by slice")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-steps", type=int, default=64, help="episode step limit")
    parser.add_argument("--json", metavar="PATH", help="also write the figures to PATH ('-': stdout)")
    args = parser.parse_args(argv)

    tasks = TASKS if args.task == "all" else (args.task,)
    results = {t: bench_task(t, args.steps, args.repeats, args.seed, args.max_steps, args.chunk)
               for t in tasks}

    print(f"BabyAI speed: {args.steps} steps x {args.repeats} repeats, random actions "
          f"(seed {args.seed}), {os.cpu_count()} CPUs, {platform.python_implementation()} "
          f"{sys.version.split()[0]}")
    header = (f"{'task':<18} {'mode':<7} {'best steps/s':>13} {'median':>10} {'ratio':>7} "
              f"{'overhead':>9} {'ratio range':>13}")
    print(header)
    print("-" * len(header))
    for task, res in results.items():
        for mode in ("raw", "tensor", "text"):
            r = res[mode]
            ratio = r.get("ratio", 1.0)
            if mode == "raw":
                over, extra = f"{'':>9}", f"{'':>13}"
            else:
                over = f"{100 * r['overhead']:8.1f}%"
                extra = f"{min(r['paired_ratios']):6.3f}-{max(r['paired_ratios']):.3f}"
            print(f"{task:<18} {mode:<7} {r['best']:13,.0f} {r['median']:10,.0f} "
                  f"{ratio:7.3f} {over} {extra}")
    print("ratio: median over repeats of the paired ratio raw CPU time / ours (range beside)")

    if args.json:
        doc = {"benchmark": "babyai_speed", "machine": machine(),
               "settings": {"tasks": list(tasks), "steps": args.steps, "repeats": args.repeats,
                            "seed": args.seed, "max_steps": args.max_steps, "chunk": args.chunk,
                            "clock": "process_time",
                            "ratio_from": "median over repeats of paired raw/ours CPU time"},
               "results": results}
        text = json.dumps(doc, indent=2)
        if args.json == "-":
            print(text)
        else:
            with open(args.json, "w", encoding="utf-8") as f:
                f.write(text + "\n")
            print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
