"""Offline Boxoban: Sokoban rules, a push solver, a seeded level generator, level files.

MiniHack's Boxoban tasks read DeepMind's Boxoban level files, which upstream downloads
at run time. Without a network we make our own levels the way Boxoban's were made: a
room carved by a random walk, four boxes on four goals, then walkers that *pull*
boxes away ("reverse play"), which can only produce solvable levels. A forward solver
measures each candidate (pushes, moves), and each tier keeps candidates with the
probabilities that make its levels fall into size and length bins as DeepMind's tier
files do (`boxoban_tiers.json`, made by scripts/calibrate_boxoban.py). Pure Python + the
standard library: no NLE or MiniHack import.

Level text uses Boxoban's characters: ``#`` wall, `` `` floor, ``$`` box, ``.`` goal,
``@`` player, ``*`` box on goal, ``+`` player on goal.
"""

from __future__ import annotations

import heapq
import json
import os
import random
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ...core.cache import cache_dir, write_text_atomic
from ...core.errors import FileFormatError

SIZE = 10  # Boxoban levels are 10x10, border included
NUM_BOXES = 4
TIERS = ("medium", "hard")
LEVELS_DIR_ENV_VAR = "DUNGEONBENCH_BOXOBAN_DIR"

WALL, FLOOR, BOX, GOAL, PLAYER, BOX_ON_GOAL, PLAYER_ON_GOAL = "# $.@*+"
LEVEL_CHARS = frozenset("# $.@*+")
# (row, column) step of each move letter; the solution strings use these letters.
DIRECTIONS = {"u": (-1, 0), "d": (1, 0), "l": (0, -1), "r": (0, 1)}

Cell = tuple[int, int]


# ----------------------------------------------------------------------------- rules

@dataclass(frozen=True)
class Board:
    """One Sokoban position. Cells are (row, column); anything off the grid is wall."""

    height: int
    width: int
    walls: frozenset[Cell]
    goals: frozenset[Cell]
    boxes: frozenset[Cell]
    player: Cell

    def is_open(self, cell: Cell) -> bool:
        """True if a box or the player could stand here (inside the grid, not a wall)."""
        r, c = cell
        return 0 <= r < self.height and 0 <= c < self.width and cell not in self.walls


def parse_board(rows: Sequence[str]) -> Board:
    """Read level rows (any rectangular-ish size; short rows are padded with floor)."""
    if not rows:
        raise ValueError("a level needs at least one row")
    width = max(len(row) for row in rows)
    walls, goals, boxes, players = set(), set(), set(), []
    for r, row in enumerate(rows):
        for c, ch in enumerate(row.ljust(width)):
            if ch not in LEVEL_CHARS:
                raise ValueError(f"row {r}, column {c}: unknown character {ch!r}")
            if ch == WALL:
                walls.add((r, c))
            if ch in (GOAL, BOX_ON_GOAL, PLAYER_ON_GOAL):
                goals.add((r, c))
            if ch in (BOX, BOX_ON_GOAL):
                boxes.add((r, c))
            if ch in (PLAYER, PLAYER_ON_GOAL):
                players.append((r, c))
    if len(players) != 1:
        raise ValueError(f"a level needs exactly one player, found {len(players)}")
    return Board(len(rows), width, frozenset(walls), frozenset(goals), frozenset(boxes),
                 players[0])


def render_board(board: Board) -> tuple[str, ...]:
    """The level rows of ``board`` (inverse of :func:`parse_board`)."""
    rows = []
    for r in range(board.height):
        chars = []
        for c in range(board.width):
            cell = (r, c)
            if cell in board.walls:
                chars.append(WALL)
            elif cell in board.boxes:
                chars.append(BOX_ON_GOAL if cell in board.goals else BOX)
            elif cell == board.player:
                chars.append(PLAYER_ON_GOAL if cell in board.goals else PLAYER)
            else:
                chars.append(GOAL if cell in board.goals else FLOOR)
        rows.append("".join(chars))
    return tuple(rows)


def move(board: Board, direction: str) -> Board:
    """The board after one player move (``u``/``d``/``l``/``r``).

    A box in the way is pushed if the cell behind it is free; a wall, or a second box
    behind the first, blocks the move and the same board comes back.
    """
    dr, dc = DIRECTIONS[direction]
    r, c = board.player
    target = (r + dr, c + dc)
    if not board.is_open(target):
        return board
    if target in board.boxes:
        beyond = (r + 2 * dr, c + 2 * dc)
        if not board.is_open(beyond) or beyond in board.boxes:
            return board
        boxes = (board.boxes - {target}) | {beyond}
        return Board(board.height, board.width, board.walls, board.goals, frozenset(boxes),
                     target)
    return Board(board.height, board.width, board.walls, board.goals, board.boxes, target)


