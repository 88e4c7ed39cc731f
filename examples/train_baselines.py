"""MaskablePPO baselines for every family, trained and evaluated the same way.

For one family (``--family``), this trains sb3-contrib's MaskablePPO with SB3's default
``MultiInputPolicy`` and with the option-ranking policy (``dungeonbench_gym.rl``), one run per
training seed, at the family's fixed budget (the BUDGETS table below: sized for a 2-core machine),
then plays every trained model, the random masked agent and the family's heuristic baseline on the
same held-out evaluation seeds, actions masked. Models are saved where the harness can play them
(``dungeonbench-gym eval --agent sb3 --model-path runs/baselines/<family>/<policy>-s<seed>.zip``).

    python examples/train_baselines.py --family babyai              # both policies, seeds 0 and 1
    python examples/train_baselines.py --family dnd --policy ranking --seeds 0
    python examples/train_baselines.py --family dnd-generalise      # train on 24 encounters, test on 3
    python examples/train_baselines.py --table                       # the README table from results/

Each run writes ``results/baselines/<family>.json``; ``--table`` turns every such file into the
markdown table the README shows (per family and policy: steps, wall time, mean progress +/- SE
over all evaluation episodes of all training seeds, and each seed's own mean).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import gymnasium as gym
import numpy as np

from dungeonbench_gym.agents import play_episode
from dungeonbench_gym.eval.summary import progress_stats

EVAL_SEED_BASE = 1_000_000   # far from any seed a training env draws
RESULTS = Path("results/baselines")
MODELS = Path("runs/baselines")
POLICIES = ("default", "ranking")


@dataclass(frozen=True)
class Budget:
    """One family's training and evaluation set-up."""

    train_ids: tuple[str, ...]           # training episodes cycle through these ids
    eval_ids: tuple[str, ...]            # evaluated on these (held-out seeds; held-out ids too when they differ)
    timesteps: int
    eval_episodes: int                   # per evaluation id
    n_envs: int = 4
    n_steps: int = 256
    env_kwargs: dict = field(default_factory=dict)
    family: str = ""                     # the agents.BASELINES key for the heuristic baseline
    train_eval_episodes: int = 0         # > 0: also evaluate on each training id (generalisation: both sides)


_DND_HELD_OUT = ("DnD-Encounter-OgreBridge-v0", "DnD-Encounter-HarpyCliffs-v0", "DnD-Encounter-RatCellar-v0")


def _dnd_encounters() -> tuple[str, ...]:
    return tuple(sorted(i.split("/")[1] for i in gym.registry if i.startswith("DungeonBench/DnD-Encounter-")))


