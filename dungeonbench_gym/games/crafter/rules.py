"""Which of Crafter's 17 actions would do something now: the action mask.

Everything is read from crafter's own rule table (`crafter/data.yaml`, loaded as
`crafter.constants`), so the mask follows the installed game's numbers. The rule,
for the player's state just before the step (the player acts first in a step, so
this is exactly the state it acts on):

- **Noop, Move West/East/North/South**: always legal. A blocked move still turns
  the player to face that way.
- **Asleep** (sleeping with energy below its maximum): crafter replaces every
  command by "keep sleeping", so apart from Noop and the moves (always legal,
  here all the same as Noop) nothing is. (A sleeper whose energy is full wakes
  up at the start of the step and acts normally: the awake rule.)
- **Do** acts on the cell in front ("target"; outside the 64x64 world nothing):
  a creature there (cow, zombie, skeleton) can always be hit; a plant only when
  ripe (an unripe plant ignores Do); an arrow ignores Do. With no creature, the
  material must be in `collect` and the inventory must hold its `require`
  (tree, water, grass: nothing; stone, coal: wood pickaxe; iron: stone pickaxe;
  diamond: iron pickaxe). Grass is legal although it gives a sapling only with
  probability 0.1 (it still draws the dice); water and trees are legal even with
  a full drink/wood count (the step still counts the collection).
- **Sleep**: energy below its maximum (9).
- **Place X**: no creature or plant on the target, the target's material is in
  X's `where` list (stone: grass, sand, path, water, lava; table, furnace:
  grass, sand, path; plant: grass) and the inventory holds X's `uses`.
- **Make X**: every station in X's `nearby` list (table; iron tools also a
  furnace) lies in the 3x3 square centred on the player (crafter's
  `world.nearby(pos, 1)`, including its behaviour at the world's edge), and the
  inventory holds X's `uses`. Making at a count of 9 is legal (materials are spent).

An illegal action, executed, leaves the game exactly as Noop would; a legal
non-move action always changes something (tests/test_crafter.py checks both).
"""

from __future__ import annotations

import numpy as np
from crafter import constants, objects

ACTIONS = ("Noop", "Move West", "Move East", "Move North", "Move South", "Do", "Sleep",
           "Place Stone", "Place Table", "Place Furnace", "Place Plant",
           "Make Wood Pickaxe", "Make Stone Pickaxe", "Make Iron Pickaxe",
           "Make Wood Sword", "Make Stone Sword", "Make Iron Sword")
# crafter's own names, index for index (checked against the installed crafter)
CRAFTER_ACTIONS = ("noop", "move_left", "move_right", "move_up", "move_down", "do", "sleep",
                   "place_stone", "place_table", "place_furnace", "place_plant",
                   "make_wood_pickaxe", "make_stone_pickaxe", "make_iron_pickaxe",
                   "make_wood_sword", "make_stone_sword", "make_iron_sword")
if tuple(constants.actions) != CRAFTER_ACTIONS:  # pragma: no cover - other crafter version
    raise ImportError(f"crafter's actions are {constants.actions}; this module expects "
                      f"crafter 1.8.3's {CRAFTER_ACTIONS}: pip install 'crafter==1.8.3'")

NOOP, MOVE_WEST, MOVE_EAST, MOVE_NORTH, MOVE_SOUTH, DO, SLEEP = range(7)
PLACE_STONE, PLACE_TABLE, PLACE_FURNACE, PLACE_PLANT = range(7, 11)
(MAKE_WOOD_PICKAXE, MAKE_STONE_PICKAXE, MAKE_IRON_PICKAXE,
 MAKE_WOOD_SWORD, MAKE_STONE_SWORD, MAKE_IRON_SWORD) = range(11, 17)
N_ACTIONS = len(ACTIONS)
# (dx, dy) of each move; x grows east, y grows south (crafter's "down")
MOVES = {MOVE_WEST: (-1, 0), MOVE_EAST: (1, 0), MOVE_NORTH: (0, -1), MOVE_SOUTH: (0, 1)}
FACING_NAMES = {(-1, 0): "west", (1, 0): "east", (0, -1): "north", (0, 1): "south"}
FACING_INDEX = {(-1, 0): 0, (1, 0): 1, (0, -1): 2, (0, 1): 3}