def is_solved(board: Board) -> bool:
    """Every box stands on a goal."""
    return board.boxes <= board.goals


def replay(rows: Sequence[str], moves: str) -> Board:
    """The board after playing ``moves`` from the level ``rows``."""
    board = parse_board(rows)
    for letter in moves:
        board = move(board, letter)
    return board


def check_boxoban_rows(rows: Sequence[str]) -> None:
    """Raise ValueError unless ``rows`` is a well-formed Boxoban level.

    10 rows of 10 characters, walls all around, one player, four boxes, four goals.
    """
    if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
        raise ValueError(f"a Boxoban level is {SIZE} rows of {SIZE} characters")
    board = parse_board(rows)
    for r in range(SIZE):
        for c in range(SIZE):
            on_border = r in (0, SIZE - 1) or c in (0, SIZE - 1)
            if on_border and (r, c) not in board.walls:
                raise ValueError(f"border cell ({r}, {c}) is not a wall")
    if len(board.boxes) != NUM_BOXES or len(board.goals) != NUM_BOXES:
        raise ValueError(f"need {NUM_BOXES} boxes and {NUM_BOXES} goals, found "
                         f"{len(board.boxes)} and {len(board.goals)}")


# ----------------------------------------------------------------------------- solver

@dataclass(frozen=True)
class Solution:
    """A solver result: player moves (walking included), pushes in them, search effort."""

    moves: str
    pushes: int
    effort: int  # push-states expanded by the search


