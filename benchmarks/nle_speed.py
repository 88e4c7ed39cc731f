"""NetHack and MiniHack speed: our envs against the raw NLE / MiniHack env, same run.

Three ways of playing the same seeded game with the same keys:

  raw     the upstream env as NLE/MiniHack build it (NetHackChallenge's settings
          and default observation keys on NLE's seedable NetHackScore; the MiniHack
          task class with its default observation keys and our hero and question
          settings, so both play the same game), seeded like ours and reset when its
          game ends
  tensor  DungeonBench's env (numeric observation, mask, info; no text)
  text    the same with text=True, reading info["text"] every step
  balrog-text  the same with text_style="balrog" (BALROG's text, `balrog_text.py`)

The policy is random over the eight moves, answering any question with escape,
so both games receive identical keys and stay identical (checked at the end of
every slice: the screens must match). Ways take turns in `--slice`-step slices,
timed in process CPU time; resets are outside the clock. The figure per way is
the median over `--repeats` of its steps per second; ratios are against raw.

    python benchmarks/nle_speed.py --env NetHack-v0 --steps 5000 --repeats 3
    python benchmarks/nle_speed.py --env MiniHack-Corridor-R3-v0

Boxoban has no raw counterpart here: upstream's needs downloaded level files.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

import numpy as np
from nle import nethack

import dungeonbench_gym
from dungeonbench_gym.games.nethack.base import nethack_seeds
from dungeonbench_gym.games.nethack.commands import COMMANDS, ESCAPE, MOVE_INDICES

WAYS = ("raw", "tensor", "text", "balrog-text")


def _raw_env(ours):
    """The upstream env ours wraps, with upstream's own settings and keys."""
    if ours.family == "nethack":
        from nle.env.tasks import NetHackChallenge, NetHackScore
        import inspect
        keys = inspect.signature(NetHackChallenge.__init__).parameters["observation_keys"].default
        return NetHackScore(actions=nethack.ACTIONS, character=ours.character,
                            observation_keys=keys, allow_all_yn_questions=True,
                            allow_all_modes=True, penalty_step=0.0, max_episode_steps=10**9,
                            fix_moon_phase=True)
    import importlib
    from dungeonbench_gym.games.minihack.env import TASKS
    module, name, _ = TASKS[ours.task]
    # our question and hero settings (so both play the same game: BALROG's random role
    # unless the task forces one, no autopickup), upstream's observation keys
    return getattr(importlib.import_module(module), name)(
        actions=nethack.ACTIONS, allow_all_yn_questions=True, allow_all_modes=True,
        max_episode_steps=10**9, fix_moon_phase=True, character="@", autopickup=False)


def run(env_id: str, steps: int, slice_len: int, seed: int) -> dict:
    ours = {"tensor": dungeonbench_gym.make(env_id).unwrapped,
            "text": dungeonbench_gym.make(env_id, text=True).unwrapped,
            "balrog-text": dungeonbench_gym.make(env_id, text=True, text_style="balrog").unwrapped}
    raw = _raw_env(ours["tensor"])
    raw_index = {int(a): i for i, a in enumerate(raw.actions)}
    rng = np.random.default_rng(seed)
    clock = {w: 0.0 for w in WAYS}
    done_steps = 0
    episode = 0

    def start():
        for env in ours.values():
            env.reset(seed=seed + episode)
        core, disp, lgen = nethack_seeds(ours["tensor"]._episode_seed)
        raw.seed(core, disp, False, lgen)
        raw.reset()

    start()
    while done_steps < steps:
        n = min(slice_len, steps - done_steps)
        # choose this slice's options on the tensor env, then replay them on the others
        options, finished = [], False
        moves = [MOVE_INDICES[i] for i in rng.integers(0, len(MOVE_INDICES), n).tolist()]
        t0 = time.process_time()
        env = ours["tensor"]
        for move in moves:
            option = move if env._mask[move] else ESCAPE
            options.append(option)
            _, _, term, trunc, _ = env.step(option)
            if term or trunc:
                finished = True
                break
        clock["tensor"] += time.process_time() - t0
        for way in ("text", "balrog-text"):
            t0 = time.process_time()
            env = ours[way]
            for option in options:
                info = env.step(option)[4]
                info["text"]
            clock[way] += time.process_time() - t0
        raw_actions = [raw_index[COMMANDS[o].key] for o in options]
        raw_done = False
        t0 = time.process_time()
        for a in raw_actions:
            if raw.step(a)[2]:   # NLE refuses a step after the game ended: reset first
                raw_done = True
                break
        clock["raw"] += time.process_time() - t0
        same = (raw.last_observation[raw._observation_keys.index("tty_chars")] ==
                ours["tensor"]._obs["tty_chars"]).all()
        if (not same or raw_done) and not finished:
            raise AssertionError("raw and ours diverged: the comparison would be unfair")
        done_steps += len(options)
        if finished:
            episode += 1
            start()
    return {w: done_steps / clock[w] for w in WAYS}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="NetHack-v0")
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--slice", type=int, default=250)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    runs = [run(args.env, args.steps, args.slice, args.seed + r) for r in range(args.repeats)]
    result = {"env": args.env, "steps": args.steps, "repeats": args.repeats,
              "machine": f"{platform.machine()}, Python {platform.python_version()}", "ways": {}}
    raw = statistics.median(r["raw"] for r in runs)
    for w in WAYS:
        sps = statistics.median(r[w] for r in runs)
        result["ways"][w] = {"steps_per_s": round(sps, 1), "ratio_to_raw": round(sps / raw, 3),
                             "us_per_step": round(1e6 / sps, 1),
                             "all": [round(r[w], 1) for r in runs]}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{args.env}: {args.steps} steps x {args.repeats} repeats, CPU time, median")
        for w, v in result["ways"].items():
            print(f"  {w:11} {v['steps_per_s']:9.1f} steps/s  {v['us_per_step']:7.1f} us/step  "
                  f"x raw {v['ratio_to_raw']:.3f}")
    return result


if __name__ == "__main__":
    main()
