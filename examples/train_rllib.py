"""Train PPO with action masking on Ray RLlib over a DungeonBench id: the multi-machine path.

RLlib's action-masking module (``ActionMaskingTorchRLModule``, shipped in ray's rllib examples)
reads a Dict observation of two keys, ``action_mask`` and ``observations``. ``RLlibView`` gives a
DungeonBench env that shape: the mask as float32 and every other key flattened into one float32
vector (a Discrete key one-hot, as gymnasium's ``flatten`` does). Nothing else changes: the same
ids, seeds and masks as MaskablePPO and the LLM agents see.

    python examples/train_rllib.py                                   # BabaIsAI goto_win, small budget
    python examples/train_rllib.py --env-id DnD-Encounter-GoblinAmbush-v0 --iterations 20
    python examples/train_rllib.py --address auto                    # join a running Ray cluster

Afterwards the trained module plays held-out seeds over the legal options, greedily (its argmax)
and sampled (a draw from its masked softmax, as in training), beside the random masked agent; the
figures go to ``results/rllib/<id>.json``. On a cluster, raise ``--env-runners``.
Needs the ``ray`` and ``rl`` extras (``pip install 'dungeonbench-gym[ray,rl]'``, which brings
``ray[rllib]``'s dependencies: torch and dm-tree come with ``rl``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from dungeonbench_gym.eval.summary import progress_stats

EVAL_SEED_BASE = 1_000_000


class RLlibView(gym.ObservationWrapper):
    """A DungeonBench env seen as RLlib's action-masking module expects it."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        inner = env.observation_space
        self._rest = spaces.Dict({k: s for k, s in inner.spaces.items() if k != "action_mask"})
        n = inner["action_mask"].shape[0]
        size = spaces.flatdim(self._rest)
        self.observation_space = spaces.Dict({
            "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32),
            "observations": spaces.Box(-np.inf, np.inf, (size,), np.float32)})

    def observation(self, obs: dict) -> dict:
        rest = {k: v for k, v in obs.items() if k != "action_mask"}
        return {"action_mask": obs["action_mask"].astype(np.float32),
                "observations": spaces.flatten(self._rest, rest).astype(np.float32)}


def make_env(config: dict) -> gym.Env:
    import dungeonbench_gym  # noqa: F401 - registers the ids
    return RLlibView(gym.make("DungeonBench/" + config["id"]))


def policy_progress(module, env_id: str, episodes: int, sample: bool = False, seed: int = 0) -> list[float]:
    """The trained module on held-out seeds, over legal options only: its argmax (greedy), or a
    draw from its masked softmax (sample=True, what PPO played while it trained)."""
    import torch

    env, rng, out = make_env({"id": env_id}), np.random.default_rng(seed), []
    for k in range(episodes):
        obs, info = env.reset(seed=EVAL_SEED_BASE + k)
        done = False
        while not done:
            batch = {key: torch.as_tensor(v[None]) for key, v in obs.items()}
            with torch.no_grad():
                logits = module.forward_inference({"obs": batch})["action_dist_inputs"][0].numpy()
            logits = np.where(obs["action_mask"] > 0, logits.astype(np.float64), -np.inf)
            if sample:
                p = np.exp(logits - logits.max())
                action = int(rng.choice(len(p), p=p / p.sum()))
            else:
                action = int(np.argmax(logits))
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        out.append(float(info["progress"]))
    return out


def random_progress(env_id: str, episodes: int, seed: int = 0) -> list[float]:
    env, rng, out = make_env({"id": env_id}), np.random.default_rng(seed), []
    for k in range(episodes):
        obs, info = env.reset(seed=EVAL_SEED_BASE + k)
        done = False
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, terminated, truncated, info = env.step(int(rng.choice(legal)))
            done = terminated or truncated
        out.append(float(info["progress"]))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env-id", default="BabaIsAI-goto_win-v0", help="a DungeonBench id without the namespace")
    p.add_argument("--iterations", type=int, default=10, help="PPO training iterations")
    p.add_argument("--batch", type=int, default=2000, help="environment steps per iteration")
    p.add_argument("--env-runners", type=int, default=1, help="sampling workers (raise on a cluster)")
    p.add_argument("--eval-episodes", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sample-timeout", type=float, default=600.0,
                   help="seconds an env runner may take to collect one iteration's steps (RLlib's "
                        "sample_timeout_s; past it the iteration trains on nothing)")
    p.add_argument("--address", default=None, help="a Ray cluster to join ('auto'); default: start one here")
    p.add_argument("--out", default="", help="results file (default results/rllib/<id>.json)")
    args = p.parse_args(argv)

    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    ray.init(address=args.address, num_cpus=None if args.address else max(2, args.env_runners + 1),
             include_dashboard=False, log_to_driver=False)
    register_env("dungeonbench", make_env)
    config = (PPOConfig()
              .environment("dungeonbench", env_config={"id": args.env_id})
              .env_runners(num_env_runners=args.env_runners, sample_timeout_s=args.sample_timeout)
              .rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                                     model_config={"fcnet_hiddens": [64, 64]}))
              .training(train_batch_size_per_learner=args.batch, minibatch_size=min(256, args.batch),
                        num_epochs=4, lr=3e-4, entropy_coeff=0.01)
              .debugging(seed=args.seed))
    algo = config.build_algo()
    start, steps = time.perf_counter(), 0
    for i in range(args.iterations):
        result = algo.train()
        runners = result.get("env_runners", {})
        before, steps = steps, int(runners.get("num_env_steps_sampled_lifetime", steps))
        print(f"iteration {i + 1}: {steps} env steps, episode return mean "
              f"{runners.get('episode_return_mean', float('nan')):.3f}", flush=True)
        if steps == before:   # RLlib goes on silently when its env runners return nothing
            print(f"warning: iteration {i + 1} sampled no env steps (an env runner past "
                  f"--sample-timeout {args.sample_timeout:g} s, or one that failed)", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    trained = progress_stats(policy_progress(algo.get_module(), args.env_id, args.eval_episodes))
    sampled = progress_stats(policy_progress(algo.get_module(), args.env_id, args.eval_episodes, sample=True,
                                       seed=args.seed))
    random_ = progress_stats(random_progress(args.env_id, args.eval_episodes, args.seed))
    algo.stop()
    ray.shutdown()
    print(f"{args.env_id}: {steps} steps in {seconds:.0f} s; held-out seeds {EVAL_SEED_BASE}.."
          f"{EVAL_SEED_BASE + args.eval_episodes - 1}: PPO (RLlib, masked) greedy {trained['mean_progress']:.3f} "
          f"+/- {trained['stderr']:.3f}, sampled {sampled['mean_progress']:.3f} +/- {sampled['stderr']:.3f}, random masked {random_['mean_progress']:.3f} +/- {random_['stderr']:.3f}")
    out = Path(args.out or f"results/rllib/{args.env_id}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({
        "env_id": args.env_id, "ppo_rllib": trained, "ppo_rllib_sampled": sampled, "random_masked": random_,
        "training": {"env_steps": steps, "seconds": round(seconds, 1), "iterations": args.iterations,
                     "env_runners": args.env_runners},
        "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(),
                    "python": sys.version.split()[0], "ray": ray.__version__},
        "date": time.strftime("%Y-%m-%d"),
        "command": " ".join([os.path.basename(sys.executable), *sys.argv])}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
