"""MiniHack side by side: upstream MiniHack with BALROG's settings, and ours.

BALROG pins balrog-ai/minihack, whose level code (`envs/*.py`, `navigation.py`,
`level_generator.py`) is file for file that of the `minihack` release installed
here (the fork differs only in importing gym instead of gymnasium), so upstream
runs in this process from the installed package, constructed as BALROG's
`make_minihack_env` constructs it: the task's own action set, `character="@"`,
`autopickup=False`, 100 steps, and --More-- pressed after every step as BALROG's
`AutoMore` does. Ours is `DungeonBench/MiniHack-<task>-v0` with the BALROG
protocol's settings (`balrog_protocol.ENV_SETTINGS`: `on_invalid="passthrough"`,
`auto_more=True`, `nle_prompts=True`, NLE's own handling of questions and menus).

The agent is the same on both sides: uniformly random over BALROG's MiniHack
vocabulary for the task (the task's actions that BALROG's `ACTIONS` table names;
`balrog_protocol.MINIHACK_VOCABULARY`), or with `--agent explorer` (MazeWalk
tasks) a scripted explorer that reads only the map characters and the hero's
position, which both sides show alike: it walks to the stairs down once seen,
else to the nearest untried unknown cell beside the known floor. Per task it prints both success rates
with standard errors, whether they agree within two standard errors, and
structural statistics of the starting screens: the hero's role title (total
variation), map cells drawn at the start, monsters in view, and episode length.

Boxoban: upstream reads DeepMind's level files (github.com/deepmind/boxoban-levels,
which BALROG's post-install downloads). With `--boxoban-levels DIR` (a folder with
that repository's `medium/train/*.txt` and `hard/*.txt`, any subset of the files)
upstream plays those, and the Boxoban rows also compare the levels themselves:
the push solver's shortest solution over `--solve` levels from each side.
Without it upstream gets the levels of our generator written in the official
format, and the rows compare the game's mechanics only.

    python benchmarks/balrog_parity_minihack.py --episodes 200 [--tasks MazeWalk-9x9] [--seed 0]
        [--boxoban-levels DIR] [--solve 40]
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import statistics
import sys
import tempfile
import time
import warnings
from concurrent.futures import ProcessPoolExecutor

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from parity_stats import agree, rate, total_variation  # noqa: E402

warnings.filterwarnings("ignore")
TASKS = ("Corridor-R3", "CorridorBattle-Dark", "MazeWalk-9x9", "MazeWalk-15x15", "Quest-Easy",
         "Quest-Medium", "Boxoban-Medium", "Boxoban-Hard")
UPSTREAM = {"Boxoban-Medium": ("minihack.envs.boxohack", "MiniHackBoxobanMedium"),
            "Boxoban-Hard": ("minihack.envs.boxohack", "MiniHackBoxobanHard")}
STEPS = 100
OBS_KEYS = ("glyphs", "chars", "blstats", "tty_chars", "message")
_BOXOBAN_DIR = None
# the explorer's eight moves: (dx, dy) -> NetHack's key
MOVES = {(0, -1): ord("k"), (1, 0): ord("l"), (0, 1): ord("j"), (-1, 0): ord("h"),
         (1, -1): ord("u"), (1, 1): ord("n"), (-1, 1): ord("b"), (-1, -1): ord("y")}
FLOOR = frozenset(map(ord, ".#<>{"))


class Explorer:
    """Breadth-first over the floor seen so far: the stairs when seen, else the nearest
    unknown cell beside the floor that has not been tried (a try that does not move the
    hero marks that cell as wall)."""

    def __init__(self):
        self.blocked: set[tuple[int, int]] = set()
        self.tried: tuple[tuple[int, int], tuple[int, int]] | None = None

    def key(self, chars: np.ndarray, hero: tuple[int, int]) -> int:
        if self.tried is not None and self.tried[0] == hero:
            self.blocked.add(self.tried[1])          # the last try did not move the hero
        self.tried = None
        rows, cols = chars.shape
        parent = {hero: None}
        queue = [hero]
        goal = None
        for cell in queue:
            x, y = cell
            if chars[y, x] == ord(">") and cell != hero:
                goal = cell
                break
            for (dx, dy) in MOVES:
                nxt = (x + dx, y + dy)
                if not (0 <= nxt[0] < cols and 0 <= nxt[1] < rows) or nxt in parent:
                    continue
                if chars[nxt[1], nxt[0]] in FLOOR:
                    parent[nxt] = cell
                    queue.append(nxt)
        if goal is None:     # the nearest reachable floor cell with an untried unknown neighbour
            for cell in queue:
                x, y = cell
                for (dx, dy) in MOVES:
                    nxt = (x + dx, y + dy)
                    if (0 <= nxt[0] < cols and 0 <= nxt[1] < rows and nxt not in self.blocked
                            and chars[nxt[1], nxt[0]] == ord(" ")):
                        if cell == hero:
                            self.tried = (hero, nxt)
                            return MOVES[(dx, dy)]
                        goal = cell
                        break
                if goal is not None:
                    break
        if goal is None:
            return ord("s")  # nothing left to try: search
        while parent[goal] != hero:
            goal = parent[goal]
        return MOVES[(goal[0] - hero[0], goal[1] - hero[1])]


def _vocabulary(task: str) -> list[int]:
    """Our option indices of BALROG's vocabulary for the task."""
    from dungeonbench_gym.games.minihack.env import TASKS as OURS
    from dungeonbench_gym.games.nethack.commands import OPTION_TABLE
    from dungeonbench_gym.llm.balrog_protocol import MINIHACK_VOCABULARY
    return [i for i in OURS[task][2] if OPTION_TABLE[i].label in MINIHACK_VOCABULARY]