def budgets() -> dict[str, Budget]:
    dnd_all = _dnd_encounters()
    legacy = {"option_features": "legacy"}   # the D&D rows before issue 20, for the comparison
    goblin, ogre = ("DnD-Encounter-GoblinAmbush-v0",), ("DnD-Encounter-OgreBridge-v0",)
    return {
        "babyai": Budget(("BabyAI-GoTo-v0",), ("BabyAI-GoTo-v0",), 100_000, 100, family="babyai"),
        "babaisai": Budget(("BabaIsAI-goto_win-v0",), ("BabaIsAI-goto_win-v0",), 100_000, 100,
                           family="babaisai"),
        "crafter": Budget(("Crafter-v0",), ("Crafter-v0",), 50_000, 10, family="crafter"),
        "textworld": Budget(("TextWorld-CoinCollector-v0",), ("TextWorld-CoinCollector-v0",), 10_000, 30,
                            family="textworld"),
        "textadventure": Budget(("TextAdventure-Lighthouse-v0",), ("TextAdventure-Lighthouse-v0",), 5_000, 10,
                                family="textadventure"),
        "minihack": Budget(("MiniHack-Corridor-R3-v0",), ("MiniHack-Corridor-R3-v0",), 100_000, 50,
                           family="minihack"),
        "nethack": Budget(("NetHack-Valkyrie-v0",), ("NetHack-Valkyrie-v0",), 50_000, 10, family="nethack"),
        "dnd": Budget(goblin, goblin, 60_000, 100, family="dnd"),
        "dnd-legacy": Budget(goblin, goblin, 60_000, 100, env_kwargs=legacy, family="dnd"),
        "dnd-ogre": Budget(ogre, ogre, 60_000, 100, family="dnd"),
        "dnd-ogre-legacy": Budget(ogre, ogre, 60_000, 100, env_kwargs=legacy, family="dnd"),
        # GoblinAmbush new vs legacy rows again at 3.3 times the budget, with twice the evaluation episodes
        "dnd-long": Budget(goblin, goblin, 200_000, 200, family="dnd"),
        "dnd-long-legacy": Budget(goblin, goblin, 200_000, 200, env_kwargs=legacy, family="dnd"),
        "dnd-day": Budget(("DnD-Day-GoblinRoad-v0",), ("DnD-Day-GoblinRoad-v0",), 60_000, 50, family="dnd"),
        # generalisation: train on every encounter but three, evaluate on those three (issue 20, Build 4)
        "dnd-generalise": Budget(tuple(i for i in dnd_all if i not in _DND_HELD_OUT), _DND_HELD_OUT,
                                 100_000, 50, family="dnd", train_eval_episodes=10),
    }


class CycleIds(gym.Env):
    """One env that plays a different id at each reset, in turn (all ids share their spaces):
    how one policy trains on many encounters."""

    def __init__(self, ids: tuple[str, ...], offset: int = 0, **kwargs):
        self.envs = [gym.make("DungeonBench/" + i, **kwargs) for i in ids]
        self.i = offset % len(self.envs)
        self.observation_space = self.envs[0].observation_space
        self.action_space = self.envs[0].action_space

    @property
    def current(self):
        return self.envs[self.i]

    def reset(self, *, seed=None, options=None):
        self.i = (self.i + 1) % len(self.envs)
        return self.current.reset(seed=seed, options=options)

    def step(self, action):
        return self.current.step(action)

    def action_masks(self):
        return self.current.get_wrapper_attr("action_masks")()

    def close(self):
        for e in self.envs:
            e.close()


def _vec_env(b: Budget, seed: int):
    from stable_baselines3.common.vec_env import DummyVecEnv

    def make(k):
        def thunk():
            env = CycleIds(b.train_ids, offset=k, **b.env_kwargs)
            env.reset(seed=seed * 10_000 + k)
            return env
        return thunk
    return DummyVecEnv([make(k) for k in range(b.n_envs)])


def evaluate(b: Budget, agent, agent_seed: int = 0, ids=None, episodes=None) -> dict:
    """Mean final progress per evaluation id over its held-out seeds, and over all of them, of an
    agent with the harness's interface (``reset(env, seed)``, ``act(obs, info)``)."""
    per_id, every = {}, []
    for eid in ids or b.eval_ids:
        env = gym.make("DungeonBench/" + eid, **b.env_kwargs)
        values = [float(play_episode(env, agent, EVAL_SEED_BASE + k, agent_seed + k)["progress"])
                  for k in range(episodes or b.eval_episodes)]
        env.close()
        per_id[eid] = progress_stats(values)
        every += values
    return {"all": progress_stats(every), "per_id": per_id, "values": every}


def _reference_agents(b: Budget, seed: int) -> dict:
    """The random masked agent and the family's heuristic baseline on the same episodes."""
    from dungeonbench_gym.agents import RandomAgent, make_agent

    agents = (("random", RandomAgent()), ("heuristic", make_agent("baseline", b.family)))
    return {name: evaluate(b, agent, seed) for name, agent in agents if agent is not None}


