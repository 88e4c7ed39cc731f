"""Train sb3-contrib's MaskablePPO on a DungeonBench env, then compare it with
the random masked agent on the same evaluation seeds.

The env comes straight from `gymnasium.make`, with no wrapper of ours: the
Dict observation is numeric (SB3's "MultiInputPolicy" takes it as is) and the
mask comes from the env's `action_masks()`, which MaskablePPO finds by itself
during training; in evaluation we pass it explicitly.

    python examples/train_maskable_ppo.py                       # BabyAI GoTo, defaults
    python examples/train_maskable_ppo.py --timesteps 300000 --eval-episodes 200 \\
        --out runs/goto_ppo.json

Needs the `rl` and `babyai` extras: pip install 'dungeonbench-gym[rl,babyai]'.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

import gymnasium as gym
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env

from dungeonbench_gym.agents import RandomAgent, play_episode
from dungeonbench_gym.eval.summary import progress_stats

EVAL_SEED_BASE = 1_000_000   # evaluation seeds are far from any training seed


def evaluate_policy_masked(model, env, seeds) -> list[float]:
    """Final progress of the trained policy on each seeded episode (masks applied)."""
    action_masks = env.get_wrapper_attr("action_masks")
    out = []
    for seed in seeds:
        obs, info = env.reset(seed=int(seed))
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=action_masks(), deterministic=True)
            obs, _, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        out.append(float(info["progress"]))
    return out


def evaluate_random(env, seeds, agent_seed: int) -> list[float]:
    """Final progress of the uniform random masked agent on the same episodes."""
    agent = RandomAgent()
    return [float(play_episode(env, agent, seed, agent_seed + i)["progress"]) for i, seed in enumerate(seeds)]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env-id", default="dungeonbench_gym:DungeonBench/BabyAI-GoTo-v0")
    p.add_argument("--timesteps", type=int, default=150_000)
    p.add_argument("--n-envs", type=int, default=8)
    p.add_argument("--n-steps", type=int, default=256, help="rollout length per env")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--n-epochs", type=int, default=4)
    p.add_argument("--learning-rate", type=float, default=5e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--net-arch", default="128,128", help="hidden layer sizes, comma-separated")
    p.add_argument("--eval-episodes", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=max(1, min(2, os.cpu_count() or 1)),
                   help="torch CPU threads")
    p.add_argument("--out", default="results/maskable_ppo.json", help="JSON file for the figures")
    p.add_argument("--save-model", default="", help="also save the trained model to this path")
    args = p.parse_args(argv)

    torch.set_num_threads(args.threads)
    net_arch = [int(x) for x in args.net_arch.split(",") if x]

    vec_env = make_vec_env(args.env_id, n_envs=args.n_envs, seed=args.seed)
    model = MaskablePPO(
        "MultiInputPolicy", vec_env, n_steps=args.n_steps, batch_size=args.batch_size,
        n_epochs=args.n_epochs, learning_rate=args.learning_rate, gamma=args.gamma,
        ent_coef=args.ent_coef, policy_kwargs={"net_arch": net_arch}, seed=args.seed,
        device="cpu", verbose=0)
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    train_s = time.perf_counter() - start
    if args.save_model:
        model.save(args.save_model)

    eval_env = gym.make(args.env_id)
    seeds = [EVAL_SEED_BASE + i for i in range(args.eval_episodes)]
    start = time.perf_counter()
    trained = progress_stats(evaluate_policy_masked(model, eval_env, seeds))
    random_ = progress_stats(evaluate_random(eval_env, seeds, agent_seed=args.seed))
    eval_s = time.perf_counter() - start

    print(f"{args.env_id}: {model.num_timesteps} training steps in {train_s:.0f} s "
          f"({model.num_timesteps / train_s:.0f} steps/s)")
    print(f"evaluation over {args.eval_episodes} seeded episodes (seeds {seeds[0]}..{seeds[-1]}):")
    print(f"  MaskablePPO    mean progress {trained['mean_progress']:.3f} "
          f"+/- {trained['stderr']:.3f}")
    print(f"  random masked  mean progress {random_['mean_progress']:.3f} "
          f"+/- {random_['stderr']:.3f}")

    doc = {
        "env_id": args.env_id,
        "maskable_ppo": trained,
        "random_masked": random_,
        "eval_seeds": [seeds[0], seeds[-1]],
        "training": {"timesteps": int(model.num_timesteps), "seconds": round(train_s, 1),
                     "steps_per_second": round(model.num_timesteps / train_s, 1)},
        "evaluation_seconds": round(eval_s, 1),
        "settings": {k: v for k, v in vars(args).items() if k not in ("out", "save_model")},
        "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(),
                    "torch_threads": torch.get_num_threads(), "python": sys.version.split()[0],
                    "torch": torch.__version__},
        "command": " ".join([os.path.basename(sys.executable), *sys.argv]),
    }
    folder = os.path.dirname(args.out)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
