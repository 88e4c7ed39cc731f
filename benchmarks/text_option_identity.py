"""How often the text observation cannot tell two options apart: over random masked decisions on
every registered TextWorld and TextAdventure id, the share of decisions where two legal options have
identical feature rows but different labels (commands), and the share of options involved, for

* old: the hashed bag-of-words row alone (`options`, what the text families gave before),
* ids: the verb and object ids alone (`option_ids`),
* new: the row and the ids together (what a policy reading both sees).

Different labels mean different effects: TextWorld's admissible commands are distinct commands, and
a text adventure's detector merges the commands with one effect into one option. Then the new
encoding's remaining identical pairs, with an example of each, and the ids-only pairs by cause.

    python benchmarks/text_option_identity.py --tw-decisions 2000 --ta-decisions 300   # per id
    python benchmarks/text_option_identity.py --ta-slots 12     # text adventures with split choices
    python benchmarks/text_option_identity.py --speed 300       # observation cost, old vs new

``--speed N``: on N random decisions per family, the old encoder (the hashed rows) and the full
observation (rows and ids) timed on the same states, interleaved, and env.step.
"""

from __future__ import annotations

import argparse
import collections
import platform
import sys
import time
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import dungeonbench_gym  # noqa: E402
from dungeonbench_gym.core import textcommands  # noqa: E402
from dungeonbench_gym.core.textfeatures import encode_rows  # noqa: E402

warnings.filterwarnings("ignore", message=".*is not fully supported.*")


def text_ids() -> list[str]:
    """Every registered TextWorld and TextAdventure id (the registry's families)."""
    return [i for i in dungeonbench_gym.ids()
            if dungeonbench_gym.REGISTRY[i].family in ("textworld", "textadventure")]


def identical(rows: np.ndarray, labels: list[str]) -> list[tuple[int, int]]:
    """Pairs (i, j), i < j, with identical rows and different labels."""
    seen: dict[bytes, list[int]] = {}
    for i, row in enumerate(rows):
        seen.setdefault(row.tobytes(), []).append(i)
    return [(g[a], g[b]) for g in seen.values() if len(g) > 1
            for a in range(len(g)) for b in range(a + 1, len(g)) if labels[g[a]] != labels[g[b]]]


def ids_cause(a: str, b: str) -> str:
    """Why two commands have the same ids: which part of the parse collided."""
    if a.endswith(" commands)") and b.endswith(" commands)"):
        return "two groups of a split choice whose first commands share their ids"
    pa, pb = textcommands.parse(a), textcommands.parse(b)
    parts = [name for name in ("verb", "preposition", "first", "second")
             if getattr(pa, name) != getattr(pb, name)]
    if not parts:
        return "same parse (the commands differ in words the parse drops)"
    return "hash bucket shared by different " + " and ".join(parts)


def bucket_clashes(labels: list[str], kinds: list[str]):
    """Two different verbs (with their prepositions) of one decision's commands that share a frame
    id, and two different object phrases that share an object id: (verb pair or None, object pair
    or None). A clash alone makes no identical row unless the rest of the command matches too."""
    verbs: dict[int, str] = {}
    objects: dict[int, str] = {}
    found = [None, None]
    for label, kind in zip(labels, kinds):
        if kind != "command":
            continue
        c = textcommands.parse(label)
        frame = f"{c.verb} {c.preposition}".strip()
        if verbs.setdefault(textcommands.frame_id(c.verb, c.preposition), frame) != frame:
            found[0] = found[0] or (verbs[textcommands.frame_id(c.verb, c.preposition)], frame)
        for phrase in (c.first, c.second):
            if phrase:
                key = textcommands.object_id(phrase)
                if objects.setdefault(key, phrase) != phrase:
                    found[1] = found[1] or (objects[key], phrase)
    return found


