"""A BabyAI baseline: minigrid's expert bot, kept inside the action mask."""

from __future__ import annotations

import numpy as np
from minigrid.utils.baby_ai_bot import BabyAIBot

from ...agents.base import Agent
from .env import FORWARD, LEFT

_N_ACTIONS = 6


class BabyAIBotAgent(Agent):
    """Plays with minigrid's `BabyAIBot`, an ORACLE: it reads the level's full
    state (the grid, the verifier's instructions) through `env.unwrapped.level`,
    not the observation. Use it as an upper reference, not as a fair baseline.

    The bot is rebuilt whenever a new episode starts (a new mission object). Its
    suggestion is played when the mask allows it; otherwise (or when the bot
    says "done") the agent plays go forward if legal, else turn left, and tells
    the bot which action was really taken so that it replans.
    """

    name = "babyai-bot"

    def reset(self, env=None, seed=None) -> None:
        super().reset(env, seed)
        self._bot = None
        self._instrs = None
        self._last = None

    def act(self, observation, info) -> int:
        level = self.env.unwrapped.level
        if self._bot is None or self._instrs is not level.instrs or level.step_count == 0:
            self._bot = BabyAIBot(level)
            self._instrs = level.instrs
            self._last = None
        choice = self._bot.replan(self._last)
        mask = observation["action_mask"]
        choice = int(choice) if choice is not None else -1
        if not (0 <= choice < _N_ACTIONS and mask[choice]):
            choice = FORWARD if mask[FORWARD] else LEFT if mask[LEFT] else \
                int(np.flatnonzero(mask)[0])
        self._last = choice
        return choice
