"""How often the NetHack / MiniHack observation cannot tell two options apart.

Over random masked decisions on NetHack and MiniHack ids, the share of decisions in which two
legal options have the same description but name different things, for

* the old observation (no per-option rows): an option is described only by what the fixed
  table says of its index, i.e. its kind, plus the index itself for every non-letter key
  (a command's index is its identity); all 55 letter slots look the same;
* the new ``options`` row together with the two ``option_ids``.

What an option names (``of.meanings``): the inventory line of an item letter
("a +1 long sword (weapon in hand)"), the text of a menu entry, otherwise the option's label.
Two letters holding identical inventory lines (rare: NetHack stacks identical objects)
name the same thing here: choosing either has the same effect.

The play is random over the legal options, steered towards questions and menus: in a
command decision, some of the time an item command (eat, wield, drop, ...) is pressed, or a
short plan runs: drop two items, then pick up (a "Pick up what?" menu). Every decision of
the play is counted (commands too); the item-question and menu counts are printed apart.

A second figure, across decisions: the letter options' descriptions (row + ids, or the old
index) that were seen naming more than one thing.

    python benchmarks/nle_option_identity.py --decisions 3000          # per id
    python benchmarks/nle_option_identity.py --speed 5000              # encoder cost
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import dungeonbench_gym  # noqa: E402

from dungeonbench_gym.games.nethack import option_features as of  # noqa: E402
from dungeonbench_gym.games.nethack.commands import COMMANDS, INDEX, LETTER_INDEX  # noqa: E402

IDS = ("NetHack-v0", "NetHack-Valkyrie-v0", "NetHack-Wizard-v0", "MiniHack-Quest-Easy-v0",
       "MiniHack-Quest-Medium-v0", "MiniHack-Corridor-R3-v0")
ITEM_COMMANDS = tuple(INDEX[c] for c in ("eat", "quaff", "read", "zap", "apply", "wield",
                                         "wear", "take off", "put on", "remove", "throw",
                                         "drop"))
PILE_PLAN = ("drop", "item", "drop", "item", "pick up")   # two items on the floor, then a menu
DESCRIPTIONS = {
    "old": "old (kind, and the index of a non-letter key)",
    "obj": "new, letter-blind (row + object id; the key id only where the key is the meaning)",
    "new": "new options row + both ids"}
_NAMING = [of.ROLE["item"], of.ROLE["menu_entry"]]   # roles whose letter is not their meaning
_OLD_KEY = tuple((c.kind, -1 if c.kind == "letter" else i) for i, c in enumerate(COMMANDS))


def identical(keys: list, meanings: list) -> list[tuple[int, int]]:
    """Pairs (i, j), i < j, with equal keys and different meanings."""
    groups: dict = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    return [(g[a], g[b]) for g in groups.values() for a in range(len(g))
            for b in range(a + 1, len(g)) if meanings[g[a]] != meanings[g[b]]]


class SteeredPlayer:
    """Random legal options, steered towards item questions and menus (see the module doc)."""

    def __init__(self, rng: np.random.Generator, item_rate: float = 0.25,
                 pile_rate: float = 0.08):
        self.rng, self.item_rate, self.pile_rate = rng, item_rate, pile_rate
        self.plan: list[str] = []

    def act(self, env, mask: np.ndarray) -> int:
        prompt = env._prompt
        legal = np.flatnonzero(mask)
        rng = self.rng
        if self.plan:
            step = self.plan[0]
            if step == "item" and prompt.decision == "item":
                self.plan.pop(0)
                letters = [i for i in legal if COMMANDS[i].kind == "letter"
                           and COMMANDS[i].label not in ("choose *", "choose -")]
                if letters:
                    return int(rng.choice(letters))
                self.plan = []
            elif step != "item" and prompt.decision == "command":
                self.plan.pop(0)
                if mask[INDEX[step]]:
                    return INDEX[step]
                self.plan = []
            elif prompt.decision == "more":
                return INDEX["continue"]
            else:   # the plan went astray (a question it did not expect)
                self.plan = []
        if prompt.decision == "command":
            u = rng.random()
            if u < self.pile_rate and mask[INDEX["drop"]] and mask[INDEX["pick up"]]:
                self.plan = list(PILE_PLAN[1:])
                return INDEX["drop"]
            if u < self.pile_rate + self.item_rate:
                usable = [i for i in ITEM_COMMANDS if mask[i]]
                if usable:
                    return int(rng.choice(usable))
        return int(rng.choice(legal))


def measure(env_id: str, decisions: int, seed: int = 0, across: dict | None = None,
            check=None) -> dict:
    """Play `decisions` steered random decisions on env_id and count identical pairs;
    `check(env, obs)`, if given, sees every decision's env and observation."""
    env = dungeonbench_gym.make(env_id).unwrapped
    rng = np.random.default_rng(seed)
    player = SteeredPlayer(rng)
    obs, _ = env.reset(seed=seed)
    out = collections.Counter()
    out["examples"] = {}
    episode = seed
    while out["decisions"] < decisions:
        prompt = env._prompt
        legal = list(prompt.legal)
        named = of.meanings(prompt, env._obs)
        meaning = [named[i] for i in legal]
        rows, ids = obs["options"], obs["option_ids"]
        # letter-blind: an item letter's or menu entry's own key id is not a description
        obj_keys = [rows[i].tobytes() + (ids[i, 1:] if rows[i, _NAMING].any() else ids[i]).tobytes()
                    for i in legal]
        new_keys = [rows[i].tobytes() + ids[i].tobytes() for i in legal]
        old_keys = [_OLD_KEY[i] for i in legal]
        if check is not None:
            check(env, obs)
        out["decisions"] += 1
        out["options"] += len(legal)
        out[f"decision_{prompt.decision}"] += 1
        for name, keys in (("old", old_keys), ("obj", obj_keys), ("new", new_keys)):
            pairs = identical(keys, meaning)
            if pairs:
                out[f"{name}_dec"] += 1
                out[f"{name}_dec_{prompt.decision}"] += 1
                out[f"{name}_opt"] += len({i for p in pairs for i in p})
                if name == "obj":
                    i, j = pairs[0]
                    out["examples"].setdefault(prompt.decision, (env_id, prompt.question,
                                                                 meaning[i], meaning[j]))
        if across is not None:
            for k, i in enumerate(legal):
                if COMMANDS[i].kind == "letter":
                    across["old"].setdefault(i, set()).add(meaning[k])
                    across["obj"].setdefault(obj_keys[k], set()).add(meaning[k])
        obs, _, term, trunc, _ = env.step(player.act(env, obs["action_mask"]))
        if term or trunc:
            episode += 1
            player.plan = []
            obs, _ = env.reset(seed=episode)
    env.close()
    return out


