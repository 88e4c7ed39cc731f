"""BALROG's text for NetHack and MiniHack, computed from NLE's arrays.

BALROG describes an NLE screen with the language observation of NLE's
language wrapper (the `nle_language_obsv` module of the `balrog-nle` fork of
NLE, whose message reading differs from the wrapper's PyPI release; the fork
cannot be installed beside the `nle` this project uses) and
lays it out in its "hybrid" prompt mode: the message, the language
observation, the cursor and the whole terminal screen, kept in the history;
the inventory, shown for the current step only. This module writes the same
text, byte for byte, with the same rules:

- Every cell whose glyph names a thing (a monster, an object, a door, stairs,
  a fountain...) is listed with its distance and direction from the hero;
  walls, dark stone and doorways are listed only where one of the eight rays
  from the hero meets them within nine cells, each ray stopping at the first
  wall or dark area. Floor is never listed.
- Distance is the larger of the two offsets, in words (adjacent: 1, very
  near: 2, near: 3-5, far: 6-19, very far: 20+); direction is one of sixteen
  compass words ("eastnortheast").
- Lines go from very far to adjacent, north clockwise within a distance; one
  thing at one distance in several directions is one line ("horizontal wall
  near north and northeast"); two of a kind in one direction are plural.

`benchmarks/balrog_parity_nethack.py` compares this module with BALROG's own
wrapper on the same arrays (every glyph, and played screens).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from nle import nethack as nh

WIDTH, HEIGHT = 79, 21   # the dungeon's cells
RAY_LENGTH = 9           # the rays look at offsets 1-9

# The wrapper's names of NetHack's map symbols, in NetHack's order (its
# spelling kept: "alter", "southwest corner" without "room")
CMAP_NAMES = (
    "dark area", "vertical wall", "horizontal wall", "northwest room corner",
    "northeast room corner", "southwest corner", "southeast corner", "cross wall", "t up wall",
    "t down wall", "t west wall", "t east wall", "doorway", "vertical open door",
    "horizontal open door", "vertical closed door", "horizontal closed door", "bars", "tree",
    "room floor", "dark room floor", "corridor floor", "lit corridor floor", "stairs up",
    "stairs down", "ladder up", "ladder down", "alter", "grave", "throne", "sink", "fountain",
    "pool", "ice", "lava", "vertical lowered drawbridge", "horizontal lowered drawbridge",
    "vertical raised drawbridge", "horizontal raised drawbridge", "air floor", "cloud floor",
    "water floor", "arrow trap", "dart trap", "falling rock trap", "squeaky board", "bear trap",
    "land mine", "rolling boulder trap", "sleeping gas trap", "rust trap", "fire trap", "pit",
    "spiked pit", "hole", "trap door", "teleportation trap", "level teleporter", "magic portal",
    "web", "statue trap", "magic trap", "anti magic trap", "polymorph trap", "vibrating square",
    "vertical beam", "horizontal beam", "left slant beam", "right slant beam", "dig beam",
    "flash beam", "boom left", "boom right", "shield 1", "shield 2", "shield 3", "shield 4",
    "poison cloud", "valid position", "swallow top left", "swallow top center",
    "swallow top right", "swallow middle left", "swallow middle right", "swallow bottom left",
    "swallow bottom center", "swallow bottom right", "explosion top left",
    "explosion top center", "explosion top right", "explosion middle left",
    "explosion middle center", "explosion middle right", "explosion bottom left",
    "explosion bottom center", "explosion bottom right")
FLOORS = frozenset(("room floor", "dark room floor", "corridor floor", "lit corridor floor"))
# map symbols listed wherever they are on screen; the other non-floor ones only along the rays
LISTED_ANYWHERE = frozenset((
    "horizontal closed door", "vertical closed door", "bars", "tree", "stairs up", "stairs down",
    "ladder up", "ladder down", "alter", "grave", "throne", "sink", "fountain", "pool", "ice",
    "lava", "vertical raised drawbridge", "horizontal raised drawbridge"))
# what stops a ray
BLOCKS_VIEW = frozenset((
    "dark area", "vertical wall", "horizontal wall", "northwest room corner",
    "northeast room corner", "southwest corner", "southeast corner", "cross wall", "t up wall",
    "t down wall", "t west wall", "t east wall", "horizontal closed door", "vertical closed door",
    "horizontal raised drawbridge", "vertical raised drawbridge"))
WARNINGS = tuple(f"unknown creature causing you {w}"     # NetHack's def_warnsyms, levels 0-5
                 for w in ("worry", "concern", "anxiety", "disquiet", "alarm", "dread"))
SWALLOW = ("swallow top left", "swallow top center", "swallow top right", "swallow middle left",
           "swallow middle right", "swallow bottom left", "swallow bottom center",
           "swallow bottom right")
ZAPS = ("horizontal zap beam", "vertical zap beam", "left slant zap beam", "right slant zap beam")
EXPLOSIONS = CMAP_NAMES[-9:]
DISTANCES = ("very far", "far", "near", "very near", "adjacent")
DIRECTIONS = ("north", "northnortheast", "northeast", "eastnortheast", "east", "eastsoutheast",
              "southeast", "southsoutheast", "south", "southsouthwest", "southwest",
              "westsouthwest", "west", "westnorthwest", "northwest", "northnorthwest")


# ------------------------------------------------------------------ names
def _object_name(index: int) -> str:
    descr = nh.objdescr.from_idx(index)
    name, look = descr.oc_name or "", descr.oc_descr or ""
    klass = ord(nh.objclass(index).oc_class)   # NLE gives the class as a character
    if klass in (nh.ARMOR_CLASS, nh.TOOL_CLASS):
        return look or name
    if klass == nh.RING_CLASS:
        return f"{look} ring"
    if klass == nh.AMULET_CLASS:
        return look if "Amulet" in look else f"{look} amulet"
    if klass == nh.FOOD_CLASS:
        return name + look
    if klass == nh.POTION_CLASS:
        return f"{look} potion"
    if klass == nh.SCROLL_CLASS:
        return f"scroll labeled {look}"
    if klass == nh.SPBOOK_CLASS:
        return f"{look} spellbook"
    if klass == nh.WAND_CLASS:
        return f"{look} wand"
    if klass == nh.GEM_CLASS:
        return name if look in name else f"{look} {name}"
    if klass == nh.VENOM_CLASS:
        return f"splash of {name}"
    if klass in (nh.ILLOBJ_CLASS, nh.WEAPON_CLASS, nh.COIN_CLASS, nh.ROCK_CLASS, nh.BALL_CLASS,
                 nh.CHAIN_CLASS):
        return name
    return ""


def _monster(index: int) -> str:
    return nh.permonst(index).mname


def _screen_name(glyph: int) -> str:
    """The name a glyph is listed by wherever it is on screen ('' for none)."""
    if glyph >= nh.GLYPH_STATUE_OFF:
        return f"{_monster(nh.glyph_to_mon(glyph))} statue"
    if glyph >= nh.GLYPH_WARNING_OFF:
        return WARNINGS[nh.glyph_to_warning(glyph)]
    if glyph >= nh.GLYPH_SWALLOW_OFF:
        return SWALLOW[(glyph - nh.GLYPH_SWALLOW_OFF) % len(SWALLOW)]
    if glyph >= nh.GLYPH_ZAP_OFF:
        return ZAPS[(glyph - nh.GLYPH_ZAP_OFF) % len(ZAPS)]
    if glyph >= nh.GLYPH_EXPLODE_OFF:
        return EXPLOSIONS[(glyph - nh.GLYPH_EXPLODE_OFF) % len(EXPLOSIONS)]
    if glyph >= nh.GLYPH_CMAP_OFF:
        name = CMAP_NAMES[nh.glyph_to_cmap(glyph)]
        return name if name in LISTED_ANYWHERE else ""
    if glyph >= nh.GLYPH_OBJ_OFF:
        return _object_name(nh.glyph_to_obj(glyph))
    if glyph >= nh.GLYPH_RIDDEN_OFF:
        return f"ridden {_monster(nh.glyph_to_mon(glyph))}"
    if glyph >= nh.GLYPH_BODY_OFF:
        return f"{_monster(glyph - nh.GLYPH_BODY_OFF)} corpse"
    if glyph >= nh.GLYPH_DETECT_OFF:
        return f"detected {_monster(nh.glyph_to_mon(glyph))}"
    if glyph >= nh.GLYPH_INVIS_OFF:
        return "invisible creature"
    if glyph >= nh.GLYPH_PET_OFF:
        return f"tame {_monster(nh.glyph_to_mon(glyph))}"
    return _monster(nh.glyph_to_mon(glyph))


def _ray_name(glyph: int) -> str:
    """The name a glyph is listed by where a ray meets it ('' for none): the map
    symbols that are neither floor nor listed anywhere."""
    if nh.GLYPH_CMAP_OFF <= glyph < nh.GLYPH_EXPLODE_OFF:
        name = CMAP_NAMES[nh.glyph_to_cmap(glyph)]
        if name not in FLOORS and name not in LISTED_ANYWHERE:
            return name
    return ""


def plural(noun: str) -> str:
    """The wrapper's English plural (mass nouns kept, a few exceptions)."""
    if noun.endswith(("boots", "shoes", "scales", "lenses", "bars")):
        return noun
    special = {"can of grease": "cans of grease", "Master of Thieves": "Masters of Thieves",
               "ice": "area of ice", "lava": "area of lava"}
    if noun in special:
        return special[noun]
    for head in ("boom ", "shield ", "swallow ", "scroll ", "worthless piece ",
                 "unknown creature "):
        if noun.startswith(head):
            return head[:-1] + "s " + noun[len(head):]
    if len(noun) >= 2 and noun[-1] == "y" and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    if noun.endswith(("z", "x", "sh", "ss")):
        return noun + "es"
    if noun.endswith("ff"):
        return noun[:-2] + "ves"
    if noun.endswith("f"):
        return noun[:-1] + "ves"
    if noun.endswith("s"):
        return noun + "es"
    return noun + "s"