class _PushGrid:
    """The level as bit masks over a grid padded with one ring of walls.

    Bit ``i`` is cell ``(i // stride - 1, i % stride - 1)``. Shifting a mask by ±1 or
    ±stride moves every cell one step; the wall ring keeps shifts from wrapping rows.
    """

    def __init__(self, board: Board):
        self.stride = stride = board.width + 2
        self.steps = {letter: dr * stride + dc for letter, (dr, dc) in DIRECTIONS.items()}
        self.letters = {step: letter for letter, step in self.steps.items()}
        self.floor = 0
        for r in range(board.height):
            for c in range(board.width):
                if (r, c) not in board.walls:
                    self.floor |= 1 << self.index((r, c))
        self.goals = self.mask(board.goals)
        self.start_boxes = self.mask(board.boxes)
        self.start_player = self.index(board.player)
        self.push_distance = self._push_distances()
        self.live = self.mask_of_indices(self.push_distance)
        # The four 2x2 squares that contain each cell, for the "frozen block" deadlock.
        self.squares = {}
        for i in self.push_distance:
            self.squares[i] = tuple(
                (1 << a) | (1 << (a + 1)) | (1 << (a + stride)) | (1 << (a + stride + 1))
                for a in (i, i - 1, i - stride, i - stride - 1))

    def index(self, cell: Cell) -> int:
        return (cell[0] + 1) * self.stride + cell[1] + 1

    def cell(self, i: int) -> Cell:
        """The cell of bit ``i`` (the inverse of :meth:`index`)."""
        return (i // self.stride - 1, i % self.stride - 1)

    def mask(self, cells: Iterable[Cell]) -> int:
        return self.mask_of_indices(self.index(cell) for cell in cells)

    @staticmethod
    def mask_of_indices(indices: Iterable[int]) -> int:
        bits = 0
        for i in indices:
            bits |= 1 << i
        return bits

    def is_floor(self, i: int) -> bool:
        return i >= 0 and (self.floor >> i) & 1 == 1

    def _push_distances(self) -> dict[int, int]:
        """Fewest pushes from each cell to the nearest goal for a lone box.

        Found backwards from the goals: a box reaches ``b`` from ``b - step`` when the
        player can stand at ``b - 2*step``. Cells missing here are dead squares: a box
        there can never reach a goal. The distances sum to an admissible, consistent
        A* heuristic (one push changes one box's distance by at most one).
        """
        distance = {}
        queue = deque()
        for i in range(self.goals.bit_length()):
            if (self.goals >> i) & 1:
                distance[i] = 0
                queue.append(i)
        while queue:
            b = queue.popleft()
            for step in self.steps.values():
                box_from, player_at = b - step, b - 2 * step
                if (box_from not in distance and self.is_floor(box_from)
                        and self.is_floor(player_at)):
                    distance[box_from] = distance[b] + 1
                    queue.append(box_from)
        return distance

    def reach(self, player: int, boxes: int) -> int:
        """Mask of the cells the player can walk to without pushing."""
        free = self.floor & ~boxes
        stride = self.stride
        reached = frontier = 1 << player
        while frontier:
            grown = (frontier << 1) | (frontier >> 1) | (frontier << stride) | (frontier >> stride)
            frontier = grown & free & ~reached
            reached |= frontier
        return reached

    def walk(self, start: int, goal: int, boxes: int) -> str:
        """Move letters of a shortest walk (no pushing) from ``start`` to ``goal``."""
        came_from = {start: None}
        queue = deque([start])
        free = self.floor & ~boxes
        while queue:
            i = queue.popleft()
            if i == goal:
                break
            for step in self.steps.values():
                j = i + step
                if j not in came_from and (free >> j) & 1:
                    came_from[j] = i
                    queue.append(j)
        letters = []
        i = goal
        while came_from[i] is not None:
            letters.append(self.letters[i - came_from[i]])
            i = came_from[i]
        return "".join(reversed(letters))

    def is_frozen(self, box: int, boxes: int) -> bool:
        """A 2x2 block of walls and boxes around ``box`` that holds a box off its goal.

        No box of such a block can ever move again, so the position is lost.
        """
        blocked = ~self.floor | boxes
        off_goal = boxes & ~self.goals
        for square in self.squares[box]:
            if square & ~blocked == 0 and square & off_goal:
                return True
        return False


def _searchable(rows: Sequence[str]) -> _PushGrid | None:
    """The level's push grid, or None when it cannot be solved at all (more boxes than
    goals, or a box on a dead square from the start)."""
    board = parse_board(rows)
    if len(board.boxes) > len(board.goals):
        return None
    grid = _PushGrid(board)
    return None if grid.start_boxes & ~grid.live else grid


def solve(rows: Sequence[str], max_effort: int = 200_000) -> Solution | None:
    """Fewest-pushes solution of the level ``rows``, by A* over push-states.

    A state is the box set plus the player's reachable region (named by its lowest
    cell), so walking is free and only pushes cost. Pushes onto dead squares and into
    frozen 2x2 blocks are pruned. Returns None if the level is unsolvable or if more
    than ``max_effort`` states would have to be expanded.
    """
    grid = _searchable(rows)
    if grid is None:
        return None
    distance = grid.push_distance
    start_boxes = grid.start_boxes
    start_h = sum(distance[i] for i in _bits(start_boxes))
    # Heap entries: (f, -g, tiebreak, boxes, player, parent key, pushed box, step).
    # Preferring deeper entries among equal f reaches the goal with fewer expansions.
    heap = [(start_h, 0, 0, start_boxes, grid.start_player, None, 0, 0)]
    best_g: dict[tuple[int, int], int] = {(start_boxes, grid.start_player): 0}
    closed: dict[tuple[int, int], tuple] = {}
    tiebreak = 0
    effort = 0
    goals, live = grid.goals, grid.live
    steps = tuple(grid.steps.values())
    while heap:
        f, neg_g, _, boxes, player, parent, pushed, step = heapq.heappop(heap)
        reached = grid.reach(player, boxes)
        key = (boxes, (reached & -reached).bit_length())
        if key in closed:
            continue
        closed[key] = (parent, pushed, step)
        effort += 1
        if boxes & ~goals == 0:
            return _rebuild(grid, closed, key, effort)
        if effort >= max_effort:
            return None
        g = 1 - neg_g
        h = f + neg_g
        open_targets = live & ~boxes
        for step in steps:
            # Boxes with the player's reach behind them and a live free cell ahead.
            if step > 0:
                pushable = boxes & (reached << step) & (open_targets >> step)
            else:
                pushable = boxes & (reached >> -step) & (open_targets << -step)
            while pushable:
                low = pushable & -pushable
                pushable ^= low
                box = low.bit_length() - 1
                target = box + step
                new_boxes = boxes ^ low ^ (1 << target)
                if grid.is_frozen(target, new_boxes):
                    continue
                seen = (new_boxes, box)
                if best_g.get(seen, g + 1) <= g:
                    continue
                best_g[seen] = g
                new_h = h - distance[box] + distance[target]
                tiebreak += 1
                heapq.heappush(heap, (g + new_h, -g, tiebreak, new_boxes, box, key, box, step))
    return None


def solve_fewest_moves(rows: Sequence[str], max_effort: int = 200_000) -> Solution | None:
    """Fewest-moves solution of the level ``rows`` (walking counted), by A* over
    push-states that keep the player's cell: each push costs the walk to it plus one.

    The same pruning and heuristic as `solve` (one move per push at least, so it stays
    admissible); more states than `solve` needs, so it is the second choice: for a
    plan that must fit a step budget. None if unsolvable or past ``max_effort``.
    """
    grid = _searchable(rows)
    if grid is None:
        return None
    distance = grid.push_distance
    start_boxes = grid.start_boxes
    start = (start_boxes, grid.start_player)
    heap = [(sum(distance[i] for i in _bits(start_boxes)), 0, 0, start, None, 0, 0)]
    best_g = {start: 0}
    closed: dict[tuple[int, int], tuple] = {}
    tiebreak = effort = 0
    goals, live, floor = grid.goals, grid.live, grid.floor
    stride = grid.stride
    while heap:
        f, neg_g, _, key, parent, pushed, step = heapq.heappop(heap)
        if key in closed:
            continue
        closed[key] = (parent, pushed, step)
        effort += 1
        boxes, player = key
        if boxes & ~goals == 0:
            return _rebuild(grid, closed, key, effort)
        if effort >= max_effort:
            return None
        g = -neg_g
        h = f - g
        # Walking distances from the player: rings of cells, one step further each.
        free = floor & ~boxes
        rings, seen, ring = [], 1 << player, 1 << player
        while ring:
            rings.append(ring)
            ring = ((ring << 1) | (ring >> 1) | (ring << stride) | (ring >> stride)) & free & ~seen
            seen |= ring
        for walked, ring in enumerate(rings):
            for step in grid.steps.values():
                # boxes one step from this ring in the push direction, free live cell beyond
                if step > 0:
                    pushable = boxes & (ring << step) & ((live & ~boxes) >> step)
                else:
                    pushable = boxes & (ring >> -step) & ((live & ~boxes) << -step)
                while pushable:
                    low = pushable & -pushable
                    pushable ^= low
                    box = low.bit_length() - 1
                    new_boxes = boxes ^ low ^ (1 << (box + step))
                    if grid.is_frozen(box + step, new_boxes):
                        continue
                    new_key = (new_boxes, box)
                    new_g = g + walked + 1
                    if best_g.get(new_key, new_g + 1) <= new_g:
                        continue
                    best_g[new_key] = new_g
                    new_h = h - distance[box] + distance[box + step]
                    tiebreak += 1
                    heapq.heappush(heap, (new_g + new_h, -new_g, tiebreak, new_key, key, box,
                                          step))
    return None


def _bits(mask: int) -> Iterable[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _rebuild(grid: _PushGrid, closed: dict, key, effort: int) -> Solution:
    """Turn the chain of pushes that ends at ``key`` into player moves."""
    pushes = []
    while True:
        parent, pushed, step = closed[key]
        if parent is None:
            break
        pushes.append((pushed, step))
        key = parent
    pushes.reverse()
    boxes, player = grid.start_boxes, grid.start_player
    moves = []
    for box, step in pushes:
        moves.append(grid.walk(player, box - step, boxes))
        moves.append(grid.letters[step])
        boxes = boxes ^ (1 << box) ^ (1 << (box + step))
        player = box
    return Solution("".join(moves), len(pushes), effort)


# -------------------------------------------------------------------------- generator

# DeepMind made its medium and hard levels by keeping the unfiltered levels (dug rooms,
# boxes pulled off their goals by reverse play) that trained agents failed to solve. We
# cannot rerun those agents; what we can match is what their filter produced. A
# candidate is a dug room of DeepMind's sizes with a position drawn from *every*
# position reverse play can reach, at a push count drawn from the tier's own push
# counts; the tier then keeps it with a probability that depends on its room size,
# pushes and moves (the fewest-push plan, walking included), set by
# scripts/calibrate_boxoban.py so that kept levels fall into these bins as DeepMind's
# tier files do (boxoban_tiers.json holds the histograms and the table).
# Bumped whenever the generator's output for a seed changes, so stale caches are
# ignored. 2: plans fit in 100 moves; 3: the player never starts on a goal; 4: tiers
# matched to DeepMind's (its room sizes, exhaustive reverse play, boxoban_tiers.json).
GENERATOR_VERSION = 4
# Bin edges: a value v falls in bin bisect_right(edges, v).
FLOOR_EDGES = (28, 36)
PUSH_EDGES = (11, 14, 17, 20, 24, 30)
MOVE_EDGES = (45, 60, 80, 100)
# The solver's cap while generating: a candidate needing more search is dropped (the
# calibration script reports how many of DeepMind's tier levels would be).
MAX_EFFORT = 50_000
MAX_CANDIDATES = 20_000  # far above what any seed needs; only guards against a bug
TIERS_FILE = Path(__file__).with_name("boxoban_tiers.json")

# Shapes stamped as floor around the digging walker; mixed, they give rooms of both
# corridors and open areas, as in Boxoban.
_BRUSHES = (
    ((0, 0),),
    ((0, -1), (0, 0), (0, 1)),
    ((-1, 0), (0, 0), (1, 0)),
    ((0, 0), (0, 1), (1, 0), (1, 1)),
    ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)),
)
_STEPS = tuple(DIRECTIONS.values())
_ROOM_WALK = (20, 45)  # digging steps: rooms of DeepMind's sizes (median 31 floor cells)
_TURN_CHANCE = 0.35
_MIN_FLOOR = 13  # DeepMind's smallest rooms
# Positions a room's reverse search may hold; a larger room is dug again (few of
# DeepMind's sizes come near it, and it bounds a search to about a second).
_MAX_POSITIONS = 60_000
# Rooms dug for one drawn push count before another count is drawn: 30 pushes and more
# take tens of rooms (the calibration sees the same shortfall and makes up for it).
_ROOMS_PER_DRAW = 60


