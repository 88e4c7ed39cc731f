"""The 40 Baba Is AI levels BALROG plays, built the way baba-is-ai builds them.

``make_level(name, seed)`` returns a :class:`~.rules.Board`; the result depends
only on ``(name, seed)`` (a private ``random.Random`` per attempt, never the
global RNG).

The construction follows ``baba/envs.py`` of nacloos/baba-is-ai (the commit
BALROG installs): the same board sizes, the same fixed rule positions, the same
areas each random placement is drawn from and the same order of draws, so the
distribution of boards is upstream's. A level name maps to one row of
:data:`SPECS`, upstream's constructor arguments for that name. Our own random
stream replaces numpy's, so a given seed gives a different board than upstream
would, but the same distribution.

Coordinates are ``(x, y)``, ``y`` growing downward; the outer ring is the border.

Single room (8x8, interior x, y in 1..6):
  BABA IS YOU on cells (1..3, 6) and "X IS WIN" on (1..3, 1), both against the
  border, where no push can break them. ``make_win`` moves the noun X to a
  free cell of x, y in 2..5. A distractor noun word (the distractor object's
  noun, or for ``irrelevant_rule`` a third noun) lies on one of twelve border
  cells (upstream's list, two cells listed twice). baba, X and the distractor
  object are placed anywhere free with y >= 2.

Two rooms (13x9, interior x 1..11, y 1..7; a column of WALL objects at x = 6,
y 1..7, with no gap):
  BABA IS YOU on (1..3, 7), WALL IS STOP on (1..3, 2) in baba's room, where it
  can be broken, "X IS WIN" on (9..11, 1). ``break_stop`` levels start with
  WALL IS STOP intact and the goal in the right room; ``goto_win`` and
  ``make_win`` levels start with WALL IS STOP broken (IS or STOP moved into
  x 2..5, y 3..5) and the goal in baba's room; ``maybe_break_stop`` puts the
  goal anywhere. ``distr_rule`` adds a noun word, ``distr_win_rule`` a second
  formed "Z IS WIN" on (9..11, 4) for an absent noun Z.
  ``make_you``: BABA IS YOU on (1..3, 6), WALL IS STOP in the top-left corner
  (unbreakable), the goal and a second object Y in the right room and Y's noun
  word in baba's room: form "Y IS YOU" and walk Y to the goal.
  ``make_wall_win``: "X IS WIN" loses its X to a border cell of the right
  room; form WALL IS WIN (breaking WALL IS STOP on the way) and step on a wall.

Where ours differs (docs/balrog.md lists both):
  * Every board is certified solvable within :data:`MAX_PLAN` steps by a staged
    search that follows the level's intended plan (break WALL IS STOP, make the
    rule, reach the goal; each stage a breadth-first search in which only the
    words that stage needs may move). A board it cannot certify is redrawn
    (:func:`make_level_with_plan` returns the certificate).
  * Upstream stacks a later rule on whatever lies there (``distr_win_rule`` on
    (9..11, 4) can cover a displaced noun word); our boards hold one entity per
    cell at the start, so such a draw is redrawn.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from .rules import (IS, N_NOUNS, NOUNS, P_YOU, STOP, TEXT_BASE, WIN, YOU, Board, is_lost,
                    rules, step)
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

MAX_PLAN = 100         # BALROG's episode length for Baba Is AI
MAX_ATTEMPTS = 200
STAGE_STATES = 40_000  # per certificate stage

BABA, WALL, DOOR, KEY, BALL = range(N_NOUNS)
# upstream's NAMES order; the three nouns a level draws (without replacement)
LEVEL_NOUNS = (BALL, KEY, DOOR)

def word(noun: int) -> int:
    """The kind of the rule block naming object kind `noun`."""
    return TEXT_BASE + noun


SINGLE_SIZE = (8, 8)
TWO_ROOM_SIZE = (13, 9)
WALL_X = 6

Cell = tuple[int, int]
# an area: (top-left cell, size); a placement draws a free cell of
# x in [x0, min(x0 + w, W)) and y in [y0, min(y0 + h, H)), uniformly
Area = tuple[Cell, Cell]

# single room: where the distractor noun word may lie (upstream's list, with
# (6, 1) and (6, 6) listed twice, so they are drawn twice as often)
SINGLE_DISTRACTOR_CELLS: tuple[Cell, ...] = (
    (4, 6), (5, 6), (6, 6), (4, 1), (5, 1), (6, 1),
    (6, 1), (6, 2), (6, 3), (6, 4), (6, 5), (6, 6))
# two rooms: border cells of the right room where a word cannot be pushed
# into a rule (right column y 2..6, bottom row x 11..8)
RIGHT_UNPUSHABLE: tuple[Cell, ...] = (
    (11, 2), (11, 3), (11, 4), (11, 5), (11, 6), (11, 7), (10, 7), (9, 7), (8, 7))


def _two_room_areas(pushable_w: int) -> dict[str, Area]:
    """Upstream's named areas of a 13x9 two-room board; `pushable_w` is the
    pushable areas' width (4 in TwoRoomEnv, 3 in the make_you and
    make_wall_win constructors)."""
    right_x = 7 if pushable_w == 4 else 8
    return {
        "left_pushable": ((2, 3), (pushable_w, 3)),
        "right_pushable": ((right_x, 3), (pushable_w, 3)),
        "left_anywhere": ((1, 1), (4, 7)),
        "right_anywhere": ((7, 2), (4, 7)),
        "anywhere": ((1, 2), (11, 7)),
    }


@dataclass(frozen=True)
class LevelSpec:
    """One level name's construction: upstream's constructor arguments."""

    layout: str                  # "single", "two_room", "make_you", "make_wall_win"
    break_win: bool = False      # the WIN rule starts with its noun moved away
    break_stop: bool = False     # two rooms: WALL IS STOP starts broken
    distractor_obj: bool = True
    distractor_rule: bool = True  # a lone noun word
    irrelevant_rule: bool = False  # ... naming a third noun instead of the distractor's
    distractor_win_rule: bool = False  # a formed "Z IS WIN" for an absent noun Z
    goal_area: str = "anywhere"  # two rooms: where the goal (and the distractor) go


def _specs() -> dict[str, LevelSpec]:
    specs: dict[str, LevelSpec] = {}
    # single room (MakeWinEnv): break_win for make_win, distractors by suffix
    for name in LEVELS:
        parts = name.split("-")
        if parts[0] not in ("goto_win", "make_win"):
            continue
        suffix = set(parts[1:])
        specs[name] = LevelSpec(
            "single", break_win=parts[0] == "make_win",
            distractor_obj=bool(suffix & {"distr_obj", "distr_obj_rule"}),
            distractor_rule=bool(suffix & {"distr_rule", "distr_obj_rule", "irrelevant_rule"}),
            irrelevant_rule="irrelevant_rule" in suffix)
    suffixes = {
        "": dict(distractor_obj=False, distractor_rule=False),
        "-distr_obj_rule": {},
        "-distr_rule": dict(distractor_obj=False),
        "-distr_obj": dict(distractor_rule=False),
        "-distr_obj-irrelevant_rule": dict(irrelevant_rule=True),
    }
    # two rooms (TwoRoomEnv): the goal in baba's room with WALL IS STOP broken,
    # in the right room with it intact, or anywhere with it intact
    plans = {
        "two_room-goto_win": dict(break_stop=True, goal_area="left_anywhere"),
        "two_room-break_stop-goto_win": dict(goal_area="right_anywhere"),
        "two_room-maybe_break_stop-goto_win": dict(goal_area="anywhere"),
        "two_room-make_win": dict(break_stop=True, break_win=True, goal_area="left_anywhere"),
        "two_room-break_stop-make_win": dict(break_win=True, goal_area="right_anywhere"),
    }
    for stem, plan in plans.items():
        for suffix, extra in suffixes.items():
            if stem + suffix in LEVELS:
                specs[stem + suffix] = LevelSpec("two_room", **plan, **extra)
    specs["two_room-goto_win-distr_win_rule"] = LevelSpec(
        "two_room", break_stop=True, goal_area="left_anywhere", distractor_win_rule=True)
    specs["two_room-make_win-distr_win_rule"] = LevelSpec(
        "two_room", break_stop=True, break_win=True, goal_area="left_anywhere",
        distractor_win_rule=True)
    specs["two_room-make_you"] = LevelSpec("make_you", goal_area="right_anywhere")
    specs["two_room-make_you-make_win"] = LevelSpec(
        "make_you", break_win=True, goal_area="right_anywhere")
    specs["two_room-make_wall_win"] = LevelSpec(
        "make_wall_win", irrelevant_rule=True, goal_area="right_anywhere")
    return specs


SPECS: dict[str, LevelSpec] = _specs()
assert set(SPECS) == set(LEVELS), set(LEVELS) ^ set(SPECS)


def level_size(name: str) -> tuple[int, int]:
    _check(name)
    return SINGLE_SIZE if SPECS[name].layout == "single" else TWO_ROOM_SIZE


def _check(name: str) -> None:
    if name not in SPECS:
        raise ValueError(
            f"unknown Baba Is AI level {name!r}; known levels: {', '.join(LEVELS)}")


class _Builder:
    """A board under construction: a stack of kinds per cell, as upstream's grid."""

    def __init__(self, rng: random.Random, width: int, height: int):
        self.rng = rng
        self.width, self.height = width, height
        self.cells: dict[Cell, list[int]] = {}
        self.rule_cells: dict[tuple[int, int], list[Cell]] = {}  # (noun word, prop) -> cells

    def free(self, cell: Cell) -> bool:
        x, y = cell
        return 0 < x < self.width - 1 and 0 < y < self.height - 1 and cell not in self.cells

    def draw(self, area: Area) -> Cell:
        """A uniformly drawn free cell of `area` (upstream's rejection sampling)."""
        (x0, y0), (w, h) = area
        options = [(x, y) for y in range(y0, min(y0 + h, self.height))
                   for x in range(x0, min(x0 + w, self.width)) if self.free((x, y))]
        return self.rng.choice(options)

    def put(self, kind: int, cell: Cell) -> None:
        self.cells.setdefault(cell, []).append(kind)

    def place(self, kind: int, area: Area) -> Cell:
        cell = self.draw(area)
        self.put(kind, cell)
        return cell

    def rule(self, noun_word: int, prop: int, left: Cell) -> None:
        x, y = left
        cells = [(x, y), (x + 1, y), (x + 2, y)]
        for kind, cell in zip((noun_word, IS, prop), cells):
            self.put(kind, cell)
        self.rule_cells[(noun_word, prop)] = cells

    def move_block(self, rule: tuple[int, int], index: int, to: Cell) -> None:
        """Move the top entity of one of a rule's cells (upstream's break_rule)."""
        source = self.rule_cells[rule][index]
        if to != source and self.cells.get(source):
            kind = self.cells[source].pop()
            if not self.cells[source]:
                del self.cells[source]
            self.put(kind, to)

    def board(self) -> Board | None:
        if any(len(stack) > 1 for stack in self.cells.values()):
            return None  # a stacked start cell: see the module docstring
        return Board.from_entities(self.width, self.height,
                                   [(s[0], x, y) for (x, y), s in self.cells.items()])