class _Tables:
    """Per-glyph names and flags, built once (NLE's game tables do not change)."""

    def __init__(self):
        glyphs = range(nh.MAX_GLYPH)
        self.screen = [_screen_name(g) for g in glyphs]
        self.ray = [_ray_name(g) for g in glyphs]
        self.on_screen = np.array([bool(n) for n in self.screen])
        self.on_ray = np.array([not s and bool(r) for s, r in zip(self.screen, self.ray)])
        self.blocks = np.array([r in BLOCKS_VIEW for r in self.ray])


@lru_cache(maxsize=1)
def tables() -> _Tables:
    return _Tables()


# --------------------------------------------------------------- positions
def distance_word(steps: int) -> str:
    if steps == 1:
        return "adjacent"
    if steps == 2:
        return "very near"
    if 2 < steps < 6:
        return "near"
    if 5 < steps < 20:
        return "far"
    return "very far"


@lru_cache(maxsize=None)
def position_words(dx: int, north: int) -> tuple[str, str]:
    """(distance, direction) of a cell dx columns east and `north` rows north of the hero.
    The diagonal part of the offset names the quadrant; what is left of the
    longer side comes first ("eastnortheast" is 2 east, 1 north)."""
    diagonal = min(abs(dx), abs(north))
    quadrant = ""
    if diagonal:
        quadrant = ("south" if north < 0 else "north") + ("west" if dx < 0 else "east")
    rest_x = dx - diagonal if dx > 0 else dx + diagonal
    rest_y = north - diagonal if north > 0 else north + diagonal
    across = "west" if rest_x < 0 else "east" if rest_x > 0 else ""
    up = "south" if rest_y < 0 else "north" if rest_y > 0 else ""
    return distance_word(max(abs(dx), abs(north))), up + across + quadrant


