"""Crafter: the 2D survival-crafting game (crafter 1.8.3) behind the decision stream,
with pictures drawn only when asked, a rule-exact action mask and BALROG-style text."""

from .env import CrafterEnv
from .game import CrafterGame
from .rules import ACHIEVEMENTS, ACTIONS, legal_mask

__all__ = ["ACHIEVEMENTS", "ACTIONS", "CrafterEnv", "CrafterGame", "legal_mask"]