ITEMS = tuple(constants.items)                      # the 16 inventory entries, in order
ACHIEVEMENTS = tuple(sorted(constants.achievements))  # the 22 achievements
MAX_ENERGY = constants.items["energy"]["max"]
COLLECT = {name: tuple(rule["require"].items()) for name, rule in constants.collect.items()}
# action index -> (what, where it may go, what it uses)
PLACE = {i: (name, frozenset(constants.place[name]["where"]),
             tuple(constants.place[name]["uses"].items()))
         for i, name in ((PLACE_STONE, "stone"), (PLACE_TABLE, "table"),
                         (PLACE_FURNACE, "furnace"), (PLACE_PLANT, "plant"))}
# action index -> (what, stations needed nearby, what it uses)
MAKE = {i: (name, tuple(constants.make[name]["nearby"]),
             tuple(constants.make[name]["uses"].items()))
        for i, name in ((MAKE_WOOD_PICKAXE, "wood_pickaxe"), (MAKE_STONE_PICKAXE, "stone_pickaxe"),
                        (MAKE_IRON_PICKAXE, "iron_pickaxe"), (MAKE_WOOD_SWORD, "wood_sword"),
                        (MAKE_STONE_SWORD, "stone_sword"), (MAKE_IRON_SWORD, "iron_sword"))}
_HITTABLE = (objects.Cow, objects.Zombie, objects.Skeleton)
_MOVES_AND_NOOP = np.zeros(N_ACTIONS, np.int8)
_MOVES_AND_NOOP[:5] = 1


def _has(inventory: dict, needs) -> bool:
    for item, amount in needs:
        if inventory[item] < amount:
            return False
    return True


def asleep(player) -> bool:
    """True when crafter will turn whatever the player chooses into sleeping."""
    return player.sleeping and player.inventory["energy"] < MAX_ENERGY


def target_of(game):
    """(position, material, object) of the cell the player faces; (pos, None, None) off the map."""
    player, world = game.player, game.world
    px, py = player.pos.tolist()
    fx, fy = player.facing
    tx, ty = px + fx, py + fy
    return (tx, ty), *world[(tx, ty)]


def can_do(material, obj, inventory) -> bool:
    """Would Do on this (material, object) have an effect? See the module docstring."""
    if obj is not None:
        if isinstance(obj, _HITTABLE):
            return True
        if isinstance(obj, objects.Plant):
            return obj.ripe
        return False   # an arrow
    needs = COLLECT.get(material)
    return needs is not None and _has(inventory, needs)


def nearby_materials(game) -> set:
    """Material names in the 3x3 square around the player, as crafter's `make` sees them."""
    world = game.world
    x, y = game.player.pos.tolist()
    # the same slice crafter takes (its edge behaviour included)
    ids = set(world._mat_map[x - 1: x + 2, y - 1: y + 2].ravel().tolist())
    names = world._mat_names
    return {names[i] for i in ids}


def legal_mask(game) -> np.ndarray:
    """The rule of the module docstring: a fresh int8 array of length 17."""
    player = game.player
    inventory = player.inventory
    mask = _MOVES_AND_NOOP.copy()
    if asleep(player):
        return mask
    _, material, obj = target_of(game)
    if can_do(material, obj, inventory):
        mask[DO] = 1
    if inventory["energy"] < MAX_ENERGY:
        mask[SLEEP] = 1
    if obj is None and material is not None:
        for index, (_, where, uses) in PLACE.items():
            if material in where and _has(inventory, uses):
                mask[index] = 1
    near = None
    for index, (_, stations, uses) in MAKE.items():
        if _has(inventory, uses):
            if near is None:
                near = nearby_materials(game)
            if all(s in near for s in stations):
                mask[index] = 1
    return mask


def _amounts(pairs) -> str:
    return ", ".join(f"{n} {item.replace('_', ' ')}" for item, n in pairs) or "nothing"


def action_descriptions() -> tuple[str, ...]:
    """One line per action, built from crafter's rule table."""
    out = ["do nothing"]
    out += [f"move one cell {d} (a blocked move only turns you {d})"
            for d in ("west", "east", "north", "south")]
    out.append("interact with what you face: collect a material, drink water, "
               "hit a creature, eat a ripe plant")
    out.append("sleep until energy is full (only when energy is below its maximum)")
    for index in sorted(PLACE):
        name, where, uses = PLACE[index]
        out.append(f"place {name} on the {'/'.join(sorted(where))} cell you face; "
                   f"uses {_amounts(uses)}")
    for index in sorted(MAKE):
        name, stations, uses = MAKE[index]
        out.append(f"make a {name.replace('_', ' ')} next to a {' and a '.join(stations)}; "
                   f"uses {_amounts(uses)}")
    return tuple(out)