def train(family: str, b: Budget, policy: str, seed: int, threads: int) -> dict:
    import torch
    from sb3_contrib import MaskablePPO

    from dungeonbench_gym.agents.spec import SB3Agent
    from dungeonbench_gym.rl import OptionRankingPolicy

    torch.set_num_threads(threads)
    env = _vec_env(b, seed)
    cls = OptionRankingPolicy if policy == "ranking" else "MultiInputPolicy"
    model = MaskablePPO(cls, env, n_steps=b.n_steps, batch_size=256, n_epochs=4, learning_rate=3e-4,
                        gamma=0.99, ent_coef=0.01, seed=seed, device="cpu", verbose=0)
    start = time.perf_counter()
    model.learn(total_timesteps=b.timesteps)
    seconds = time.perf_counter() - start
    path = MODELS / family / f"{policy}-s{seed}.zip"
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path)
    env.close()
    player = SB3Agent(str(path))   # the saved model, played as the harness's --agent sb3 plays it
    result = evaluate(b, player)
    if b.train_eval_episodes:   # the same policy on the ids it trained on (held-out seeds)
        result["train_ids_eval"] = evaluate(b, player, ids=b.train_ids, episodes=b.train_eval_episodes)["all"]
    result.update(policy=policy, seed=seed, model=str(path), timesteps=int(model.num_timesteps),
                  train_seconds=round(seconds, 1))
    return result


def run_family(family: str, b: Budget, policies, seeds, threads: int) -> dict:
    runs = []
    for policy in policies:
        for seed in seeds:
            r = train(family, b, policy, seed, threads)
            print(f"{family} {policy} seed {seed}: {r['timesteps']} steps in {r['train_seconds']:.0f} s, "
                  f"progress {r['all']['mean_progress']:.3f} +/- {r['all']['stderr']:.3f}", flush=True)
            runs.append(r)
    refs = _reference_agents(b, seed=0)
    for name, r in refs.items():
        print(f"{family} {name}: progress {r['all']['mean_progress']:.3f} +/- {r['all']['stderr']:.3f}")
    doc = {"family": family, "train_ids": list(b.train_ids), "eval_ids": list(b.eval_ids),
           "eval_seeds": [EVAL_SEED_BASE, EVAL_SEED_BASE + b.eval_episodes - 1],
           "budget": {"timesteps": b.timesteps, "n_envs": b.n_envs, "n_steps": b.n_steps,
                      "env_kwargs": b.env_kwargs},
           "runs": runs, "reference": refs,
           "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(), "threads": threads,
                       "python": sys.version.split()[0]},
           "date": time.strftime("%Y-%m-%d"),
           "command": " ".join([os.path.basename(sys.executable), *sys.argv])}
    RESULTS.mkdir(parents=True, exist_ok=True)
    old = RESULTS / f"{family}.json"
    if old.exists():   # keep the other policies' runs when only one was retrained
        kept = [r for r in json.loads(old.read_text())["runs"]
                if (r["policy"], r["seed"]) not in {(x["policy"], x["seed"]) for x in runs}]
        doc["runs"] = kept + runs
    old.write_text(json.dumps(doc, indent=1))
    return doc


def _row_name(doc: dict) -> str:
    """'family (eval ids; env options)' for a results file."""
    kwargs = doc["budget"].get("env_kwargs") or {}
    return (f"{doc['family']} ({', '.join(i.replace('-v0', '') for i in doc['eval_ids'])}"
            + "".join(f"; {k}={v}" for k, v in sorted(kwargs.items())) + ")")


def _results(folder: Path):
    """(row name, results document) for each results file of a folder, in file-name order."""
    for path in sorted(folder.glob("*.json")):
        doc = json.loads(path.read_text())
        yield _row_name(doc), doc


def _cell(values: list[float] | None) -> str:
    if not values:
        return "-"
    s = progress_stats(values)
    return f"{s['mean_progress']:.3f} +/- {s['stderr']:.3f}"