@dataclass(frozen=True)
class Level:
    """A generated level with what the solver found about it."""

    rows: tuple[str, ...]
    solution: str
    pushes: int
    effort: int
    seed: int
    tier: str


def _check_tier(tier: str) -> None:
    if tier not in TIERS:
        raise ValueError(f"unknown Boxoban tier {tier!r}; choose one of {', '.join(TIERS)}")


def _carve_room(rng: random.Random) -> set[Cell]:
    """Floor cells dug by a random walk inside the 8x8 interior (always connected)."""
    inner = range(1, SIZE - 1)
    floor: set[Cell] = set()
    r, c = rng.choice(inner), rng.choice(inner)
    dr, dc = rng.choice(_STEPS)
    for _ in range(rng.randint(*_ROOM_WALK)):
        for br, bc in rng.choice(_BRUSHES):
            if r + br in inner and c + bc in inner:
                floor.add((r + br, c + bc))
        if rng.random() < _TURN_CHANCE:
            dr, dc = rng.choice(_STEPS)
        if r + dr not in inner or c + dc not in inner:
            dr, dc = rng.choice(_STEPS)
            continue
        r, c = r + dr, c + dc
    return floor


def _positions_by_pushes(grid: _PushGrid, deepest: int) -> list[list[tuple[int, int]]] | None:
    """The positions reverse play reaches from the solved level, by fewest pushes.

    Layer ``d`` (up to ``deepest``) holds (boxes mask, player region mask) of the
    positions whose best solution takes exactly ``d`` pushes: a breadth-first search
    over pulls (the player beside a box steps away from it, dragging it along; undone,
    a legal push) from the solved boxes with the player in each region. None past
    ``_MAX_POSITIONS``.
    """
    floor, boxes = grid.floor, grid.goals
    seen: set[tuple[int, int]] = set()
    layer = []
    unvisited = floor & ~boxes
    while unvisited:  # the solved position once per region the player can be in
        region = grid.reach((unvisited & -unvisited).bit_length() - 1, boxes)
        unvisited &= ~region
        seen.add((boxes, (region & -region).bit_length()))
        layer.append((boxes, region))
    layers = [layer]
    steps = tuple(grid.steps.values())
    while layer and len(layers) <= deepest:
        following = []
        for boxes, region in layer:
            open_floor = floor & ~boxes
            for step in steps:
                # A box with the player's region on one side and open floor two cells on.
                if step > 0:
                    pullable = boxes & (region >> step) & (open_floor >> (2 * step))
                else:
                    pullable = boxes & (region << -step) & (open_floor << (-2 * step))
                while pullable:
                    low = pullable & -pullable
                    pullable ^= low
                    box = low.bit_length() - 1
                    moved = boxes ^ low ^ (1 << (box + step))
                    reached = grid.reach(box + 2 * step, moved)
                    key = (moved, (reached & -reached).bit_length())
                    if key not in seen:
                        seen.add(key)
                        following.append((moved, reached))
        if len(seen) > _MAX_POSITIONS:
            return None
        if following:
            layers.append(following)
        layer = following
    return layers


