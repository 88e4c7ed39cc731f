"""What NetHack is waiting for, read from NLE's observation, and which options answer it.

NLE's `misc` says whether the game is in a yes/no-style question (`yn_function`,
which NetHack also uses for item and direction questions), in a line of text
input (`getlin`), or waiting for a key after --More-- or a menu. The question's
text then tells the kinds apart:

- "In what direction?"                      -> direction answers
- "What do you want to eat? [fg or ?*]"     -> the listed inventory letters
- "Really attack the guard? [yn] (n)"       -> the listed answers (y, n, q, a)
- a menu with selectable entries ("Pick up what?", "a - a dagger", "(end)")
                                            -> its entry letters, confirm, page keys
- --More--, an information window           -> continue
- text input (naming, engraving)            -> escape only

Which menu windows take a selection. The screen does not say whether NetHack
opened a window to pick from (PICK_ONE / PICK_ANY) or only to show (PICK_NONE);
its lines look alike ("a - a +1 long sword"). What tells them apart in NetHack's
own calls (invent.c, pickup.c, spell.c, weapon.c):

- a window without lettered entries ("Things that are here:", discoveries,
  "Current skills:") never takes one                             -> continue
- a titled window with lettered entries takes one ("Pick up what?", "Take out
  what?", "Choose which spell to cast", "Pick a skill to advance:"), except the
  titled listings of objects NetHack only shows, all titled "...:" ("Contents of
  the large box:", "Things that are buried here:", "the newt's possessions:")
                                                                  -> continue
- an untitled window of inventory lines under object-class headings is either
  the inventory 'i' (shown) or the list that '*' opens in an item question
  ("What do you want to eat? [fg or ?*]", getobj's display_pickinv: pick one);
  the two are drawn identically, so the caller says which: `item_list=True`
  when the window opened in answer to an item question's '*'

Escape is legal in every state: it cancels a question and is harmless otherwise.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from .commands import (ANSWER_INDEX, COMMAND_INDICES, COMMANDS, CONTINUE, DIRECTION_INDICES,
                       ESCAPE, LETTER_INDEX, NEXT_PAGE, PREVIOUS_PAGE)

IN_YN, IN_GETLIN, WAITING_FOR_SPACE = 0, 1, 2   # NLE's `misc` fields
DECISIONS = ("command", "yes_no", "item", "direction", "menu", "more", "text")

_BRACKET = re.compile(r"\[([^\[\]]*)\]")
# "a - x"; "a + x" once selected; "- - your bare hands" (wield's '*' list)
_MENU_ENTRY = re.compile(rb"^([a-zA-Z$-]) [-+#] ")
_MENU_END = re.compile(rb"\((end)\)|\((\d+) of (\d+)\)")
# the headings NetHack puts over each object class in item menus (invent.c, names[]),
# in class order: "Weapons" heads class 2 (WEAPON_CLASS), as NLE's inv_oclasses counts
_HEADINGS = ("Illegal objects", "Weapons", "Armor", "Rings", "Amulets", "Tools", "Comestibles",
             "Potions", "Scrolls", "Spellbooks", "Wands", "Coins", "Gems/Stones",
             "Boulders/Statues", "Iron balls", "Chains", "Venoms")
HEADING_CLASS = {h: i + 1 for i, h in enumerate(_HEADINGS)}


class Prompt(NamedTuple):
    decision: str               # one of DECISIONS
    question: str               # the game's question ("" for commands)
    legal: tuple[int, ...]      # option indices that answer it


def read_prompt(misc: np.ndarray, message: np.ndarray, tty_chars: np.ndarray,
                allowed_commands: tuple[int, ...] = COMMAND_INDICES, *,
                item_list: bool = False) -> Prompt:
    """The pending decision and its legal options. `allowed_commands` narrows the
    command set (a MiniHack task's actions); answers to questions are never narrowed,
    because a question must always be answerable. `item_list`: an untitled inventory
    window on the screen is the pick-one list an item question's '*' opened, not the
    inventory shown (the caller knows which key opened it; see the module docstring)."""
    # --More-- comes first: NetHack may have a question queued behind it
    if misc[WAITING_FOR_SPACE]:
        menu = _menu(tty_chars, item_list)
        if menu is not None:
            return menu
        return Prompt("more", _text(message), (CONTINUE, ESCAPE))
    if misc[IN_YN]:
        # the question is on the top line; NLE's message may still hold the text
        # printed before it ("You have no ammunition readied.")
        top = _row(tty_chars, 0)
        return _question(top if "[" in top or "direction" in top.lower() else
                         _text(message) or top)
    if misc[IN_GETLIN]:
        # free text (naming, engraving) is not part of the vocabulary: cancel it
        return Prompt("text", _text(message) or _row(tty_chars, 0), (ESCAPE,))
    return Prompt("command", "", allowed_commands)


def _question(question: str) -> Prompt:
    brackets = _BRACKET.findall(question)
    if not brackets:
        if "direction" in question.lower():
            return Prompt("direction", question, (*DIRECTION_INDICES, ESCAPE))
        # an unbracketed question: nothing we can list but cancelling it
        return Prompt("yes_no", question, (ESCAPE,))
    choices = brackets[-1]
    if "?*" in choices or " or " in choices or choices.strip() == "*":
        return Prompt("item", question, (*_item_letters(choices), ESCAPE))
    legal = []
    for ch in choices:
        if ch in ANSWER_INDEX:
            legal.append(ANSWER_INDEX[ch])
        elif ch in LETTER_INDEX:
            legal.append(LETTER_INDEX[ch])
    legal.append(ESCAPE)   # NetHack takes escape as the cancelling answer
    return Prompt("yes_no", question, tuple(dict.fromkeys(legal)))


def _item_letters(choices: str) -> list[int]:
    """Inventory letters of "[$a-cf or ?*]": gold, ranges, single letters, hands (-)
    and * (every item, as a menu)."""
    listed = choices.split(" or ")[0] if " or " in choices else choices
    letters: list[str] = []
    i = 0
    while i < len(listed):
        ch = listed[i]
        if i + 2 < len(listed) and listed[i + 1] == "-" and listed[i + 2].isalpha():
            start, end = ord(ch), ord(listed[i + 2])
            letters += [chr(c) for c in range(start, end + 1)]
            i += 3
            continue
        if ch in LETTER_INDEX:
            letters.append(ch)
        i += 1
    if "*" in choices:
        letters.append("*")
    return [LETTER_INDEX[ch] for ch in dict.fromkeys(letters) if ch in LETTER_INDEX]


def is_menu(tty_chars: np.ndarray) -> bool:
    """Whether the screen shows a menu (an answer to choose), not only --More--."""
    return _menu(tty_chars) is not None


def _menu(tty_chars: np.ndarray, item_list: bool = False) -> Prompt | None:
    """A menu window: entries "x - ...", closed by "(end)" or "(n of m)". Whether it
    takes a selection: the rules in the module docstring (`takes_selection`)."""
    end = _menu_end(tty_chars)
    if end is None:
        return None
    end_row, column, page, pages = end
    entries: list[str] = []
    header = ""
    for row in range(end_row):
        text = bytes(tty_chars[row, column:]).rstrip()
        match = _MENU_ENTRY.match(text)
        if match:
            entries.append(match.group(1).decode())
        elif text and not entries and not header:
            header = text.decode("ascii", "replace").strip()
    legal = [CONTINUE, ESCAPE]
    if page < pages:
        legal.append(NEXT_PAGE)
    if page > 1:
        legal.append(PREVIOUS_PAGE)
    if not entries or not takes_selection(header, item_list):
        return Prompt("more", header, tuple(legal))
    legal = [LETTER_INDEX[e] for e in entries if e in LETTER_INDEX] + legal
    # the item list has no title of its own: say what it is
    title = ITEM_LIST_TITLE if _is_heading(header) else header
    return Prompt("menu", title, tuple(legal))


ITEM_LIST_TITLE = "(the list of items: pick one)"
# titles of the spell menus (spell.c: 'Z', and '+' which shows or reorders them)
SPELL_MENU_TITLES = ("Choose which spell to cast", "Currently known spells")
# titled windows of lettered object lines that NetHack only shows (PICK_NONE):
# display_cinventory "Contents of <container>:", look_here inside an engulfer "Contents
# of <monster>'s stomach:", display_binventory "Things that are buried here:",
# display_minventory "<monster>'s possessions:" / "...'s armament:", and
# "Inventory letters used:"
_SHOWN_TITLE_STARTS = ("Contents of ", "Things that are ", "Inventory letters used")
_SHOWN_TITLE_ENDS = (" possessions:", " armament:")
# headings display_pickinv puts over the extra choice of an item list ('-' hands)
_LIST_HEADINGS = ("Miscellaneous", "Special")


def takes_selection(header: str, item_list: bool = False) -> bool:
    """Whether a window of lettered entries under `header` (its first line: a title, an
    object-class heading, or "") takes a selection (see the module docstring)."""
    if _is_heading(header):   # untitled: the inventory 'i', or an item question's list
        return item_list
    if header.endswith(":") and (header.startswith(_SHOWN_TITLE_STARTS)
                                 or header.endswith(_SHOWN_TITLE_ENDS)):
        return False
    return True


def _is_heading(header: str) -> bool:
    """An empty first line, or an object-class heading: the window has no title."""
    return not header or heading_class(header) > 0 or header in _LIST_HEADINGS


def heading_class(heading: str) -> int:
    """The object class an item-menu heading names ("Weapons", "Unpaid Comestibles",
    "Coins (in shop)"), 0 for any other line."""
    if heading.startswith("Unpaid "):
        heading = heading[7:]
    return HEADING_CLASS.get(heading, HEADING_CLASS.get(heading.split(" (")[0], 0))


def _menu_end(tty_chars: np.ndarray) -> tuple[int, int, int, int] | None:
    """Where a menu window ends: (row of "(end)" / "(n of m)", its column, page, pages)."""
    for row in range(tty_chars.shape[0] - 1, -1, -1):
        found = _MENU_END.search(bytes(tty_chars[row]))
        if found:
            if found.group(2):
                return row, found.start(), int(found.group(2)), int(found.group(3))
            return row, found.start(), 1, 1
    return None


class MenuEntry(NamedTuple):
    letter: str       # the key that selects it
    selected: bool    # shown as "a + x" (or "a # x": a count chosen)
    text: str         # what follows "a - "
    oclass: int       # the object class of the heading above it (0: no class heading)


def menu_entries(tty_chars: np.ndarray) -> list[MenuEntry]:
    """The entries of the menu on the screen, in screen order, each with the object class
    whose heading ("Weapons", "Comestibles", ...) it sits under. Empty when no menu shows."""
    end = _menu_end(tty_chars)
    if end is None:
        return []
    end_row, column = end[0], end[1]
    out: list[MenuEntry] = []
    oclass = 0
    for row in range(end_row):
        line = bytes(tty_chars[row, column:]).rstrip()
        match = _MENU_ENTRY.match(line)
        if match:
            out.append(MenuEntry(match.group(1).decode(), line[2:3] != b"-",
                                 line[4:].decode("ascii", "replace").strip(), oclass))
        elif line:
            oclass = heading_class(line.decode("ascii", "replace").strip())
    return out


def menu_lines(tty_chars: np.ndarray) -> list[str]:
    """The menu window on the screen as drawn, title to "(end)" / "(n of m)", blank lines
    left out (empty when no menu shows): the map beside it is not part of it."""
    end = _menu_end(tty_chars)
    if end is None:
        return []
    end_row, column = end[0], end[1]
    lines = (bytes(tty_chars[row, column:]).decode("ascii", "replace").rstrip()
             for row in range(end_row + 1))
    return [line for line in lines if line.strip()]


def _text(message: np.ndarray) -> str:
    return bytes(message).split(b"\0", 1)[0].decode("ascii", "replace").strip()


def _row(tty_chars: np.ndarray, row: int) -> str:
    return bytes(tty_chars[row]).decode("ascii", "replace").strip()


def describe(prompt: Prompt) -> str:
    """One line for the text observation: what the game is asking, if anything."""
    if prompt.decision == "command":
        return "The game waits for a command."
    names = ", ".join(COMMANDS[i].label for i in prompt.legal)
    return f"The game asks: {prompt.question or '(--More--)'} Answers: {names}."
