"""NetHackEnv: the full game, as BALROG plays it (NetHackChallenge's settings).

NetHackChallenge itself refuses seeds, so the env is NLE's NetHackScore with
the challenge's settings: every action key, a random character unless a
role is given, all questions and menus passed to the agent, the score as
reward. Like BALROG, an episode is cut after 150 steps in which the game
clock does not advance (`stall_limit`).

Progress is BALROG's data-informed progression (`progression.py`): the
running maximum of the dungeon-level and experience-level tables.
"""

from __future__ import annotations

from typing import Any

from nle import nethack
from nle.env.tasks import NetHackScore

from .base import BL_DEPTH, BL_XL, NLEDecisionEnv
from .progression import step_progress

ROLES = {  # NLE character strings: role-race-gender-alignment, "@" = random
    "random": "@", "valkyrie": "val-hum-fem-neu", "samurai": "sam-hum-mal-law",
    "wizard": "wiz-elf-mal-cha", "monk": "mon-hum-mal-neu",
}


class NetHackEnv(NLEDecisionEnv):
    """NetHack with BALROG's settings.

    Args:
        character: a key of `ROLES` or an NLE character string ("val-dwa-fem-law").
        stall_limit: steps without the game clock advancing before the episode is
            cut (BALROG: 150).
        auto_more: press a pure --More-- for the agent (BALROG's skip_more; see
            `NLEDecisionEnv`).
        nle_prompts: NLE's own handling of questions and menus (BALROG's; see
            `NLEDecisionEnv`).
        text_style: "ours" (default) or "balrog" (BALROG's text; see `NLEDecisionEnv`).
        text, on_invalid, render_mode, max_steps: as in `DecisionEnv`.
    """

    family = "nethack"
    direct_steps = True   # NetHackScore's step adds only bookkeeping we do not use

    def __init__(self, character: str = "random", *, stall_limit: int | None = 150,
                 text: bool = False, on_invalid: str = "fallback",
                 render_mode: str | None = None, max_steps: int | None = None,
                 auto_more: bool = False, nle_prompts: bool = False,
                 text_style: str = "ours"):
        self.character = ROLES.get(character, character)
        self._progress_key: tuple = ()
        self._progress_value = 0.0
        super().__init__(stall_limit=stall_limit, text=text, on_invalid=on_invalid,
                         render_mode=render_mode, max_steps=max_steps, auto_more=auto_more,
                         nle_prompts=nle_prompts, text_style=text_style)

    def _make_upstream(self, observation_keys):
        return NetHackScore(
            actions=nethack.ACTIONS, character=self.character, observation_keys=observation_keys,
            allow_all_yn_questions=not self.nle_prompts, allow_all_modes=not self.nle_prompts,
            penalty_step=0.0,
            penalty_time=0.0, max_episode_steps=10**9, fix_moon_phase=True)

    def _game_progress(self) -> float:
        b = self._blstats
        key = (int(b[BL_DEPTH]), int(b[BL_XL]), self._how_done)
        if key != self._progress_key:   # levels change rarely: look the tables up then
            self._progress_key = key
            self._progress_value = step_progress(
                key[0], key[1], astral=self._in_astral_plane(),
                ascended=self._how_done.startswith("ascended"))
        return self._progress_value

    def _game_success(self) -> bool:
        return self._how_done.startswith("ascended")

    def _game_metrics(self) -> dict[str, Any]:
        metrics = super()._game_metrics()
        metrics["character"] = self.character
        return metrics

    def _in_astral_plane(self) -> bool:
        # the bottom status line names the level in the endgame instead of "Dlvl:"
        line = self._obs["tty_chars"][23]
        return line[0] == ord("A") and bytes(line[:12]) == b"Astral Plane"