def _candidate(rng: random.Random, pushes: int) -> tuple[str, ...] | None:
    """A dug room with a position whose fewest-push solution takes ``pushes`` pushes,
    no box on a goal and the player off the goals; None if this room has none."""
    floor = _carve_room(rng)
    if len(floor) < _MIN_FLOOR:
        return None
    cells = sorted(floor)  # sorted: set order must not leak into the random stream
    goals = rng.sample(cells, NUM_BOXES)
    walls = frozenset((r, c) for r in range(SIZE) for c in range(SIZE)) - frozenset(floor)
    solved = Board(SIZE, SIZE, walls, frozenset(goals), frozenset(goals), goals[0])
    grid = _PushGrid(solved)
    layers = _positions_by_pushes(grid, pushes)
    if layers is None or len(layers) <= pushes:
        return None
    # A box left on a goal makes the level easier than it looks; DeepMind's have none.
    eligible = [position for position in layers[pushes] if position[0] & grid.goals == 0]
    if not eligible:
        return None
    boxes, region = rng.choice(eligible)
    # NetHack will not start the hero on a fountain (it would land elsewhere).
    starts = sorted(_bits(region & ~grid.goals))
    if not starts:
        return None
    board = Board(SIZE, SIZE, walls, frozenset(goals), frozenset(map(grid.cell, _bits(boxes))),
                  grid.cell(rng.choice(starts)))
    return render_board(board)


