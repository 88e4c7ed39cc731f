"""CrafterHeuristicAgent: a scripted Crafter baseline that reads the game state.

It is privileged: it looks at the crafter world directly (`env.unwrapped.game`:
the whole 64x64 map and every creature, not only the 9x7 view a player or an
LLM gets), so its scores are a reference for "a simple plan executed well",
not a fair competitor for agents that see only the observation.

The plan, re-decided every step, first need first:

1. asleep: Noop (crafter turns any command of a sleeper into sleeping);
2. a zombie or skeleton next to the player: turn to it and hit it;
3. a tool not yet owned can be made right here (legal in the mask): make it;
4. night, low energy or low health: shelter. It finds a straight dead end two
   cells deep (walls of stone, trees, water... on its sides; it may dig the two
   cells), walks to the far end, steps back one cell, which turns it toward
   the way in, closes the entrance with a stone, then sleeps (or waits) until
   day and full energy, and mines the door stone back. Without stone or a
   pickaxe: sleep in a nook with three blocked sides when no monster is near;
5. thirst or hunger below 5: walk to water and drink / hunt the nearest cow or
   ripe plant, until full;
6. the tech tree: wood, a table, wood pickaxe and sword, a sapling and a plant,
   drinking and a cow once each, stone (and one placed), stone pickaxe and
   sword, coal, a furnace, iron and iron tools, diamond; mining keeps more
   than 5 steps from skeletons (their arrows);
7. nothing to do or nothing in reach: explore in a held random direction.

Movement is a breadth-first search over walkable cells near the player, never
onto lava. Every action it returns is legal under the mask (it checks).
"""

from __future__ import annotations

from collections import deque

import numpy as np
from crafter import objects

from ...agents.base import Agent
from .rules import (COLLECT, DO, MAKE, MOVES, NOOP, PLACE, PLACE_FURNACE, PLACE_PLANT,
                    PLACE_STONE, PLACE_TABLE, SLEEP)

_DIRS = tuple(MOVES.items())                 # (action, (dx, dy))
_MOVE_OF = {d: a for a, d in MOVES.items()}
_WALKABLE = frozenset(("grass", "sand", "path"))
_USES = {name: dict(uses) for _, (name, _, uses) in PLACE.items()}
_MAKE_BY_NAME = {name: (index, stations, dict(uses))
                 for index, (name, stations, uses) in MAKE.items()}
_TOOL_ORDER = ("wood_pickaxe", "wood_sword", "stone_pickaxe", "stone_sword",
               "iron_pickaxe", "iron_sword")