def compact_table(folder: Path = RESULTS) -> str:
    """The README's RL table: one row per results file, each agent's mean progress +/- SE (all
    evaluation episodes of both training seeds), the steps and the mean wall time per run."""
    rows = ["| family (eval ids) | steps per run | minutes per run (default / ranking) | "
            "MaskablePPO, MultiInputPolicy | MaskablePPO, option ranking | random | heuristic |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    for name, doc in _results(folder):
        by = {p: [r for r in doc["runs"] if r["policy"] == p] for p in POLICIES}
        steps = max((r["timesteps"] for r in doc["runs"]), default=0)
        minutes = " / ".join(f"{np.mean([r['train_seconds'] for r in by[p]]) / 60:.1f}" if by[p] else "-"
                             for p in POLICIES)
        cells = [_cell([v for r in by[p] for v in r["values"]]) for p in POLICIES]
        refs = [f"{doc['reference'][k]['all']['mean_progress']:.3f} +/- {doc['reference'][k]['all']['stderr']:.3f}"
                if k in doc["reference"] else "-" for k in ("random", "heuristic")]
        rows.append(f"| {name} | {steps:,} | {minutes} | " + " | ".join(cells + refs) + " |")
    return "\n".join(rows)


def table(folder: Path = RESULTS) -> str:
    """The full table: every agent of every results file, with each training seed's own mean."""
    rows = ["| family (eval ids) | agent | training steps per seed | wall time per seed | "
            "mean progress +/- SE (episodes) | per training seed |",
            "|---|---|---|---|---|---|"]
    for name, doc in _results(folder):
        for policy in POLICIES:
            runs = sorted((r for r in doc["runs"] if r["policy"] == policy), key=lambda r: r["seed"])
            if not runs:
                continue
            s = progress_stats([v for r in runs for v in r["values"]])
            seeds = ", ".join(f"s{r['seed']}: {r['all']['mean_progress']:.3f}" +
                              (f" (training ids: {r['train_ids_eval']['mean_progress']:.3f})"
                               if "train_ids_eval" in r else "") for r in runs)
            label = "MaskablePPO, MultiInputPolicy" if policy == "default" else "MaskablePPO, option ranking"
            rows.append(f"| {name} | {label} | {runs[0]['timesteps']:,} | "
                        f"{np.mean([r['train_seconds'] for r in runs]) / 60:.1f} min | "
                        f"{s['mean_progress']:.3f} +/- {s['stderr']:.3f} ({s['episodes']}) | {seeds} |")
        for ref in ("random", "heuristic"):
            r = doc["reference"].get(ref)
            if r:
                a = r["all"]
                rows.append(f"| {name} | {ref} | - | - | {a['mean_progress']:.3f} +/- {a['stderr']:.3f} "
                            f"({a['episodes']}) | |")
    return "\n".join(rows)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--family", help=f"one of: {', '.join(budgets())}")
    p.add_argument("--policy", default="both", choices=("both", *POLICIES))
    p.add_argument("--seeds", default="0,1", help="training seeds, comma-separated")
    p.add_argument("--timesteps", type=int, default=0, help="override the family's budget (a quick try)")
    p.add_argument("--eval-episodes", type=int, default=0, help="override the evaluation episodes")
    p.add_argument("--threads", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    p.add_argument("--table", action="store_true", help="print the README table from the results folder")
    p.add_argument("--compact", action="store_true", help="with --table: one row per family (the README's)")
    p.add_argument("--results", default=str(RESULTS),
                   help="the results folder --table reads (default results/baselines; the README's: docs/rl-results)")
    args = p.parse_args(argv)
    if args.table:
        print((compact_table if args.compact else table)(Path(args.results)))
        return 0
    all_budgets = budgets()
    if args.family not in all_budgets:
        p.error(f"--family: choose from {', '.join(all_budgets)}")
    b = all_budgets[args.family]
    b = replace(b, timesteps=args.timesteps or b.timesteps, eval_episodes=args.eval_episodes or b.eval_episodes)
    policies = POLICIES if args.policy == "both" else (args.policy,)
    run_family(args.family, b, policies, [int(s) for s in args.seeds.split(",") if s], args.threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
