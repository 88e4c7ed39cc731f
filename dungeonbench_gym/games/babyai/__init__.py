"""BabyAI: BALROG's five BabyAI-Text tasks (goto, pickup, open, putnext,
pick_up_seq_go_to) as seeded single-room minigrid levels behind the decision stream."""

from .env import ACTIONS, BabyAIEnv, legal_mask, render_grid
from .levels import LEVELS, TASKS, TaskLevel, make_level

__all__ = ["ACTIONS", "BabyAIEnv", "LEVELS", "TASKS", "TaskLevel", "legal_mask",
           "make_level", "render_grid"]
