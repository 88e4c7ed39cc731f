"""NetHack and MiniHack text side by side: BALROG's own wrapper and ours, on the same screens.

BALROG's NLE text comes from NLE's language wrapper (`nle_language_obsv`, a C++
module of the `balrog-nle` fork) laid out by BALROG's `NLELanguageWrapper` in
its hybrid prompt mode. That fork replaces the `nle` package, so it cannot be
installed beside ours: upstream runs in `--python`, an interpreter with
`balrog-nle` (and gymnasium, which BALROG's package imports), and BALROG's
wrapper is loaded from a checkout (`--balrog`). Its picture renderers are left
out (they draw images; no text comes from them).

Both sides describe the very same arrays, so every difference is a difference
of the text, not of the game:

* every glyph: for each of NetHack's glyphs, a screen of room floor with the
  glyph 3 cells east of the hero, and one with it twice, 7 and 8 cells east
  (the plural), and once with the cursor on it;
* random screens: glyphs drawn at random from the whole table on random cells,
  the hero and the cursor anywhere, and the terminal's rows written with words
  that end pages ("--More--", "(end)", "(1 of 2)") at random indents;
* played screens: our NetHack and MiniHack envs with `text_style="balrog"` and
  a uniformly random agent over the legal options, with BALROG's settings
  (NLE's own prompt handling, --More-- pressed for the agent), and NetHack
  twice more with questions, menus and --More-- left on screen (the message's
  other forms), and with --More-- pressed by our env while upstream's AutoMore
  reads the same pages (the joined message).

With a blank top line, the wrapper reads one byte before the terminal's array
(its index arithmetic wraps around); upstream is given a space there, as ours
assumes. It prints, per case, how many screens were compared and how many texts
differ (long-term and short-term parts), and the first differences.

    python benchmarks/balrog_parity_nethack.py --python VENV/bin/python --balrog BALROG_DIR
        [--random 2000] [--episodes 5] [--steps 200] [--seed 0]

with VENV made by `python -m venv VENV && VENV/bin/pip install balrog-nle==0.9.0 gymnasium pillow`.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ARRAYS = ("glyphs", "blstats", "tty_chars", "tty_cursor", "inv_strs", "inv_letters")

# Runs in the upstream interpreter: BALROG's wrapper on the arrays of an .npz file.
WORKER = r"""
import json, sys, types, warnings
warnings.filterwarnings("ignore")
balrog_dir, arrays, out = sys.argv[1:4]
sys.path.insert(0, balrog_dir)
for name, fn in (("render", "tty_render_image"), ("render_rgb", "rgb_render_image")):
    m = types.ModuleType("balrog.environments.nle." + name)   # images only: left out
    setattr(m, fn, None)
    sys.modules[m.__name__] = m
import gym
import numpy as np
from nle import nle_language_obsv
from nle.nethack import actions as A
from balrog.environments.nle import AutoMore
from balrog.environments.nle.base import NLELanguageWrapper


class Pages(gym.Env):
    # plays back the screens one step showed, page after page, to BALROG's AutoMore
    actions = [A.MiscAction.MORE]

    def __init__(self, pages):
        self.pages = list(pages)

    def step(self, action):
        return {"tty_chars": self.pages.pop(0)}, 0.0, False, {}


w = object.__new__(NLELanguageWrapper)
w.nle_language = nle_language_obsv.NLELanguageObsv()
w.prompt_mode = "hybrid"
w.vlm = False
with np.load(arrays) as npz:
    data = {k: npz[k] for k in npz.files}   # an NpzFile reads from disk at every lookup
ARRAYS = [k for k in data if not k.startswith("page")]
texts = []
for i in range(len(data["glyphs"])):
    obs = {k: data[k][i] for k in ARRAYS}
    # with a blank top line the wrapper reads one byte before the terminal's array:
    # make that byte a space (in BALROG's runs it is whatever memory lies there)
    padded = np.full(1 + obs["tty_chars"].size, 32, np.uint8)
    padded[1:] = obs["tty_chars"].reshape(-1)
    obs["tty_chars"] = padded[1:].reshape(obs["tty_chars"].shape)
    first, count = data["page_start"][i], data["page_count"][i]
    if count:   # the step pressed --More-- for the agent: AutoMore reads the pages
        pages = data["pages"][first:first + count]
        obs["text_message"] = AutoMore(Pages(pages)).step(0)[0]["text_message"]
    t = w.nle_obsv_type(obs)
    texts.append([t["long_term_context"], t["short_term_context"]])