class CrafterHeuristicAgent(Agent):
    """Scripted survival-and-crafting policy; see the module docstring."""

    name = "crafter-heuristic"

    def __init__(self, search_radius: int = 12, drink_below: int = 5, eat_below: int = 5,
                 sleep_below: int = 3, far_search: bool = True, rest_when_hurt: bool = True,
                 avoid_skeletons: bool = True):
        self.search_radius = search_radius
        self.drink_below, self.eat_below, self.sleep_below = drink_below, eat_below, sleep_below
        self.far_search = far_search            # look 30 cells out for water/food when needed
        self.rest_when_hurt = rest_when_hurt    # shelter at health <= 4
        self.avoid_skeletons = avoid_skeletons  # mine away from archers

    def reset(self, env=None, seed=None) -> None:
        super().reset(env, seed)
        self.game = env.unwrapped.game if env is not None else None
        self._heading = None
        self._heading_left = 0
        self._mode = None          # "drink" / "eat" keep going until full
        self._shelter = None       # [phase, entrance, direction, steps] while sheltering
        self._no_shelter_until = 0

    # ------------------------------------------------------------------ policy
    def act(self, observation, info) -> int:
        mask = np.asarray(observation["action_mask"])
        action = self._decide(mask)
        if action is None or not mask[action]:
            action = self._explore(mask)
        return int(action)

    def _decide(self, mask):
        game = self.game
        player = game.player
        inv = player.inventory
        if not mask[1:].any():
            return NOOP
        world = game.world
        px, py = player.pos.tolist()
        # 2. fight what attacks us
        for action, (dx, dy) in _DIRS:
            obj = world[(px + dx, py + dy)][1]
            if isinstance(obj, (objects.Zombie, objects.Skeleton)):
                return self._face_and(action, (dx, dy), DO, mask)
        # 3. make the next tool when it can be made here
        for tool in _TOOL_ORDER:
            index = _MAKE_BY_NAME[tool][0]
            if inv[tool] == 0 and mask[index]:
                return index
        # 4. needs
        if self._mode == "drink" and inv["drink"] >= 9 or self._mode == "eat" and inv["food"] >= 9:
            self._mode = None
        if inv["drink"] < self.drink_below:
            self._mode = "drink"
        elif inv["food"] < self.eat_below:
            self._mode = "eat"
        step = self._shelter_step(mask)
        if step is not None:
            return step
        if inv["energy"] < self.sleep_below:
            return self._sleep(mask)
        if self._mode == "drink":
            step = self._go_do(lambda m, o: o is None and m == "water", mask, far=True)
            if step is not None:
                return step
            return self._explore(mask)
        if self._mode == "eat":
            step = self._go_do(_is_food, mask, far=True)
            if step is not None:
                return step
            return self._explore(mask)
        return self._progress(mask, inv)

    def _progress(self, mask, inv):
        game = self.game
        achieved = game.player.achievements
        near_table = self._near("table")
        wood_goal = min(9, _USES["table"]["wood"] + 6)
        # wood first, then a table to craft at
        if inv["wood"] < (_USES["table"]["wood"] if not near_table else 1) or (
                inv["wood"] < wood_goal and not achieved["make_stone_sword"]):
            step = self._go_do(lambda m, o: o is None and m == "tree", mask, radius=8)
            if step is not None and (inv["wood"] < 3 or self._dist_to("tree") <= 6):
                return step
        if not near_table and mask[PLACE_TABLE] and (
                not self._table_within(8) or not achieved["place_table"]):
            return PLACE_TABLE
        if not near_table and inv["wood"] >= _USES["table"]["wood"] and not self._table_within(8):
            step = self._turn_to_free(mask)
            if step is not None:
                return step
        # tools: walk back to a table when one is wanted and affordable
        for tool in _TOOL_ORDER:
            index, stations, uses = _MAKE_BY_NAME[tool]
            if inv[tool] == 0 and all(inv[k] >= v for k, v in uses.items()):
                if "furnace" in stations and not self._table_within(30, "furnace"):
                    continue
                target = stations[-1]
                step = self._go_next_to(target, mask)
                if step is not None:
                    return step
        # sapling and plant
        if inv["sapling"] and mask[PLACE_PLANT]:
            return PLACE_PLANT
        if not achieved["collect_sapling"] and mask[DO] and self._facing_material() == "grass":
            return DO
        # drink / eat once for the achievements
        if not achieved["collect_drink"] and inv["drink"] < 9:
            step = self._go_do(lambda m, o: o is None and m == "water", mask, radius=8)
            if step is not None:
                return step
        if not achieved["eat_cow"] and inv["food"] < 9:
            step = self._go_do(lambda m, o: isinstance(o, objects.Cow), mask, radius=8)
            if step is not None:
                return step
        # stone, coal, iron, diamond with the tools we have
        if inv["wood_pickaxe"]:
            if not achieved["place_stone"] and mask[PLACE_STONE]:
                return PLACE_STONE
            if (inv["stone"] >= _USES["furnace"]["stone"] and mask[PLACE_FURNACE]
                    and not self._table_within(4, "furnace") and self._near("table")):
                return PLACE_FURNACE
            wanted = []
            if inv["iron_pickaxe"]:
                wanted.append("diamond")
            if inv["stone_pickaxe"] and inv["iron"] < 2:
                wanted.append("iron")
            if inv["coal"] < 2:
                wanted.append("coal")
            if inv["stone"] < 9:
                wanted.append("stone")
            for material in wanted:
                step = self._go_do(lambda m, o, t=material: o is None and m == t, mask,
                                   radius=10, avoid_skeletons=True)
                if step is not None:
                    return step
        if not achieved["collect_sapling"] and self._facing_material() == "grass" and mask[DO]:
            return DO
        return None

    # ---------------------------------------------------------------- shelter
    # Zombies hit a sleeper for 7. A player only turns without moving toward a
    # blocked cell, so it cannot wall in the cell it came from; a dead end two
    # cells deep gets round that: from the far end, stepping back faces the
    # entrance, which a stone then closes. Nothing can reach the player then.
    def _shelter_step(self, mask):
        game = self.game
        player = game.player
        inv = player.inventory
        daylight = float(game.world.daylight)
        wanted = (inv["energy"] < self.sleep_below + 1 or daylight < 0.45
                  or self.rest_when_hurt and inv["health"] <= 4
                  and inv["food"] >= 3 and inv["drink"] >= 3)
        if self._shelter is None:
            if not wanted or game.world_step < self._no_shelter_until:
                return None
            if inv["stone"] < 1 or not inv["wood_pickaxe"] or self._monster_within(1):
                return None
            found = self._find_shelter()
            if found is None:
                self._no_shelter_until = game.world_step + 20
                return None
            self._shelter = ["go", found[0], found[1], 0]
        phase, entrance, (dx, dy), steps = self._shelter
        self._shelter[3] = steps + 1
        px, py = player.pos.tolist()
        ex, ey = entrance
        inner, far = (ex + dx, ey + dy), (ex + 2 * dx, ey + 2 * dy)
        step = None
        if phase == "go":
            if (px, py) == entrance:
                phase = "dig"
            elif steps > 60:
                return self._abandon_shelter()
            else:
                step = self._search(lambda x, y: (x, y) == entrance, 20, adjacent=False)
                if step is None:
                    return self._abandon_shelter()
                return step
        if phase == "dig":
            if (px, py) == far:
                phase = "back"
            elif (px, py) in (entrance, inner):
                move = _MOVE_OF[(dx, dy)]
                material, obj = game.world[(px + dx, py + dy)]
                if material in _WALKABLE and obj is None:
                    step = move
                elif tuple(player.facing) != (dx, dy):
                    step = move
                elif mask[DO] and obj is None:
                    step = DO
                else:
                    return self._abandon_shelter()
            else:
                return self._abandon_shelter()
        if phase == "back":
            if (px, py) == far:
                step = _MOVE_OF[(-dx, -dy)]
            elif (px, py) == inner:
                phase = "seal"
            else:
                return self._abandon_shelter()
        if phase == "seal":
            material, obj = game.world[entrance]
            if (px, py) != inner or tuple(player.facing) != (-dx, -dy):
                return self._abandon_shelter()
            if obj is not None:
                step = DO if mask[DO] else NOOP          # something in the doorway: hit it
            elif material in _WALKABLE:
                step = PLACE_STONE if mask[PLACE_STONE] else None
            else:
                phase = "rest"
        if phase == "rest":
            night = daylight < 0.5
            rested = inv["energy"] >= 9 and inv["health"] >= 7
            if inv["drink"] < 3 or inv["food"] < 3 or (not night and rested):
                phase = "leave"
            elif mask[SLEEP]:
                step = SLEEP
            else:
                step = NOOP
        if phase == "leave":
            self._shelter = None
            self._no_shelter_until = game.world_step + 30
            material, obj = game.world[entrance]
            if (px, py) == inner and material not in _WALKABLE and mask[DO]:
                step = DO                                   # take the door stone back
            else:
                step = None
            return step
        if self._shelter is not None:
            self._shelter[0] = phase
        return step

    def _abandon_shelter(self):
        self._shelter = None
        self._no_shelter_until = self.game.world_step + 20
        return None

    def _find_shelter(self):
        """(entrance, direction) of the nearest dead end two cells deep, or None."""
        world, player = self.game.world, self.game.player
        inv = player.inventory
        diggable = {"tree"} | {m for m, needs in COLLECT.items()
                              if m not in ("water", "grass") and needs
                              and all(inv[k] >= v for k, v in needs)}

        def solid(cell):
            return world[cell][0] not in _WALKABLE     # off the map counts as a wall

        def open_or_diggable(cell):
            material, obj = world[cell]
            return obj is None and (material in _WALKABLE or material in diggable)

        def fits(x, y):
            for _, (dx, dy) in _DIRS:
                inner, far = (x + dx, y + dy), (x + 2 * dx, y + 2 * dy)
                if not (open_or_diggable(inner) and open_or_diggable(far)):
                    continue
                side = (dy, dx)
                walls = [(inner[0] + side[0], inner[1] + side[1]),
                         (inner[0] - side[0], inner[1] - side[1]),
                         (far[0] + side[0], far[1] + side[1]),
                         (far[0] - side[0], far[1] - side[1]),
                         (far[0] + dx, far[1] + dy)]
                if all(solid(c) and not _is_creature(world[c][1]) for c in walls):
                    self._found = ((x, y), (dx, dy))
                    return True
            return False

        self._found = None
        px, py = player.pos.tolist()
        if fits(px, py) or self._search(fits, 12, adjacent=False) is not None:
            return self._found
        return None

    # ------------------------------------------------------------- behaviours
    def _sleep(self, mask):
        """Sleep in a nook (three blocked sides) with no monster about; else get to one."""
        if self._monster_within(6):
            return None            # stay awake: fight or keep going
        if self._blocked_sides(*self.game.player.pos.tolist()) < 3:
            step = self._search(self._is_nook, 10, adjacent=False)
            if step is not None:
                return step
        if mask[PLACE_STONE] and self._facing_material() in _WALKABLE:
            return PLACE_STONE     # close the side in front as well
        if mask[SLEEP]:
            return SLEEP
        return None

    def _monster_within(self, radius) -> bool:
        px, py = self.game.player.pos.tolist()
        for obj in self.game.world.objects:
            if isinstance(obj, (objects.Zombie, objects.Skeleton)):
                ox, oy = obj.pos.tolist()
                if abs(ox - px) + abs(oy - py) <= radius:
                    return True
        return False

    def _blocked_sides(self, x, y) -> int:
        world = self.game.world
        count = 0
        for _, (dx, dy) in _DIRS:
            material, obj = world[(x + dx, y + dy)]
            if material not in _WALKABLE or isinstance(obj, objects.Plant):
                count += 1
        return count

    def _is_nook(self, x, y) -> bool:
        return self._blocked_sides(x, y) >= 3

    def _face_and(self, move, direction, then, mask):
        player = self.game.player
        if tuple(player.facing) == direction:
            return then if mask[then] else None
        return move

    def _facing_material(self):
        player, world = self.game.player, self.game.world
        px, py = player.pos.tolist()
        fx, fy = player.facing
        material, obj = world[(px + fx, py + fy)]
        return material if obj is None else None

    def _turn_to_free(self, mask):
        """Walk one step so that the cell in front is free ground (for placing)."""
        world = self.game.world
        px, py = self.game.player.pos.tolist()
        for action, (dx, dy) in _DIRS:
            ahead = world[(px + 2 * dx, py + 2 * dy)]
            step = world[(px + dx, py + dy)]
            if (step[0] in _WALKABLE and step[1] is None
                    and ahead[0] in _WALKABLE and ahead[1] is None):
                return action
        return None

    def _near(self, material) -> bool:
        world = self.game.world
        px, py = self.game.player.pos.tolist()
        area = world._mat_map[max(0, px - 1): px + 2, max(0, py - 1): py + 2]
        return bool((area == world._mat_ids[material]).any())

    def _table_within(self, radius, material="table") -> bool:
        world = self.game.world
        px, py = self.game.player.pos.tolist()
        area = world._mat_map[max(0, px - radius): px + radius + 1,
                              max(0, py - radius): py + radius + 1]
        return bool((area == world._mat_ids[material]).any())

    def _dist_to(self, material) -> int:
        world = self.game.world
        px, py = self.game.player.pos.tolist()
        xs, ys = np.nonzero(world._mat_map == world._mat_ids[material])
        if xs.size == 0:
            return 10 ** 6
        return int((np.abs(xs - px) + np.abs(ys - py)).min())

    def _go_next_to(self, material, mask):
        """Walk until the player stands within the 3x3 square of `material`."""
        if self._near(material):
            return None
        return self._go_do(lambda m, o, t=material: o is None and m == t, mask, act=False)

    def _go_do(self, wanted, mask, radius=None, act=True, far=False, avoid_skeletons=False):
        """Walk to the nearest cell satisfying wanted(material, obj), face it, press Do.

        far: search up to 30 cells away when nothing is within the usual radius.
        avoid_skeletons: only approach from cells more than 5 steps from a skeleton.
        """
        game = self.game
        world, player = game.world, game.player
        px, py = player.pos.tolist()
        for action, (dx, dy) in _DIRS:
            material, obj = world[(px + dx, py + dy)]
            if material is not None and wanted(material, obj):
                if not act:
                    return None
                return self._face_and(action, (dx, dy), DO, mask)
        radius = radius or self.search_radius
        archers = []
        if avoid_skeletons and self.avoid_skeletons:
            archers = [a for a in (tuple(o.pos.tolist()) for o in world.objects
                                   if isinstance(o, objects.Skeleton))
                       if abs(a[0] - px) + abs(a[1] - py) <= radius + 6]
        if archers:
            def next_to_wanted_and_safe(x, y):
                if any(abs(x - ax) + abs(y - ay) <= 5 for ax, ay in archers):
                    return False
                for _, (dx, dy) in _DIRS:
                    material, obj = world[(x + dx, y + dy)]
                    if material is not None and wanted(material, obj):
                        return True
                return False
            return self._search(next_to_wanted_and_safe, radius, adjacent=False)
        step = self._search(wanted, radius)
        if step is None and far and self.far_search:
            step = self._search(wanted, 30)
        return step

    def _search(self, wanted, radius, adjacent=True):
        """First move of a shortest walk to a cell next to a wanted one, or None.

        adjacent=False: to a walkable cell (x, y) with wanted(x, y) true instead.
        """
        world, player = self.game.world, self.game.player
        sx, sy = player.pos.tolist()
        width, height = world.area
        mat_map, names = world._mat_map, world._mat_names
        obj_map, objs = world._obj_map, world._objects
        walk_ids = {world._mat_ids[m] for m in _WALKABLE}
        seen = {(sx, sy)}
        queue = deque([(sx, sy, None)])     # cell and the first move that led there
        while queue:
            x, y, first = queue.popleft()
            for action, (dx, dy) in _DIRS:
                nx, ny = x + dx, y + dy
                if (nx, ny) in seen or not (0 <= nx < width and 0 <= ny < height):
                    continue
                if abs(nx - sx) > radius or abs(ny - sy) > radius:
                    continue
                material, obj = names[mat_map[nx, ny]], objs[obj_map[nx, ny]]
                if adjacent and first is not None and wanted(material, obj):
                    return first
                if mat_map[nx, ny] in walk_ids and obj is None:
                    if not adjacent and wanted(nx, ny):
                        return action if first is None else first
                    seen.add((nx, ny))
                    queue.append((nx, ny, action if first is None else first))
        return None

    def _explore(self, mask):
        world, player = self.game.world, self.game.player
        px, py = player.pos.tolist()

        def safe(action):
            dx, dy = MOVES[action]
            material, obj = world[(px + dx, py + dy)]
            return material in _WALKABLE and obj is None

        if self._heading_left <= 0 or not safe(self._heading):
            options = [a for a, _ in _DIRS if safe(a)]
            if not options:
                options = [a for a, _ in _DIRS if world[(px + MOVES[a][0], py + MOVES[a][1])][0]
                           != "lava"]
            if not options:
                return NOOP
            self._heading = int(self.rng.choice(options))
            self._heading_left = int(self.rng.integers(5, 15))
        self._heading_left -= 1
        return self._heading


def _is_creature(obj) -> bool:
    return isinstance(obj, (objects.Cow, objects.Zombie, objects.Skeleton))


def _is_food(material, obj) -> bool:
    return isinstance(obj, objects.Cow) or (isinstance(obj, objects.Plant) and obj.ripe)