def _build(spec: LevelSpec, rng: random.Random) -> tuple[Board | None, list[Stage]]:
    """One draw of a level and the stages of its intended plan."""
    goal, other, third = rng.sample(LEVEL_NOUNS, 3)
    if spec.layout == "single":
        return _build_single(spec, rng, goal, other, third)
    b = _Builder(rng, *TWO_ROOM_SIZE)
    for y in range(1, TWO_ROOM_SIZE[1] - 1):
        b.put(WALL, (WALL_X, y))
    areas = _two_room_areas(4 if spec.layout == "two_room" else 3)
    stages: list[Stage] = []
    if spec.layout == "make_wall_win":
        b.rule(word(BABA), YOU, (1, 7))
        b.rule(word(WALL), STOP, (2, 2))
        b.rule(word(goal), WIN, (9, 1))
        b.place(word(third), areas["right_pushable"])
        b.move_block((word(goal), WIN), 0, rng.choice(RIGHT_UNPUSHABLE))
        b.place(BABA, areas["left_pushable"])
        b.place(goal, areas[spec.goal_area])
        b.place(other, areas[spec.goal_area])
        stages = [_make(WALL, "win", {word(WALL)}), _reach()]
        return b.board(), stages
    if spec.layout == "make_you":
        b.rule(word(BABA), YOU, (1, 6))
        b.rule(word(WALL), STOP, (1, 1))
        b.rule(word(goal), WIN, (9, 1))
        b.place(word(other), areas["left_pushable"])
        if spec.break_win:
            b.move_block((word(goal), WIN), 0, b.draw(areas["right_pushable"]))
        b.place(BABA, areas["left_pushable"])
        b.place(goal, areas[spec.goal_area])
        b.place(other, areas[spec.goal_area])
        stages = [_make(other, "you", {word(other), word(BABA), IS, YOU})]
        if spec.break_win:
            stages.append(_make(goal, "win", {word(goal), word(other), word(third)}))
        stages.append(_reach())
        return b.board(), stages
    # TwoRoomEnv
    b.rule(word(BABA), YOU, (1, 7))
    b.rule(word(WALL), STOP, (1, 2))
    b.rule(word(goal), WIN, (9, 1))
    if spec.distractor_rule:
        if spec.irrelevant_rule:
            b.place(word(third), areas["right_pushable"])
        elif spec.distractor_obj:
            b.put(word(other), rng.choice(RIGHT_UNPUSHABLE))
        else:
            b.place(word(other), areas["right_pushable"])
    if spec.break_stop:
        b.move_block((word(WALL), STOP), rng.choice((1, 2)), b.draw(areas["left_pushable"]))
    if spec.break_win:
        b.move_block((word(goal), WIN), 0, b.draw(areas["right_pushable"]))
    b.place(BABA, areas["left_pushable"])
    goal_cell = b.place(goal, areas[spec.goal_area])
    if spec.distractor_obj:
        b.place(other, areas[spec.goal_area])
    if spec.distractor_win_rule:
        b.rule(word(third), WIN, (9, 4))
    if not spec.break_stop and goal_cell[0] > WALL_X:
        stages.append(_break_stop())
    if spec.break_win:
        stages.append(_make(goal, "win", {word(goal), word(other), word(third)}))
    stages.append(_reach())
    return b.board(), stages