json.dump(texts, open(out, "w"))
"""


def blank_screen(hero=(39, 10)):
    from nle import nethack as nh
    floor = nh.GLYPH_CMAP_OFF + 19   # room floor
    glyphs = np.full((21, 79), floor, np.int16)
    blstats = np.zeros(27, np.int64)
    blstats[0], blstats[1] = hero
    glyphs[hero[1], hero[0]] = nh.GLYPH_MON_OFF   # someone stands there
    return {"glyphs": glyphs, "blstats": blstats,
            "tty_chars": np.full((24, 80), ord(" "), np.uint8),
            "tty_cursor": np.array([hero[1] + 1, hero[0]], np.uint8),
            "inv_strs": np.zeros((55, 80), np.uint8), "inv_letters": np.zeros(55, np.uint8)}


def every_glyph_screens() -> list[dict]:
    from nle import nethack as nh
    screens = []
    for g in range(nh.MAX_GLYPH):
        one = blank_screen()
        one["glyphs"][10, 42] = g
        two = blank_screen()
        two["glyphs"][10, 46] = g
        two["glyphs"][10, 47] = g
        two["tty_cursor"] = np.array([11, 46], np.uint8)
        screens += [one, two]
    return screens


def random_screens(count: int, rng: np.random.Generator) -> list[dict]:
    from nle import nethack as nh
    screens = []
    for _ in range(count):
        hero = (int(rng.integers(0, 79)), int(rng.integers(0, 21)))
        s = blank_screen(hero)
        n = int(rng.integers(1, 80))
        ys, xs = rng.integers(0, 21, n), rng.integers(0, 79, n)
        # half from the whole table, half from the map symbols (walls, doors, dark)
        pick = np.where(rng.random(n) < 0.5, rng.integers(0, nh.MAX_GLYPH, n),
                        rng.integers(nh.GLYPH_CMAP_OFF, nh.GLYPH_CMAP_OFF + 42, n))
        s["glyphs"][ys, xs] = pick
        s["tty_cursor"] = np.array([rng.integers(0, 24), rng.integers(0, 80)], np.uint8)
        s["tty_chars"] = random_terminal(rng)
        screens.append(s)
    return screens


WORDS = ("You", "see", "here", "a", "dagger.", "--More--", "(end)", "(1 of 2)", "(3 of 12)",
         "Points", "list!", "Pick", "up", "what?", "of", "x", "", "", "")


def random_terminal(rng: np.random.Generator) -> np.ndarray:
    """A terminal with words on some rows: a message, a menu at some indent, pages."""
    tty = np.full((24, 80), ord(" "), np.uint8)
    indent = int(rng.choice([0, 0, 1, 20, 41, 78, 79]))
    for row in range(24):
        if rng.random() < 0.4:
            continue
        text = " ".join(rng.choice(WORDS, int(rng.integers(1, 6))))
        at = indent if rng.random() < 0.8 else int(rng.integers(0, 80))
        line = text.encode()[:80 - at]
        tty[row, at:at + len(line)] = np.frombuffer(line, np.uint8)
    return tty


def played_screens(env_id: str, episodes: int, steps: int, seed: int,
                   **settings) -> list[dict]:
    import gymnasium as gym
    import dungeonbench_gym  # noqa: F401
    env = gym.make(env_id, text=True, text_style="balrog", on_invalid="passthrough", **settings)
    rng = np.random.default_rng(seed)
    screens = []
    for ep in range(episodes):
        obs, info = env.reset(seed=seed + ep)
        for _ in range(steps):
            o = env.unwrapped._obs
            s = {k: np.array(o[k]) for k in ARRAYS}
            s["ours"] = (info["text"]["long_term"], info["text"]["short_term"])
            s["pages"] = list(env.unwrapped._more_screens)
            screens.append(s)
            legal = np.flatnonzero(obs["action_mask"])
            obs, r, term, trunc, info = env.step(int(rng.choice(legal)))
            if term or trunc:
                break
    env.close()
    return screens


def ours(screen: dict) -> tuple[str, str]:
    from dungeonbench_gym.games.nethack import balrog_text as bt
    if "ours" in screen:
        return screen["ours"]
    return bt.hybrid_text(screen, bt.text_message(screen["tty_chars"]))


def upstream(screens: list[dict], python: str, balrog: str) -> list[tuple[str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        arrays = os.path.join(tmp, "screens.npz")
        counts = [len(s.get("pages", ())) for s in screens]
        pages = [p for s in screens for p in s.get("pages", ())]
        np.savez(arrays, **{k: np.stack([s[k] for s in screens]) for k in ARRAYS},
                 page_count=np.array(counts), page_start=np.cumsum([0] + counts[:-1]),
                 pages=np.stack(pages) if pages else np.zeros((0, 24, 80), np.uint8))
        worker = os.path.join(tmp, "worker.py")
        with open(worker, "w") as f:
            f.write(WORKER)
        out = os.path.join(tmp, "texts.json")
        subprocess.run([python, worker, balrog, arrays, out], check=True)
        with open(out) as f:
            return [tuple(t) for t in json.load(f)]


def compare(label: str, screens: list[dict], python: str, balrog: str, show: int) -> int:
    start = time.perf_counter()
    theirs = upstream(screens, python, balrog)
    mine = [ours(s) for s in screens]
    bad = [i for i, (a, b) in enumerate(zip(theirs, mine)) if a != b]
    long_bad = sum(theirs[i][0] != mine[i][0] for i in bad)
    short_bad = sum(theirs[i][1] != mine[i][1] for i in bad)
    print(f"| {label} | {len(screens)} | {long_bad} | {short_bad} | "
          f"{time.perf_counter() - start:.1f} s |", flush=True)
    for i in bad[:show]:
        for part, a, b in (("long", theirs[i][0], mine[i][0]), ("short", theirs[i][1], mine[i][1])):
            if a != b:
                diff = difflib.unified_diff(a.splitlines(), b.splitlines(), "balrog", "ours",
                                            lineterm="", n=1)
                print(f"  screen {i} ({part} term):\n    " + "\n    ".join(diff))
    return len(bad)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--python", required=True, help="an interpreter with balrog-nle installed")
    p.add_argument("--balrog", required=True, help="a checkout of balrog-ai/BALROG")
    p.add_argument("--random", type=int, default=2000, help="random screens")
    p.add_argument("--episodes", type=int, default=5, help="played episodes per env")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--show", type=int, default=3, help="differences printed per case")
    p.add_argument("--envs", default="NetHack-v0,MiniHack-Quest-Medium-v0,MiniHack-Corridor-R3-v0,"
                                      "MiniHack-CorridorBattle-Dark-v0")
    args = p.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from dungeonbench_gym.games.nethack import balrog_text as bt
    print("| screens | compared | long-term texts differing | short-term differing | time |")
    print("|---|---|---|---|---|")
    bad = compare("every glyph (x2)", every_glyph_screens(), args.python, args.balrog, args.show)
    bad += compare("random screens", random_screens(args.random, np.random.default_rng(args.seed)),
                   args.python, args.balrog, args.show)
    cases = [(env, "BALROG's settings", {"nle_prompts": True, "auto_more": True})
             for env in args.envs.split(",")]
    # NetHack with its questions, menus and --More-- left on screen: the message's
    # other forms, and --More-- pressed by AutoMore's rule
    cases += [("NetHack-v0", "menus on screen", {"nle_prompts": False, "auto_more": False}),
              ("NetHack-v0", "--More-- pressed", {"nle_prompts": False, "auto_more": True})]
    for env, label, settings in cases if args.episodes else []:
        screens = played_screens(f"DungeonBench/{env}", args.episodes, args.steps, args.seed,
                                 **settings)
        pressed = sum(len(s["pages"]) > 1 for s in screens)
        rows = sum("\n" in bt.text_message(s["tty_chars"]) for s in screens)
        bad += compare(f"played: {env}, {label} ({rows} messages of several rows, {pressed} "
                       "steps pressing --More--)", screens, args.python, args.balrog, args.show)
    print(f"\n{bad} screens differ in all")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