# ------------------------------------------------------------ the fields
def text_glyphs(glyphs: np.ndarray, blstats: np.ndarray) -> str:
    """The language observation: what the hero sees, by distance and direction."""
    t = tables()
    hx, hy = int(blstats[0]), int(blstats[1])
    flat = np.asarray(glyphs).reshape(-1)[:WIDTH * HEIGHT]
    seen: list[tuple[str, str, str]] = []
    for i in np.flatnonzero(t.on_screen[flat]).tolist():
        x, y = i % WIDTH, i // WIDTH
        if x == hx and y == hy:
            continue
        seen.append((t.screen[flat[i]], *position_words(x - hx, hy - y)))
    for step_x, step_y in ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)):
        for offset in range(1, RAY_LENGTH + 1):
            x, y = hx + step_x * offset, hy + step_y * offset
            if not (0 <= x < WIDTH and 0 <= y < HEIGHT):
                break
            glyph = int(flat[x + y * WIDTH])
            if t.on_ray[glyph]:
                seen.append((t.ray[glyph], *position_words(x - hx, hy - y)))
                if t.blocks[glyph]:
                    break
    rank_d = {d: n for n, d in enumerate(DISTANCES)}
    rank_c = {c: n for n, c in enumerate(DIRECTIONS)}
    seen.sort(key=lambda e: (rank_d[e[1]], rank_c[e[2]]))
    return "\n".join(f"{name} {distance} {directions}"
                     for name, distance, directions in _grouped(seen))


