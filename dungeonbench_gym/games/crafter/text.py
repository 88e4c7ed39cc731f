"""Crafter as words (BALROG's language-wrapper style) and as a character map.

The player sees crafter's local view: 9 columns by 7 rows centred on it (the
picture's top part; the two bottom rows of the 9x9 picture show the inventory).

- long_term: "You see:" then, for each kind of thing in view, the nearest one
  with its offset ("- tree 2 steps to your west and 1 step to your north"),
  then what the player faces.
- short_term: health, food, drink and energy out of 9, the inventory, the time
  of day and whether the player sleeps.
"""

from __future__ import annotations

import numpy as np
from crafter import objects

from .rules import FACING_NAMES, ITEMS

VIEW_WIDTH, VIEW_HEIGHT = 9, 7           # columns (west-east) x rows (north-south)
_HALF_W, _HALF_H = VIEW_WIDTH // 2, VIEW_HEIGHT // 2
_VITALS = ("health", "food", "drink", "energy")
_CREATURE_NAMES = {objects.Cow: "cow", objects.Zombie: "zombie", objects.Skeleton: "skeleton",
                   objects.Arrow: "arrow", objects.Player: "player"}


def thing_name(material, obj) -> str:
    """What a cell shows: its creature or plant if any, else its material."""
    if obj is not None:
        if isinstance(obj, objects.Plant):
            return "ripe plant" if obj.ripe else "plant"
        return _CREATURE_NAMES.get(type(obj), type(obj).__name__.lower())
    return material if material is not None else "the edge of the world"


def _steps(n: int, positive: str, negative: str) -> str:
    word = "step" if abs(n) == 1 else "steps"
    return f"{abs(n)} {word} to your {positive if n > 0 else negative}"


def offset_phrase(dx: int, dy: int) -> str:
    parts = []
    if dx:
        parts.append(_steps(dx, "east", "west"))
    if dy:
        parts.append(_steps(dy, "south", "north"))
    return " and ".join(parts)


def visible_cells(game):
    """(dx, dy, material, object) for every in-world cell of the view but the player's."""
    world = game.world
    px, py = game.player.pos.tolist()
    width, height = world.area
    names, mat_map = world._mat_names, world._mat_map
    obj_map, objs = world._obj_map, world._objects
    for dy in range(-_HALF_H, _HALF_H + 1):
        y = py + dy
        if not 0 <= y < height:
            continue
        for dx in range(-_HALF_W, _HALF_W + 1):
            x = px + dx
            if (dx or dy) and 0 <= x < width:
                yield dx, dy, names[mat_map[x, y]], objs[obj_map[x, y]]


def describe_view(game) -> str:
    nearest: dict[str, tuple[int, int, int]] = {}
    for dx, dy, material, obj in visible_cells(game):
        name = thing_name(material, obj)
        key = (abs(dx) + abs(dy), dy, dx)   # closest first, ties north before south, west first
        if name not in nearest or key < nearest[name]:
            nearest[name] = key
    lines = ["You see:"]
    for name, (_, dy, dx) in sorted(nearest.items(), key=lambda kv: (kv[1], kv[0])):
        lines.append(f"- {name} {offset_phrase(dx, dy)}")
    if len(lines) == 1:
        lines.append("- nothing")
    player, world = game.player, game.world
    fx, fy = player.facing
    px, py = player.pos.tolist()
    material, obj = world[(px + fx, py + fy)]
    lines.append("")
    facing = _article(thing_name(material, obj))
    lines.append(f"You face {FACING_NAMES[(fx, fy)]}, toward {facing}.")
    return "\n".join(lines)


def _article(name: str) -> str:
    if name.startswith("the "):
        return name
    if name in ("water", "grass", "sand", "lava", "stone", "coal", "iron", "path"):
        return name
    return ("an " if name[0] in "aeiou" else "a ") + name


