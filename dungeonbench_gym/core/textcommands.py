"""Text commands as ids: a command's verb and its objects, as stable integers.

A command such as "take the brass key from the wooden table" is parsed into a
verb ("take"), a preposition ("from") and up to two object phrases ("brass key",
"wooden table"), and mapped to three vocabulary ids, one range shared by all
three (so one embedding table serves them):

    [frame id, first object id, second object id]       0 = empty slot / no object

* The frame id names the verb together with its preposition ("take", "take ...
  from", "put ... in", "put ... on" are four ids), because the preposition
  changes what the command does. Known verbs come from the table `VERBS` below
  (synonyms share an id: "get", "pick up" and "take"; "x" and "examine"); a
  verb not in it gets a CRC32 bucket of its words and preposition.
* Directions are objects of "go": "n", "north", "go north" and "walk n" are all
  [go, north, 0]; each direction has a reserved object id, so does "all".
* Other object phrases are lower-cased, articles ("the", "a", "an", "some")
  dropped, and hashed (CRC32) into the object buckets.
* Menu rows that are not commands (a text adventure's split choice) have
  reserved frame ids: `GROUP` ([GROUP, the verb's frame, 0] for "take ... (40
  commands)"; [GROUP, frame of its first command, that command's object words as
  one phrase] for "drop can ... take key (12 commands)") and `BACK` ([BACK, 0, 0]).

Everything is computed from the words alone (CRC32, fixed tables; never Python's
`hash`), so ids are the same in every process. The table order is part of the
ids: add verbs at the end of `VERBS`, never reorder it.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

# ------------------------------------------------------------------- vocabulary
# One line per verb: its canonical name first, then its synonyms (two-word
# entries are phrasal verbs, matched on the command's first two words).
VERBS_TABLE = """
go: walk run head
look: l
inventory: inv i
wait: z
examine: x check inspect describe watch | look at
read
take: get grab carry hold | pick up
drop: discard | put down
put: place insert
open: uncover unwrap
close: shut cover
lock
unlock
eat
drink: sip swallow
wear: don | put on
remove: doff shed disrobe | take off
switch on: | turn on
switch off: | turn off
light: burn
push: press move shift
pull: drag
turn: rotate twist screw unscrew
climb: scale
enter: | get in | get into | go into
exit: leave | get out | get off
give: offer pay feed
show: display present
ask
tell
answer: say shout speak
attack: hit kill fight break smash destroy punch kick
throw: toss
fill
empty
pour
search: | look in | look inside
look under
cut
chop
dice
slice
cook: roast fry grill bake
prepare
tie: attach fasten connect
touch: feel
rub: clean polish wipe scrub
smell: sniff
listen: hear
taste
kiss: hug embrace
wake: awake awaken | wake up
jump: hop
pray
sleep: nap
swim: dive
dig
sing
think
stand: | stand up | get up
sit: | sit down | lie down
yes: y
no
buy: purchase
blow
squeeze: squash
swing
wave
consult
shake
knock
unplug
plug
"""

# Preposition groups: index 0 is "no preposition"; the words of a group are one frame.
PREPOSITIONS = (
    (),
    ("in", "into", "inside", "within"),
    ("on", "onto", "upon"),
    ("from", "off"),
    ("with", "using"),
    ("to", "toward", "towards"),
    ("at",),
    ("about",),
    ("under", "beneath", "below", "underneath"),
    ("behind", "over", "through", "across", "around", "against", "for", "near", "beside",
     "by"),
)

# (canonical, abbreviation): a bare direction, or after "go"/"walk"/..., is "go <direction>".
DIRECTIONS = (("north", "n"), ("south", "s"), ("east", "e"), ("west", "w"),
              ("northeast", "ne"), ("northwest", "nw"), ("southeast", "se"),
              ("southwest", "sw"), ("up", "u"), ("down", "d"), ("in", "inside"),
              ("out", "outside"))
ARTICLES = frozenset({"the", "a", "an", "some"})
ALL_WORDS = frozenset({"all", "everything"})

# ------------------------------------------------------------------- id layout
VOCAB_SIZE = 4096          # ids 0..VOCAB_SIZE-1
EMPTY, GROUP, BACK = 0, 1, 2        # 3..7 reserved for other menu rows
VERB_BASE = 8
MAX_VERBS = 96             # room in the table; the frame ids below stay fixed as it grows
N_PREPOSITIONS = len(PREPOSITIONS)
UNKNOWN_VERB_BASE = VERB_BASE + MAX_VERBS * N_PREPOSITIONS      # 968
UNKNOWN_VERB_BUCKETS = 128
OBJECT_BASE = UNKNOWN_VERB_BASE + UNKNOWN_VERB_BUCKETS          # 1096: reserved objects
RESERVED_OBJECTS = 24
OBJECT_HASH_BASE = OBJECT_BASE + RESERVED_OBJECTS               # 1120
OBJECT_BUCKETS = VOCAB_SIZE - OBJECT_HASH_BASE                  # 2976


def _load_verbs(table: str) -> tuple[list[str], dict[str, str], dict[tuple[str, str], str]]:
    """The table's canonical verbs in order, one-word synonyms -> canonical, and
    two-word (phrasal) forms -> canonical. A line: `canonical: one-word synonyms |
    a two-word form | another`; a two-word canonical name is a phrasal form too."""
    names, single, phrasal = [], {}, {}
    for line in table.strip().splitlines():
        head, _, rest = line.partition(":")
        head = " ".join(head.split())
        names.append(head)
        words, *multi = rest.split("|")
        forms = [head, *words.split(), *(" ".join(m.split()) for m in multi)]
        for form in forms:
            key = tuple(form.split())
            if len(key) == 1:
                single.setdefault(key[0], head)
            elif len(key) == 2:
                phrasal.setdefault(key, head)
            else:
                raise ValueError(f"verb table: {form!r} has more than two words")
    return names, single, phrasal


VERBS, _SINGLE_VERBS, _PHRASAL_VERBS = _load_verbs(VERBS_TABLE)
assert len(VERBS) <= MAX_VERBS, "the verb table outgrew MAX_VERBS"
_VERB_INDEX = {name: i for i, name in enumerate(VERBS)}
_PREPOSITION_INDEX = {w: i for i, group in enumerate(PREPOSITIONS) for w in group}
_DIRECTION = {w: full for full, short in DIRECTIONS for w in (full, short)}
_DIRECTION_ID = {full: OBJECT_BASE + i for i, (full, _) in enumerate(DIRECTIONS)}
ALL_ID = OBJECT_BASE + len(DIRECTIONS)
assert len(DIRECTIONS) + 1 <= RESERVED_OBJECTS
_MOVE_VERBS = frozenset({"go", "walk", "run", "head"})

_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")
_GROUP_ONE_VERB = re.compile(r"^(?P<verb>.+?) \.\.\. \(\d+ commands\)$")
_GROUP_RANGE = re.compile(r"^(?P<first>.+?) \.\.\. (?P<last>.+) \(\d+ commands\)$")


@dataclass(frozen=True, slots=True)
class Command:
    """A parsed command: canonical verb, preposition group word, object phrases."""
    verb: str                   # canonical ("take" for "get", "pick up"); "" for an empty command
    preposition: str = ""       # the first word of its group ("in" for "into"), "" for none
    first: str = ""             # object phrases, articles dropped, lower case
    second: str = ""


def _crc(text: str) -> int:
    return zlib.crc32(text.encode())


def parse(command: str) -> Command:
    """A command's verb, preposition and up to two object phrases (see the module doc)."""
    words = _WORD.findall(command.lower())
    if not words:
        return Command("")
    if words[0] in _DIRECTION and len(words) == 1:
        return Command("go", "", _DIRECTION[words[0]])
    if words[0] in _MOVE_VERBS and len(words) == 2 and words[1] in _DIRECTION:
        return Command("go", "", _DIRECTION[words[1]])
    if len(words) >= 2 and (words[0], words[1]) in _PHRASAL_VERBS:
        verb, rest = _PHRASAL_VERBS[words[0], words[1]], words[2:]
    else:
        verb, rest = _SINGLE_VERBS.get(words[0], words[0]), words[1:]
        # a particle at the end: "turn lamp on", "pick lamp up"
        if len(rest) >= 2 and (words[0], rest[-1]) in _PHRASAL_VERBS \
                and not any(w in _PREPOSITION_INDEX for w in rest[:-1]):
            verb, rest = _PHRASAL_VERBS[words[0], rest[-1]], rest[:-1]
    preposition, first, second = "", rest, []
    if len(rest) >= 2 and rest[0] in _PREPOSITION_INDEX:
        # the verb's own preposition: "sit on chair", "listen to man", "go to shed"
        return Command(verb, PREPOSITIONS[_PREPOSITION_INDEX[rest[0]]][0], _phrase(rest[1:]))
    for i, w in enumerate(rest):
        if i > 0 and w in _PREPOSITION_INDEX:   # the first object has at least one word
            preposition = PREPOSITIONS[_PREPOSITION_INDEX[w]][0]
            first, second = rest[:i], rest[i + 1:]
            break
    return Command(verb, preposition, _phrase(first), _phrase(second))