def _grouped(seen: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """One line per thing and distance: its directions joined, a direction holding
    more than one of it written once under the plural."""
    groups: dict[tuple[str, str], list[str]] = {}
    for name, distance, direction in seen:
        groups.setdefault((name, distance), []).append(direction)
    order: list[tuple[str, str]] = []
    merged: dict[tuple[str, str], list[str]] = {}
    for (name, distance), directions in groups.items():
        counts: dict[str, int] = {}
        for d in directions:
            counts[d] = counts.get(d, 0) + 1
        single = [d for d, n in counts.items() if n == 1]
        several = [d for d, n in counts.items() if n > 1]
        if single:
            order.append((name, distance))
            merged[(name, distance)] = single
        if several:
            key = (plural(name), distance)
            order.append(key)
            merged[key] = several
    lines = []
    for key in order:
        directions = merged[key]
        if len(directions) == 1:
            joined = directions[0]
        elif len(directions) == 2:
            joined = f"{directions[0]} and {directions[1]}"
        else:
            joined = ", ".join(directions[:-1]) + ", and " + directions[-1]
        lines.append((*key, joined))
    return lines


def text_cursor(glyphs: np.ndarray, blstats: np.ndarray, tty_cursor: np.ndarray) -> str:
    """What is under the terminal's cursor, from the hero ('' off the map)."""
    t = tables()
    hx, hy = int(blstats[0]), int(blstats[1])
    cx, cy = int(tty_cursor[1]), int(tty_cursor[0]) - 1   # the map starts on row 1
    dx, north = cx - hx, hy - cy
    index = cx + cy * WIDTH
    if not (-WIDTH <= dx < WIDTH and -HEIGHT <= north < HEIGHT and 0 < index < WIDTH * HEIGHT):
        return ""
    name = t.screen[int(np.asarray(glyphs).reshape(-1)[index])]
    if dx == 0 and north == 0:
        return f"Yourself a {name}"
    distance, direction = position_words(dx, north)
    return f"{distance} {direction} {name}"


def text_inventory(inv_strs: np.ndarray, inv_letters: np.ndarray) -> str:
    lines = []
    for letter, text in zip(np.asarray(inv_letters).tolist(), inv_strs):
        if not letter:
            break
        lines.append(f"{chr(letter)}: {_c_string(text)}")
    return "\n".join(lines)


def _c_string(row: np.ndarray) -> str:
    return bytes(row).split(b"\0", 1)[0].decode("latin-1")


def _trim(row: str) -> str:
    """The wrapper's trim: spaces (and ^Z) off both ends; a row whose only text
    is its last character reads as empty."""
    start = next((i for i, c in enumerate(row) if c not in " \x1a"), None)
    if start is None or start == len(row) - 1:
        return ""
    return row[start:].rstrip(" \x1a")


def _pages_on(row: str) -> bool:
    """Whether a row ends a page: '--More--', '(end)', or a '(1 of 2)' counter."""
    if "--More--" in row or "(end)" in row:
        return True
    at = row.find(" of ")
    return at >= 2 and row[at - 2] == "(" and at + 5 < len(row) and row[at + 5] == ")"


def text_message(tty_chars: np.ndarray) -> str:
    """The message on the terminal: its top line, or, when the screen shows a page
    of a longer text or a menu, its rows down to the page's end (blank rows left
    out), read from the top line's first column. The end-of-game list has no end
    marker: it ends at its second blank row."""
    rows = [bytes(r).decode("latin-1") for r in np.asarray(tty_chars)]
    top = rows[0]
    first, second = _trim(top), _trim(rows[1])
    if not first and not second:
        return ""
    death_screen = "Points" in second or "list!" in second
    indent = len(top) - len(top.lstrip(" "))
    if indent == len(top):
        # a blank top line: the wrapper's index arithmetic wraps around and reads
        # each row from the previous row's last column, the top one from the byte
        # before the array (unknowable: taken as a space)
        window = [" " + rows[0]] + [rows[r - 1][-1] + rows[r] for r in range(1, len(rows))]
    else:
        window = [row[indent:] for row in rows]
    out, blank_rows = "", 0
    for row in window:
        line = _trim(row)
        blank_rows = 0 if line else blank_rows + 1
        out += line
        if _pages_on(line):
            return out
        if line:
            out += "\n"
        if death_screen and blank_rows > 1:
            return out
    return first


def more_pages(pages: list[str]) -> str:
    """The message after --More-- was pressed through: each page's --More--
    turned into a line break and the next page's message appended (BALROG's
    AutoMore)."""
    message = pages[0]
    for page in pages[1:]:
        message = message.replace("--More--", "\n") + page
    return message


def screen_text(chars: np.ndarray) -> str:
    """The terminal below the message line, every row whole, one per line."""
    return "".join(bytes(r).decode("latin-1") + "\n" for r in np.asarray(chars)[1:])


def hybrid_text(obs: dict[str, np.ndarray], message: str) -> tuple[str, str]:
    """(long_term, short_term) as BALROG's hybrid prompt lays them out."""
    cursor = obs["tty_cursor"]
    fields = (
        ("message", message),
        ("language observation", text_glyphs(obs["glyphs"], obs["blstats"])),
        ("cursor", text_cursor(obs["glyphs"], obs["blstats"], cursor)
         + f"\n(x={int(cursor[1])}, y={int(cursor[0])})"),
        ("map", screen_text(obs["tty_chars"])),
    )
    long_term = "\n".join(f"{name}:\n{value}\n" for name, value in fields)
    short_term = f"inventory:\n{text_inventory(obs['inv_strs'], obs['inv_letters'])}\n"
    return long_term, short_term
