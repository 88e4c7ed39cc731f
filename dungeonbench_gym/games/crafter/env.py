"""CrafterEnv: Crafter (Hafner 2021; crafter 1.8.3, 64x64 world, 9x9 view) behind the
decision stream.

Actions (Discrete(17), index i is crafter's action i, BALROG's labels):

     0 Noop          1 Move West     2 Move East     3 Move North    4 Move South
     5 Do            6 Sleep         7 Place Stone   8 Place Table   9 Place Furnace
    10 Place Plant  11 Make Wood Pickaxe  12 Make Stone Pickaxe  13 Make Iron Pickaxe
    14 Make Wood Sword  15 Make Stone Sword  16 Make Iron Sword

A masked-out index runs Noop (BALROG's Crafter fallback), which is always legal.

Mask rule (see `rules` for the full statement, read from crafter's data.yaml):
Noop and the four moves always (asleep, with energy < 9, only those, and crafter
turns each into sleeping); awake also: Do when the cell in front holds
a cow, zombie or skeleton, a ripe plant, or a material Do collects with the tools
held (tree, water, grass: always; stone and coal: wood pickaxe; iron: stone
pickaxe; diamond: iron pickaxe); Sleep when energy < 9; Place X when the cell in
front is free of creatures, its material is in X's `where` list and the
inventory holds X's `uses`; Make X when the stations X needs (table; iron tools
also a furnace) lie in the 3x3 square around the player and the inventory holds
X's `uses`. An illegal action, executed, leaves the game as Noop would.

Observation (Dict, numeric, SB3 MultiInputPolicy takes it as is):
`map` Box(0, 18, (7, 9), uint8): the 9x7 local view the player sees (rows north
to south, columns west to east, the player at row 3, column 4) as crafter's
semantic ids (0 off the map, 1-12 water grass stone path sand tree lava coal
iron diamond table furnace, 13 player, 14 cow, 15 zombie, 16 skeleton, 17 arrow,
18 plant); `inventory` Box(0, 9, (16,), uint8): health, food, drink, energy,
sapling, wood, stone, coal, iron, diamond, wood/stone/iron pickaxe, wood/stone/
iron sword; `facing` Discrete(4): west, east, north, south; `daylight` Box(0, 1,
(1,), float32); `sleeping` Discrete(2); with `pixels=True` also `image` (64, 64,
3) uint8, crafter's picture (that costs the drawing, about two thirds of a step).

Text (`text=True`): long_term = the nearest thing of each kind in view with its
offset, and what the player faces; short_term = health/food/drink/energy,
inventory, day or night, asleep or not.

Seeding: the seed the base class draws on reset becomes crafter's seed with the
episode counter at 1, so the world is crafter's world for that seed, and the same
seed and actions give the same trajectory with or without pictures.

Reward: crafter's (+1 per newly unlocked achievement, +-0.1 per health point
gained or lost). Terminated when the player dies; crafter's own time limit is
off, the registry's max_steps (2000, BALROG's cap) truncates.

Progress: achievements unlocked / 22. Success: all 22 unlocked (practically never:
collecting a diamond and defeating both monsters in one life is rare even for
strong agents). Metrics: `achievements` (sorted names unlocked),
`num_achievements`, `health`, `food`, `drink`, `energy`, `world_step`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from ...core.env import DecisionEnv
from ...core.options import option_table
from .game import CrafterGame
from .rules import (ACHIEVEMENTS, ACTIONS, FACING_INDEX, ITEMS, N_ACTIONS, NOOP,
                    action_descriptions, legal_mask)
from .text import (VIEW_HEIGHT, VIEW_WIDTH, describe_status, describe_view, local_view_ids,
                   render_map)

N_ACHIEVEMENTS = len(ACHIEVEMENTS)   # 22
IMAGE_SIZE = 64


class CrafterEnv(DecisionEnv):
    """Crafter with masks, options, text on demand and pictures only when asked.

    Args:
        pixels: add crafter's 64x64 RGB picture to the observation as `image`
            (drawn every step). Off by default: the step then draws nothing.
        fast_worldgen: build worlds with the faster (bit-identical) noise; off
            runs crafter's own generator.
        render_size: side in pixels of `render()` frames in "rgb_array" mode.
        text, on_invalid, render_mode, max_steps: as in `DecisionEnv`.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 8}
    family = "crafter"
    option_table = option_table(ACTIONS, descriptions=action_descriptions())
    fallback_index = NOOP
    # crafter's rules run any action (one that cannot act does nothing), as upstream's do
    executes_any_action = True

    def __init__(self, *, pixels: bool = False, fast_worldgen: bool = True,
                 render_size: int = IMAGE_SIZE, text: bool = False,
                 on_invalid: str = "fallback", render_mode: str | None = None,
                 max_steps: int | None = None):
        self.pixels = bool(pixels)
        self.render_size = int(render_size)
        self._game = CrafterGame(draw=self.pixels, fast_worldgen=fast_worldgen)
        self._type_ids = dict(self._game._sem_view._obj_ids)
        top = max(self._type_ids.values())
        observation_spaces = {
            "map": spaces.Box(0, top, (VIEW_HEIGHT, VIEW_WIDTH), np.uint8),
            "inventory": spaces.Box(0, 9, (len(ITEMS),), np.uint8),
            "facing": spaces.Discrete(4),
            "daylight": spaces.Box(0.0, 1.0, (1,), np.float32),
            "sleeping": spaces.Discrete(2),
        }
        if self.pixels:
            observation_spaces["image"] = spaces.Box(0, 255, (IMAGE_SIZE, IMAGE_SIZE, 3), np.uint8)
        super().__init__(n_actions=N_ACTIONS, observation_spaces=observation_spaces,
                         text=text, on_invalid=on_invalid, render_mode=render_mode,
                         max_steps=max_steps)
        self._frame = None
        self._achievement_cache: tuple[int, list[str]] = (-1, [])

    # ------------------------------------------------------------------ hooks
    def _game_reset(self, seed: int, options: dict | None) -> None:
        game = self._game
        game._seed = seed      # crafter seeds the world with hash((seed, episode))
        game._episode = 0
        self._frame = game.reset()
        self._achievement_cache = (-1, [])

    def _game_step(self, action: int) -> tuple[float, bool, bool]:
        self._frame, reward, dead = self._game.step(action)
        return reward, dead, False

    def _game_mask(self) -> np.ndarray:
        return legal_mask(self._game)

    def _game_observation(self) -> dict[str, Any]:
        game = self._game
        player = game.player
        inventory = player.inventory
        obs = {
            "map": local_view_ids(game, np.empty((VIEW_HEIGHT, VIEW_WIDTH), np.uint8),
                                  self._type_ids),
            "inventory": np.array([inventory[name] for name in ITEMS], np.uint8),
            "facing": np.int64(FACING_INDEX[tuple(player.facing)]),
            "daylight": np.array([game.world.daylight], np.float32),
            "sleeping": np.int64(player.sleeping),
        }
        if self.pixels:
            obs["image"] = self._frame
        return obs

    def _game_text(self) -> tuple[str, str]:
        return describe_view(self._game), describe_status(self._game)

    def _game_progress(self) -> float:
        return len(self._game.unlocked) / N_ACHIEVEMENTS

    def _game_success(self) -> bool:
        return len(self._game.unlocked) == N_ACHIEVEMENTS

    def _game_metrics(self) -> dict[str, Any]:
        game = self._game
        unlocked = game.unlocked
        count, names = self._achievement_cache
        if count != len(unlocked):
            names = sorted(unlocked)
            self._achievement_cache = (len(unlocked), names)
        inventory = game.player.inventory
        return {"achievements": list(names), "num_achievements": len(names),
                "health": inventory["health"], "food": inventory["food"],
                "drink": inventory["drink"], "energy": inventory["energy"],
                "world_step": game.world_step}

    # -------------------------------------------------------------- rendering
    def _render_ansi(self) -> str:
        return render_map(self._game)

    def _render_rgb(self) -> np.ndarray:
        if self.pixels and self._frame is not None and self.render_size == IMAGE_SIZE:
            return self._frame.copy()
        return self._game.picture(self.render_size)

    # ---------------------------------------------------------------- access
    @property
    def game(self) -> CrafterGame:
        """The crafter game (privileged state: world, player) for baselines and tests."""
        return self._game

    @property
    def crafter_seed(self) -> int:
        """crafter's seed for this episode: `crafter.Env(seed=s).reset()` builds the same world."""
        return self._game._seed