def _phrase(words: list[str]) -> str:
    return " ".join(w for w in words if w not in ARTICLES)


def frame_id(verb: str, preposition: str = "") -> int:
    """The id of a canonical verb with its preposition ("" for none)."""
    if not verb:
        return EMPTY
    p = _PREPOSITION_INDEX.get(preposition, 0) if preposition else 0
    v = _VERB_INDEX.get(verb)
    if v is not None:
        return VERB_BASE + v * N_PREPOSITIONS + p
    return UNKNOWN_VERB_BASE + _crc(f"{verb}|{p}") % UNKNOWN_VERB_BUCKETS


def object_id(phrase: str) -> int:
    """The id of an object phrase (0 for none); articles and case do not matter."""
    words = [w for w in _WORD.findall(phrase.lower()) if w not in ARTICLES]
    if not words:
        return EMPTY
    if len(words) == 1:
        if words[0] in ALL_WORDS:
            return ALL_ID
        if words[0] in _DIRECTION:
            return _DIRECTION_ID[_DIRECTION[words[0]]]
    return OBJECT_HASH_BASE + _crc(" ".join(words)) % OBJECT_BUCKETS


def command_ids(command: str) -> tuple[int, int, int]:
    """[frame id, first object id, second object id] of a command (cached)."""
    ids = _IDS_CACHE.get(command)
    if ids is None:
        c = parse(command)
        ids = (frame_id(c.verb, c.preposition), object_id(c.first), object_id(c.second))
        if len(_IDS_CACHE) < 200_000:
            _IDS_CACHE[command] = ids
    return ids


