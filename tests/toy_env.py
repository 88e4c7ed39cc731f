"""A minimal DecisionEnv used to test the core alone (no upstream game needed)."""

import numpy as np
from gymnasium import spaces

from dungeonbench_gym.core import DecisionEnv, option_table


class CounterEnv(DecisionEnv):
    """Count up to 5, then finish. 'down' is illegal at 0, 'finish' legal only at 5."""

    family = "toy"
    option_table = option_table(["wait", "up", "down", "finish"])
    fallback_index = 0

    def __init__(self, **kwargs):
        super().__init__(n_actions=4, observation_spaces={"value": spaces.Box(0, 5, (1,), np.int64)},
                         **kwargs)

    def _game_reset(self, seed, options):
        self.value = int(np.random.default_rng(seed).integers(0, 2))
        self.finished = False

    def _game_step(self, action):
        if action == 1:
            self.value = min(5, self.value + 1)
        elif action == 2:
            self.value -= 1
        elif action == 3:
            self.finished = True
        return float(self.finished), self.finished, False

    def _game_mask(self):
        return np.array([1, self.value < 5, self.value > 0, self.value == 5], np.int8)

    def _game_observation(self):
        return {"value": np.array([self.value], np.int64)}

    def _game_text(self):
        return f"The counter shows {self.value}.", "Reach 5, then finish."

    def _game_progress(self):
        return self.value / 5

    def _game_success(self):
        return self.finished
