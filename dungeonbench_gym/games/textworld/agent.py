"""A TextWorld baseline: TextWorld's own solution of the game, played inside the mask."""

from __future__ import annotations

import numpy as np

from ...agents.base import Agent


class WalkthroughAgent(Agent):
    """Plays the game's solution as TextWorld knows it: an ORACLE.

    The plan is TextWorld's winning policy for the game (`env.unwrapped.game.policy`,
    computed by its quest tracker when the game was made), or the walkthrough stored
    with the game when there is none. No observation shows either, so this agent is an
    upper reference, not a fair baseline. (The cooking games' stored walkthroughs walk
    back and forth, up to ~95 steps, past BALROG's 80; the policy takes 24-51.)

    Each step it plays the next command of the plan if it is admissible now. A command
    that is not admissible is skipped when a later one is (e.g. opening a door that is
    already open, which would change nothing); when none of the rest is admissible, or
    the plan is used up, it plays the env's fallback ("look" if admissible, else the
    first legal option).
    """

    name = "walkthrough"

    def reset(self, env=None, seed=None) -> None:
        super().reset(env, seed)
        self._game = None
        self._next = 0

    def act(self, observation, info) -> int:
        mask = np.asarray(observation["action_mask"])
        env = self.env.unwrapped if self.env is not None else None
        game = getattr(env, "game", None)
        if game is None:
            return int(np.flatnonzero(mask)[0])
        if game is not self._game or not env.commands:   # a new episode (or game)
            self._game, self._next = game, 0
        plan = game.policy or game.walkthrough
        slot = {o.label: o.index for o in info["options"]}
        for i in range(self._next, len(plan)):
            if plan[i] in slot and mask[slot[plan[i]]]:
                self._next = i + 1
                return int(slot[plan[i]])
        return int(env.fallback_action())