def _screen_stats(chars: np.ndarray, tty: np.ndarray) -> dict:
    title = bytes(tty[22]).decode("ascii", "replace").split(" St:")[0].strip()
    title = " ".join(title.split()[1:])          # "Agent the Stripling" -> "the Stripling"
    drawn = int((chars != ord(" ")).sum())
    letters = int(sum(1 for c in chars.flatten() if chr(c).isalpha()))
    return {"title": title, "drawn": drawn, "monsters": letters}


def _boxoban_dir(count: int) -> str:
    """The levels our seeds 0..count-1 play, as official-format files where upstream's
    loader reads them (upstream then draws among them at random)."""
    global _BOXOBAN_DIR
    if _BOXOBAN_DIR is None:
        from dungeonbench_gym.games.minihack import boxoban
        root = tempfile.mkdtemp(prefix="boxoban-parity-")
        for tier, mode in (("medium", "train"), ("hard", "")):
            folder = os.path.join(root, tier, mode)
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, "000.txt"), "w") as handle:
                for i in range(count):
                    rows = boxoban.level_for_seed(tier, i)
                    handle.write(f"; {i}\n" + "\n".join(rows) + "\n\n")
        _BOXOBAN_DIR = root
    return _BOXOBAN_DIR


def upstream_episode(task: str, seed: int, count: int, official: str | None = None,
                     agent: str = "random") -> dict:
    import minihack  # noqa: F401 - registers the envs
    from nle import nethack
    rng = np.random.default_rng([seed, 1])
    random.seed(int(rng.integers(2**31)))        # Boxoban's level pick is Python's random
    kwargs = dict(observation_keys=OBS_KEYS, character="@", max_episode_steps=STEPS,
                  penalty_step=-0.01, penalty_time=0.0, penalty_mode="constant",
                  autopickup=False)
    if task in UPSTREAM:
        from minihack.envs import boxohack
        boxohack.LEVELS_PATH = official or _boxoban_dir(count)
        module, name = UPSTREAM[task]
    else:
        from dungeonbench_gym.games.minihack.env import TASKS as OURS
        module, name = OURS[task][0], OURS[task][1]
    env = getattr(importlib.import_module(module), name)(**kwargs)
    core, disp, lgen = (int(v) for v in rng.integers(1, 2**62, 3))
    env.seed(core, disp, False, lgen)
    if task in UPSTREAM:
        # NLE 1.3's reset asks for the end status before BoxoHack.reset has found the
        # fountains; BALROG's pinned NLE does not: a placeholder until it has them
        env._goal_pos_set = None
    obs, _ = env.reset()
    stats = _screen_stats(obs["chars"], obs["tty_chars"])
    from dungeonbench_gym.games.nethack.commands import KEYS
    index = {int(a): i for i, a in enumerate(env.actions)}
    choices = [index[KEYS[i]] for i in _vocabulary(task)]
    more = index.get(int(nethack.MiscAction.MORE))
    success, steps, done = False, 0, False
    explorer = Explorer() if agent == "explorer" else None
    while not done and steps < STEPS:
        if explorer is not None:
            hero = (int(obs["blstats"][0]), int(obs["blstats"][1]))
            action = index[explorer.key(obs["chars"], hero)]
        else:
            action = int(rng.choice(choices))
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        steps += 1
        presses = 0
        while not done and more is not None and b"--More--" in bytes(obs["tty_chars"]) and presses < 32:
            obs, _, terminated, truncated, info = env.step(more)      # BALROG's AutoMore
            done = terminated or truncated
            presses += 1
        if done:
            success = info.get("end_status") == env.StepStatus.TASK_SUCCESSFUL
    env.close()
    return {"success": bool(success), "steps": steps, **stats}