def describe_status(game) -> str:
    player = game.player
    inventory = player.inventory
    lines = ["Your status:"]
    lines += [f"- {name}: {inventory[name]}/9" for name in _VITALS]
    held = [(name, inventory[name]) for name in ITEMS
            if name not in _VITALS and inventory[name] > 0]
    lines.append("")
    lines.append("Your inventory:" if held else "Your inventory is empty.")
    lines += [f"- {name.replace('_', ' ')}: {count}" for name, count in held]
    lines.append("")
    daylight = float(game.world.daylight)
    lines.append("It is night: the view is dark and zombies roam." if daylight < 0.5
                 else "It is day.")
    if player.sleeping:
        lines.append("You are asleep.")
    return "\n".join(lines)


# ------------------------------------------------------------------ ansi map
MATERIAL_CHARS = {"water": "~", "grass": ".", "stone": "#", "path": "_", "sand": ":",
                  "tree": "T", "lava": "%", "coal": "c", "iron": "i", "diamond": "D",
                  "table": "t", "furnace": "f", None: " "}
OBJECT_CHARS = {objects.Cow: "C", objects.Zombie: "Z", objects.Skeleton: "S", objects.Arrow: "*"}
PLAYER_CHARS = {(-1, 0): "<", (1, 0): ">", (0, -1): "^", (0, 1): "v"}
LEGEND = ("~ water  . grass  # stone  _ path  : sand  T tree  % lava  c coal  i iron  "
          "D diamond  t table  f furnace  C cow  Z zombie  S skeleton  * arrow  "
          "p plant  P ripe plant  <>^v you")


def render_map(game) -> str:
    """The 9x7 local view, one character per cell (north up), then the status."""
    world, player = game.world, game.player
    px, py = player.pos.tolist()
    rows = []
    for dy in range(-_HALF_H, _HALF_H + 1):
        row = []
        for dx in range(-_HALF_W, _HALF_W + 1):
            material, obj = world[(px + dx, py + dy)]
            if obj is player:
                row.append("z" if player.sleeping else PLAYER_CHARS[tuple(player.facing)])
            elif isinstance(obj, objects.Plant):
                row.append("P" if obj.ripe else "p")
            elif obj is not None:
                row.append(OBJECT_CHARS.get(type(obj), "?"))
            else:
                row.append(MATERIAL_CHARS.get(material, "?"))
        rows.append("".join(row))
    inv = player.inventory
    vitals = " ".join(f"{n}:{inv[n]}" for n in _VITALS)
    held = " ".join(f"{n}:{inv[n]}" for n in ITEMS if n not in _VITALS and inv[n] > 0)
    time = "night" if float(world.daylight) < 0.5 else "day"
    rows.append(f"{vitals} | {held or 'empty-handed'} | {time}"
                + (" | asleep" if player.sleeping else ""))
    return "\n".join(rows)


def local_view_ids(game, out: np.ndarray, type_ids: dict) -> np.ndarray:
    """Fill `out` (VIEW_HEIGHT x VIEW_WIDTH) with crafter's semantic ids of the view.

    Materials keep crafter's ids (0 off the map), creatures and plants overlay
    them with crafter's object ids (player 13, cow 14, zombie 15, skeleton 16,
    arrow 17, plant 18).
    """
    world = game.world
    px, py = game.player.pos.tolist()
    width, height = world.area
    x0, y0 = px - _HALF_W, py - _HALF_H
    xa, xb = max(0, x0), min(width, x0 + VIEW_WIDTH)
    ya, yb = max(0, y0), min(height, y0 + VIEW_HEIGHT)
    out.fill(0)
    if xa >= xb or ya >= yb:
        return out
    # rows are y (north to south), columns x (west to east), like the picture
    out[ya - y0: yb - y0, xa - x0: xb - x0] = world._mat_map[xa:xb, ya:yb].T
    objs = world._obj_map[xa:xb, ya:yb]
    xs, ys = np.nonzero(objs)
    if xs.size:
        table = world._objects
        for i, j in zip(xs.tolist(), ys.tolist()):
            out[ya - y0 + j, xa - x0 + i] = type_ids[type(table[objs[i, j]])]
    return out
