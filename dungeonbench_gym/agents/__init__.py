"""Agents: random masked, per-family baselines (and later LLM and trained policies)."""

from __future__ import annotations

import importlib

from ..core.errors import DungeonBenchError
from .base import Agent, RandomAgent, play_episode

# The baseline of each family that has a simple one: "module:Class".
BASELINES = {
    "babyai": "dungeonbench_gym.games.babyai.agent:BabyAIBotAgent",
    "crafter": "dungeonbench_gym.games.crafter.agent:CrafterHeuristicAgent",
    "babaisai": "dungeonbench_gym.games.babaisai.agent:BabaSolverAgent",
    "nethack": "dungeonbench_gym.games.nethack.agent:DescendAgent",
    "minihack": "dungeonbench_gym.games.minihack.agent:MiniHackBaselineAgent",
    "textworld": "dungeonbench_gym.games.textworld.agent:WalkthroughAgent",
    "textadventure": "dungeonbench_gym.games.textadventure.agent:ExplorerAgent",
    "dnd": "dungeonbench_gym.games.dnd.agent:HeuristicPartyAgent",
}
AGENT_NAMES = ("random", "baseline")


def make_agent(name: str, family: str) -> Agent | None:
    """An agent by name for one family; None when the family has no such agent."""
    if name == "random":
        return RandomAgent()
    if name == "baseline":
        target = BASELINES.get(family)
        if target is None:
            return None
        module, cls = target.split(":")
        return getattr(importlib.import_module(module), cls)()
    raise DungeonBenchError(f"unknown agent {name!r}: choose from {', '.join(AGENT_NAMES)}")


__all__ = ["Agent", "RandomAgent", "play_episode", "BASELINES", "AGENT_NAMES", "make_agent"]