def our_episode(task: str, seed: int, agent: str = "random") -> dict:
    import dungeonbench_gym
    from dungeonbench_gym.llm.balrog_protocol import ENV_SETTINGS
    env = dungeonbench_gym.make(f"MiniHack-{task}-v0", **ENV_SETTINGS["minihack"])
    obs, info = env.reset(seed=seed)
    up = env.unwrapped
    stats = _screen_stats(up._obs["chars"], up._obs["tty_chars"])
    rng = np.random.default_rng([seed, 2])
    choices = _vocabulary(task)
    from dungeonbench_gym.games.nethack.commands import KEYS
    ours_for_key = {key: i for i, key in enumerate(KEYS)}
    explorer = Explorer() if agent == "explorer" else None
    steps, done = 0, False
    while not done:
        if explorer is not None:
            hero = (int(up._obs["blstats"][0]), int(up._obs["blstats"][1]))
            action = ours_for_key[explorer.key(up._obs["chars"], hero)]
        else:
            action = int(rng.choice(choices))
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        steps += 1
    env.close()
    return {"success": bool(info["success"]), "steps": steps, **stats}


def _run(args):
    side, task, seed, count, official, agent = args
    if side == "ours":
        return our_episode(task, seed, agent)
    return upstream_episode(task, seed, count, official, agent)


def _solve_row(task: str, folder: str, n: int, seed: int) -> str:
    """Our levels beside DeepMind's for a Boxoban task (benchmarks/boxoban_levels.py)."""
    import boxoban_levels
    from dungeonbench_gym.games.minihack import boxoban
    tier = task.split("-")[1].lower()
    theirs = [boxoban_levels.official(rows)
              for rows in boxoban_levels.official_levels(folder, tier, n, seed)]
    theirs = [row for row in theirs if row is not None]
    ours = [boxoban_levels.describe(rows, boxoban.solve(rows, max_effort=boxoban.MAX_EFFORT))
            for rows in (boxoban.level_for_seed(tier, k) for k in range(n))]
    median = lambda rows, key: statistics.median(r[key] for r in rows)  # noqa: E731
    return (f"{task}: fewest-push plans, DeepMind / ours ({len(theirs)} / {len(ours)} levels): "
            f"moves median {median(theirs, 'moves'):.0f} / {median(ours, 'moves'):.0f}, "
            f"pushes median {median(theirs, 'pushes'):.0f} / {median(ours, 'pushes'):.0f}, "
            f"floor cells median {median(theirs, 'floor'):.0f} / {median(ours, 'floor'):.0f}, "
            f"bins total variation {boxoban_levels.total_variation(theirs, ours):.2f}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--episodes", type=int, default=200)
    p.add_argument("--tasks", default=",".join(TASKS))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--agent", default="random", choices=("random", "explorer"),
                   help="explorer: the scripted MazeWalk explorer (see the docstring)")
    p.add_argument("--boxoban-levels", default=None,
                   help="a folder of DeepMind's official Boxoban level files for upstream")
    p.add_argument("--solve", type=int, default=40,
                   help="levels per side whose shortest solutions are compared (Boxoban)")
    args = p.parse_args(argv)
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    print(f"| task | upstream success | ours | within 2 SE | role titles TV | cells drawn up / ours "
          f"| monsters in view up / ours | steps up / ours |\n|---|---|---|---|---|---|---|---|")
    agreed, start, notes = 0, time.time(), []
    with ProcessPoolExecutor(args.workers) as pool:
        for task in tasks:
            seeds = [args.seed * 100_000 + k for k in range(args.episodes)]
            count = min(args.episodes, 1000)      # Boxoban: the levels these seeds play
            # ours first: it generates (and caches) the Boxoban levels upstream then reads
            official = args.boxoban_levels if task.startswith("Boxoban") else None
            ours = list(pool.map(_run, [("ours", task, s, count, None, args.agent)
                                        for s in seeds], chunksize=8))
            up = list(pool.map(_run, [("upstream", task, s, count, official, args.agent)
                                      for s in seeds], chunksize=8))
            if official and args.solve:
                notes.append(_solve_row(task, official, args.solve, args.seed))
            a, b = rate(e["success"] for e in up), rate(e["success"] for e in ours)
            same = agree(a, b)
            agreed += same
            mean = lambda rows, key: sum(r[key] for r in rows) / len(rows)  # noqa: E731
            print(f"| {task} | {a[0]:.3f} ± {a[1]:.3f} | {b[0]:.3f} ± {b[1]:.3f} | "
                  f"{'yes' if same else 'NO'} | "
                  f"{total_variation([e['title'] for e in up], [e['title'] for e in ours]):.2f} | "
                  f"{mean(up, 'drawn'):.0f} / {mean(ours, 'drawn'):.0f} | "
                  f"{mean(up, 'monsters'):.2f} / {mean(ours, 'monsters'):.2f} | "
                  f"{mean(up, 'steps'):.1f} / {mean(ours, 'steps'):.1f} |", flush=True)
    for note in notes:
        print(f"\n{note}")
    print(f"\n{agreed} of {len(tasks)} tasks agree within 2 SE "
          f"({args.episodes} episodes per task and side, {time.time() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
