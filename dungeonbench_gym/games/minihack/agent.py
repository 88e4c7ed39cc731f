"""The MiniHack baseline: a Sokoban solver on Boxoban, the stairs-seeking
explorer (`games.nethack.agent.DescendAgent`) on the other tasks.

On Boxoban it reads the level it was dealt (the screen shows it whole: the
levels are premapped and lit), plans the fewest pushes with `boxoban.solve`
(fast), or, when that plan's walking does not fit the episode's steps, the
fewest moves with `boxoban.solve_fewest_moves`, and plays the moves; if the
game ever differs from the plan's expectation it falls back to the explorer's
moves.
"""

from __future__ import annotations

from ...agents.base import Agent
from ..nethack.agent import DescendAgent
from ..nethack.commands import INDEX
from . import boxoban

_MOVE = {"u": INDEX["north"], "d": INDEX["south"], "l": INDEX["west"], "r": INDEX["east"]}


class MiniHackBaselineAgent(Agent):
    name = "minihack-baseline"

    def __init__(self, max_effort: int = 200_000):
        self.max_effort = max_effort
        self._explorer = DescendAgent()

    def reset(self, env=None, seed=None) -> None:
        super().reset(env, seed)
        self._explorer.reset(env, seed)
        self._plan: list[int] | None = None   # planned at the first step: the env may
        # be reset after the agent

    def act(self, observation, info) -> int:
        if self._plan is None:
            self._plan = []
            task = getattr(self.env.unwrapped, "task", "") if self.env is not None else ""
            if task.startswith("Boxoban"):
                rows = self.env.unwrapped._upstream._rows
                steps = getattr(self.env.unwrapped, "max_steps", None)
                solution = boxoban.solve(rows, self.max_effort)
                if solution is None or (steps is not None and len(solution.moves) > steps):
                    solution = boxoban.solve_fewest_moves(rows, self.max_effort) or solution
                self._plan = [_MOVE[m] for m in solution.moves] if solution else []
        if info["decision"] != "command":
            return self._explorer.act(observation, info)
        while self._plan:
            action = self._plan.pop(0)
            if observation["action_mask"][action]:
                return action
        return self._explorer.act(observation, info)
