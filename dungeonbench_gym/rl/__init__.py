"""Reinforcement learning on the DungeonBench stream: an option-ranking policy for MaskablePPO.

Needs the ``rl`` extra (torch, stable-baselines3, sb3-contrib)."""

from .option_ranking import OptionRankingPolicy, OptionScorer, OptionSetExtractor

__all__ = ["OptionRankingPolicy", "OptionScorer", "OptionSetExtractor"]
