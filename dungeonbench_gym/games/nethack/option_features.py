"""Per-option rows for the NetHack and MiniHack envs: what each of the 117 keys means now.

An index's meaning depends on the pending decision: "choose c" names inventory item c in
an item question ("What do you want to eat? [cd or ?*]"), menu entry c in a menu ("Pick up
what?"), and a plain answer letter in a question like "[rl]". `encode` turns the decision
(`prompts.Prompt`) and the arrays NLE already gives (inventory letters, classes, glyphs and
strings; the terminal for menus) into

* ``options`` (117, N_FEATURES) float32: one row per index, the columns of `COLUMNS`;
* ``option_ids`` (117, 2) int32: [the key in its role, the object it names], ids in
  disjoint ranges of one vocabulary of `VOCAB` ids (0: nothing).

Masked indices get a zero row and zero ids. docs/nle-observation.md lists every column with
its range. Rows are cached per distinct decision (and inventory, and menu screen), so a
step in a decision seen before costs one dictionary lookup and two copies.
"""

from __future__ import annotations

import re
import zlib
from typing import NamedTuple

import numpy as np

from .commands import COMMANDS, CONTINUE, ESCAPE, NEXT_PAGE, PREVIOUS_PAGE
from .prompts import SPELL_MENU_TITLES, Prompt, menu_entries

N_KEYS = len(COMMANDS)   # 117

# ---------------------------------------------------------------- roles
ROLES = ("command", "direction", "answer", "item", "item_list", "hands", "menu_entry",
         "choice_letter", "continue", "escape", "page")
ROLE = {name: i for i, name in enumerate(ROLES)}

# ---------------------------------------------------------------- object classes
# NetHack's object classes (objclass.h; NLE's inv_oclasses holds these, MAXOCLASSES=18
# for an empty slot); class 0 (RANDOM_CLASS) never names an object
OCLASS_NAMES = ("illegal", "weapon", "armor", "ring", "amulet", "tool", "food", "potion",
                "scroll", "spellbook", "wand", "coin", "gem", "rock", "ball", "chain", "venom")
N_OCLASSES = len(OCLASS_NAMES)   # classes 1..17
MAXOCLASSES = 18

# ---------------------------------------------------------------- columns
HASH_COLS = 32
_NAMED = (
    [(f"role_{r}", 0.0, 1.0, f"1 when the index's role now is {r}") for r in ROLES]
    + [(f"class_{c}", 0.0, 1.0, f"the named object's class is {c}") for c in OCLASS_NAMES]
    + [("quantity", 0.0, 1.0, "log2(1 + count) / 16 of the named objects, clipped (0: names none)"),
       ("blessed", 0.0, 1.0, "the object's text says blessed"),
       ("uncursed", 0.0, 1.0, "the object's text says uncursed"),
       ("cursed", 0.0, 1.0, "the object's text says cursed"),
       ("enchant_known", 0.0, 1.0, "the text shows an enchantment (+N / -N)"),
       ("enchant", -1.0, 1.0, "enchantment / 10, clipped to [-1, 1]"),
       ("charges_known", 0.0, 1.0, "the text shows charges (recharged:charges)"),
       ("charges", 0.0, 1.0, "log2(1 + charges) / 7, clipped; 0 for negative charges"),
       ("wielded", 0.0, 1.0, "weapon in hand(s), wielded"),
       ("worn", 0.0, 1.0, "being worn, on a hand, embedded in skin"),
       ("readied", 0.0, 1.0, "alternate weapon, in quiver, at the ready"),
       ("selected", 0.0, 1.0, "a menu entry shown selected ('a + x', or '#' for a count)"),
       ("item_line", 0.0, 1.0, "a menu entry under an object-class heading"),
       ("in_inventory", 0.0, 1.0, "names an item in the hero's inventory"),
       ("dx", -1.0, 1.0, "a direction's step east (+1) / west (-1)"),
       ("dy", -1.0, 1.0, "a direction's step south (+1) / north (-1), screen rows"),
       ("dz", -1.0, 1.0, "a direction's step down (+1, '>') / up (-1, '<')")]
    + [(f"word_{i}", 0.0, 1.0, "hashed words of the named object or entry: CRC32(word) mod 32")
       for i in range(HASH_COLS)])
