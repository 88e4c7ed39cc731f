"""DescendAgent: a scripted NetHack explorer that heads for the stairs down.

The simple baseline of the NetHack and MiniHack families. It reads only what
the numeric observation holds (the map glyphs and the hero's position in
`blstats`), re-deciding every step:

1. a question or --More--: escape it (continue for --More--), except that it
   answers "no" to "Really attack?" (a peaceful monster) and, when it asked to
   eat, picks the first food offered;
2. hungry: eat; a hostile monster next to it: attack it; standing on the
   stairs down: go down;
3. stairs down seen: walk there (breadth-first over known walkable cells);
4. otherwise walk to the nearest unexplored edge (a walkable cell next to
   unknown space) it has not already visited often;
5. a closed door in the way: open it, kick it when locked;
6. nothing left to explore: search for hidden passages where it stands.

Moves into monsters attack them, so it fights what blocks its path.
No diagonal step into or out of a doorway (NetHack forbids it).
"""

from __future__ import annotations

from collections import deque

import numpy as np
from nle import nethack

from ...agents.base import Agent
from .base import BL_DEPTH, BL_HUNGER, BL_TIME, BL_X, BL_Y
from .commands import INDEX

# NetHack 3.6 map symbols (glyph - GLYPH_CMAP_OFF)
S_STONE, S_NDOOR, S_VODOOR, S_HODOOR, S_VCDOOR, S_HCDOOR = 0, 12, 13, 14, 15, 16
S_ROOM, S_DARKROOM, S_CORR, S_LITCORR, S_UPSTAIR, S_DNSTAIR = 19, 20, 21, 22, 23, 24
WALLS = set(range(1, 12)) | {17, 18}   # walls, iron bars, trees
DOORS = {S_NDOOR, S_VODOOR, S_HODOOR, S_VCDOOR, S_HCDOOR}
CLOSED_DOORS = {S_VCDOOR, S_HCDOOR}
BLOCKING = {S_STONE} | WALLS | {32, 33, 34, 35, 36}   # plus water, lava (pool, moat...)
STEPS = {name: (dx, dy) for name, dx, dy in (
    ("north", 0, -1), ("east", 1, 0), ("south", 0, 1), ("west", -1, 0),
    ("northeast", 1, -1), ("southeast", 1, 1), ("southwest", -1, 1), ("northwest", -1, -1))}


