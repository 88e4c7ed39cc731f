"""MiniHackEnv: BALROG's eight MiniHack tasks behind the decision stream.

The NetHack vocabulary, prompt reader, numeric observation (per-option rows
included, docs/nle-observation.md) and language observation are shared
(`games.nethack.base.NLEDecisionEnv`). Each task keeps its upstream action
set as the commands it allows (BALROG's setting), while questions the game
asks are always answerable: the upstream env runs with every key and with
NLE's own auto-declining of questions and menus turned off.

Boxoban levels come from our own generator (`boxoban.py`), picked by the
episode seed, instead of upstream's downloaded files and unseeded choice.
"""

from __future__ import annotations

import importlib
import os
import warnings
from typing import Any

# minihack 1.0.2 imports pkg_resources (hence setuptools<81), which warns on import
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="pkg_resources is deprecated")
    from minihack import LevelGenerator, MiniHackNavigation
from nle import nethack

from ..nethack.base import NLEDecisionEnv
from ..nethack.commands import COMMAND_INDICES, INDEX, MOVE_INDICES
from . import boxoban

BOULDER = ord("`")   # NetHack's boulder symbol in MiniHack's settings
# Generated Boxoban levels form a pool, like upstream's level files: the episode
# seed picks one of BOXOBAN_POOL levels, each generated once and cached, so long
# training runs stop paying for generation (a level takes 1-2 s).
BOXOBAN_POOL = 1000
_MOVES4 = tuple(INDEX[d] for d in ("north", "east", "south", "west"))
_CORRIDOR = MOVE_INDICES + (INDEX["open"], INDEX["kick"], INDEX["search"])
# skill tasks take the full action set less "<" (MiniHack's levels have no way up)
_SKILL = tuple(i for i in COMMAND_INDICES if i != INDEX["up"])

# task -> (upstream module, class, the commands its upstream action set allows)
TASKS: dict[str, tuple[str, str, tuple[int, ...]]] = {
    "Corridor-R3": ("minihack.envs.corridor", "MiniHackCorridor3", _CORRIDOR),
    "CorridorBattle-Dark": ("minihack.envs.fightcorridor", "MiniHackFightCorridorDark",
                            MOVE_INDICES),
    "MazeWalk-9x9": ("minihack.envs.mazewalk", "MiniHackMazeWalk9x9", MOVE_INDICES),
    "MazeWalk-15x15": ("minihack.envs.mazewalk", "MiniHackMazeWalk15x15", MOVE_INDICES),
    "Quest-Easy": ("minihack.envs.skills_quest", "MiniHackQuestEasy", _SKILL),
    "Quest-Medium": ("minihack.envs.skills_quest", "MiniHackQuestMedium", _SKILL),
    "Boxoban-Medium": ("", "medium", _MOVES4),
    "Boxoban-Hard": ("", "hard", _MOVES4),
}