def _build_single(spec: LevelSpec, rng: random.Random, goal: int, other: int,
                  third: int) -> tuple[Board | None, list[Stage]]:
    b = _Builder(rng, *SINGLE_SIZE)
    b.rule(word(BABA), YOU, (1, 6))
    b.rule(word(goal), WIN, (1, 1))
    if spec.break_win:
        b.move_block((word(goal), WIN), 0, b.draw(((2, 2), (4, 4))))
    if spec.distractor_rule:
        noun = third if spec.irrelevant_rule else other
        b.put(word(noun), rng.choice(SINGLE_DISTRACTOR_CELLS))
    anywhere = ((1, 2), SINGLE_SIZE)
    b.place(BABA, anywhere)
    b.place(goal, anywhere)
    if spec.distractor_obj:
        b.place(other, anywhere)
    stages = [_make(goal, "win", {word(goal), word(other), word(third)})] if spec.break_win else []
    stages.append(_reach())
    return b.board(), stages


# ------------------------------------------------------------ certificate
@dataclass(frozen=True)
class Stage:
    """One step of a level's intended plan: reach a board where `done` holds,
    moving only YOU objects and words of the kinds in `movable`."""

    done: Callable[[Board, bool], bool]   # (board, won on the last step)
    movable: frozenset[int]