COLUMNS = tuple(n for n, _, _, _ in _NAMED)
COLUMN_DOCS = {n: (lo, hi, doc) for n, lo, hi, doc in _NAMED}
COL = {n: i for i, n in enumerate(COLUMNS)}
N_FEATURES = len(COLUMNS)
LOW = np.array([lo for _, lo, _, _ in _NAMED], np.float32)
HIGH = np.array([hi for _, _, hi, _ in _NAMED], np.float32)
_CLASS0 = COL["class_illegal"] - 1     # column of class c is _CLASS0 + c
_WORD0 = COL["word_0"]

# ---------------------------------------------------------------- id vocabulary
KEY_BASE = 1                                   # key in its role: 1 + role * 117 + index
GLYPH_BASE = KEY_BASE + len(ROLES) * N_KEYS    # an inventory item: GLYPH_BASE + its glyph
MAX_GLYPH = 5976                               # NLE's MAX_GLYPH (checked by the tests)
TEXT_BASE = GLYPH_BASE + MAX_GLYPH             # other menu entries: TEXT_BASE + CRC32 bucket
VOCAB = 10_000
TEXT_BUCKETS = VOCAB - TEXT_BASE

# directions: NetHack's keys (h west, j south, k north, l east, y u b n diagonals)
_DIRECTION = {"h": (-1, 0, 0), "j": (0, 1, 0), "k": (0, -1, 0), "l": (1, 0, 0),
              "y": (-1, -1, 0), "u": (1, -1, 0), "b": (-1, 1, 0), "n": (1, 1, 0),
              "<": (0, 0, -1), ">": (0, 0, 1), ".": (0, 0, 0)}

_WORD = re.compile(r"[a-z]+")
_DROPPED = frozenset(("a", "an", "the"))
_COUNT = re.compile(r"^(\d+) ")
_ENCHANT = re.compile(r"(?:^| )([+-]\d+) ")
_CHARGES = re.compile(r"\((-?\d+):(-?\d+)\)")
_WIELDED = ("(weapon in hand", "(wielded")
_WORN = ("(being worn)", "(on left ", "(on right ", "(embedded in ")
_READIED = ("(alternate weapon", "(in quiver", "(at the ready)")


def _fixed_role(index: int) -> int | None:
    """The role of an index whose meaning never changes (None for letters)."""
    kind = COMMANDS[index].kind
    if index == CONTINUE:
        return ROLE["continue"]
    if index == ESCAPE:
        return ROLE["escape"]
    if index in (NEXT_PAGE, PREVIOUS_PAGE):
        return ROLE["page"]
    return {"command": ROLE["command"], "direction": ROLE["direction"],
            "answer": ROLE["answer"]}.get(kind)


_FIXED_ROLE = tuple(_fixed_role(i) for i in range(N_KEYS))
LETTER_OF = {i: chr(c.key) for i, c in enumerate(COMMANDS) if c.kind == "letter"}


def _static_row(index: int) -> np.ndarray:
    row = np.zeros(N_FEATURES, np.float32)
    role = _FIXED_ROLE[index]
    row[role] = 1.0
    if role == ROLE["direction"]:
        dx, dy, dz = _DIRECTION[chr(COMMANDS[index].key)]
        row[COL["dx"]], row[COL["dy"]], row[COL["dz"]] = dx, dy, dz
    return row


_STATIC = {i: _static_row(i) for i in range(N_KEYS) if _FIXED_ROLE[i] is not None}


def key_id(role: int, index: int) -> int:
    return KEY_BASE + role * N_KEYS + index


def normalised(text: str) -> str:
    """An object's or entry's words, lower case, without counts and articles."""
    return " ".join(w for w in _WORD.findall(text.lower()) if w not in _DROPPED)


def text_id(text: str) -> int:
    return TEXT_BASE + zlib.crc32(normalised(text).encode()) % TEXT_BUCKETS


class ObjectText(NamedTuple):
    quantity: int
    columns: tuple[tuple[int, float], ...]   # (column, value) pairs besides class and quantity


_OBJECT_CACHE: dict[str, ObjectText] = {}