def _rng_for(tier: str, seed: int) -> random.Random:
    # A string seed is hashed with SHA-512 by `random`, so the stream is the same on
    # every run and platform, and tiers of the same seed are unrelated.
    return random.Random(f"dungeonbench_gym/boxoban/{tier}/{int(seed)}")


def level_bin(rows: Sequence[str], pushes: int, moves: int) -> int:
    """The histogram bin of a level: its floor cells, pushes and moves, each binned by
    the edges above (floor outermost, moves innermost)."""
    floor = sum(ch != WALL for row in rows for ch in row)
    f = bisect_right(FLOOR_EDGES, floor)
    p = bisect_right(PUSH_EDGES, pushes)
    m = bisect_right(MOVE_EDGES, moves)
    return (f * (len(PUSH_EDGES) + 1) + p) * (len(MOVE_EDGES) + 1) + m


NUM_BINS = (len(FLOOR_EDGES) + 1) * (len(PUSH_EDGES) + 1) * (len(MOVE_EDGES) + 1)


@dataclass(frozen=True)
class TierTable:
    """A tier's calibration (boxoban_tiers.json): how many of DeepMind's levels need each
    number of pushes (``pushes[d]``), and per bin (`level_bin`) DeepMind's level count,
    our candidates' count and the probability that a candidate in the bin is kept."""

    pushes: tuple[int, ...]
    official: tuple[int, ...]
    candidates: tuple[int, ...]
    accept: tuple[float, ...]


def _numbers(values, length: int | None) -> bool:
    return (isinstance(values, list) and (length is None or len(values) == length)
            and all(isinstance(v, (int, float)) and v >= 0 for v in values))