def _make(noun: int, prop: str, movable: set[int]) -> Stage:
    rule = (NOUNS[noun], prop)
    return Stage(lambda board, won: rule in rules(board), frozenset(movable))


def _break_stop() -> Stage:
    return Stage(lambda board, won: ("wall", "stop") not in rules(board),
                 frozenset({word(WALL), IS, STOP}))


def _reach() -> Stage:
    return Stage(lambda board, won: won, frozenset())


def _stage_plan(board: Board, stage: Stage, budget: int) -> tuple[list[int], Board] | None:
    """Shortest actions (at most `budget`) from `board` to one where the stage
    is done, or None. Entities other than YOU objects and `stage.movable`
    words must stay where they are; a board where nothing IS YOU is a dead end
    (BALROG would reset the level)."""
    if stage.done(board, False):
        return [], board
    # objects that are YOU at the start may end anywhere (the stage may make
    # another object YOU instead), like those that are YOU when checked
    start_you = {k for k, bits in enumerate(board.props()) if bits & P_YOU}
    fixed = {c for c in board.state if (c >> 16) not in stage.movable}
    parent: dict = {board.state: None}
    frontier = [board]
    for _depth in range(budget):
        nxt = []
        for cur in frontier:
            for action in (1, 2, 3, 4):
                nb, won, lost = step(cur, action)
                if won and stage.done(nb, won):  # a win is a move: the board may be a seen one
                    return plan_to(parent, cur.state) + [action], nb
                ns = nb.state
                if ns in parent:
                    continue
                parent[ns] = (cur.state, action)
                if lost:
                    continue
                props = nb.props()
                if any(c not in fixed and (c >> 16) not in stage.movable
                       and not ((c >> 16) < TEXT_BASE
                                and (props[c >> 16] & P_YOU or (c >> 16) in start_you))
                       for c in ns):
                    continue
                if stage.done(nb, won):
                    return plan_to(parent, ns), nb
                nxt.append(nb)
        if not nxt or len(parent) > STAGE_STATES:
            return None
        frontier = nxt
    return None


