"""The D&D baseline: the engine's heuristic planner playing the party."""

from __future__ import annotations

from ...agents.base import Agent
from ...dnd import heuristic
from ...dnd.advice.intermission import plan_intermission


class HeuristicPartyAgent(Agent):
    """Plays the party with the same planner that plays the enemies: focus the
    weakest foe in reach, close in otherwise, heal the fallen, use area spells on
    groups. It reads the battle state, as the enemies do; deterministic. On a Day,
    between fights, ``advice.intermission.plan_intermission`` rests, heals and buffs."""

    name = "heuristic"

    def act(self, observation, info) -> int:
        env = self.env.unwrapped
        run = getattr(env, "run", None)   # the Day track: between fights, the intermission planner
        if run is not None and run.phase in ("intermission", "rest"):
            return int(plan_intermission(run))
        battle = env.battle
        if battle is None or battle.decision is None:
            return int(env.fallback_action())
        return int(heuristic.choose(battle))
