"""The command vocabulary shared by the NetHack and MiniHack envs.

Every option is one key sent to NetHack. Options come in groups that are
legal in different game states (see `prompts.py`): commands when the game
waits for a command, answers when it has asked something. Two options may
send the same key ("northwest" and "yes" are both `y`): the mask keeps only
the one that means something now, so every legal option does what its label
says.

Left out on purpose: commands that open free-text or cursor input we do not
model (`#` extended commands, travel `_`, engrave `E`, call `C`), commands that
only show information already in the observation (inventory `i`, look `:`
... the text observation lists what is here), and game-admin keys (save,
quit, options).
"""

from __future__ import annotations

import string
from typing import NamedTuple

from ...core.options import Option

COMPASS = (("north", "k"), ("east", "l"), ("south", "j"), ("west", "h"),
           ("northeast", "u"), ("southeast", "n"), ("southwest", "b"), ("northwest", "y"))
# Space, not Enter, moves past --More-- and closes menus: in NLE's tty an
# information menu (e.g. the inventory listing) ignores Enter but takes space.
ESC, SPACE = 27, ord(" ")


class Command(NamedTuple):
    label: str
    key: int          # the keycode NetHack receives
    kind: str         # "command", "answer", "direction", "letter", "menu"
    description: str


def _commands() -> tuple[Command, ...]:
    out = [Command(name, ord(key), "command", f"step one square {name}")
           for name, key in COMPASS]
    out += [Command(f"far {name}", ord(key.upper()), "command",
                    f"keep moving {name} until something interesting")
            for name, key in COMPASS]
    out += [
        Command("up", ord("<"), "command", "climb the staircase or ladder you stand on"),
        Command("down", ord(">"), "command", "descend the staircase or ladder you stand on"),
        Command("wait", ord("."), "command", "rest one turn"),
        Command("search", ord("s"), "command", "search adjacent squares for hidden things"),
        Command("pick up", ord(","), "command", "pick up what lies here"),
        Command("open", ord("o"), "command", "open a door (asks a direction)"),
        Command("close", ord("c"), "command", "close a door (asks a direction)"),
        Command("kick", 4, "command", "kick something (asks a direction)"),
        Command("fight", ord("F"), "command", "attack in a direction even if nothing shows"),
        Command("eat", ord("e"), "command", "eat something (asks which)"),
        Command("quaff", ord("q"), "command", "drink a potion or from a fountain"),
        Command("read", ord("r"), "command", "read a scroll or spellbook"),
        Command("zap", ord("z"), "command", "zap a wand (asks which, then a direction)"),
        Command("apply", ord("a"), "command", "use a tool or other item"),
        Command("wield", ord("w"), "command", "wield a weapon"),
        Command("wear", ord("W"), "command", "put on armour"),
        Command("take off", ord("T"), "command", "take off armour"),
        Command("put on", ord("P"), "command", "put on a ring, amulet or blindfold"),
        Command("remove", ord("R"), "command", "remove a ring, amulet or blindfold"),
        Command("throw", ord("t"), "command", "throw an item (asks which, then a direction)"),
        Command("fire", ord("f"), "command", "fire from your quiver (asks a direction)"),
        Command("drop", ord("d"), "command", "drop an item"),
        Command("swap weapons", ord("x"), "command", "swap primary and alternate weapons"),
        Command("pray", 240, "command", "pray to your god"),
        Command("cast", ord("Z"), "command", "cast a spell (opens the spell menu)"),
        Command("loot", 236, "command", "open a container on the floor"),
        Command("pay", ord("p"), "command", "pay a shopkeeper"),
        Command("yes", ord("y"), "answer", "answer yes"),
        Command("no", ord("n"), "answer", "answer no"),
        Command("quit", ord("q"), "answer", "answer q: give up the question"),
        Command("all", ord("a"), "answer", "answer a: yes to all"),
        Command("continue", SPACE, "answer", "continue past --More-- or confirm a menu"),
        Command("escape", ESC, "answer", "cancel the question or menu (harmless otherwise)"),
    ]
    out += [Command(f"direction {name}", ord(key), "direction", f"answer: {name}")
            for name, key in COMPASS]
    out += [Command("direction up", ord("<"), "direction", "answer: upwards"),
            Command("direction down", ord(">"), "direction", "answer: downwards"),
            Command("direction self", ord("."), "direction", "answer: at yourself")]
    letters = string.ascii_lowercase + string.ascii_uppercase + "$-*"
    out += [Command(f"choose {ch}", ord(ch), "letter", f"choose the entry or item {ch}")
            for ch in letters]
    out += [Command("next page", ord(">"), "menu", "show the menu's next page"),
            Command("previous page", ord("<"), "menu", "show the menu's previous page")]
    return tuple(out)


COMMANDS: tuple[Command, ...] = _commands()
INDEX = {c.label: i for i, c in enumerate(COMMANDS)}
OPTION_TABLE: tuple[Option, ...] = tuple(
    Option(i, c.label, c.kind, c.description) for i, c in enumerate(COMMANDS))
KEYS: tuple[int, ...] = tuple(c.key for c in COMMANDS)
# index groups the prompt parser combines into masks
COMMAND_INDICES = tuple(i for i, c in enumerate(COMMANDS) if c.kind == "command")
MOVE_INDICES = tuple(range(8))
DIRECTION_INDICES = tuple(i for i, c in enumerate(COMMANDS) if c.kind == "direction")
LETTER_INDEX = {chr(c.key): i for i, c in enumerate(COMMANDS) if c.kind == "letter"}
ANSWER_INDEX = {"y": INDEX["yes"], "n": INDEX["no"], "q": INDEX["quit"], "a": INDEX["all"]}
ESCAPE = INDEX["escape"]
CONTINUE = INDEX["continue"]
NEXT_PAGE = INDEX["next page"]
PREVIOUS_PAGE = INDEX["previous page"]