class MiniHackEnv(NLEDecisionEnv):
    """One MiniHack task, BALROG's settings (100 steps, progress = solved).

    Args:
        task: a key of `TASKS`, e.g. "Corridor-R3" or "Boxoban-Hard".
        boxoban_dir: a folder of official Boxoban level files to use instead of
            generated ones (also `DUNGEONBENCH_BOXOBAN_DIR`).
        auto_more: press a pure --More-- for the agent (BALROG's skip_more; see
            `NLEDecisionEnv`).
        nle_prompts: NLE's own handling of questions and menus (BALROG's; see
            `NLEDecisionEnv`).
        text_style: "ours" (default) or "balrog" (BALROG's text; see `NLEDecisionEnv`).
        text, on_invalid, render_mode, max_steps: as in `DecisionEnv`.

    The hero is BALROG's: a random role (`character="@"`) except where the task
    forces one (Quest-Medium and CorridorBattle-Dark play a knight), autopickup off.
    """

    family = "minihack"
    fallback_index = INDEX["north"]   # BALROG's MiniHack fallback

    def __init__(self, task: str = "Corridor-R3", *, boxoban_dir: str | None = None,
                 text: bool = False, on_invalid: str = "fallback",
                 render_mode: str | None = None, max_steps: int | None = None,
                 auto_more: bool = False, nle_prompts: bool = False,
                 text_style: str = "ours"):
        if task not in TASKS:
            raise ValueError(f"task={task!r}: use one of {', '.join(TASKS)}")
        self.task = task
        self.boxoban_dir = boxoban_dir
        self.allowed_commands = TASKS[task][2]
        super().__init__(stall_limit=None, text=text, on_invalid=on_invalid,
                         render_mode=render_mode, max_steps=max_steps, auto_more=auto_more,
                         nle_prompts=nle_prompts, text_style=text_style)

    def _make_upstream(self, observation_keys):
        module, name, _ = TASKS[self.task]
        settings = dict(observation_keys=observation_keys, actions=nethack.ACTIONS,
                        allow_all_yn_questions=not self.nle_prompts,
                        allow_all_modes=not self.nle_prompts,
                        max_episode_steps=10**9, fix_moon_phase=True,
                        # BALROG's minihack_kwargs: a random role where the task does not
                        # force one, and nothing picked up unasked
                        character="@", autopickup=False)
        if not module:
            return _BoxobanTask(tier=name, levels_dir=self.boxoban_dir, **settings)
        return getattr(importlib.import_module(module), name)(**settings)

    def _seed_upstream(self, seed: int) -> None:
        if isinstance(self._upstream, _BoxobanTask):
            self._upstream.choose_level(seed)
        super()._seed_upstream(seed)

    def _game_progress(self) -> float:
        return 1.0 if self._game_success() else 0.0

    def _game_success(self) -> bool:
        return self._end_status == int(self._upstream.StepStatus.TASK_SUCCESSFUL)

    def _game_metrics(self) -> dict[str, Any]:
        metrics = super()._game_metrics()
        metrics["task"] = self.task
        return metrics


class _BoxobanTask(MiniHackNavigation):
    """Sokoban in NetHack: push the boulders onto the fountains. The level comes
    from the episode seed (`choose_level`), not from a random pick."""

    def __init__(self, tier: str, levels_dir: str | None = None, **kwargs):
        self.tier, self.levels_dir = tier, levels_dir
        self._rows = self._level(0)
        self._goals: list[tuple[int, int]] = []
        super().__init__(des_file=_des(self._rows), **kwargs)

    def choose_level(self, seed: int) -> None:
        self._rows = self._level(seed)
        self.update(_des(self._rows))

    def _level(self, seed: int) -> tuple[str, ...]:
        official = self.levels_dir or os.environ.get(boxoban.LEVELS_DIR_ENV_VAR)
        index = seed if official else seed % BOXOBAN_POOL   # official sets: seed % their size
        return boxoban.level_for_seed(self.tier, index, levels_dir=self.levels_dir)

    def reset(self, *args, **kwargs):
        obs, info = super().reset(*args, **kwargs)
        # where the level sits on the screen: the hero starts on the level's '@'
        blstats = self.last_observation[self._blstats_index]
        start = next((x, y) for y, row in enumerate(self._rows)
                     for x, ch in enumerate(row) if ch in "@+")
        dx, dy = int(blstats[0]) - start[0], int(blstats[1]) - start[1]
        self._goals = [(y + dy, x + dx) for y, row in enumerate(self._rows)
                       for x, ch in enumerate(row) if ch in ".*+"]
        return obs, info

    def _is_episode_end(self, observation):
        chars = observation[self._original_observation_keys.index("chars")]
        if self._goals and all(chars[cell] == BOULDER for cell in self._goals):
            return self.StepStatus.TASK_SUCCESSFUL
        return self.StepStatus.RUNNING


def _des(rows) -> str:
    """A MiniHack level description of a Boxoban level: walls become iron bars
    (as in upstream's Boxoban maps), goals fountains, boxes boulders; lit and
    premapped, no teleporting."""
    lines, boulders, fountains, start = [], [], [], None
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch in "$*":
                boulders.append((x, y))
            if ch in ".*+":
                fountains.append((x, y))
            if ch in "@+":
                start = (x, y)
        lines.append("".join("F" if ch == "#" else "." for ch in row))
    gen = LevelGenerator(map="\n".join(lines), lit=True, flags=("noteleport", "premapped"),
                         solidfill=" ")
    for cell in boulders:
        gen.add_boulder(cell)
    for cell in fountains:
        gen.add_fountain(cell)
    gen.set_start_pos(start)
    return gen.get_des()
