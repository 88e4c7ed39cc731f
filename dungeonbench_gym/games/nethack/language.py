"""The language observation for NetHack and MiniHack, written from NLE's arrays.

long_term (kept in an LLM's history): the game's message and what the hero
can see around them, each thing with its offset ("jackal: 2 west, 1 north").
short_term (current only): the pending question, the ASCII map, the two
status lines and the inventory.

Names come from the glyphs (`names.py`), so text mode asks NLE for nothing
more than tensor mode does and plays the same game.
"""

from __future__ import annotations

import numpy as np

from nle import nethack

from .names import glyph_name
from .prompts import Prompt, describe, menu_lines

_BLANK = nethack.GLYPH_CMAP_OFF   # dark stone: nothing seen there

MAX_THINGS = 24   # nearest first; a crowded screen stays readable


def offset_words(dx: int, dy: int) -> str:
    """'2 west, 1 north' for a cell dx columns right and dy rows down of the hero."""
    parts = []
    if dx:
        parts.append(f"{abs(dx)} {'east' if dx > 0 else 'west'}")
    if dy:
        parts.append(f"{abs(dy)} {'south' if dy > 0 else 'north'}")
    return ", ".join(parts) if parts else "here"


def surroundings(glyphs: np.ndarray, hero: tuple[int, int]) -> list[str]:
    """Things on screen other than walls, floor and corridors, nearest first,
    each with its offset from the hero."""
    hx, hy = hero
    found = []
    rows, cols = np.nonzero(glyphs != _BLANK)
    for y, x in zip(rows.tolist(), cols.tolist()):
        if (x, y) == (hx, hy):
            continue
        name = glyph_name(int(glyphs[y, x]))
        if name is None:
            continue
        dx, dy = x - hx, y - hy
        found.append((max(abs(dx), abs(dy)), dy, dx, name))
    found.sort()
    return [f"{name}: {offset_words(dx, dy)}" for _, dy, dx, name in found[:MAX_THINGS]]


def ascii_map(chars: np.ndarray) -> str:
    """The map rows that have something on them, trimmed to the drawn columns."""
    drawn = chars != ord(" ")
    if not drawn.any():
        return "(nothing seen yet)"
    rows = np.flatnonzero(drawn.any(axis=1))
    cols = np.flatnonzero(drawn.any(axis=0))
    block = chars[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]
    return "\n".join(bytes(r).decode("ascii", "replace").rstrip() for r in block)


def inventory(letters: np.ndarray, strings: np.ndarray) -> list[str]:
    out = []
    for letter, text in zip(letters.tolist(), strings):
        if not letter:
            break
        name = bytes(text).split(b"\0", 1)[0].decode("ascii", "replace")
        out.append(f"{chr(letter)}: {name}")
    return out


def message_text(message: np.ndarray) -> str:
    """NLE's message line as text (its buffer is NUL-padded)."""
    return bytes(message).split(b"\0", 1)[0].decode("ascii", "replace").strip()


def text_observation(obs: dict, prompt: Prompt, hero: tuple[int, int]) -> tuple[str, str]:
    message = message_text(obs["message"])
    things = surroundings(obs["glyphs"], hero)
    long_term = "\n".join([
        f"Message: {message or '(none)'}",
        "You see:" if things else "You see nothing of note nearby.",
        *(f"- {t}" for t in things),
    ])
    status = [bytes(obs["tty_chars"][row]).decode("ascii", "replace").rstrip() for row in (22, 23)]
    items = inventory(obs["inv_letters"], obs["inv_strs"])
    # a menu is drawn over the map, which the text leaves out: show it as drawn
    # ("a - x" an entry, "a + x" a selected one)
    menu = menu_lines(obs["tty_chars"]) if prompt.decision == "menu" else []
    short_term = "\n".join([
        describe(prompt),
        *(["Menu:", *menu] if menu else []),
        "Map (@ is you):",
        ascii_map(obs["chars"]),
        "Status:",
        *status,
        "Inventory:" if items else "Inventory: empty",
        *(f"- {i}" for i in items),
    ])
    return long_term, short_term
