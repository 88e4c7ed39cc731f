"""How often the D&D observation cannot tell two options apart: over random masked decisions on
every registered D&D id (encounters and days), the share of decisions where two options have
identical feature rows but different labels, and the share of options involved, for the legacy rows
(``option_features="legacy"``: ``views.OPTION_FEATURES``) and the rich rows (``option_features.py``:
the row and the vocabulary id together). Then the rich encoding's remaining identical pairs, grouped
by cause (decision kind and the two option kinds), with an example of each.

    python benchmarks/dnd_option_identity.py --decisions 300      # per id
    python benchmarks/dnd_option_identity.py --speed 10           # env.step cost, legacy vs rich

    python benchmarks/dnd_option_identity.py --heuristic 50 --ids DnD-Encounter-GoblinAmbush-v0

``--heuristic E``: play the heuristic planner for E episodes per id (held-out seeds 1,000,000 and
up) and count its choices that the legacy rows cannot pin down: the chosen option's legacy row is
also the row of another option with a different label, so a policy reading those rows cannot tell
the planner's choice from that other one. By decision kind: where a policy that reads legacy rows
is blind to the choice that wins.

``--speed S``: decisions/s of a random masked agent on GoblinAmbush with ``option_features="legacy"``
and with the rich default, in alternating passes of S seconds each (three of each, the best kept).
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import dungeonbench_gym  # noqa: E402,F401
from dungeonbench_gym.games.dnd import option_features, views  # noqa: E402


def dnd_ids() -> list[str]:
    return [i for i in gym.registry if i.startswith("DungeonBench/DnD-")]


def identical(rows: np.ndarray, labels: list[str]) -> list[tuple[int, int]]:
    """Pairs (i, j), i < j, with identical rows and different labels."""
    seen: dict[bytes, list[int]] = {}
    for i, row in enumerate(rows):
        seen.setdefault(row.tobytes(), []).append(i)
    pairs = []
    for group in seen.values():
        for a in range(len(group)):
            for b in range(a + 1, len(group)):
                i, j = group[a], group[b]
                if labels[i] != labels[j]:
                    pairs.append((i, j))
    return pairs


def measure(env_id: str, decisions: int, seed: int = 0, stride: int = 1) -> dict:
    """Play random masked decisions on env_id (rich features), checking every ``stride``-th one."""
    env = gym.make(env_id)
    u = env.unwrapped
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out = {"decisions": 0, "options": 0, "old_dec": 0, "old_opt": 0, "new_dec": 0, "new_opt": 0,
           "pairs": collections.Counter(), "examples": {}}
    episode, step = seed, 0
    while out["decisions"] < decisions:
        d = u.run.decision if hasattr(u, "run") else u.battle.decision
        if d is not None and step % stride == 0:
            labels = [o.label for o in d.options]
            n = len(labels)
            legacy = views.encode(u.state(), np.zeros_like(obs["grid"]))["options"][:n]
            rich = np.concatenate([obs["options"][:n], obs["option_ids"][:n, None].astype(np.float32)], 1)
            out["decisions"] += 1
            out["options"] += n
            for key, rows in (("old", legacy), ("new", rich)):
                pairs = identical(rows, labels)
                if pairs:
                    out[f"{key}_dec"] += 1
                    out[f"{key}_opt"] += len({i for p in pairs for i in p})
                    if key == "new":
                        for i, j in pairs:
                            cause = (d.kind, d.options[i].kind, d.options[j].kind)
                            out["pairs"][cause] += 1
                            out["examples"].setdefault(cause, (env_id.split("/")[1], labels[i], labels[j]))
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, _, term, trunc, info = env.step(a)
        step += 1
        if term or trunc:
            episode += 1
            obs, info = env.reset(seed=episode)
    env.close()
    return out


def _gist(label: str) -> str:
    """A label without its numbers in brackets: 'Attack with Shortbow (+5, 1d6+3)' -> 'Attack with Shortbow'."""
    return label.split(" (")[0]


def heuristic_blind_spots(env_id: str, episodes: int) -> dict:
    """The heuristic planner's choices whose legacy row another, differently labelled option shares."""
    from dungeonbench_gym.agents import make_agent

    env = gym.make(env_id)
    u = env.unwrapped
    agent = make_agent("baseline", "dnd")
    out = {"decisions": 0, "choices": 0, "hidden": 0, "by_kind": collections.Counter(),
           "hidden_by_kind": collections.Counter(), "examples": {}, "pairs": collections.Counter()}
    for k in range(episodes):
        obs, info = env.reset(seed=1_000_000 + k)
        agent.reset(env, k)
        done = False
        while not done:
            a = agent.act(obs, info)
            d = u.run.decision if hasattr(u, "run") else u.battle.decision
            if d is not None:
                labels = [o.label for o in d.options]
                n = len(labels)
                out["decisions"] += 1
                if n > 1 and a < n:
                    out["choices"] += 1
                    out["by_kind"][d.kind] += 1
                    legacy = views.encode(u.state(), np.zeros_like(obs["grid"]))["options"][:n]
                    twins = [j for j in range(n) if j != a and labels[j] != labels[a]
                             and np.array_equal(legacy[j], legacy[a])]
                    if twins:
                        out["hidden"] += 1
                        out["hidden_by_kind"][d.kind] += 1
                        out["examples"].setdefault(d.kind, (labels[a], labels[twins[0]]))
                        out["pairs"][(_gist(labels[a]), _gist(labels[twins[0]]))] += 1
            obs, _, term, trunc, info = env.step(a)
            done = term or trunc
    env.close()
    return out


