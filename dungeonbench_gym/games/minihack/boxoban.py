"""Offline Boxoban: Sokoban rules, a push solver, a seeded level generator, level files.

MiniHack's Boxoban tasks read DeepMind's Boxoban level files, which upstream downloads
at run time. Without a network we make our own levels the way Boxoban's were made: a
room carved by a random walk, four boxes on four goals, then a walker that *pulls*
boxes away ("reverse play"), which can only produce solvable levels. A forward solver
then measures how much search each level takes, and the tiers keep levels whose effort
falls in a band. Pure Python + the standard library: no NLE or MiniHack import.

Level text uses Boxoban's characters: ``#`` wall, `` `` floor, ``$`` box, ``.`` goal,
``@`` player, ``*`` box on goal, ``+`` player on goal.
"""

from __future__ import annotations

import heapq
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


def solve(rows: Sequence[str], max_effort: int = 200_000) -> Solution | None:
    """Fewest-pushes solution of the level ``rows``, by A* over push-states.

    A state is the box set plus the player's reachable region (named by its lowest
    cell), so walking is free and only pushes cost. Pushes onto dead squares and into
    frozen 2x2 blocks are pruned. Returns None if the level is unsolvable or if more
    than ``max_effort`` states would have to be expanded.
    """
    board = parse_board(rows)
    if len(board.boxes) > len(board.goals):
        return None
    grid = _PushGrid(board)
    distance = grid.push_distance
    start_boxes = grid.start_boxes
    if start_boxes & ~grid.live:
        return None
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

@dataclass(frozen=True)
class TierSpec:
    """How candidates for a tier are made and which ones are kept."""

    pulls: tuple[int, int]  # range of the number of reverse-play pulls
    min_effort: int  # keep a level only if the solver expands at least this many states
    max_effort: int  # ... and at most this many (also the solver's cap, bounding time)
    min_pushes: int


# Tier bands, in push-states expanded by `solve`. Calibrated on 1,500 candidates per
# tier (2-core x86 machine, pure Python, ~55 us per expansion): candidates' effort has
# median ~50-80, 90th percentile ~0.8-1.4k, 99th ~5-7k. "medium" keeps the middle band
# [300, 2500] (about 8-13% of candidates; median kept effort ~700, ~12 pushes, ~0.1 s
# per level); "hard" keeps the top ~1% at >= 5000 (median kept effort ~6.5k, ~18
# pushes, ~1.5 s per level), capped at 40000 so one stubborn candidate costs <= ~2 s.
MEDIUM_MIN_EFFORT = 300
MEDIUM_MAX_EFFORT = 2_500
HARD_MIN_EFFORT = 5_000
HARD_MAX_EFFORT = 40_000

TIER_SPECS = {
    "medium": TierSpec(pulls=(15, 40), min_effort=MEDIUM_MIN_EFFORT,
                       max_effort=MEDIUM_MAX_EFFORT, min_pushes=8),
    "hard": TierSpec(pulls=(40, 100), min_effort=HARD_MIN_EFFORT,
                     max_effort=HARD_MAX_EFFORT, min_pushes=10),
}
# BALROG gives MiniHack tasks 100 steps: a kept level's plan (fewest pushes, walking
# included) must fit, so every level can be solved within the episode.
MAX_MOVES = 100
MAX_CANDIDATES = 20_000  # far above what any seed needs; only guards against a bug

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
_ROOM_WALK = (30, 60)  # digging steps
_TURN_CHANCE = 0.35
_MIN_FLOOR = 18
_REPEAT_PULL_CHANCE = 0.6
_FREE_GOAL_CHANCE = 0.9


@dataclass(frozen=True)
class Level:
    """A generated level with what the solver found about it."""

    rows: tuple[str, ...]
    solution: str
    pushes: int
    effort: int
    seed: int
    tier: str


def _tier_spec(tier: str) -> TierSpec:
    if tier not in TIER_SPECS:
        raise ValueError(f"unknown Boxoban tier {tier!r}; choose one of {', '.join(TIERS)}")
    return TIER_SPECS[tier]


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


def _walkable(floor: set[Cell], boxes: set[Cell], start: Cell) -> list[Cell]:
    """Cells the player reaches from ``start`` without touching a box, in BFS order."""
    seen = {start}
    order = [start]
    for r, c in order:  # the list grows while we walk it: a breadth-first search
        for dr, dc in _STEPS:
            cell = (r + dr, c + dc)
            if cell in floor and cell not in boxes and cell not in seen:
                seen.add(cell)
                order.append(cell)
    return order