def measure(env_id: str, decisions: int, seed: int = 0, **kwargs) -> dict:
    """Play `decisions` random masked decisions on env_id, checking each one."""
    env = gym.make(env_id if "/" in env_id else f"DungeonBench/{env_id}", **kwargs)
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out = collections.Counter()
    examples: dict = {"new": [], "ids": collections.Counter(), "ids_examples": {}}
    episode = seed
    while out["decisions"] < decisions:
        labels = [o.label for o in info["options"]]
        n = len(labels)
        rows = obs["options"][:n]
        ids = obs["option_ids"][:n]
        new = np.concatenate([rows, ids.view(np.uint8).reshape(n, -1)], 1)
        out["decisions"] += 1
        out["options"] += n
        clash = bucket_clashes(labels, [o.kind for o in info["options"]])
        out["verb_clash"] += bool(clash[0])
        out["object_clash"] += bool(clash[1])
        for key, pair in zip(("verb", "object"), clash):
            if pair:
                examples.setdefault(f"{key}_clash_examples", []).append((env_id, *pair))
        for key, feats in (("old", rows), ("ids", ids), ("new", new)):
            pairs = identical(feats, labels)
            if pairs:
                out[f"{key}_dec"] += 1
                out[f"{key}_opt"] += len({i for p in pairs for i in p})
                for i, j in pairs:
                    if key == "new":
                        examples["new"].append((env_id, labels[i], labels[j]))
                    elif key == "ids":
                        cause = ids_cause(labels[i], labels[j])
                        examples["ids"][cause] += 1
                        examples["ids_examples"].setdefault(cause, (env_id, labels[i], labels[j]))
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, _, term, trunc, info = env.step(action)
        if term or trunc:
            episode += 1
            obs, info = env.reset(seed=episode)
    env.close()
    return {"counts": out, **examples}


def speed(decisions: int) -> None:
    """The old encoder (hashed rows) and the new observation on the same states, and env.step."""
    for env_id in ("TextWorld-Cooking-v0", "TextWorld-TreasureHunter-v0",
                   "TextWorld-CoinCollector-v0", "TextAdventure-Lighthouse-v0",
                   "TextAdventure-Greenhouse-v0"):
        env = gym.make(f"DungeonBench/{env_id}")
        u = env.unwrapped
        rng = np.random.default_rng(0)
        obs, _ = env.reset(seed=0)
        t_old = t_new = t_step = 0.0
        episode = options = 0
        for _ in range(decisions):
            t0 = time.perf_counter()
            for _ in range(5):
                old = dict(u._game_observation())
                old.pop("option_ids")      # what an old-style encoder would not have computed
            t1 = time.perf_counter()
            for _ in range(5):
                _old_encoder(u)
            t2 = time.perf_counter()
            obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            t3 = time.perf_counter()
            t_new, t_old, t_step = t_new + (t1 - t0) / 5, t_old + (t2 - t1) / 5, t_step + t3 - t2
            options += int(obs["action_mask"].sum())
            if term or trunc:
                episode += 1
                obs, _ = env.reset(seed=episode)
        env.close()
        n = decisions
        print(f"{env_id:30s} {options / n:5.1f} options/decision: observation old {1e6 * t_old / n:5.0f} us,"
              f" new {1e6 * t_new / n:5.0f} us; env.step {1e6 * t_step / n:7.0f} us; "
              f"step cost new / old = {t_step / (t_step - t_new + t_old):.3f}")


def _old_encoder(u) -> dict:
    """The observation as the text families built it before `option_ids` (rows only)."""
    if u.family == "textworld":
        return {"text": encode_rows((u._feedback, u._description, u._inventory, u._objective), 4),
                "options": encode_rows(u._slots, 128)}
    room = f"{u._actions.room} {' '.join(u._actions.scope)}"
    return {"text": encode_rows((u._output, room, " ".join(u._actions.inventory)), 3),
            "options": encode_rows([label for label, _ in u._menu], 128)}