_IDS_CACHE: dict[str, tuple[int, int, int]] = {}


def menu_ids(label: str, kind: str = "command") -> tuple[int, int, int]:
    """Ids of a menu row: a command; a group of commands (a text adventure's split
    choice): [GROUP, frame of "take", 0] for "take ... (40 commands)"; for "drop can
    ... take key (12 commands)" [GROUP, frame of its first command, the id of that
    command's object words as one phrase] ("can"; "all on bench" for "put all on
    bench"); or "back": [BACK, 0, 0]."""
    if kind == "back":
        return (BACK, EMPTY, EMPTY)
    if kind != "group":
        return command_ids(label)
    key = "\0group\0" + label
    ids = _IDS_CACHE.get(key)
    if ids is None:
        match = _GROUP_ONE_VERB.match(label)
        if match and " ... " not in match.group("verb"):
            first = match.group("verb")
        else:
            match = _GROUP_RANGE.match(label)
            first = match.group("first") if match else label
        c = parse(first)
        objects = f"{c.first} {c.preposition} {c.second}" if c.second else c.first
        ids = (GROUP, frame_id(c.verb, c.preposition), object_id(objects))
        _IDS_CACHE[key] = ids
    return ids


def encode_ids(rows, slots: int) -> np.ndarray:
    """A (slots, 3) int32 array: row i holds `menu_ids(*rows[i])` (rows: (label, kind)
    pairs or plain command strings); empty slots are zeros."""
    out = np.zeros((slots, 3), np.int32)
    ids = [menu_ids(*row) if type(row) is tuple else command_ids(row) for row in rows[:slots]]
    if ids:
        out[:len(ids)] = ids
    return out


def ids_space(slots: int) -> spaces.Box:
    """`option_ids`: Box(0, VOCAB_SIZE - 1, (slots, 3), int32)."""
    return spaces.Box(0, VOCAB_SIZE - 1, (slots, 3), np.int32)
