"""Pure rule engine for a small "Baba Is You"-style puzzle.

No Gymnasium (or any third-party) import: this module only knows the board,
the rules written on it and how one action changes it.

Coordinates
-----------
A board is ``width`` x ``height`` cells, ``x`` grows to the right, ``y`` grows
downward.  The outermost ring of cells (``x in {0, width-1}`` or
``y in {0, height-1}``) is the border: it is impassable and never holds
entities, so an 8x8 board has a 6x6 playable interior (the BabaIsAI
convention).

Entities
--------
Every entity is an integer *kind*:

* objects ``0 .. len(NOUNS)-1`` (``NOUNS[k]``),
* noun words ``TEXT_BASE + k`` (the word naming object ``k``),
* the operator ``IS`` and the property words ``YOU WIN STOP PUSH``.

Words are always PUSH and never affected by rules.

State
-----
``Board.state`` is a sorted tuple of ints, one per entity, each
``(kind << 16) | (y << 8) | x``.  It is hashable, compact and canonical (two
boards with the same multiset of entities have equal states); ``Board``
itself hashes and compares by ``(width, height, state)``.

Actions
-------
``0`` idle, ``1`` up (y-1), ``2`` right (x+1), ``3`` down (y+1), ``4`` left.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

# ---------------------------------------------------------------- vocabulary
NOUNS: tuple[str, ...] = ("baba", "wall", "door", "key", "ball")
N_NOUNS = len(NOUNS)
TEXT_BASE = 16  # noun word for object k is TEXT_BASE + k
IS = 32
YOU = 33
WIN = 34
STOP = 35
PUSH = 36
PROPERTIES: tuple[str, ...] = ("you", "win", "stop", "push")
PROPERTY_KINDS: tuple[int, ...] = (YOU, WIN, STOP, PUSH)
MAX_KIND = PUSH

# property bits
P_YOU = 1
P_WIN = 2
P_STOP = 4
P_PUSH = 8
_PROP_BIT = {YOU: P_YOU, WIN: P_WIN, STOP: P_STOP, PUSH: P_PUSH}
_BIT_NAME = {P_YOU: "you", P_WIN: "win", P_STOP: "stop", P_PUSH: "push"}

IDLE, UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3, 4
N_ACTIONS = 5
ACTION_NAMES: tuple[str, ...] = ("idle", "up", "right", "down", "left")
DELTAS: tuple[tuple[int, int], ...] = ((0, 0), (0, -1), (1, 0), (0, 1), (-1, 0))

_MASK8 = 0xFF


def is_text(kind: int) -> bool:
    return kind >= TEXT_BASE


def object_kind(name: str) -> int:
    return NOUNS.index(name)


def word_kind(word: str) -> int:
    """Kind code of a rule block: a noun ("baba"), "is" or a property."""
    w = word.lower()
    if w in NOUNS:
        return TEXT_BASE + NOUNS.index(w)
    if w == "is":
        return IS
    return PROPERTY_KINDS[PROPERTIES.index(w)]


def kind_name(kind: int) -> str:
    """Human name: objects lower case ("baba"), words upper case ("BABA")."""
    if kind < TEXT_BASE:
        return NOUNS[kind]
    if kind < IS:
        return NOUNS[kind - TEXT_BASE].upper()
    if kind == IS:
        return "IS"
    return PROPERTIES[kind - YOU].upper()


def encode(kind: int, x: int, y: int) -> int:
    return (kind << 16) | (y << 8) | x


def decode(code: int) -> tuple[int, int, int]:
    return code >> 16, code & _MASK8, (code >> 8) & _MASK8


# --------------------------------------------------------------------- board
class Board:
    """Immutable board: dimensions plus a canonical tuple of entity codes."""

    __slots__ = ("_props", "height", "state", "width")

    def __init__(self, width: int, height: int, state: Iterable[int], _props=None):
        if not (3 <= width <= 255 and 3 <= height <= 255):
            raise ValueError("board must be between 3x3 and 255x255")
        self.width = width
        self.height = height
        self.state: tuple[int, ...] = tuple(sorted(state))
        self._props = _props  # cached per-object-kind property bits

    # construction ---------------------------------------------------------
    @classmethod
    def from_entities(
        cls, width: int, height: int, entities: Iterable[tuple[int, int, int]]
    ) -> Board:
        """Build from ``(kind, x, y)`` triples; validates positions."""
        codes = []
        for kind, x, y in entities:
            if not (0 <= kind <= MAX_KIND) or (N_NOUNS <= kind < TEXT_BASE) or (
                TEXT_BASE + N_NOUNS <= kind < IS
            ):
                raise ValueError(f"unknown entity kind {kind}")
            if not (1 <= x <= width - 2 and 1 <= y <= height - 2):
                raise ValueError(f"entity at ({x},{y}) is outside the playable area")
            codes.append(encode(kind, x, y))
        return cls(width, height, codes)

    def entities(self) -> list[tuple[int, int, int]]:
        """``(kind, x, y)`` triples in canonical order."""
        return [decode(c) for c in self.state]

    def copy(self) -> Board:
        return Board(self.width, self.height, self.state, self._props)

    def key(self) -> tuple[int, ...]:
        """Hashable canonical key (dimensions are fixed within a search)."""
        return self.state

    def __hash__(self) -> int:
        return hash((self.width, self.height, self.state))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Board)
            and self.width == other.width
            and self.height == other.height
            and self.state == other.state
        )

    def __repr__(self) -> str:
        return f"Board({self.width}x{self.height}, rules={rules(self)})"

    # cached rule properties -----------------------------------------------
    def props(self) -> list[int]:
        """Property bits per object kind (index = object kind)."""
        p = self._props
        if p is None:
            p = self._props = _parse_props(self.state)
        return p

    def cells(self) -> dict[tuple[int, int], list[int]]:
        """``(x, y) -> [kinds]`` for every occupied cell."""
        out: dict[tuple[int, int], list[int]] = {}
        for c in self.state:
            k, x, y = decode(c)
            out.setdefault((x, y), []).append(k)
        return out

    def to_ascii(self) -> str:
        """Render the interior, one whitespace-separated token per cell
        (inverse of :func:`from_ascii`)."""
        cells = self.cells()
        rows = []
        for y in range(1, self.height - 1):
            toks = []
            for x in range(1, self.width - 1):
                ks = cells.get((x, y))
                toks.append("".join(_KIND_CHAR[k] for k in ks) if ks else ".")
            rows.append(" ".join(toks))
        return "\n".join(rows)


# ------------------------------------------------------------- rule parsing
def _parse_props(state: Sequence[int]) -> list[int]:
    """Property bits per object kind from the words on the board."""
    words: dict[int, list[int]] = {}
    ops = []
    for c in state:
        k = c >> 16
        if k >= TEXT_BASE:
            pos = c & 0xFFFF
            lst = words.get(pos)
            if lst is None:
                words[pos] = [k]
            else:
                lst.append(k)
            if k == IS:
                ops.append(pos)
    props = [0] * N_NOUNS
    if not ops:
        return props
    for pos in ops:
        # horizontal (step 1 in x) then vertical (step 256 = 1 in y); the
        # border ring is always empty so pos-1 / pos+1 never wrap into words.
        for d in (1, 256):
            left = words.get(pos - d)
            if left is None:
                continue
            right = words.get(pos + d)
            if right is None:
                continue
            for a in left:
                if TEXT_BASE <= a < TEXT_BASE + N_NOUNS:
                    for b in right:
                        bit = _PROP_BIT.get(b)
                        if bit:
                            props[a - TEXT_BASE] |= bit
    return props


def rules(board: Board) -> tuple[tuple[str, str], ...]:
    """Active rules as a sorted tuple of ``(noun, property)`` pairs."""
    props = board.props()
    out = []
    for k in range(N_NOUNS):
        p = props[k]
        for bit, name in _BIT_NAME.items():
            if p & bit:
                out.append((NOUNS[k], name))
    return tuple(sorted(out))


def you_kinds(board: Board) -> list[int]:
    props = board.props()
    return [k for k in range(N_NOUNS) if props[k] & P_YOU]


def is_lost(board: Board) -> bool:
    """True when no object on the board IS YOU."""
    props = board.props()
    for c in board.state:
        k = c >> 16
        if k >= TEXT_BASE:
            break  # sorted: all objects come first
        if props[k] & P_YOU:
            return False
    return True


def is_won(board: Board) -> bool:
    """True when a YOU object shares a cell with a WIN object."""
    props = board.props()
    you_pos = set()
    win_pos = set()
    for c in board.state:
        k = c >> 16
        if k >= TEXT_BASE:
            break
        p = props[k]
        if p & P_YOU:
            you_pos.add(c & 0xFFFF)
        if p & P_WIN:
            win_pos.add(c & 0xFFFF)
    return not you_pos.isdisjoint(win_pos)


def outcome(board: Board) -> tuple[bool, bool]:
    """``(won, lost)`` for a board."""
    won = is_won(board)
    return won, (not won) and is_lost(board)


# ------------------------------------------------------------------ movement
# Positions are packed as (y << 8) | x; a move adds _DPOS[action].
_DPOS = (0, -256, 1, 256, -1)


def _entity_bits(kinds: list[int], props: list[int]) -> list[int]:
    return [P_PUSH if k >= TEXT_BASE else props[k] for k in kinds]


def step(board: Board, action: int) -> tuple[Board, bool, bool]:
    """Apply one action; returns ``(new_board, won, lost)``.

    Every YOU object tries to move one cell (furthest in the move direction
    first).  Entering a cell that holds PUSH entities pushes the whole chain;
    the chain (and the mover) stays put if it would hit the border or a STOP
    entity that is not PUSH.  Entities that are neither STOP nor PUSH are
    walked over.  Rules are re-parsed after the move.

    Winning is baba-is-ai's (``BabaIsYouEnv.move``): a move wins when a YOU
    object steps into a cell holding a WIN object, or is blocked while it is
    itself WIN (upstream then tests the cell it stands on). Standing on a
    WIN object, or making the object underneath WIN, does not win; idling
    never does. ``lost`` is True when nothing on the new board IS YOU.
    """
    if action == 0:
        return board, False, is_lost(board)
    if not 1 <= action <= 4:
        raise ValueError(f"action must be in 0..4, got {action}")
    props = board.props()
    state = board.state
    n = len(state)
    kinds = [c >> 16 for c in state]
    pos = [c & 0xFFFF for c in state]
    bits = [P_PUSH if k >= TEXT_BASE else props[k] for k in kinds]

    movers = [i for i in range(n) if bits[i] & P_YOU and kinds[i] < TEXT_BASE]
    if not movers:
        return board, False, True

    dpos = _DPOS[action]
    xmax = board.width - 2
    ymax = board.height - 2
    cell: dict[int, list[int]] = {}
    for i in range(n):
        p = pos[i]
        lst = cell.get(p)
        if lst is None:
            cell[p] = [i]
        else:
            lst.append(i)

    # furthest in the move direction first
    if dpos > 0:
        movers.sort(key=pos.__getitem__, reverse=True)
    elif len(movers) > 1:
        movers.sort(key=pos.__getitem__)

    moved = won = False
    for m in movers:
        q = pos[m] + dpos
        # check phase: walk the chain of PUSH cells
        t = q
        ok = True
        while True:
            tx = t & 0xFF
            ty = t >> 8
            if tx < 1 or tx > xmax or ty < 1 or ty > ymax:
                ok = False
                break
            lst = cell.get(t)
            if not lst:
                break
            has_push = False
            for j in lst:
                b = bits[j]
                if b & P_PUSH:
                    has_push = True
                elif b & P_STOP:
                    ok = False
                    break
            if not ok or not has_push:
                break
            t += dpos
        if not ok:
            won = won or bool(bits[m] & P_WIN)
            continue
        # move phase: from the far end of the chain back to the mover
        moved = True
        while t != q:
            src = t - dpos
            lst = cell[src]
            stay = []
            go = []
            for j in lst:
                (go if bits[j] & P_PUSH else stay).append(j)
            for j in go:
                pos[j] = t
            if stay:
                cell[src] = stay
            else:
                del cell[src]
            dst = cell.get(t)
            if dst is None:
                cell[t] = go
            else:
                dst.extend(go)
            t = src
        # finally the mover itself (it sits just before the chain)
        src = pos[m]
        lst = cell[src]
        lst.remove(m)
        if not lst:
            del cell[src]
        pos[m] = q
        dst = cell.get(q)
        if dst is None:
            cell[q] = [m]
        else:
            for j in dst:
                if kinds[j] < TEXT_BASE and bits[j] & P_WIN:
                    won = True
            dst.append(m)

    if not moved:
        return board, won, not won and is_lost(board)

    new_state = [(kinds[i] << 16) | pos[i] for i in range(n)]
    new_state.sort()
    nb = Board.__new__(Board)
    nb.width = board.width
    nb.height = board.height
    nb.state = tuple(new_state)
    nb._props = None
    return nb, won, not won and is_lost(nb)


def _can_move(cellbits: dict[int, list[int]], p: int, dpos: int, xmax: int, ymax: int) -> bool:
    t = p + dpos
    while True:
        tx = t & 0xFF
        ty = t >> 8
        if tx < 1 or tx > xmax or ty < 1 or ty > ymax:
            return False
        lst = cellbits.get(t)
        if not lst:
            return True
        has_push = False
        for b in lst:
            if b & P_PUSH:
                has_push = True
            elif b & P_STOP:
                return False
        if not has_push:
            return True
        t += dpos


def legal_actions(board: Board) -> list[bool]:
    """Mask of length 5: idle is always legal, a move is legal iff at least
    one YOU object can move (i.e. the move changes the board)."""
    props = board.props()
    cellbits: dict[int, list[int]] = {}
    you_pos = []
    for c in board.state:
        k = c >> 16
        p = c & 0xFFFF
        b = P_PUSH if k >= TEXT_BASE else props[k]
        cellbits.setdefault(p, []).append(b)
        if k < TEXT_BASE and b & P_YOU:
            you_pos.append(p)
    xmax = board.width - 2
    ymax = board.height - 2
    mask = [True, False, False, False, False]
    for a in range(1, 5):
        d = _DPOS[a]
        for p in you_pos:
            if _can_move(cellbits, p, d, xmax, ymax):
                mask[a] = True
                break
    return mask


# --------------------------------------------------------------- ascii I/O
# One whitespace-separated token per interior cell; "." is empty, several
# characters stack several entities in one cell.
#   objects: b baba, w wall, d door, k key, o ball
#   words:   B BABA, W WALL, D DOOR, K KEY, O BALL, = IS,
#            @ YOU, $ WIN, # STOP, > PUSH
CHAR_KIND: dict[str, int] = {
    "b": 0, "w": 1, "d": 2, "k": 3, "o": 4,
    "B": TEXT_BASE + 0, "W": TEXT_BASE + 1, "D": TEXT_BASE + 2,
    "K": TEXT_BASE + 3, "O": TEXT_BASE + 4,
    "=": IS, "@": YOU, "$": WIN, "#": STOP, ">": PUSH,
}
_KIND_CHAR = {k: ch for ch, k in CHAR_KIND.items()}


def from_ascii(text: str | Sequence[str]) -> Board:
    """Build a board from the rows of its playable interior.

    The border ring is added, so ``n`` rows of ``m`` tokens give an
    ``(m+2) x (n+2)`` board.  Example::

        B = @ . .
        . b . d .
        D = $ . .
    """
    rows = text.strip("\n").splitlines() if isinstance(text, str) else list(text)
    grid = [r.split() for r in rows if r.strip()]
    if not grid:
        raise ValueError("empty board")
    w = len(grid[0])
    if any(len(r) != w for r in grid):
        raise ValueError("ragged rows")
    ents = []
    for y, row in enumerate(grid, start=1):
        for x, tok in enumerate(row, start=1):
            if tok == ".":
                continue
            for ch in tok:
                if ch not in CHAR_KIND:
                    raise ValueError(f"unknown cell character {ch!r}")
                ents.append((CHAR_KIND[ch], x, y))
    return Board.from_entities(w + 2, len(grid) + 2, ents)