def certify(board: Board, stages: list[Stage]) -> list[int] | None:
    """A winning plan of at most MAX_PLAN steps through the stages, or None."""
    plan: list[int] = []
    for stage in stages:
        found = _stage_plan(board, stage, MAX_PLAN - len(plan))
        if found is None:
            return None
        steps, board = found
        plan += steps
    return plan or None


def make_level(name: str, seed: int, redraw: int = 0) -> Board:
    """Deterministic board for level ``name`` and integer ``seed``; ``redraw``
    n > 0 gives the n-th fresh board of the same episode (BALROG draws a new
    layout when nothing IS YOU any more)."""
    return make_level_with_plan(name, seed, redraw)[0]


def make_level_with_plan(name: str, seed: int, redraw: int = 0) -> tuple[Board, list[int]]:
    """``make_level`` plus a winning plan (actions 1-4, at most
    :data:`MAX_PLAN` long) that certifies the board is solvable. The plan is
    not necessarily the shortest; :func:`.solver.solve` gives that."""
    board, plan, _attempt = draw_level(name, seed, redraw)
    return board, plan


def draw_level(name: str, seed: int, redraw: int = 0) -> tuple[Board, list[int], int]:
    """``make_level_with_plan`` plus how many draws were rejected before it."""
    _check(name)
    spec = SPECS[name]
    episode = f"{int(seed)}" if not redraw else f"{int(seed)}/{int(redraw)}"
    for attempt in range(MAX_ATTEMPTS):
        rng = random.Random(f"babaisai|{name}|{episode}|{attempt}")
        board, stages = _build(spec, rng)
        if board is None or is_lost(board):
            continue
        plan = certify(board, stages)
        if plan is not None:
            return board, plan, attempt
    raise RuntimeError(f"could not generate level {name!r} for seed {seed}")


__all__ = ["LEVELS", "MAX_PLAN", "SPECS", "LevelSpec", "certify", "draw_level", "level_size",
           "make_level", "make_level_with_plan"]