class DescendAgent(Agent):
    """Explore, fight what is in the way, take the stairs down. See the module docstring."""

    name = "descend"

    def reset(self, env=None, seed=None) -> None:
        super().reset(env, seed)
        self._visits: dict[tuple[int, int, int], int] = {}
        self._door_tries: dict[tuple[int, int], int] = {}
        self._pending_direction: str | None = None
        self._terrain: dict[int, np.ndarray] = {}   # per dungeon level: last map symbol seen
        self._eating = False
        self._no_food_until = -1        # game turn before which it will not try to eat
        self._spared: dict[tuple[int, int, int], int] = {}   # peaceful monsters: cell -> turn

    def act(self, observation, info) -> int:
        action = self._choose(observation, info)
        mask = observation["action_mask"]
        if mask[action]:
            return action
        # a task that forbids what it wanted (search or open in a maze): wander instead
        self._pending_direction = None
        moves = [INDEX[name] for name in STEPS if mask[INDEX[name]]]
        return int(self.rng.choice(moves)) if moves else int(np.flatnonzero(mask)[0])

    def _choose(self, observation, info) -> int:
        mask = observation["action_mask"]
        decision = info["decision"]
        if decision == "direction" and self._pending_direction:
            choice = INDEX[f"direction {self._pending_direction}"]
            self._pending_direction = None
            if mask[choice]:
                return choice
        if decision != "command":
            return self._answer(mask, info, observation)
        self._pending_direction = None
        glyphs, blstats = observation["glyphs"], observation["blstats"]
        x, y = int(blstats[BL_X]), int(blstats[BL_Y])
        depth, turn = int(blstats[BL_DEPTH]), int(blstats[BL_TIME])
        self._visits[(depth, x, y)] = self._visits.get((depth, x, y), 0) + 1
        # only the moves this env allows (a MiniHack task may forbid diagonals)
        self._steps = {name: d for name, d in STEPS.items() if mask[INDEX[name]]}
        cmap = self._remember(depth, glyphs)
        if int(blstats[BL_HUNGER]) >= 1 and turn >= self._no_food_until and mask[INDEX["eat"]]:
            self._eating = True
            self._no_food_until = turn + 50   # if nothing edible was offered, wait a while
            return INDEX["eat"]
        target = self._adjacent_enemy(glyphs, x, y, depth, turn)
        if target is not None:
            return INDEX[target]
        if cmap[y, x] == S_DNSTAIR and mask[INDEX["down"]]:
            return INDEX["down"]
        path = self._path(cmap, glyphs, (x, y), depth)
        if path is None:
            return INDEX["search"]
        step = path[0]
        nx, ny = x + STEPS[step][0], y + STEPS[step][1]
        if int(glyphs[ny, nx]) - nethack.GLYPH_CMAP_OFF in CLOSED_DOORS:   # as seen now, not
            # remembered: a pet standing in the doorway is no door to kick
            tries = self._door_tries.get((nx, ny), 0)
            self._door_tries[(nx, ny)] = tries + 1
            self._pending_direction = step
            # open twice (it may be stuck), then kick it until it breaks
            return INDEX["open"] if tries < 2 else INDEX["kick"]
        return INDEX[step]

    def _remember(self, depth: int, glyphs: np.ndarray) -> np.ndarray:
        """Map symbols with memory: where a monster, an object or the hero stands,
        the terrain last seen there (a doorway stays a doorway under the hero)."""
        symbols = glyphs.astype(np.int32) - nethack.GLYPH_CMAP_OFF
        is_terrain = (symbols >= 0) & (symbols < nethack.MAXPCHARS)
        known = self._terrain.get(depth)
        if known is None:
            known = self._terrain[depth] = np.full(glyphs.shape, -1, np.int32)
        known[is_terrain] = symbols[is_terrain]
        # cells never seen as terrain (an object since the start) count as floor
        return np.where(is_terrain, symbols, np.where(known >= 0, known, S_ROOM))

    def _adjacent_enemy(self, glyphs, x, y, depth, turn) -> str | None:
        """The direction of a monster next to the hero that is not a pet and was
        not found peaceful lately."""
        for name, (dx, dy) in self._steps.items():
            nx, ny = x + dx, y + dy
            if not (0 <= ny < glyphs.shape[0] and 0 <= nx < glyphs.shape[1]):
                continue
            if nethack.glyph_is_monster(int(glyphs[ny, nx])) and \
                    not nethack.glyph_is_pet(int(glyphs[ny, nx])) and \
                    turn - self._spared.get((depth, nx, ny), -10**9) > 20:
                self._last_target = (depth, nx, ny, turn)
                return name
        return None

    def _answer(self, mask, info, observation) -> int:
        question = observation["message"].tobytes().split(b"\0", 1)[0]
        if mask[INDEX["continue"]]:
            return INDEX["continue"]
        if b"Really attack" in question and mask[INDEX["no"]]:
            depth, nx, ny, turn = getattr(self, "_last_target", (0, -1, -1, 0))
            self._spared[(depth, nx, ny)] = turn
            return INDEX["no"]
        if self._eating and info["decision"] == "item":
            self._eating = False
            for option in info["options"]:
                if option.label.startswith("choose ") and option.label != "choose *":
                    return option.index
        return INDEX["escape"]

    def _path(self, cmap, glyphs, start, depth) -> list[str] | None:
        """First steps of a shortest path to the stairs down if known, else to the
        nearest explored cell next to unknown space that was visited least."""
        goal_stairs = cmap == S_DNSTAIR
        height, width = cmap.shape
        parent = {start: None}
        queue = deque([start])
        best, best_score = None, None
        while queue:
            cell = queue.popleft()
            cx, cy = cell
            if goal_stairs[cy, cx] and cell != start:
                return self._unwind(parent, cell)
            if cell != start and self._frontier(cmap, cx, cy):
                score = self._visits.get((depth, cx, cy), 0)
                if best is None or score < best_score:   # nearest among the least visited
                    best, best_score = cell, score
            for name, (dx, dy) in self._steps.items():
                nx, ny = cx + dx, cy + dy
                if not (0 <= nx < width and 0 <= ny < height) or (nx, ny) in parent:
                    continue
                target = cmap[ny, nx]
                if target in BLOCKING:
                    continue
                if dx and dy and (target in DOORS or cmap[cy, cx] in DOORS):
                    continue
                parent[(nx, ny)] = (cell, name)
                queue.append((nx, ny))
        return self._unwind(parent, best) if best is not None else None

    @staticmethod
    def _frontier(cmap, x, y) -> bool:
        if cmap[y, x] in CLOSED_DOORS:
            return True
        height, width = cmap.shape
        for dx, dy in STEPS.values():
            nx, ny = x + dx, y + dy
            if 0 <= nx < width and 0 <= ny < height and cmap[ny, nx] == S_STONE \
                    and cmap[y, x] in (S_CORR, S_LITCORR, S_NDOOR, S_VODOOR, S_HODOOR,
                                       S_DARKROOM, S_ROOM):
                return True
        return False

    @staticmethod
    def _unwind(parent, cell) -> list[str]:
        steps = []
        while parent[cell] is not None:
            cell, name = parent[cell]
            steps.append(name)
        steps.reverse()
        return steps