def speed(seconds: float, env_id: str = "DungeonBench/DnD-Encounter-GoblinAmbush-v0") -> None:
    def one(kind: str) -> float:
        env = gym.make(env_id, option_features=kind)
        rng = np.random.default_rng(0)
        obs, _ = env.reset(seed=0)
        n, episode, t0 = 0, 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            n += 1
            if term or trunc:
                episode += 1
                obs, _ = env.reset(seed=episode)
        return n / (time.perf_counter() - t0)
    best = {"legacy": 0.0, "rich": 0.0}
    for _ in range(3):
        for kind in best:
            best[kind] = max(best[kind], one(kind))
    print(f"{env_id.split('/')[-1]}: legacy {best['legacy']:.0f} decisions/s, rich {best['rich']:.0f} "
          f"decisions/s; step cost rich / legacy = {best['legacy'] / best['rich']:.2f}")
    # the encoders alone, on the same states, interleaved (less exposed to a busy machine)
    env = gym.make(env_id)
    u = env.unwrapped
    rng = np.random.default_rng(1)
    obs, _ = env.reset(seed=0)
    t_old = t_new = t_step = 0.0
    n, episode = 0, 0
    while n < 3000:
        state, static = u.state(), u._static_grid
        t0 = time.perf_counter()
        views.encode(state, static)
        t1 = time.perf_counter()
        views.encode(state, static, options=False)
        option_features.encode(u.battle.decision, u.battle, state)
        t2 = time.perf_counter()
        obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        t3 = time.perf_counter()
        t_old, t_new, t_step, n = t_old + t1 - t0, t_new + t2 - t1, t_step + t3 - t2, n + 1
        if term or trunc:
            episode += 1
            obs, _ = env.reset(seed=episode)
    old_step = t_step - (t_new - t_old)   # env.step ran the rich encoder; the legacy step runs the old one
    print(f"encoders on the same {n} states: legacy {1e6 * t_old / n:.0f} us, rich {1e6 * t_new / n:.0f} us "
          f"per decision; env.step {1e6 * t_step / n:.0f} us (rich); estimated step cost rich / legacy = "
          f"{t_step / old_step:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--decisions", type=int, default=300, help="decisions checked per id")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ids", nargs="*", help="env ids (default: every registered D&D id)")
    ap.add_argument("--speed", type=float, default=0.0, help="seconds per speed pass (0: no speed run)")
    ap.add_argument("--heuristic", type=int, default=0,
                    help="episodes of the heuristic planner per id: its choices the legacy rows hide")
    args = ap.parse_args()
    if args.speed:
        speed(args.speed)
        return
    if args.heuristic:
        for env_id in args.ids or dnd_ids():
            m = heuristic_blind_spots(env_id if "/" in env_id else f"DungeonBench/{env_id}", args.heuristic)
            print(f"{env_id.split('/')[-1]}: {args.heuristic} episodes, {m['decisions']} decisions, "
                  f"{m['choices']} with 2+ options; the planner's choice hidden by the legacy rows in "
                  f"{m['hidden']} ({m['hidden'] / max(1, m['choices']):.1%})")
            for kind, n in m["by_kind"].most_common():
                h = m["hidden_by_kind"][kind]
                eg = f"  e.g. {m['examples'][kind][0]!r} looks like {m['examples'][kind][1]!r}" if h else ""
                print(f"  {kind:24s} {n:6d} choices, hidden {h:5d} ({h / n:6.1%}){eg}")
            print("  the hidden choices most often made, and the option each looks like:")
            for (chosen, twin), n in m["pairs"].most_common(8):
                print(f"    {n:5d}  {chosen!r} / {twin!r}")
        return
    ids = args.ids or dnd_ids()
    total = collections.Counter()
    pairs: collections.Counter = collections.Counter()
    examples: dict = {}
    t0 = time.perf_counter()
    print(f"{'id':45s} {'decisions':>9s} {'old: dec':>9s} {'old: opt':>9s} {'new: dec':>9s} {'new: opt':>9s}")
    for env_id in ids:
        m = measure(env_id if "/" in env_id else f"DungeonBench/{env_id}", args.decisions, args.seed)
        for k in ("decisions", "options", "old_dec", "old_opt", "new_dec", "new_opt"):
            total[k] += m[k]
        pairs.update(m["pairs"])
        for k, v in m["examples"].items():
            examples.setdefault(k, v)
        print(f"{env_id.split('/')[-1]:45s} {m['decisions']:9d} {m['old_dec'] / m['decisions']:9.1%} "
              f"{m['old_opt'] / m['options']:9.1%} {m['new_dec'] / m['decisions']:9.1%} {m['new_opt'] / m['options']:9.1%}")
    print(f"\nall {len(ids)} ids: {total['decisions']} decisions, {total['options']} options "
          f"({time.perf_counter() - t0:.0f} s)")
    print(f"  legacy rows: {total['old_dec'] / total['decisions']:.2%} of decisions, "
          f"{total['old_opt'] / total['options']:.2%} of options in an identical pair")
    print(f"  rich rows + id: {total['new_dec'] / total['decisions']:.2%} of decisions, "
          f"{total['new_opt'] / total['options']:.2%} of options in an identical pair")
    if pairs:
        print("\nremaining identical pairs (rich), by decision kind and option kinds:")
        for cause, n in pairs.most_common():
            env_id, a, b = examples[cause]
            print(f"  {n:5d}  {cause}: e.g. {env_id}: {a!r} / {b!r}")
    if option_features.ERRORS:
        print("\nfeatures that fell back (an exception while pricing them):")
        for k, n in option_features.ERRORS.most_common(20):
            print(f"  {n:5d}  {k}")


if __name__ == "__main__":
    main()