def object_text(text: str) -> ObjectText:
    """What an inventory line or menu entry says about its object ("2 uncursed +0 daggers
    (in quiver)"): count, blessed/uncursed/cursed, enchantment, charges, worn or wielded,
    and its hashed words."""
    cached = _OBJECT_CACHE.get(text)
    if cached is not None:
        return cached
    count = _COUNT.match(text)
    quantity = int(count.group(1)) if count else 1
    cols: dict[int, float] = {}
    words = _WORD.findall(text.lower())
    wordset = set(words)
    for buc in ("blessed", "uncursed", "cursed"):
        if buc in wordset:
            cols[COL[buc]] = 1.0
            break
    enchant = _ENCHANT.search(text)
    if enchant:
        cols[COL["enchant_known"]] = 1.0
        cols[COL["enchant"]] = float(np.clip(int(enchant.group(1)) / 10.0, -1.0, 1.0))
    charges = _CHARGES.search(text)
    if charges:
        cols[COL["charges_known"]] = 1.0
        cols[COL["charges"]] = min(np.log2(1 + max(int(charges.group(2)), 0)) / 7.0, 1.0)
    for name, marks in (("wielded", _WIELDED), ("worn", _WORN), ("readied", _READIED)):
        if any(m in text for m in marks):
            cols[COL[name]] = 1.0
    for w in words:
        if w not in _DROPPED:
            cols[_WORD0 + zlib.crc32(w.encode()) % HASH_COLS] = 1.0
    out = ObjectText(quantity, tuple(sorted(cols.items())))
    if len(_OBJECT_CACHE) < 50_000:
        _OBJECT_CACHE[text] = out
    return out


def _fill_object(row: np.ndarray, text: str, oclass: int) -> None:
    parsed = object_text(text)
    if 1 <= oclass < MAXOCLASSES:
        row[_CLASS0 + oclass] = 1.0
    row[COL["quantity"]] = min(np.log2(1 + parsed.quantity) / 16.0, 1.0)
    for col, value in parsed.columns:
        row[col] = value


def inventory(inv_letters: np.ndarray, inv_oclasses: np.ndarray, inv_glyphs: np.ndarray,
              inv_strs: np.ndarray) -> dict[str, tuple[str, int, int]]:
    """letter -> (inventory line, object class, glyph), from NLE's inventory arrays."""
    out = {}
    for slot in np.flatnonzero(inv_letters).tolist():
        line = bytes(inv_strs[slot]).split(b"\0", 1)[0].decode("ascii", "replace")
        out[chr(inv_letters[slot])] = (line, int(inv_oclasses[slot]), int(inv_glyphs[slot]))
    return out


class Meaning(NamedTuple):
    """What one legal index names in the current decision (for tests and benchmarks)."""
    role: str
    text: str     # the inventory line or menu entry it names, or its label


def _item_letter(rows, ids, index, letter, inv) -> None:
    if letter == "-":
        rows[index, ROLE["hands"]] = 1.0
        ids[index, 0] = key_id(ROLE["hands"], index)
        return
    if letter == "*":
        rows[index, ROLE["item_list"]] = 1.0
        ids[index, 0] = key_id(ROLE["item_list"], index)
        return
    rows[index, ROLE["item"]] = 1.0
    ids[index, 0] = key_id(ROLE["item"], index)
    held = inv.get(letter)
    if held is not None:
        line, oclass, glyph = held
        _fill_object(rows[index], line, oclass)
        rows[index, COL["in_inventory"]] = 1.0
        ids[index, 1] = GLYPH_BASE + glyph if 0 <= glyph < MAX_GLYPH else text_id(line)


def spell_entry(text: str) -> tuple[str, str]:
    """(name, school) of a spell menu line: "force bolt             1   attack   0%   100%"
    (spell.c's columns: name, level, category, failure rate, retention)."""
    fields = [f.strip() for f in re.split(r"\s{2,}", text.strip()) if f.strip()]
    name = fields[0] if fields else text.strip()
    school = fields[2] if len(fields) > 2 and fields[1].isdigit() else ""
    return name, school


def _menu_entry(rows, ids, index, entry, by_text, spells=False) -> None:
    rows[index, ROLE["menu_entry"]] = 1.0
    ids[index, 0] = key_id(ROLE["menu_entry"], index)
    row = rows[index]
    if entry.selected:
        row[COL["selected"]] = 1.0
    if spells:
        # a spell is not an object: no class (spellbook would say the book is there,
        # and it may be long gone), no item_line; its words are its name and school,
        # its id the name's ("force bolt"), the same whatever its failure rate
        name, school = spell_entry(entry.text)
        for col, value in object_text(f"{name} {school}").columns:
            if col >= _WORD0:
                row[col] = value
        ids[index, 1] = text_id(name)
        return
    held = by_text.get(entry.text)
    oclass = entry.oclass or (held[0] if held else 0)
    if entry.oclass or held:
        row[COL["item_line"]] = 1.0
        _fill_object(row, entry.text, oclass)
    else:   # not an object: its words only
        for col, value in object_text(entry.text).columns:
            if col >= _WORD0:
                row[col] = value
    if held is not None:
        row[COL["in_inventory"]] = 1.0
        ids[index, 1] = GLYPH_BASE + held[1]
    else:
        ids[index, 1] = text_id(entry.text)


