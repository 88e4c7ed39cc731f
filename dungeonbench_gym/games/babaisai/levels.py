"""Procedural generators for the 40 Baba Is AI levels used by BALROG.

``make_level(name, seed)`` returns a :class:`~.rules.Board`; the result only
depends on ``(name, seed)`` (a private ``random.Random`` per attempt, never the
global RNG).

Geometry
--------
* single-room levels: 8x8 board, 6x6 interior (x, y in 1..6);
* ``two_room`` levels: 13x9 board, interior x 1..11, y 1..7, split by a
  column of ``wall`` objects at x = 6 into two 5x7 rooms.  "WALL IS STOP" is
  always on the board, so the column blocks baba unless it has a gap or the
  rule is broken.

Name parts
----------
* ``goto_win``: "X IS WIN" is formed; walk baba onto an X object.
* ``make_win``: "X IS" is formed and the WIN word lies one push away
  (diagonally next to the line's end or one cell past it); no WIN rule applies
  to an object on the board.  Form the rule, then reach X.
* ``distr_obj``: one extra object of another noun (never WIN).
* ``distr_rule``: one extra formed rule "E IS P" for a noun E that has no
  object on the board (P is WIN, STOP or PUSH, chosen per seed).
* ``distr_obj_rule``: both of the above (E differs from the distractor
  object's noun, so the distractor object stays a non-goal).
* ``irrelevant_rule``: one extra formed rule "D IS PUSH" or "D IS STOP" about
  the distractor object D.
* ``distr_win_rule``: a second formed WIN rule "E IS WIN" for an absent noun E.
* ``two_room``: baba starts in one room, the goal object lies in the other.
  Without ``break_stop`` the wall column has a one-cell gap.
* ``break_stop``: the column has no gap; "WALL IS STOP" lies in baba's room
  away from the border, so a word can be pushed out of line; then the walls
  can be walked over.
* ``maybe_break_stop``: per seed, either a gap (plain two_room) or no gap
  (break_stop).
* ``make_you``: the column is closed and "WALL IS STOP" lies in the goal
  room (out of baba's reach).  A key sits in the goal room; "KEY IS" is formed
  in baba's room with a YOU word one push away: form "KEY IS YOU" and walk the
  key to the goal object.  ``make_you-make_win`` additionally needs
  "X IS WIN" formed (make_win pattern).
* ``make_wall_win``: closed column, "WALL IS STOP" in baba's room, "WALL IS"
  formed with a WIN word one push away.  A STOP wall cannot be entered, so
  the agent must also break "WALL IS STOP" (or push WIN in place of STOP) and
  then step onto a wall.

Every generated board is checked for a winning plan of at most
:data:`MAX_PLAN` steps by a cheap restricted breadth-first search in which
only YOU objects move and words may only sit where they started or where the
intended solution puts them (the completing word on its target cell, a word
of a breakable line one cell above or below it).  A plan found under these
restrictions is a real plan, so every returned board is solvable within
:data:`MAX_PLAN` steps (the unrestricted solver may find a shorter one, e.g.
by forming "BABA IS WIN" vertically from a "BABA" word, as in the original
game).  A failing layout is redrawn with the next derived seed
``(name, seed, attempt)``; :func:`make_level_with_plan` also returns the
certificate plan.
"""

from __future__ import annotations

import random

from .rules import (
    IS,
    N_NOUNS,
    NOUNS,
    P_YOU,
    PUSH,
    STOP,
    TEXT_BASE,
    WIN,
    YOU,
    Board,
    encode,
    outcome,
    rules,
    step,
)
from .solver import plan_to