@lru_cache(maxsize=None)
def tier_tables(path: str = str(TIERS_FILE)) -> dict[str, TierTable]:
    """Read and check the calibration file; errors name the file, the field and the fix."""
    fix = "rerun scripts/calibrate_boxoban.py (it rewrites the file)"
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise FileFormatError(path, "file", f"cannot be read as JSON ({error})", fix) from None
    expected = {"floor": list(FLOOR_EDGES), "pushes": list(PUSH_EDGES),
                "moves": list(MOVE_EDGES)}
    if data.get("bins") != expected:
        raise FileFormatError(path, "bins", f"are {data.get('bins')}, the code's are {expected}",
                              fix)
    if data.get("generator_version") != GENERATOR_VERSION:
        raise FileFormatError(path, "generator_version",
                              f"is {data.get('generator_version')}, the generator is "
                              f"{GENERATOR_VERSION}", fix)
    tables = {}
    for tier in TIERS:
        entry = data.get("tiers", {}).get(tier)
        if not isinstance(entry, dict):
            raise FileFormatError(path, f"tiers.{tier}", "is missing", fix)
        fields = {}
        for name, length in (("pushes", None), ("official", NUM_BINS),
                             ("candidates", NUM_BINS), ("accept", NUM_BINS)):
            if not _numbers(entry.get(name), length):
                size = f"{length} " if length else ""
                raise FileFormatError(path, f"tiers.{tier}.{name}",
                                      f"must be a list of {size}numbers >= 0", fix)
            fields[name] = tuple(entry[name])
        if not any(fields["pushes"]):
            raise FileFormatError(path, f"tiers.{tier}.pushes", "are all zero", fix)
        if max(fields["accept"]) > 1.0 or not any(fields["accept"]):
            raise FileFormatError(path, f"tiers.{tier}.accept",
                                  "must hold probabilities (0..1), not all zero", fix)
        tables[tier] = TierTable(**fields)
    return tables


def draw_candidate(rng: random.Random, push_counts: Sequence[float]) -> tuple[str, ...]:
    """One candidate: a push count drawn with weights ``push_counts`` (index = pushes),
    then up to ``_ROOMS_PER_DRAW`` rooms dug until one holds a position needing exactly
    that many (else a new count is drawn: the longest counts are rare in small rooms,
    and the calibration sees the same shortfall)."""
    for _ in range(MAX_CANDIDATES):
        pushes = rng.choices(range(len(push_counts)), push_counts)[0]
        for _ in range(_ROOMS_PER_DRAW):
            rows = _candidate(rng, pushes)
            if rows is not None:
                return rows
    raise RuntimeError(f"no Boxoban candidate in {MAX_CANDIDATES} draws")


def generate_level(seed: int, tier: str) -> Level:
    """The level of ``tier`` for ``seed``: candidates from the seed's random stream
    (`draw_candidate`), each kept with its bin's probability (`TierTable.accept`)."""
    _check_tier(tier)
    table = tier_tables()[tier]
    rng = _rng_for(tier, seed)
    for _ in range(MAX_CANDIDATES):
        rows = draw_candidate(rng, table.pushes)
        found = solve(rows, max_effort=MAX_EFFORT)
        if found is None:
            continue
        if rng.random() < table.accept[level_bin(rows, found.pushes, len(found.moves))]:
            return Level(rows, found.moves, found.pushes, found.effort, int(seed), tier)
    raise RuntimeError(f"no {tier} Boxoban level for seed {seed} in {MAX_CANDIDATES} candidates")


# ------------------------------------------------------------------------ level files

def format_levels(levels: Iterable[Level | Sequence[str]], first_index: int = 0) -> str:
    """Levels in Boxoban's text format: ``; <index>``, the rows, a blank line."""
    chunks = []
    for index, level in enumerate(levels, start=first_index):
        rows = level.rows if isinstance(level, Level) else tuple(level)
        chunks.append(f"; {index}\n" + "".join(row + "\n" for row in rows) + "\n")
    return "".join(chunks)


def write_level_file(levels: Iterable[Level | Sequence[str]], path: str | os.PathLike,
                     first_index: int = 0) -> Path:
    """Write levels to ``path`` in Boxoban's format (atomically: see core.cache)."""
    return write_text_atomic(path, format_levels(levels, first_index))


def parse_level_text(text: str, source: str | os.PathLike = "<text>") -> list[tuple[str, ...]]:
    """The levels in Boxoban-format ``text``; ``source`` names it in errors."""
    levels: list[tuple[str, ...]] = []
    rows: list[str] = []
    start_line = 0

    def close() -> None:
        if not rows:
            return
        if len(rows) != SIZE:
            raise FileFormatError(source, f"line {start_line}",
                                  f"a level has {len(rows)} rows, expected {SIZE}",
                                  "give every level 10 rows after its '; <index>' line")
        levels.append(tuple(rows))
        rows.clear()

    for line_no, line in enumerate(text.splitlines(), start=1):
        line = line.rstrip("\r")
        if line.startswith(";"):
            close()
            start_line = line_no
        elif line.strip() == "":
            close()
        else:
            if not rows:
                start_line = line_no
            bad = set(line) - LEVEL_CHARS
            if bad:
                raise FileFormatError(source, f"line {line_no}",
                                      f"unknown characters {''.join(sorted(bad))!r}",
                                      "use only Boxoban's characters: # $.@*+ and space")
            rows.append(line.ljust(SIZE))
    close()
    return levels