def _reverse_play(rng: random.Random, floor: set[Cell], goals: list[Cell], player: Cell,
                  pulls: int) -> tuple[set[Cell], Cell]:
    """From the solved position, walk to boxes and pull them; return boxes and player.

    Each pull (player beside a box steps away from it, dragging it along) undone is a
    legal push, and walking is reversible, so the final position can always be solved.
    A pull in some direction is often repeated, so boxes travel rather than jitter.
    """
    boxes = set(goals)
    goal_set = set(goals)
    last_pull = None
    for _ in range(pulls):
        reachable = set(_walkable(floor, boxes, player))
        options = []
        for br, bc in sorted(boxes):
            for dr, dc in _STEPS:
                stand, retreat = (br + dr, bc + dc), (br + 2 * dr, bc + 2 * dc)
                if stand in reachable and retreat in floor and retreat not in boxes:
                    options.append(((br, bc), (dr, dc)))
        if not options:
            break
        if last_pull in options and rng.random() < _REPEAT_PULL_CHANCE:
            box, (dr, dc) = last_pull  # keep dragging the same box the same way
        else:
            on_goal = [option for option in options if option[0] in goal_set]
            if on_goal and rng.random() < _FREE_GOAL_CHANCE:
                options = on_goal  # boxes left on goals make levels easier than they look
            box, (dr, dc) = rng.choice(options)
        boxes.remove(box)
        moved = (box[0] + dr, box[1] + dc)
        boxes.add(moved)
        player = (box[0] + 2 * dr, box[1] + 2 * dc)
        last_pull = (moved, (dr, dc))
    # Finish anywhere the player can walk to, so the start hides the last pull.
    player = rng.choice(sorted(_walkable(floor, boxes, player)))
    return boxes, player


def _candidate(rng: random.Random, spec: TierSpec) -> tuple[str, ...] | None:
    """One unfiltered level, or None when the room or the walk came out unusable."""
    floor = _carve_room(rng)
    if len(floor) < _MIN_FLOOR:
        return None
    cells = sorted(floor)  # sorted: set order must not leak into the random stream
    picked = rng.sample(cells, NUM_BOXES + 1)
    goals, player = picked[:NUM_BOXES], picked[NUM_BOXES]
    boxes, player = _reverse_play(rng, floor, goals, player, rng.randint(*spec.pulls))
    if boxes & set(goals):
        return None  # a box still on a goal makes the level easier than it looks
    if player in goals:
        return None  # NetHack will not start the hero on a fountain: it would land elsewhere
    walls = {(r, c) for r in range(SIZE) for c in range(SIZE)} - floor
    board = Board(SIZE, SIZE, frozenset(walls), frozenset(goals), frozenset(boxes), player)
    return render_board(board)


def _rng_for(tier: str, seed: int) -> random.Random:
    # A string seed is hashed with SHA-512 by `random`, so the stream is the same on
    # every run and platform, and tiers of the same seed are unrelated.
    return random.Random(f"dungeonbench_gym/boxoban/{tier}/{int(seed)}")


def generate_level(seed: int, tier: str) -> Level:
    """The level of ``tier`` for ``seed``: the first candidate in the seed's random
    stream whose solver effort and push count fall in the tier's band."""
    spec = _tier_spec(tier)
    rng = _rng_for(tier, seed)
    for _ in range(MAX_CANDIDATES):
        rows = _candidate(rng, spec)
        if rows is None:
            continue
        found = solve(rows, max_effort=spec.max_effort)
        if found is None or found.effort < spec.min_effort or found.pushes < spec.min_pushes \
                or len(found.moves) > MAX_MOVES:
            continue
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

# Bumped whenever the generator's output for a seed changes, so stale caches are ignored.
GENERATOR_VERSION = 3   # 2: plans fit in MAX_MOVES; 3: the player never starts on a goal


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
    _tier_spec(tier)
    levels_dir = levels_dir or os.environ.get(LEVELS_DIR_ENV_VAR) or None
    if levels_dir is not None:
        return _official_level(levels_dir, tier, seed)
    return _generated_level(tier, seed)[0]


def prepare_levels(tier: str, seeds: Iterable[int], progress: bool = True) -> int:
    """Generate and cache the levels of ``seeds`` ahead of time; returns how many were
    new (the rest were already cached)."""
    from tqdm.auto import tqdm

    _tier_spec(tier)
    seeds = list(seeds)
    made = 0
    for seed in tqdm(seeds, desc=f"boxoban {tier}", unit="level", disable=not progress):
        made += _generated_level(tier, seed)[1]
    return made