LEVELS: tuple[str, ...] = (
    "make_win-distr_obj_rule",
    "goto_win-distr_obj_rule",
    "goto_win",
    "goto_win-distr_obj",
    "goto_win-distr_rule",
    "goto_win-distr_obj-irrelevant_rule",
    "make_win-distr_obj",
    "make_win-distr_rule",
    "make_win",
    "make_win-distr_obj-irrelevant_rule",
    "two_room-goto_win",
    "two_room-goto_win-distr_obj_rule",
    "two_room-goto_win-distr_rule",
    "two_room-goto_win-distr_obj",
    "two_room-goto_win-distr_obj-irrelevant_rule",
    "two_room-goto_win-distr_win_rule",
    "two_room-break_stop-goto_win-distr_obj_rule",
    "two_room-break_stop-goto_win-distr_obj",
    "two_room-break_stop-goto_win-distr_rule",
    "two_room-break_stop-goto_win-distr_obj-irrelevant_rule",
    "two_room-break_stop-goto_win",
    "two_room-maybe_break_stop-goto_win-distr_obj_rule",
    "two_room-maybe_break_stop-goto_win",
    "two_room-maybe_break_stop-goto_win-distr_obj",
    "two_room-maybe_break_stop-goto_win-distr_rule",
    "two_room-maybe_break_stop-goto_win-distr_obj-irrelevant_rule",
    "two_room-make_win-distr_obj_rule",
    "two_room-make_win-distr_rule",
    "two_room-make_win",
    "two_room-make_win-distr_obj-irrelevant_rule",
    "two_room-make_win-distr_obj",
    "two_room-make_win-distr_win_rule",
    "two_room-break_stop-make_win-distr_obj_rule",
    "two_room-break_stop-make_win-distr_rule",
    "two_room-break_stop-make_win",
    "two_room-break_stop-make_win-distr_obj-irrelevant_rule",
    "two_room-break_stop-make_win-distr_obj",
    "two_room-make_you",
    "two_room-make_you-make_win",
    "two_room-make_wall_win",
)

MAX_PLAN = 100
MAX_ATTEMPTS = 200
CHECK_STATES = 3_000

BABA, WALL, DOOR, KEY, BALL = range(N_NOUNS)
# nouns that can be goals / distractors (baba and wall have fixed roles)
GOAL_NOUNS = (DOOR, KEY, BALL)

SINGLE_SIZE = (8, 8)
TWO_ROOM_SIZE = (13, 9)
WALL_X = 6

Room = tuple[int, int, int, int]  # x0, x1, y0, y1 (inclusive)


def level_size(name: str) -> tuple[int, int]:
    _check(name)
    return TWO_ROOM_SIZE if name.startswith("two_room") else SINGLE_SIZE


def _check(name: str) -> None:
    if name not in LEVELS:
        raise ValueError(
            f"unknown Baba Is AI level {name!r}; known levels: {', '.join(LEVELS)}"
        )