def build(prompt: Prompt, obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The rows and ids of a decision (new arrays)."""
    rows = np.zeros((N_KEYS, N_FEATURES), np.float32)
    ids = np.zeros((N_KEYS, 2), np.int32)
    decision = prompt.decision
    inv = by_text = entries = None
    spells = decision == "menu" and prompt.question in SPELL_MENU_TITLES
    if decision == "item":
        inv = inventory(obs["inv_letters"], obs["inv_oclasses"], obs["inv_glyphs"],
                        obs["inv_strs"])
    elif decision == "menu":
        entries = {e.letter: e for e in menu_entries(obs["tty_chars"])}
        inv = inventory(obs["inv_letters"], obs["inv_oclasses"], obs["inv_glyphs"],
                        obs["inv_strs"])
        by_text = {line: (oclass, glyph) for line, oclass, glyph in inv.values()
                   if 0 <= glyph < MAX_GLYPH}
    for index in prompt.legal:
        role = _FIXED_ROLE[index]
        if role is not None:
            rows[index] = _STATIC[index]
            ids[index, 0] = key_id(role, index)
            continue
        letter = LETTER_OF[index]
        if decision == "item":
            _item_letter(rows, ids, index, letter, inv)
        elif decision == "menu" and letter in entries:
            _menu_entry(rows, ids, index, entries[letter], by_text, spells)
        else:   # a letter answering a question ("[rl]"): the key is all it says
            rows[index, ROLE["choice_letter"]] = 1.0
            ids[index, 0] = key_id(ROLE["choice_letter"], index)
    return rows, ids


def meanings(prompt: Prompt, obs: dict[str, np.ndarray]) -> dict[int, Meaning]:
    """index -> what it names now, for every legal index: the inventory line of an item
    letter, the text of a menu entry, otherwise the option's label. Two options with equal
    meanings have the same effect (two letters holding identical inventory lines)."""
    out = {}
    inv = entries = None
    if prompt.decision == "item":
        inv = inventory(obs["inv_letters"], obs["inv_oclasses"], obs["inv_glyphs"],
                        obs["inv_strs"])
    elif prompt.decision == "menu":
        entries = {e.letter: e for e in menu_entries(obs["tty_chars"])}
    for index in prompt.legal:
        letter = LETTER_OF.get(index)
        if letter is None:
            out[index] = Meaning(ROLES[_FIXED_ROLE[index]], COMMANDS[index].label)
        elif inv is not None and letter not in "-*":
            out[index] = Meaning("item", inv.get(letter, ("(no item " + letter + ")",))[0])
        elif inv is not None:
            out[index] = Meaning("hands" if letter == "-" else "item_list", letter)
        elif entries is not None and letter in entries:
            text = entries[letter].text
            if prompt.question in SPELL_MENU_TITLES:
                text = spell_entry(text)[0]
            out[index] = Meaning("menu_entry", text)
        else:
            out[index] = Meaning("choice_letter", letter)
    return out


class OptionEncoder:
    """`build` with a cache per distinct decision: commands, directions and answers by
    their legal set; item questions with the inventory; menus with the screen."""

    LIMIT = 512

    def __init__(self):
        self._cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    def encode(self, prompt: Prompt, obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(rows, ids), copies the caller may keep."""
        decision = prompt.decision
        if decision == "item":
            key = (prompt.legal, obs["inv_letters"].tobytes(), obs["inv_strs"].tobytes(),
                   obs["inv_glyphs"].tobytes(), obs["inv_oclasses"].tobytes())
        elif decision == "menu":
            key = (prompt.legal, obs["tty_chars"].tobytes(), obs["inv_strs"].tobytes(),
                   obs["inv_glyphs"].tobytes(), obs["inv_oclasses"].tobytes())
        else:
            key = (decision, prompt.legal)
        hit = self._cache.get(key)
        if hit is None:
            if len(self._cache) >= self.LIMIT:
                self._cache.clear()
            hit = self._cache[key] = build(prompt, obs)
        return hit[0].copy(), hit[1].copy()
