"""The agent interface: reset, then act on each (observation, info)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np


class Agent:
    """An agent picks one action index per step.

    `reset(env, seed)` is called at the start of every episode with the env it
    will play (baselines that read the game state keep it) and a seed for any
    randomness of its own, so an episode replays exactly.
    """

    name = "agent"

    def reset(self, env: gym.Env | None = None, seed: int | None = None) -> None:
        self.env = env
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> int:
        raise NotImplementedError


class RandomAgent(Agent):
    """Uniform over the legal actions (the random masked agent)."""

    name = "random"

    def act(self, observation, info) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(self.rng.choice(legal))


def play_episode(env: gym.Env, agent: Agent, seed: int, agent_seed: int | None = None) -> dict[str, Any]:
    """One whole episode of `agent` on `env` from `seed` (the agent reset with `agent_seed`);
    returns the last step's info (its `progress` is the episode's score)."""
    obs, info = env.reset(seed=int(seed))
    agent.reset(env, agent_seed)
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        done = terminated or truncated
    return info