class _Layout:
    def __init__(self, rng: random.Random, width: int, height: int):
        self.rng = rng
        self.width = width
        self.height = height
        self.ents: list[tuple[int, int, int]] = []
        self.words: set[tuple[int, int]] = set()  # cells holding words
        self.used: set[tuple[int, int]] = set()  # cells holding anything
        # word codes (kind, cell) the validity check lets words move to
        self.extra: set[int] = set()

    def add(self, kind: int, x: int, y: int) -> None:
        self.ents.append((kind, x, y))
        self.used.add((x, y))
        if kind >= TEXT_BASE:
            self.words.add((x, y))

    def free(self, cells) -> bool:
        return all(c not in self.used for c in cells)

    def line(self, room: Room, kinds: tuple[int, ...], inner: bool = False) -> bool:
        """A formed horizontal rule; ``inner`` keeps it off the room's top and
        bottom rows so its words can be pushed up/down."""
        x0, x1, y0, y1 = room
        ys = range(y0 + 1, y1) if inner else range(y0, y1 + 1)
        opts = [
            (x, y)
            for y in ys
            for x in range(x0, x1 - len(kinds) + 2)
            if self.free((x + i, y) for i in range(len(kinds)))
        ]
        if not opts:
            return False
        x, y = self.rng.choice(opts)
        for i, k in enumerate(kinds):
            self.add(k, x + i, y)
            if inner:  # breakable: a word may leave the line up or down
                self.extra.add(encode(k, x + i, y - 1))
                self.extra.add(encode(k, x + i, y + 1))
        return True

    def broken_line(self, room: Room, noun_word: int, prop: int) -> bool:
        """ "NOUN IS" formed and ``prop`` one push away from completing it."""
        x0, x1, y0, y1 = room
        opts = []
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 - 1):
                tx = x + 2  # where prop must end up
                if not self.free([(x, y), (x + 1, y), (tx, y)]):
                    continue
                # (prop cell, cell baba pushes from)
                cand = [
                    ((tx, y - 1), (tx, y - 2)),  # push down
                    ((tx, y + 1), (tx, y + 2)),  # push up
                    ((tx + 1, y), (tx + 2, y)),  # push left
                ]
                for pc, bc in cand:
                    if all(
                        x0 <= c[0] <= x1 and y0 <= c[1] <= y1 for c in (pc, bc)
                    ) and self.free([pc, bc]):
                        opts.append((x, y, pc))
        if not opts:
            return False
        x, y, pc = self.rng.choice(opts)
        self.add(noun_word, x, y)
        self.add(IS, x + 1, y)
        self.add(prop, *pc)
        self.extra.add(encode(prop, x + 2, y))
        return True

    def obj(self, room: Room, kind: int) -> tuple[int, int] | None:
        x0, x1, y0, y1 = room
        opts = [
            (x, y)
            for x in range(x0, x1 + 1)
            for y in range(y0, y1 + 1)
            if (x, y) not in self.used
        ]
        if not opts:
            return None
        c = self.rng.choice(opts)
        self.add(kind, *c)
        return c

    def board(self) -> Board:
        return Board.from_entities(self.width, self.height, self.ents)


def _parts(name: str) -> set[str]:
    return set(name.split("-"))


def _generate(
    name: str, rng: random.Random
) -> tuple[Board, set[tuple[str, str]]] | None:
    """One attempt; returns the board and the rules it must show, or None."""
    parts = _parts(name)
    two = "two_room" in parts
    w, h = TWO_ROOM_SIZE if two else SINGLE_SIZE
    L = _Layout(rng, w, h)
    T = TEXT_BASE
    expect: set[tuple[str, str]] = {("baba", "you")}

    # in make_you levels the key becomes YOU, so the goal is a door or a ball
    goal = rng.choice((DOOR, BALL) if "make_you" in parts else GOAL_NOUNS)
    others = [n for n in GOAL_NOUNS if n != goal]
    rng.shuffle(others)
    distr_obj = (
        "distr_obj" in parts or "distr_obj_rule" in parts or "irrelevant_rule" in parts
    )
    distr_rule = (
        "distr_rule" in parts or "distr_obj_rule" in parts or "distr_win_rule" in parts
    )
    d_noun = others[0]  # distractor object
    e_noun = (
        others[1] if distr_obj else others[rng.randrange(2)]
    )  # absent noun of the distractor rule

    if not two:
        room: Room = (1, 6, 1, 6)
        baba_room = goal_room = rule_room = room
    else:
        left: Room = (1, WALL_X - 1, 1, 7)
        right: Room = (WALL_X + 1, 11, 1, 7)
        baba_room, goal_room = (left, right) if rng.random() < 0.5 else (right, left)
        rule_room = baba_room

    # --- two_room: wall column and WALL IS STOP
    gap = None
    if two:
        expect.add(("wall", "stop"))
        if "make_you" in parts or "break_stop" in parts or "make_wall_win" in parts:
            closed = True
        elif "maybe_break_stop" in parts:
            closed = rng.random() < 0.5
        else:
            closed = False
        if not closed:
            gap = rng.randrange(1, 8)
        for y in range(1, 8):
            if y != gap:
                L.add(WALL, WALL_X, y)
        stop_room = goal_room if "make_you" in parts else baba_room
        breakable = closed and "make_you" not in parts
        if not L.line(stop_room, (T + WALL, IS, STOP), inner=breakable):
            return None

    # --- BABA IS YOU
    if not L.line(rule_room, (T + BABA, IS, YOU)):
        return None

    # --- the goal
    if "make_wall_win" in parts:
        if not L.broken_line(baba_room, T + WALL, WIN):
            return None
        goal = None
    elif "make_win" in parts:
        if not L.broken_line(rule_room, T + goal, WIN):
            return None
    else:
        if not L.line(
            rule_room if not two or gap is None else rng.choice([baba_room, goal_room]),
            (T + goal, IS, WIN),
        ):
            return None
        expect.add((NOUNS[goal], "win"))

    if "make_you" in parts and not L.broken_line(baba_room, T + KEY, YOU):
        return None
    # --- distractor rules
    if distr_rule:
        if "distr_win_rule" in parts:
            prop = WIN
        else:
            prop = rng.choice((WIN, STOP, PUSH))
        if not L.line(rule_room, (T + e_noun, IS, prop)):
            return None
        expect.add((NOUNS[e_noun], {WIN: "win", STOP: "stop", PUSH: "push"}[prop]))
    if "irrelevant_rule" in parts:
        prop = rng.choice((STOP, PUSH))
        if not L.line(rule_room, (T + d_noun, IS, prop)):
            return None
        expect.add((NOUNS[d_noun], {STOP: "stop", PUSH: "push"}[prop]))

    # --- objects
    if L.obj(baba_room, BABA) is None:
        return None
    if "make_you" in parts and L.obj(goal_room, KEY) is None:
        return None
    if goal is not None and L.obj(goal_room, goal) is None:
        return None
    if distr_obj and L.obj(rng.choice([baba_room, goal_room]), d_noun) is None:
        return None

    board = L.board()
    if set(rules(board)) != expect:
        return None
    return board, L.extra