def run(ids: list[str], tw_decisions: int, ta_decisions: int, seed: int = 0,
        ta_slots: int | None = None, quiet: bool = False) -> dict:
    """Measure every id; returns the totals (counts), the new pairs, the ids-only causes."""
    total: collections.Counter = collections.Counter()
    new_pairs: list = []
    causes: collections.Counter = collections.Counter()
    cause_examples: dict = {}
    clash_examples: dict = {"verb_clash_examples": [], "object_clash_examples": []}
    say = (lambda *a: None) if quiet else print
    say(f"{'id':32s} {'decisions':>9s} {'options':>8s} {'old: dec':>9s} {'old: opt':>9s} "
        f"{'ids: dec':>9s} {'ids: opt':>9s} {'new: dec':>9s} {'new: opt':>9s}")
    for env_id in ids:
        family = dungeonbench_gym.REGISTRY[env_id].family
        kwargs = {"slots": ta_slots} if ta_slots and family == "textadventure" else {}
        decisions = tw_decisions if family == "textworld" else ta_decisions
        if decisions <= 0:
            continue
        m = measure(env_id, decisions, seed, **kwargs)
        c = m["counts"]
        total.update(c)
        new_pairs += m["new"]
        causes.update(m["ids"])
        for k, v in m["ids_examples"].items():
            cause_examples.setdefault(k, v)
        for k in clash_examples:
            clash_examples[k] += m.get(k, [])
        say(f"{env_id:32s} {c['decisions']:9d} {c['options'] / c['decisions']:8.1f} "
            + " ".join(f"{c[f'{k}_dec'] / c['decisions']:9.2%} {c[f'{k}_opt'] / c['options']:9.2%}"
                       for k in ("old", "ids", "new")))
    return {"counts": total, "new_pairs": new_pairs, "causes": causes,
            "cause_examples": cause_examples, **clash_examples}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tw-decisions", type=int, default=2000, help="decisions per TextWorld id")
    ap.add_argument("--ta-decisions", type=int, default=300, help="decisions per TextAdventure id")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ids", nargs="*", help="env ids (default: every registered text id)")
    ap.add_argument("--ta-slots", type=int, default=None,
                    help="text adventures' slots before a choice is split (default: 128)")
    ap.add_argument("--speed", type=int, default=0, help="decisions per id for the speed run")
    args = ap.parse_args()
    print(f"machine: {platform.machine()}, {platform.python_version()}")
    if args.speed:
        speed(args.speed)
        return
    ids = args.ids or text_ids()
    t0 = time.perf_counter()
    r = run(ids, args.tw_decisions, args.ta_decisions, args.seed, args.ta_slots)
    c = r["counts"]
    print(f"\nall {len(ids)} ids: {c['decisions']} decisions, {c['options']} options "
          f"({time.perf_counter() - t0:.0f} s)")
    print(f"  bucket clashes inside a decision: two verbs on one frame id in "
          f"{c['verb_clash'] / c['decisions']:.3%}, two object phrases on one object id in "
          f"{c['object_clash'] / c['decisions']:.3%} of decisions")
    for key in ("verb", "object"):
        for env_id, a, b in r[f"{key}_clash_examples"][:5]:
            print(f"    {key}: {env_id}: {a!r} / {b!r}")
    for key, name in (("old", "hashed rows (old)"), ("ids", "option_ids alone"),
                      ("new", "rows + option_ids (new)")):
        print(f"  {name:24s}: {c[f'{key}_dec'] / c['decisions']:.3%} of decisions, "
              f"{c[f'{key}_opt'] / c['options']:.3%} of options in an identical pair")
    if r["new_pairs"]:
        print("\nremaining identical pairs (rows + ids):")
        for env_id, a, b in collections.Counter(r["new_pairs"]).most_common(20):
            print(f"  {env_id}: {a!r} / {b!r}")
    if r["causes"]:
        print("\nids-alone identical pairs, by cause:")
        for cause, n in r["causes"].most_common():
            env_id, a, b = r["cause_examples"][cause]
            print(f"  {n:5d}  {cause}: e.g. {env_id}: {a!r} / {b!r}")


if __name__ == "__main__":
    main()