def read_level_file(path: str | os.PathLike) -> list[tuple[str, ...]]:
    """The levels of a Boxoban-format file (ours or DeepMind's)."""
    return parse_level_text(Path(path).read_text(encoding="utf-8"), path)


# --------------------------------------------------------------- levels for an env seed



def _cached_level_path(tier: str, seed: int) -> Path:
    return cache_dir("boxoban", tier) / f"v{GENERATOR_VERSION}-{int(seed)}.txt"


def _read_cached(path: Path) -> tuple[str, ...] | None:
    try:
        levels = read_level_file(path)
    except (OSError, ValueError):
        return None
    if len(levels) != 1:
        return None
    try:
        check_boxoban_rows(levels[0])
    except ValueError:
        return None
    return levels[0]


def _generated_level(tier: str, seed: int) -> tuple[tuple[str, ...], bool]:
    """Rows for the seed, from the cache or freshly made (then cached); and whether made."""
    path = _cached_level_path(tier, seed)
    rows = _read_cached(path)
    if rows is not None:
        return rows, False
    level = generate_level(seed, tier)
    write_level_file([level], path, first_index=int(seed))
    return level.rows, True


def _official_folder(levels_dir: str | os.PathLike, tier: str) -> Path:
    folder = Path(levels_dir).expanduser() / tier
    return folder / "train" if (folder / "train").is_dir() else folder


@lru_cache(maxsize=8)
def _official_index(folder: str, signature: tuple) -> tuple[tuple[Path, ...], tuple[int, ...]]:
    """The folder's level files and running level counts (files are only counted here,
    since DeepMind's medium/train holds 450,000 levels). ``signature`` invalidates."""
    files, ends, total = [], [], 0
    for path in sorted(Path(folder).glob("*.txt")):
        with open(path, encoding="utf-8") as handle:
            count = sum(1 for line in handle if line.startswith(";"))
        if count:
            total += count
            files.append(path)
            ends.append(total)
    return tuple(files), tuple(ends)


def _official_level(levels_dir: str | os.PathLike, tier: str, seed: int) -> tuple[str, ...]:
    folder = _official_folder(levels_dir, tier)
    fix = (f"put Boxoban level files (*.txt) in {Path(levels_dir) / tier}/ or its train/ "
           f"subfolder, or unset {LEVELS_DIR_ENV_VAR} to use generated levels")
    if not folder.is_dir():
        raise FileFormatError(folder, "levels", "folder not found", fix)
    signature = tuple((p.name, p.stat().st_mtime_ns) for p in sorted(folder.glob("*.txt")))
    files, ends = _official_index(str(folder), signature)
    if not ends:
        raise FileFormatError(folder, "levels", "no levels in any *.txt file", fix)
    position = int(seed) % ends[-1]
    file_number = bisect_right(ends, position)
    within = position - (ends[file_number - 1] if file_number else 0)
    levels = read_level_file(files[file_number])
    if within >= len(levels):
        raise FileFormatError(files[file_number], f"level {within}",
                              "a '; <index>' line is not followed by a level", fix)
    return levels[within]


def level_for_seed(tier: str, seed: int,
                   levels_dir: str | os.PathLike | None = None) -> tuple[str, ...]:
    """The rows of the ``tier`` level that an env reset with ``seed`` plays.

    With ``levels_dir`` (or ``$DUNGEONBENCH_BOXOBAN_DIR``) set, level ``seed % n`` of the
    official-format files in ``<dir>/<tier>/`` (or ``<dir>/<tier>/train/``); otherwise a
    generated level, cached under ``cache_dir("boxoban", tier)``.
    """
    _check_tier(tier)
    levels_dir = levels_dir or os.environ.get(LEVELS_DIR_ENV_VAR) or None
    if levels_dir is not None:
        return _official_level(levels_dir, tier, seed)
    return _generated_level(tier, seed)[0]


def prepare_levels(tier: str, seeds: Iterable[int], progress: bool = True) -> int:
    """Generate and cache the levels of ``seeds`` ahead of time; returns how many were
    new (the rest were already cached)."""
    from tqdm.auto import tqdm

    _check_tier(tier)
    seeds = list(seeds)
    made = 0
    for seed in tqdm(seeds, desc=f"boxoban {tier}", unit="level", disable=not progress):
        made += _generated_level(tier, seed)[1]
    return made