def make_level(name: str, seed: int) -> Board:
    """Deterministic board for level ``name`` and integer ``seed``."""
    return make_level_with_plan(name, seed)[0]


def make_level_with_plan(name: str, seed: int) -> tuple[Board, list[int]]:
    """``make_level`` plus a winning plan (actions 1-4, at most
    :data:`MAX_PLAN` long) that certifies the board is solvable.  The plan is
    not necessarily the shortest; :func:`.solver.solve` gives that."""
    _check(name)
    for attempt in range(MAX_ATTEMPTS):
        rng = random.Random(f"babaisai|{name}|{int(seed)}|{attempt}")
        res = _generate(name, rng)
        if res is None:
            continue
        board, extra = res
        won, lost = outcome(board)
        if won or lost:
            continue
        plan = _restricted_plan(board, extra)
        if plan is None:
            continue
        return board, plan
    raise RuntimeError(f"could not generate level {name!r} for seed {seed}")


def _restricted_plan(board: Board, extra: set[int]) -> list[int] | None:
    """A shortest winning plan in which only YOU objects move and every other
    entity stays on its start cell or, for words, moves only to a cell listed
    in ``extra`` (codes ``encode(kind, x, y)``); None
    if there is none within :data:`MAX_PLAN` steps / :data:`CHECK_STATES`
    states."""
    allowed = set(board.state) | extra
    parent: dict = {board.state: None}
    frontier = [board]
    for _depth in range(MAX_PLAN):
        nxt = []
        for cur in frontier:
            cs = cur.state
            for a in (1, 2, 3, 4):
                nb, won, lost = step(cur, a)
                ns = nb.state
                if ns in parent:
                    continue
                parent[ns] = (cs, a)
                if lost:
                    continue
                ok = True
                props = nb.props()
                for c in ns:
                    k = c >> 16
                    if k < TEXT_BASE and props[k] & P_YOU:
                        continue
                    if c not in allowed:
                        ok = False
                        break
                if not ok:
                    continue
                if won:
                    return plan_to(parent, ns)
                nxt.append(nb)
        if not nxt or len(parent) > CHECK_STATES:
            return None
        frontier = nxt
    return None