def speed(steps: int, env_id: str = "NetHack-Valkyrie-v0", seed: int = 0) -> None:
    """The encoder alone, on the states of a steered random game: uncached (`build`), and
    through the env's cache (`OptionEncoder.encode`), per decision kind; and env.step."""
    env = dungeonbench_gym.make(env_id).unwrapped
    rng = np.random.default_rng(seed)
    player = SteeredPlayer(rng)
    obs, _ = env.reset(seed=seed)
    t_build = collections.Counter()
    t_cached = collections.Counter()
    count = collections.Counter()
    t_step = 0.0
    encoder = of.OptionEncoder()
    for _ in range(steps):
        prompt, raw = env._prompt, env._obs
        t0 = time.perf_counter()
        of.build(prompt, raw)
        t1 = time.perf_counter()
        encoder.encode(prompt, raw)
        t2 = time.perf_counter()
        action = player.act(env, obs["action_mask"])
        t3 = time.perf_counter()
        obs, _, term, trunc, _ = env.step(action)
        t_step += time.perf_counter() - t3
        t_build[prompt.decision] += t1 - t0
        t_cached[prompt.decision] += t2 - t1
        count[prompt.decision] += 1
        if term or trunc:
            obs, _ = env.reset(seed=int(rng.integers(1 << 30)))
    print(f"{env_id}, {steps} steps: env.step {1e6 * t_step / steps:.1f} us per step (with the rows)")
    for kind, n in count.most_common():
        print(f"  {kind:9s} {n:6d} decisions: build {1e6 * t_build[kind] / n:6.1f} us, "
              f"cached encode {1e6 * t_cached[kind] / n:6.1f} us")
    total = sum(count.values())
    print(f"  all       {total:6d} decisions: build {1e6 * sum(t_build.values()) / total:6.1f} us, "
          f"cached encode {1e6 * sum(t_cached.values()) / total:6.1f} us")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--decisions", type=int, default=3000, help="decisions per id")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ids", nargs="*", default=list(IDS))
    ap.add_argument("--speed", type=int, default=0, help="steps of an encoder timing run (0: none)")
    args = ap.parse_args()
    if args.speed:
        speed(args.speed)
        return
    total = collections.Counter()
    examples: dict = {}
    across: dict = {"old": {}, "obj": {}}
    t0 = time.perf_counter()
    print(f"{'id':28s} {'decisions':>9s} {'items':>6s} {'menus':>6s} {'old':>7s} {'blind':>7s} "
          f"{'row+ids':>7s}")
    for env_id in args.ids:
        m = measure(env_id, args.decisions, args.seed, across)
        examples.update({k: v for k, v in m.pop("examples").items() if k not in examples})
        total.update(m)
        n = m["decisions"]
        print(f"{env_id:28s} {n:9d} {m['decision_item']:6d} {m['decision_menu']:6d} "
              + " ".join(f"{m[k + '_dec'] / n:7.2%}" for k in ("old", "obj", "new")))
    n = total["decisions"]
    print(f"\nall {len(args.ids)} ids: {n} decisions, {total['options']} legal options "
          f"({time.perf_counter() - t0:.0f} s)")
    kinds = sorted(k[len("decision_"):] for k in total if k.startswith("decision_"))
    print("  decisions by kind: " + ", ".join(f"{k} {total['decision_' + k]}" for k in kinds))
    for name, label in DESCRIPTIONS.items():
        per_kind = ", ".join(f"{k} {total[f'{name}_dec_{k}']}/{total['decision_' + k]}"
                             for k in kinds if total[f"{name}_dec_{k}"])
        print(f"  {label}: {total[f'{name}_dec'] / n:.2%} of decisions "
              f"({total[f'{name}_dec']}), {total[f'{name}_opt'] / total['options']:.2%} of options "
              f"in an identical pair" + (f"; by kind: {per_kind}" if per_kind else ""))
    for name in across:
        keys = across[name]
        many = sum(1 for v in keys.values() if len(v) > 1)
        print(f"  across decisions, {name}: {many} of {len(keys)} distinct descriptions of letter "
              f"options name more than one thing")
        if name == "obj":
            for v in [v for v in keys.values() if len(v) > 1][:5]:
                print("    e.g. " + " / ".join(sorted(repr(m.text) for m in v)))
    for kind, (env_id, question, a, b) in examples.items():
        print(f"  remaining ({kind}): {env_id}: {question!r}: {a} / {b}")


if __name__ == "__main__":
    main()
