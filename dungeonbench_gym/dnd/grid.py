"""The battle map: a 2.5D grid of 5-foot squares, with distance, reach, cover, sight and movement.

Conventions (every caller relies on them)
-----------------------------------------
* A **cell** is ``(x, y)``: ``x`` the column (east is +x), ``y`` the row (south is +y); row 0 is
  the first string of the layout. A **position** is ``(x, y, z)``: the top-left cell of a
  creature's space plus ``z``, the absolute height in feet of the bottom of the creature. A creature
  on the ground has ``z`` equal to its *standing height* there (the highest floor under its space).
* **Canonical order** is row-major: cells sort by ``(y, x)``, positions by ``(y, x, z)``
  (:func:`cell_key`, :func:`position_key`). Everything this module returns is in that order.
* **Space**: a creature of size Tiny, Small or Medium takes 1x1 squares, Large 2x2, Huge 3x3,
  Gargantuan 4x4 (:func:`size_squares`), anchored at its top-left cell. Vertically it is as many
  5-foot layers tall as it is wide, so every creature is a cube of 5-foot cubes.
* **Distance** (PHB/SRD default grid rule): every square, diagonals included, is 5 feet
  (Chebyshev). Between two creatures it is measured between their nearest cubes, height included:
  ``5 * max(dx, dy, dz)`` in squares and layers, so a flyer 10 ft above the square next to you is
  10 ft away. :func:`distance_ft`, :func:`within_reach`.
* **Cover** (DMG grid rule, :meth:`BattleMap.cover`): the attacker picks the corner of its space and
  the square of the target's space that are best for it, and draws lines from that corner to the 4
  corners of that square. A line is *blocked* when it passes through the inside of a wall (or of
  solid ground, in 2.5D), or squeezes along the seam between two wall cells (an edge with walls on
  both sides, or a grid point between two diagonal wall cells); a line that only runs along one
  wall's face is not blocked. Blocked lines: 0 -> no cover, 1-2 -> half, 3 -> three-quarters,
  4 -> total (no line of effect: cannot be targeted). Low obstacles (``cover: half``, e.g. a low
  wall) and creatures in between give half cover when any unblocked line passes through them;
  ``cover: three_quarters`` cells (thick pillar, arrow slit) give three-quarters cover when at least
  two of the four lines pass through them and half cover when one does. Degrees do not add: the
  best one applies. The cells of the attacker and of the target never count. Lines run in 3D from
  the middle height of each creature, so a flyer sees over a low wall and a ledge hides creatures
  standing back from its edge; creature cells block at every height (they are columns). Against
  an area's point of origin (:meth:`BattleMap.cover_from_point`: a Dexterity save's cover) the
  lines are drawn from that point instead of the attacker's best corner.
* **Sight** (:meth:`BattleMap.can_see`) uses the same lines: heavily obscured cells (fog, dense
  foliage) block sight but not effect; a target whose every square is heavily obscured is unseen.
* **Movement** (:meth:`BattleMap.reachable`): Dijkstra over the 8 neighbours, 5 ft a step;
  difficult terrain and a non-hostile creature's space cost 5 ft more (not cumulative with each
  other, SRD); water costs 5 ft more without a swimming speed (stacks with difficult terrain:
  swimming in difficult terrain costs 3 ft a foot, SRD); crawling costs 5 ft more a step;
  overgrown plants (``overgrown``, Plant Growth) cost 4 ft a foot, 20 ft a square, in place of the
  difficult-terrain extra (not cumulative with it). A
  diagonal step may not cut a corner: both orthogonal neighbours it passes between must be free of
  walls and other impassable terrain (creatures do not count). Climbing up ``h`` feet costs
  ``2h`` extra feet without a climbing speed, ``h`` with one. Dropping down up to ``safe_drop_ft``
  (10 ft) costs nothing extra; a deeper drop is a climb down (same cost as climbing) or, with
  ``allow_falls=True``, a fall (no extra cost; the route reports it; :func:`fall_damage_dice`).
  Creatures may not end in an occupied space; hostile spaces (``blocked_by``) are never entered;
  a Large or bigger creature checks every cell of its space.
* **Squeezing** (SRD Combat > Movement and Position > Squeezing into a Smaller Space; ``squeeze=True``,
  walking only): a creature n squares wide (n >= 2) may also stand in and move through anchors where
  only a space one size smaller, (n-1)x(n-1) at the anchor, fits; every step onto such a *squeezed*
  anchor costs 5 ft more (1 extra foot per foot, on top of terrain). There its space is that
  (n-1)x(n-1) box: its standing height, hazards, the creatures it may not overlap and the threat areas
  (:meth:`BattleMap.threat_area` with ``squeeze=True``) are measured on it, and so are distance, reach,
  cover and areas once it stands there (``Combatant.squeezing``, :mod:`.state`).
  :meth:`Reach.squeezed` says which destinations are squeezed. A Medium or smaller creature never
  squeezes (n - 1 = 0), and flying keeps the whole-space rule (a simplification).
* **Flight** (``fly=True``): 3D, 26 neighbours, 5 ft a step, no corner cutting in 3D; flying
  ignores difficult terrain and water; walls of unlimited height cannot be flown over, walls and
  obstacles with a ``top`` can.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Mapping
from enum import IntEnum
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from ..core.errors import DungeonBenchError

__all__ = [
    "SQUARE_FT", "MapError", "Cover", "BattleMap", "Reach", "Route", "SIZE_SQUARES",
    "size_squares", "footprint", "box_of", "cell_key", "position_key", "distance_ft",
    "box_distance_ft", "within_reach", "fall_damage_dice", "DEFAULT_LEGEND",
    "WALL", "IMPASSABLE", "DIFFICULT", "OBSCURED", "LIGHTLY_OBSCURED", "WATER", "HAZARD",
    "HALF_COVER", "THREE_QUARTERS_COVER", "BLOCKS", "TREE", "PLANTS", "OVERGROWN",
]

SQUARE_FT = 5
_INF = float("inf")


class MapError(DungeonBenchError, ValueError):
    """A battle-map description that cannot be used; the message names the map and the field."""


class Cover(IntEnum):
    NONE = 0
    HALF = 1
    THREE_QUARTERS = 2
    TOTAL = 3

    @property
    def bonus(self) -> int | None:
        """Bonus to AC and Dexterity saving throws; None for total cover (cannot be targeted)."""
        return (0, 2, 5, None)[self]

    @property
    def save_bonus(self) -> int:
        """Bonus to a Dexterity saving throw against an effect that reached the creature anyway
        (total cover from an area's point of origin, yet inside it: counted as three-quarters)."""
        return (0, 2, 5, 5)[self]


# ----------------------------------------------------------------------------- cell flags
BLOCKS = 1 << 0                 # total cover: blocks sight and effect (walls)
IMPASSABLE = 1 << 1             # cannot be entered (walls, pillars)
DIFFICULT = 1 << 2
OBSCURED = 1 << 3               # heavily obscured: blocks sight only
LIGHTLY_OBSCURED = 1 << 4       # recorded for the engine (Perception); blocks nothing here
WATER = 1 << 5
HAZARD = 1 << 6
HALF_COVER = 1 << 7
THREE_QUARTERS_COVER = 1 << 8
TREE = 1 << 9                   # a tree: impassable, cover (three-quarters by default); Tree Stride
PLANTS = 1 << 10                # plants one walks through (undergrowth, brush, crops): Plant Growth
OVERGROWN = 1 << 11             # thick overgrown plants: 4 ft of movement a foot (Plant Growth)
WALL = BLOCKS | IMPASSABLE
_SIGHT_FLAGS = BLOCKS | OBSCURED | HALF_COVER | THREE_QUARTERS_COVER

SIZE_SQUARES = {"tiny": 1, "small": 1, "medium": 1, "large": 2, "huge": 3, "gargantuan": 4}


def size_squares(size: str | int) -> int:
    """Squares on a side of a creature's space: a size name (any case) or a number of squares."""
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        if 1 <= int(size) <= 8:
            return int(size)
        raise ValueError(f"size {size!r}: expected 1..8 squares or a size name")
    try:
        return SIZE_SQUARES[str(size).strip().lower()]
    except KeyError:
        raise ValueError(f"size {size!r}: expected one of {', '.join(SIZE_SQUARES)}") from None


def cell_key(cell) -> tuple[int, int]:
    """Sort key of the canonical (row-major) order of cells."""
    return (cell[1], cell[0])


def position_key(pos) -> tuple:
    """Sort key of the canonical order of positions: row-major, then height."""
    return (pos[1], pos[0], pos[2] if len(pos) > 2 else 0)


@lru_cache(maxsize=4096)
def footprint(x: int, y: int, n: int = 1) -> tuple[tuple[int, int], ...]:
    """The cells of an n x n space anchored at (x, y), row-major."""
    return tuple((x + i, y + j) for j in range(n) for i in range(n))


def _is_cell(obj) -> bool:
    return (isinstance(obj, tuple) and len(obj) in (2, 3)
            and isinstance(obj[0], (int, np.integer)) and not isinstance(obj[0], bool))


def box_of(cells) -> tuple[int, int, int]:
    """(x, y, n) of a creature's space: a single cell or an iterable of cells (its bounding box)."""
    if type(cells) is tuple:   # the hot cases first: a one-cell space, a plain cell
        if len(cells) == 1:
            c = cells[0]
            return c[0], c[1], 1
        if 2 <= len(cells) <= 3 and type(cells[0]) is int:
            return cells[0], int(cells[1]), 1
    if _is_cell(cells):
        return int(cells[0]), int(cells[1]), 1
    xs = [c[0] for c in cells]
    ys = [c[1] for c in cells]
    if not xs:
        raise ValueError("a creature's space needs at least one cell")
    x0, y0 = min(xs), min(ys)
    return x0, y0, max(max(xs) - x0, max(ys) - y0) + 1


def _gap(a0: int, a1: int, b0: int, b1: int) -> int:
    d = b0 - a1
    e = a0 - b1
    return d if d > e and d > 0 else (e if e > 0 else 0)


def box_distance_ft(ax: int, ay: int, an: int, az: float, bx: int, by: int, bn: int, bz: float) -> int:
    """Distance in feet between two spaces (anchor, squares on a side, bottom height in feet)."""
    la = int(az // SQUARE_FT)
    lb = int(bz // SQUARE_FT)
    # the largest gap on any axis (each as _gap: the empty squares between the two extents), inlined
    return SQUARE_FT * max(0, bx - ax - an + 1, ax - bx - bn + 1, by - ay - an + 1, ay - by - bn + 1,
                           lb - la - an + 1, la - lb - bn + 1)


def nearest_box_ft(positions, n: int, boxes) -> tuple[list, list]:
    """For every position (x, y, z ft) of an n x n space at once: the distance in feet to the
    nearest of ``boxes`` (x, y, n, z ft each) and that box's index (the first one on a tie).
    The same numbers as :func:`box_distance_ft`, vectorised over the positions."""
    if not positions or not boxes:
        return [], []
    P = np.asarray(positions)
    x0 = P[:, 0].astype(np.int64)
    y0 = P[:, 1].astype(np.int64)
    l0 = np.floor_divide(P[:, 2], SQUARE_FT).astype(np.int64)
    B = np.array([(bx, by, bx + bn - 1, by + bn - 1, int(bz // SQUARE_FT), int(bz // SQUARE_FT) + bn - 1)
                  for bx, by, bn, bz in boxes], dtype=np.int64)[:, :, None]
    g = np.maximum(np.maximum(np.maximum(B[:, 0] - (x0 + n - 1), x0 - B[:, 2]),
                              np.maximum(B[:, 1] - (y0 + n - 1), y0 - B[:, 3])),
                   np.maximum(np.maximum(B[:, 4] - (l0 + n - 1), l0 - B[:, 5]), 0))
    k = g.argmin(axis=0)
    return (SQUARE_FT * g[k, np.arange(len(P))]).tolist(), k.tolist()


def distance_ft(a_cells, b_cells, a_z: float = 0, b_z: float = 0) -> int:
    """Distance in feet between two creatures' spaces (nearest cubes; diagonals 5 ft; height counts)."""
    ax, ay, an = box_of(a_cells)
    bx, by, bn = box_of(b_cells)
    return box_distance_ft(ax, ay, an, a_z, bx, by, bn, b_z)


def within_reach(a_cells, b_cells, reach_ft: int, a_z: float = 0, b_z: float = 0) -> bool:
    """True when b is within a's reach (5 ft: adjacent, diagonals included; 10 ft: one square between)."""
    return distance_ft(a_cells, b_cells, a_z, b_z) <= reach_ft


def fall_damage_dice(height_ft: float) -> int:
    """Number of d6 of bludgeoning damage for a fall: 1d6 per 10 feet fallen, at most 20d6 (SRD)."""
    if height_ft <= 0:
        return 0
    return min(20, int(height_ft) // 10)


# ----------------------------------------------------------------------------- line tracing
@lru_cache(maxsize=1 << 16)
def _trace(px: int, py: int, dX: int, dY: int):
    """Cells a segment passes through, in half-square units ("doubled" coordinates).

    The segment starts at (px, py) (0 or 1: a grid line or a square's middle) and moves by
    (dX, dY). Returns (interiors, seams), both relative to the square containing the start
    (doubled start >> 1) and ordered along the segment:
      interiors: (rx, ry, t) the segment crosses the inside of square (rx, ry); t is where (0..1)
      seams: (rxa, rya, rxb, ryb, t) the segment runs between squares a and b (along their common
             edge, or through the grid point they touch diagonally): blocked only if both block.
    Exact integer arithmetic; translation invariant, so cached for every map.
    """
    if dX == 0 and dY == 0:
        return (), ()
    D = (abs(dX) or 1) * (abs(dY) or 1)
    events = set()
    for p, d in ((px, dX), (py, dY)):    # where the line crosses a grid line on each axis
        if d:
            lo, hi = (p, p + d) if d > 0 else (p + d, p)
            for k in range(lo, hi + 1):
                if k % 2 == 0:
                    s = (k - p) * D // d
                    if 0 < s < D:
                        events.add(s)
    pts = [0, *sorted(events), D]
    interiors, seams = [], []
    D2, D4 = 2 * D, 4 * D
    along_h = dY == 0 and py % 2 == 0
    along_v = dX == 0 and px % 2 == 0
    for a, b in zip(pts, pts[1:]):
        m = a + b                       # the interval's middle, in units of 1 / (2D)
        XN = px * D2 + dX * m           # doubled x, scaled by 2D
        YN = py * D2 + dY * m
        t = m / D2
        if along_h:
            cx = XN // D4
            cy = py // 2
            seams.append((cx, cy - 1, cx, cy, t))
        elif along_v:
            cy = YN // D4
            cx = px // 2
            seams.append((cx - 1, cy, cx, cy, t))
        else:
            interiors.append((XN // D4, YN // D4, t))
    if dX and dY:
        sx = 1 if dX > 0 else -1
        sy = 1 if dY > 0 else -1
        for s in events:
            xn = px * D + dX * s
            yn = py * D + dY * s
            if xn % D or yn % D:
                continue
            X, Y = xn // D, yn // D
            if X % 2 or Y % 2:
                continue
            i, j = X // 2, Y // 2
            if sx * sy > 0:
                seams.append((i, j - 1, i - 1, j, s / D))
            else:
                seams.append((i - 1, j - 1, i, j, s / D))
    seams.sort(key=lambda r: r[4])
    return tuple(interiors), tuple(seams)


class _Line(NamedTuple):
    blocked: bool
    obstruction: int        # 0, 1 (half-cover obstacle), 2 (three-quarters obstacle)
    obscured: bool          # passes through heavily obscured cells (sight)
    crossed: tuple          # indices of the cells it passes through (own cells excluded)


_BLOCKED_LINE = _Line(True, 0, True, ())
_DIRS8 = ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1))
_DIRS26 = tuple((dx, dy, dl) for dl in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
                if dx or dy or dl)


class Route(NamedTuple):
    """One movement route to a destination, the cheapest of its consequence class."""

    cost_ft: int
    path: tuple                  # positions (x, y, z) from the start to the destination
    provoked: tuple              # creature ids whose reach is left (opportunity attacks), sorted
    hazards: tuple               # ((hazard kind, cells entered), ...) sorted by kind
    zones: tuple                 # zone keys entered, sorted
    falls: tuple                 # heights in feet of the falls taken along the way

    @property
    def consequences(self) -> tuple:
        return (self.provoked, self.hazards, self.zones, self.falls)


# ----------------------------------------------------------------------------- route search
# BattleMap.routes searches labels: (state, provoked bits, zone bits, hazard counts per kind, fall
# dice, cost, index of the label it extends (-1: the start), feet fallen on the step into it).

def _dominated(a, b) -> bool:
    """Whether label a is no better than label b (b dominates a or equals it)."""
    return ((b[1] & ~a[1]) == 0 and b[2] == a[2] and b[4] <= a[4] and b[5] <= a[5]
            and all(x <= y for x, y in zip(b[3], a[3])))


def _dominated_no_hazards(a, b) -> bool:
    """_dominated on a map without hazard kinds: the same test without the empty counts."""
    return (b[1] & ~a[1]) == 0 and b[2] == a[2] and b[4] <= a[4] and b[5] <= a[5]


def _route_search(s, target, succ, heur, in_reach, zone_at, kind_of, nk, speed, dominated,
                  prune_dominated, max_labels, max_expansions) -> tuple[list, dict, set]:
    """The label-setting search of :meth:`BattleMap.routes`, cheapest label first, bounded by the
    speed and the caps: (every label made, label indices per state, indices of dominated labels)."""
    zero = (0,) * nk
    entries: list[tuple] = [(s, 0, zone_at.get(s, 0), zero, 0, 0, -1, 0)]
    labels: dict[int, list[int]] = {s: [0]}
    dead = set()
    heap = [(0, 0)]
    expansions = 0
    while heap and expansions < max_expansions:
        cost, ei = heapq.heappop(heap)
        if ei in dead:
            continue
        expansions += 1
        st, prov, zm, hc, fd, _c, _p, _f = entries[ei]
        if st == target:
            continue
        r_here = in_reach.get(st, 0)
        for v, c, fall, haz in succ(st):
            nc = cost + c
            if nc + heur(v) > speed:
                continue
            nprov = prov | (r_here & ~in_reach.get(v, 0))
            nzm = zm | zone_at.get(v, 0)
            nhc = hc
            if haz:
                lst = list(hc)
                for hcell in haz:
                    lst[kind_of[hcell]] += 1
                nhc = tuple(lst)
            nfd = fd + fall_damage_dice(fall) if fall else fd
            new = (v, nprov, nzm, nhc, nfd, nc, ei, fall)
            bucket = labels.setdefault(v, [])
            skip = False
            for oj in bucket:
                if oj in dead:
                    continue
                o = entries[oj]
                if prune_dominated:
                    if dominated(new, o):
                        skip = True
                        break
                elif o[1:5] == new[1:5] and o[5] <= nc:
                    skip = True
                    break
            if skip:
                continue
            if prune_dominated:
                for oj in bucket:
                    if oj not in dead and dominated(entries[oj], new):
                        dead.add(oj)
            live = [oj for oj in bucket if oj not in dead]
            if len(live) >= max_labels:
                continue
            entries.append(new)
            ej = len(entries) - 1
            live.append(ej)
            labels[v] = live
            heapq.heappush(heap, (nc, ej))
    return entries, labels, dead


def _routes_found(entries, at_target, dead, dominated, prune_dominated, decode, ids, zkeys, kinds,
                  zone_start) -> list[Route]:
    """The routes of :meth:`BattleMap.routes` from the labels that reached the target: the cheapest
    of each consequence class (the undominated ones with ``prune_dominated``), in canonical order."""
    best: dict[tuple, int] = {}
    for j in at_target:
        if j in dead:
            continue
        e = entries[j]
        k = (e[1], e[2], e[3], e[4])
        if k not in best or e[5] < entries[best[k]][5]:
            best[k] = j
    cands = list(best.values())
    if prune_dominated:   # keys are distinct, so domination is strict here
        cands = [a for a in cands
                 if not any(b != a and dominated(entries[a], entries[b]) for b in cands)]
    out = []
    for j in cands:
        e = entries[j]
        path, falls = [], []
        while j >= 0:
            ent = entries[j]
            path.append(decode(ent[0]))
            if ent[7]:
                falls.append(ent[7])
            j = ent[6]
        path.reverse()
        falls.reverse()
        prov = tuple(ids[b] for b in range(len(ids)) if e[1] >> b & 1)
        zk = tuple(zkeys[b] for b in range(len(zkeys)) if (e[2] & ~zone_start) >> b & 1)
        hz = tuple((kinds[k], cnt) for k, cnt in enumerate(e[3]) if cnt)
        out.append(Route(e[5], tuple(path), prov, hz, zk, tuple(falls)))
    out.sort(key=lambda r: (r.cost_ft, len(r.provoked), [str(p) for p in r.provoked],
                            r.hazards, [str(z) for z in r.zones], r.falls,
                            [position_key(p) for p in r.path]))
    return out


# ----------------------------------------------------------------------------- legend
DEFAULT_LEGEND: dict[str, dict] = {
    ".": {},
    "#": {"wall": True},
    ",": {"difficult": True},                                   # rubble, undergrowth
    "%": {"obscured": "heavy"},                                 # dense foliage, thick fog
    "=": {"cover": "half", "difficult": True},                  # low wall (3 ft): climb over
    "O": {"cover": "three_quarters", "passable": False},        # thick pillar
    "~": {"water": True},
    "T": {"tree": True},                                        # a tree (three-quarters cover, SRD)
    ";": {"difficult": True, "plants": True},                   # undergrowth, brush
}
_LEGEND_KEYS = ("wall", "passable", "difficult", "obscured", "cover", "water", "hazard", "height",
                "top", "name", "tree", "plants", "overgrown", "light")
_COVER_NAMES = {"none": 0, "half": HALF_COVER, "three_quarters": THREE_QUARTERS_COVER,
                "three-quarters": THREE_QUARTERS_COVER, "total": BLOCKS}


class _Entry(NamedTuple):
    flags: int
    height: int | None
    top: float
    hazard: dict | None
    spec: dict


def _compile_entry(mapname: str, ch: str, spec: Any) -> _Entry:
    where = f"map '{mapname}': legend '{ch}'"
    if not isinstance(spec, Mapping):
        raise MapError(f"{where}: expected a mapping of properties such as "
                       f"{{\"wall\": true}} or {{\"difficult\": true}}, got {spec!r}")
    for key in spec:
        if key not in _LEGEND_KEYS:
            raise MapError(f"{where}: unknown key '{key}'; expected one of {', '.join(_LEGEND_KEYS)}")

    def boolean(key):
        v = spec.get(key, False)
        if not isinstance(v, bool):
            raise MapError(f"{where}: '{key}' must be true or false, got {v!r}")
        return v

    flags = 0
    wall = boolean("wall")
    if wall:
        flags |= WALL
    tree = boolean("tree")   # SRD cover: "a thick tree trunk" gives three-quarters cover; its square is not entered
    if tree:
        if wall:
            raise MapError(f"{where}: a tree is not a wall; drop 'wall' (a tree's square is impassable "
                           f"and gives three-quarters cover by itself)")
        if spec.get("passable", False) is not False:
            raise MapError(f"{where}: a tree's trunk fills its square, so it cannot be passable; drop "
                           f"'passable' (for brush one walks through use \"plants\": true)")
        if spec.get("cover", "three_quarters") not in ("half", "three_quarters", "three-quarters"):
            raise MapError(f"{where}: a tree gives half or three_quarters cover, got {spec['cover']!r}; "
                           f"drop 'cover' for three-quarters, or use \"wall\": true for a solid obstacle")
        flags |= TREE
    plants, overgrown = boolean("plants"), boolean("overgrown")
    if (plants or overgrown) and (wall or tree):
        raise MapError(f"{where}: 'plants' and 'overgrown' mark plants one walks through (undergrowth), "
                       f"not a {'wall' if wall else 'tree'}; drop them or give the undergrowth its own "
                       f"legend character")
    if plants or overgrown:
        flags |= PLANTS
    if overgrown:
        flags |= OVERGROWN
    if boolean("difficult"):
        flags |= DIFFICULT
    if boolean("water"):
        flags |= WATER
    obscured = spec.get("obscured", False)
    if obscured is True or obscured == "heavy":
        flags |= OBSCURED
    elif obscured == "light":
        flags |= LIGHTLY_OBSCURED
    elif obscured not in (False, None, "none"):
        raise MapError(f"{where}: 'obscured' must be \"heavy\", \"light\" or false, got {obscured!r}")
    cover = spec.get("cover", "three_quarters" if tree else "none")
    if cover not in _COVER_NAMES:
        raise MapError(f"{where}: 'cover' must be one of half, three_quarters, total, none; "
                       f"got {cover!r}")
    flags |= _COVER_NAMES[cover]
    passable = spec.get("passable", not (flags & BLOCKS) and not tree)
    if not isinstance(passable, bool):
        raise MapError(f"{where}: 'passable' must be true or false, got {passable!r}")
    if wall and passable:
        raise MapError(f"{where}: a wall cannot be passable; use cover: total with passable: true")
    if not passable:
        flags |= IMPASSABLE
    hazard = spec.get("hazard")
    if hazard is not None:
        if isinstance(hazard, str) and hazard:
            hazard = {"kind": hazard}
        elif isinstance(hazard, Mapping) and isinstance(hazard.get("kind"), str) and hazard["kind"]:
            hazard = dict(hazard)
        else:
            raise MapError(f"{where}: 'hazard' must be a kind such as \"fire\" or a mapping with a "
                           f"'kind' (e.g. {{\"kind\": \"pit\", \"depth\": 20}}), got {hazard!r}")
        flags |= HAZARD
    light = spec.get("light")   # a light on this square (a brazier): read by dnd/lighting.py
    if light is not None:
        if not isinstance(light, int) or isinstance(light, bool) or light <= 0 or light % SQUARE_FT:
            raise MapError(f"{where}: 'light' must be the radius of its bright light in feet, a positive "
                           f"multiple of 5 (dim light reaches as far again), e.g. light = 20; got {light!r}")
        if wall:
            raise MapError(f"{where}: a wall square cannot hold a light (walls block it); put 'light' on a "
                           f"floor or pillar square, e.g. {{ name = \"brazier\", passable = false, light = 20 }}")
    height = spec.get("height")
    if height is not None and (not isinstance(height, int) or isinstance(height, bool)
                               or height % SQUARE_FT):
        raise MapError(f"{where}: 'height' must be a whole number of feet, a multiple of 5, "
                       f"got {height!r}")
    top = spec.get("top", "default")
    if top == "default":
        top = 3.0 if (flags & HALF_COVER and not flags & (BLOCKS | THREE_QUARTERS_COVER)) else _INF
    elif top is None:
        top = _INF
    elif isinstance(top, (int, float)) and not isinstance(top, bool) and top > 0:
        top = float(top)
    else:
        raise MapError(f"{where}: 'top' (height of the feature above the floor, feet) must be a "
                       f"positive number or null for unlimited, got {top!r}")
    return _Entry(flags, height, top, hazard, dict(spec))


# ----------------------------------------------------------------------------- the map
def _line_ends(W: int, ax, ay, an, az, tx, ty, tn, tz) -> tuple:
    """What every line between two spaces shares: the eye heights (mid-height of each space),
    both spaces' cell indices (lines may cross them) and the viewer's boundary corners."""
    own = {(ay + j) * W + ax + i for j in range(an) for i in range(an)}
    own.update((ty + j) * W + tx + i for j in range(tn) for i in range(tn))
    corners = [(ax + i, ay + j) for j in range(an + 1) for i in range(an + 1)
               if i in (0, an) or j in (0, an)]
    return az + 2.5 * an, tz + 2.5 * tn, own, corners


class BattleMap:
    """Immutable terrain of one battle: build it with :meth:`from_dict` (scenarios are data).

    Data format::

        {"layout": ["#########",          # one string per row, north first; one char per cell
                    "#..,,..~#",
                    "#..=.O.%#",
                    "#########"],
         "legend": {"^": {"hazard": {"kind": "fire", "damage": "1d10"}, "difficult": true},
                    "H": {"height": 10}},   # merged over DEFAULT_LEGEND
         "heights": [[0, 0, 10, ...], ...]} # optional: floor height of every cell, in feet

    Legend keys: ``wall`` (impassable, blocks sight and effect), ``passable``, ``difficult``,
    ``obscured`` ("heavy" blocks sight, "light" is recorded), ``cover`` (half, three_quarters,
    total), ``water``, ``hazard`` (a kind or a mapping with ``kind`` and the engine's parameters),
    ``height`` (floor height in feet, when no ``heights`` grid is given), ``top`` (height of the
    feature above the floor in feet for sight lines; null = unlimited; low walls default to 3),
    ``name``, ``tree`` (a tree: not entered, three-quarters cover unless ``cover`` says half;
    default ``T``), ``plants`` (plants one walks through: undergrowth, brush, crops; default ``;``,
    difficult too), ``overgrown`` (thick overgrown plants: 4 ft of movement a foot, i.e. 20 ft a
    square; what Plant Growth leaves), ``light`` (a light on the square, e.g. a brazier: bright
    light that many feet around it and dim light as far again, in a dim or dark battle:
    dnd/lighting.py). A ``heights`` grid, when given, sets every cell's floor
    height. :attr:`tree_cells` and :attr:`plant_cells` list the trees and the plants.
    """

    __slots__ = ("name", "width", "height", "size", "layout", "legend", "elevation", "flags",
                 "_flags", "_elev", "_top", "_hazards", "_cache", "_pair_cache",
                 "_cover_cache", "_min_layer", "_has_blockers", "_flat", "tree_cells", "plant_cells")

    def __init__(self, name: str, layout: list[str], legend: Mapping[str, Mapping] | None = None,
                 heights: list | None = None):
        self.name = str(name)
        where = f"map '{self.name}'"
        if not isinstance(layout, (list, tuple)) or not layout:
            raise MapError(f"{where}: 'layout' must be a non-empty list of strings, one per row")
        for y, row in enumerate(layout):
            if not isinstance(row, str):
                raise MapError(f"{where}: layout row {y} must be a string, got {type(row).__name__}")
        width = len(layout[0])
        if width == 0:
            raise MapError(f"{where}: layout row 0 is empty; expected at least 1 column")
        for y, row in enumerate(layout):
            if len(row) != width:
                raise MapError(f"{where}: layout row {y} has {len(row)} columns, expected {width}")
        merged = dict(DEFAULT_LEGEND)
        if legend is not None:
            if not isinstance(legend, Mapping):
                raise MapError(f"{where}: 'legend' must be a mapping of characters to properties")
            for ch, spec in legend.items():
                if not isinstance(ch, str) or len(ch) != 1:
                    raise MapError(f"{where}: legend key {ch!r} must be a single character")
                merged[ch] = spec
        entries = {ch: _compile_entry(self.name, ch, spec) for ch, spec in merged.items()}
        H = len(layout)
        W = width
        self.width, self.height, self.size = W, H, W * H
        self.layout = tuple(layout)
        self.legend = {ch: entries[ch].spec for ch in sorted(entries)}
        flags = [0] * (W * H)
        elev = [0] * (W * H)
        top = [_INF] * (W * H)
        hazards: dict[int, dict] = {}
        for y, row in enumerate(layout):
            for x, ch in enumerate(row):
                e = entries.get(ch)
                if e is None:
                    known = " ".join(repr(c) for c in sorted(entries))
                    raise MapError(f"{where}: layout row {y}, column {x}: unknown legend character "
                                   f"{ch!r}; expected one of {known} or add it to 'legend'")
                i = y * W + x
                flags[i] = e.flags
                elev[i] = e.height or 0
                top[i] = e.top
                if e.hazard is not None:
                    hazards[i] = e.hazard
        if heights is not None:
            if not isinstance(heights, (list, tuple)):
                raise MapError(f"{where}: 'heights' must be a list of rows of floor heights in feet")
            if len(heights) != H:
                raise MapError(f"{where}: 'heights' has {len(heights)} rows, expected {H}")
            for y, row in enumerate(heights):
                if isinstance(row, str):
                    try:
                        row = [int(v) for v in row.split()]
                    except ValueError:
                        raise MapError(f"{where}: heights row {y}: expected whole numbers of feet "
                                       f"separated by spaces, got {row!r}") from None
                if not isinstance(row, (list, tuple)):
                    raise MapError(f"{where}: heights row {y} must be a list of numbers")
                if len(row) != W:
                    raise MapError(f"{where}: heights row {y} has {len(row)} values, expected {W}")
                for x, v in enumerate(row):
                    if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v % SQUARE_FT:
                        raise MapError(f"{where}: heights row {y}, column {x}: {v!r}; expected a "
                                       f"whole number of feet, a multiple of 5")
                    elev[y * W + x] = int(v)
        self._flags = flags
        self._elev = elev
        self._top = top
        self._hazards = hazards
        self.flags = np.array(flags, dtype=np.int32).reshape(H, W)
        self.flags.flags.writeable = False
        self.elevation = np.array(elev, dtype=np.int32).reshape(H, W)
        self.elevation.flags.writeable = False
        self._min_layer = min(elev) // SQUARE_FT
        self._has_blockers = any(f & (BLOCKS | OBSCURED | HALF_COVER | THREE_QUARTERS_COVER)
                                 for f in flags)
        self._flat = min(elev) == max(elev)
        # trees and walkable plants, row-major (Tree Stride, Transport via Plants, Plant Growth)
        self.tree_cells = tuple((i % W, i // W) for i, f in enumerate(flags) if f & TREE)
        self.plant_cells = tuple((i % W, i // W) for i, f in enumerate(flags) if f & PLANTS)
        self._cache: dict = {}
        self._pair_cache: dict = {}
        self._cover_cache: dict = {}

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_dict(cls, data: Mapping, name: str | None = None) -> BattleMap:
        """Build a map from its data description (see the class docstring)."""
        mapname = name if name is not None else (data.get("name", "?") if isinstance(data, Mapping)
                                                 else "?")
        if not isinstance(data, Mapping):
            raise MapError(f"map '{mapname}': expected a mapping with 'layout' (and optionally "
                           f"'legend', 'heights'), got {type(data).__name__}")
        unknown = [k for k in data if k not in ("layout", "legend", "heights", "name")]
        if unknown:
            raise MapError(f"map '{mapname}': unknown field '{unknown[0]}'; expected layout, legend, "
                           f"heights, name")
        if "layout" not in data:
            raise MapError(f"map '{mapname}': missing field 'layout' (a list of strings, one per row)")
        return cls(mapname, data["layout"], data.get("legend"), data.get("heights"))

    def to_dict(self) -> dict:
        """The data description this map round-trips through (heights always written)."""
        H, W = self.height, self.width
        used = {ch for row in self.layout for ch in row}
        return {"name": self.name, "layout": list(self.layout),
                "legend": {ch: dict(spec) for ch, spec in self.legend.items() if ch in used},
                "heights": [self._elev[y * W:(y + 1) * W] for y in range(H)]}

    def with_cells(self, changes: Mapping, name: str | None = None) -> BattleMap:
        """A new map like this one with some cells changed (a wall that appears mid-battle, a
        passage opened through one): ``changes`` maps ``(x, y)`` to a legend character of this map
        or to a legend spec such as ``{"wall": True, "top": 10}``. Floor heights, the other cells'
        terrain and hazards and the name (unless given) are kept; this map and its caches are left
        as they are. Cells off the map are ignored."""
        legend = dict(self.legend)
        rows = [list(r) for r in self.layout]
        # new legend characters: punctuation first (views draw creatures by their initials)
        spare = (ch for ch in "|:+*&$@;!?-_/\\()[]{}<>0123456789ABCDEFGHIJKLMNPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                 if ch not in legend)
        chars: dict = {}
        for (x, y), what in sorted(changes.items(), key=lambda kv: cell_key(kv[0])):
            if not self.in_bounds(x, y):
                continue
            if isinstance(what, str):
                if what not in legend:
                    raise MapError(f"map '{self.name}': with_cells: unknown legend character {what!r}")
                ch = what
            else:
                spec_key = tuple(sorted((k, repr(v)) for k, v in dict(what).items()))
                ch = chars.get(spec_key)
                if ch is None:
                    ch = chars[spec_key] = next(spare)
                    legend[ch] = dict(what)
            rows[y][x] = ch
        W = self.width
        heights = [self._elev[y * W:(y + 1) * W] for y in range(self.height)]
        return BattleMap(self.name if name is None else name, ["".join(r) for r in rows], legend, heights)

    def __repr__(self) -> str:
        return f"BattleMap({self.name!r}, {self.width}x{self.height})"

    # ------------------------------------------------------------------ cells
    def in_bounds(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def index(self, x: int, y: int) -> int:
        return y * self.width + x

    def cell(self, i: int) -> tuple[int, int]:
        return i % self.width, i // self.width

    def cells(self) -> Iterator[tuple[int, int]]:
        """Every cell, row-major."""
        W = self.width
        return ((x, y) for y in range(self.height) for x in range(W))

    def flags_at(self, x: int, y: int) -> int:
        return self._flags[y * self.width + x]

    def elevation_at(self, x: int, y: int) -> int:
        """Floor height of a cell, in feet."""
        return self._elev[y * self.width + x]

    def is_wall(self, x: int, y: int) -> bool:
        return bool(self._flags[y * self.width + x] & BLOCKS)

    def is_passable(self, x: int, y: int) -> bool:
        return self.in_bounds(x, y) and not self._flags[y * self.width + x] & IMPASSABLE

    def is_difficult(self, x: int, y: int) -> bool:
        return bool(self._flags[y * self.width + x] & DIFFICULT)

    def is_water(self, x: int, y: int) -> bool:
        return bool(self._flags[y * self.width + x] & WATER)

    def is_obscured(self, x: int, y: int) -> bool:
        """Heavily obscured (blocks sight)."""
        return bool(self._flags[y * self.width + x] & OBSCURED)

    def hazard_at(self, x: int, y: int) -> dict | None:
        """The hazard of a cell (a dict with 'kind' and the scenario's parameters) or None."""
        return self._hazards.get(y * self.width + x)

    @property
    def hazard_cells(self) -> tuple[tuple[int, int], ...]:
        return tuple(self.cell(i) for i in sorted(self._hazards))

    def fits(self, x: int, y: int, size: str | int = 1) -> bool:
        """True when a space of this size anchored at (x, y) lies on passable cells of the map."""
        n = size_squares(size)
        if x < 0 or y < 0 or x + n > self.width or y + n > self.height:
            return False
        W, f = self.width, self._flags
        return not any(f[(y + j) * W + x + i] & IMPASSABLE for j in range(n) for i in range(n))

    def standing_z(self, x: int, y: int, size: str | int = 1) -> int:
        """Height in feet of a creature standing with its space anchored at (x, y): the highest floor."""
        n = size if type(size) is int and 1 <= size <= 8 else size_squares(size)
        W, e = self.width, self._elev
        if 0 <= x <= W - n and 0 <= y <= self.height - n:   # inside the map: the per-size table
            return e[y * W + x] if n == 1 else self._anchors(n)[1][y * W + x]
        return max(e[(y + j) * W + x + i] for j in range(n) for i in range(n)
                   if 0 <= x + i < W and 0 <= y + j < self.height)

    # ------------------------------------------------------------------ distance
    def distance_ft(self, a_cells, b_cells, a_z: float | None = None, b_z: float | None = None) -> int:
        """Distance between two spaces; a missing height is the standing height there."""
        ax, ay, an = box_of(a_cells)
        bx, by, bn = box_of(b_cells)
        if a_z is None:
            a_z = self.standing_z(ax, ay, an)
        if b_z is None:
            b_z = self.standing_z(bx, by, bn)
        return box_distance_ft(ax, ay, an, a_z, bx, by, bn, b_z)

    def within_reach(self, a_cells, b_cells, reach_ft: int, a_z: float | None = None,
                     b_z: float | None = None) -> bool:
        return self.distance_ft(a_cells, b_cells, a_z, b_z) <= reach_ft

    def threat_area(self, enemy_cells, reach_ft: int, mover_size: str | int = 1, *,
                    enemy_z: float | None = None, fly: bool = False,
                    max_altitude_ft: int | None = None, squeeze: bool = False) -> frozenset:
        """Positions a mover of this size can occupy while within the enemy's reach.

        For walking movers: anchors ``(x, y)`` (standing height there). With ``fly=True``:
        positions ``(x, y, z)`` from the floor up to ``max_altitude_ft`` (default: just out of
        reach above the enemy). Feed one per enemy to :meth:`routes`. ``squeeze`` (walkers two or
        more squares wide): squeezed anchors too, measured from the (n-1)x(n-1) space taken there.
        """
        n = size_squares(mover_size)
        squeeze = bool(squeeze) and n > 1 and not fly
        ex, ey, en = box_of(enemy_cells)
        if enemy_z is None:
            enemy_z = self.standing_z(ex, ey, en)
        # the terrain fixes the answer: every move near a foe asks it again, so keep it
        memo = self._cache.get("threat")
        if memo is None or len(memo) > 20_000:
            memo = self._cache["threat"] = {}
        key = (ex, ey, en, enemy_z, reach_ft, n, fly, max_altitude_ft if fly else None, squeeze)
        got = memo.get(key)
        if got is None:
            got = self._threat_area(ex, ey, en, enemy_z, reach_ft, n, fly, max_altitude_ft)
            if squeeze:   # and the squeezed anchors, a smaller space each
                ok, zs, _fl, tight = self._squeeze_anchors(n)
                W, H, r, k = self.width, self.height, reach_ft // SQUARE_FT, n - 1
                got = got | frozenset(
                    (x, y) for y in range(max(0, ey - r - k + 1), min(H - k, ey + en - 1 + r) + 1)
                    for x in range(max(0, ex - r - k + 1), min(W - k, ex + en - 1 + r) + 1)
                    if tight[y * W + x] and box_distance_ft(x, y, k, zs[y * W + x], ex, ey, en, enemy_z) <= reach_ft)
            memo[key] = got
        return got

    def _threat_area(self, ex, ey, en, enemy_z, reach_ft, n, fly, max_altitude_ft) -> frozenset:
        r = reach_ft // SQUARE_FT
        out = []
        W, H = self.width, self.height
        for y in range(max(0, ey - r - n + 1), min(H - n, ey + en - 1 + r) + 1):
            for x in range(max(0, ex - r - n + 1), min(W - n, ex + en - 1 + r) + 1):
                if not self.fits(x, y, n):
                    continue
                sz = self.standing_z(x, y, n)
                if not fly:
                    if box_distance_ft(x, y, n, sz, ex, ey, en, enemy_z) <= reach_ft:
                        out.append((x, y))
                    continue
                top = max_altitude_ft if max_altitude_ft is not None else \
                    int(enemy_z) + (en + r) * SQUARE_FT
                for z in range(sz, top + 1, SQUARE_FT):
                    if box_distance_ft(x, y, n, z, ex, ey, en, enemy_z) <= reach_ft and \
                            self._anchor_free3(x, y, z // SQUARE_FT, n):
                        out.append((x, y, z))
        return frozenset(out)

    # ------------------------------------------------------------------ lines, cover, sight
    def _box(self, cells, z):
        x, y, n = box_of(cells)
        if z is None:
            z = self.standing_z(x, y, n)
        return x, y, n, z

    def _line_tables(self):
        """For :meth:`_eval_line`, per cell: the height below which a line is blocked (the floor,
        or a wall's top), the sight flags of soft features (cover, fog) and their top. Per map."""
        rec = self._cache.get("lines")
        if rec is None:
            f, e, top = self._flags, self._elev, self._top
            rec = self._cache["lines"] = (
                [e[i] + top[i] if f[i] & BLOCKS else e[i] for i in range(self.size)],
                [f[i] & (OBSCURED | HALF_COVER | THREE_QUARTERS_COVER) for i in range(self.size)],
                [e[i] + top[i] for i in range(self.size)])
        return rec

    def _eval_line(self, X0: int, Y0: int, X1: int, Y1: int, za: float, zb: float,
                   own: frozenset | set | tuple = ()) -> _Line:
        """Trace one line (doubled coordinates, heights in feet at both ends)."""
        interiors, seams = _trace(X0 & 1, Y0 & 1, X1 - X0, Y1 - Y0)
        bx, by = X0 >> 1, Y0 >> 1
        W, H = self.width, self.height
        dz = zb - za
        obst = 0
        obscured = False
        crossed = []
        if 0 <= X0 <= 2 * W and 0 <= X1 <= 2 * W and 0 <= Y0 <= 2 * H and 0 <= Y1 <= 2 * H:
            # both ends on the map, so every square crossed is on it: per-map tables, no bounds checks
            hard, soft, stop = self._line_tables()
            base = by * W + bx
            for rx, ry, t in interiors:
                i = base + ry * W + rx
                if i in own:
                    continue
                z = za + dz * t
                if z < hard[i]:
                    return _BLOCKED_LINE
                s = soft[i]
                if s and z < stop[i]:
                    if s & THREE_QUARTERS_COVER:
                        obst = 2
                    elif s & HALF_COVER and obst < 1:
                        obst = 1
                    if s & OBSCURED:
                        obscured = True
                crossed.append(i)
            interiors = ()
        flags, elev, top = self._flags, self._elev, self._top
        for rx, ry, t in interiors:
            x = bx + rx
            y = by + ry
            if x < 0 or y < 0 or x >= W or y >= H:
                return _BLOCKED_LINE
            i = y * W + x
            if i in own:
                continue
            z = za + dz * t
            e = elev[i]
            if z < e:
                return _BLOCKED_LINE
            f = flags[i]
            if f & _SIGHT_FLAGS and z < e + top[i]:
                if f & BLOCKS:
                    return _BLOCKED_LINE
                if f & THREE_QUARTERS_COVER:
                    obst = 2
                elif f & HALF_COVER and obst < 1:
                    obst = 1
                if f & OBSCURED:
                    obscured = True
            crossed.append(i)
        for xa, ya, xb, yb, t in seams:
            z = za + dz * t
            a = self._solidity(bx + xa, by + ya, z)
            if a:
                b = self._solidity(bx + xb, by + yb, z)
                if a & b & 1:
                    return _Line(True, 0, True, ())
                if a & b & 2:
                    obscured = True
        return _Line(False, obst, obscured, tuple(crossed))

    def _solidity(self, x: int, y: int, z: float) -> int:
        """1: blocks lines at height z (wall, ground, off the map); 2: obscures sight there."""
        if x < 0 or y < 0 or x >= self.width or y >= self.height:
            return 3
        i = y * self.width + x
        e = self._elev[i]
        if z < e:
            return 3
        f = self._flags[i]
        if z < e + self._top[i]:
            if f & BLOCKS:
                return 3
            if f & OBSCURED:
                return 2
        return 0

    def _pairs(self, abox, tbox):
        """Per (attacker corner, target square): static cover degree and the clear lines' cells."""
        key = (abox, tbox)
        rec = self._pair_cache.get(key)
        if rec is not None:
            return rec
        if len(self._pair_cache) > 200_000:
            self._pair_cache.clear()
        ax, ay, an, az = abox
        W = self.width
        za, zt, own, corners = _line_ends(W, ax, ay, an, az, *tbox)
        a_obscured = all(self._flags[(ay + j) * W + ax + i] & OBSCURED and
                         az < self._elev[(ay + j) * W + ax + i] + self._top[(ay + j) * W + ax + i]
                         for j in range(an) for i in range(an))
        rec = self._line_records([(2 * cx, 2 * cy) for cx, cy in corners], za, zt, own, tbox, a_obscured)
        self._pair_cache[key] = rec
        return rec

    def _line_records(self, starts, za: float, zt: float, own, tbox, a_obscured: bool) -> tuple:
        """Per (start point, target square), best first: the cover degree of the 4 lines from the
        start (doubled coordinates, height ``za``) to the square's corners (height ``zt``), the
        cells of the clear lines, whether one is a sight line, and how many are blocked."""
        tx, ty, tn, tz = tbox
        W = self.width
        pairs = []
        for sy in range(ty, ty + tn):
            for sx in range(tx, tx + tn):
                si = sy * W + sx
                s_obscured = bool(self._flags[si] & OBSCURED and tz < self._elev[si] + self._top[si])
                for X0, Y0 in starts:
                    nblocked = 0
                    n2 = 0
                    n1 = 0
                    clear = []          # crossings of unblocked, unobstructed lines
                    sight = False
                    for qx, qy in ((sx, sy), (sx + 1, sy), (sx, sy + 1), (sx + 1, sy + 1)):
                        ln = self._eval_line(X0, Y0, 2 * qx, 2 * qy, za, zt, own)
                        if ln.blocked:
                            nblocked += 1
                            continue
                        if ln.obstruction:
                            n1 += 1
                            if ln.obstruction == 2:
                                n2 += 1
                        else:
                            clear.append(ln.crossed)
                        if not ln.obscured and not s_obscured and not a_obscured:
                            sight = True
                    deg = (0, 1, 1, 2, 3)[nblocked]
                    if n2 >= 2:
                        odeg = 2
                    elif n1:
                        odeg = 1
                    else:
                        odeg = 0
                    if odeg > deg and nblocked < 4:
                        deg = odeg
                    pairs.append((deg, tuple(clear), sight, nblocked))
        # best pairs first, so queries can stop early
        pairs.sort(key=lambda p: p[0])
        return tuple(pairs)

    def cover(self, attacker_cells, target_cells, creature_cells: Iterable = frozenset(), *,
              attacker_z: float | None = None, target_z: float | None = None) -> Cover:
        """Cover of the target against the attacker (see the module docstring for the rule).

        ``creature_cells``: cells occupied by other creatures (they give half cover); the
        attacker's and the target's own cells are ignored. Cached per map.
        """
        abox = self._box(attacker_cells, attacker_z)
        tbox = self._box(target_cells, target_z)
        if not isinstance(creature_cells, frozenset):
            creature_cells = frozenset(creature_cells)
        ckey = (abox, tbox, creature_cells)
        res = self._cover_cache.get(ckey)
        if res is not None:
            return res
        res = self._least_cover(self._pairs(abox, tbox), creature_cells)
        if len(self._cover_cache) > 200_000:
            self._cover_cache.clear()
        self._cover_cache[ckey] = res
        return res

    def cover_from_point(self, point_ft, target_cells, creature_cells: Iterable = frozenset(), *,
                         target_z: float | None = None) -> Cover:
        """Cover of the target against an effect whose point of origin is ``point_ft`` = (x, y, z)
        in feet from the map's top-left corner at floor level (:attr:`.areas.Area.origin_ft`; on
        the 2.5-ft lattice): the DMG grid rule with the point in place of the attacker's corner,
        lines to the 4 corners of the target's best square. The square holding the point (when it
        is a square's middle) and the target's own squares never count. Cached per map."""
        X0, Y0 = round(point_ft[0] / 2.5), round(point_ft[1] / 2.5)
        za = float(point_ft[2])
        tbox = self._box(target_cells, target_z)
        if not isinstance(creature_cells, frozenset):
            creature_cells = frozenset(creature_cells)
        ckey = ("point", X0, Y0, za, tbox, creature_cells)
        res = self._cover_cache.get(ckey)
        if res is not None:
            return res
        pkey = ("point", X0, Y0, za, tbox)
        rec = self._pair_cache.get(pkey)
        if rec is None:
            if len(self._pair_cache) > 200_000:
                self._pair_cache.clear()
            W = self.width
            tx, ty, tn, tz = tbox
            own = {(ty + j) * W + tx + i for j in range(tn) for i in range(tn)}
            if X0 & 1 and Y0 & 1:
                own.add((Y0 >> 1) * W + (X0 >> 1))
            rec = self._pair_cache[pkey] = self._line_records([(X0, Y0)], za, tz + 2.5 * tn, own, tbox, False)
        res = self._least_cover(rec, creature_cells)
        if len(self._cover_cache) > 200_000:
            self._cover_cache.clear()
        self._cover_cache[ckey] = res
        return res

    def _least_cover(self, pairs, creature_cells: frozenset) -> Cover:
        """The best (least) degree over the records of :meth:`_line_records`, a creature on a
        clear line making half cover of none."""
        W = self.width
        occ = None
        best = 3
        for deg, clear, _sight, _nb in pairs:
            if deg >= best:
                break
            if deg == 0 and creature_cells:
                if occ is None:
                    occ = {c[1] * W + c[0] for c in creature_cells
                           if 0 <= c[0] < W and 0 <= c[1] < self.height}
                if any(i in occ for crossed in clear for i in crossed):
                    deg = 1
            if deg < best:
                best = deg
                if best == 0:
                    break
        return Cover(best)

    def line_of_effect(self, a_cells, b_cells, *, a_z: float | None = None,
                       b_z: float | None = None) -> bool:
        """True unless the target has total cover from walls (it can be targeted)."""
        # total cover from walls alone means every line of :meth:`_pairs` is blocked: so stop at
        # the first line that is not (the same lines, traced until one gets through)
        abox = self._box(a_cells, a_z)
        tbox = self._box(b_cells, b_z)
        return self._pair_answer("effect", abox, tbox, 3, self._any_clear_line)

    def _pair_answer(self, kind: str, abox, tbox, field: int, trace) -> bool:
        """Whether some line of :meth:`_pairs` between the two boxes is clear (``field`` 3: of
        effect, from the obstruction count; 2: of sight): read from the cached pairs when there,
        else traced once per map by ``trace`` (it stops at the first clear line) and kept."""
        rec = self._pair_cache.get((abox, tbox))
        if rec is not None:
            return any(p[3] < 4 for p in rec) if field == 3 else any(p[2] for p in rec)
        key = (kind, abox, tbox)
        res = self._pair_cache.get(key)
        if res is None:
            if len(self._pair_cache) > 200_000:
                self._pair_cache.clear()
            res = self._pair_cache[key] = trace(abox, tbox)
        return res

    def _any_clear_line(self, abox, tbox) -> bool:
        ax, ay, an, az = abox
        tx, ty, tn, tz = tbox
        W = self.width
        za, zt, own, corners = _line_ends(W, ax, ay, an, az, tx, ty, tn, tz)
        for sy in range(ty, ty + tn):
            for sx in range(tx, tx + tn):
                for cx, cy in corners:
                    for qx, qy in ((sx, sy), (sx + 1, sy), (sx, sy + 1), (sx + 1, sy + 1)):
                        if not self._eval_line(2 * cx, 2 * cy, 2 * qx, 2 * qy, za, zt, own).blocked:
                            return True
        return False

    def can_see(self, viewer_cells, target_cells, *, viewer_z: float | None = None,
                target_z: float | None = None, extra_obscured: Iterable = frozenset()) -> bool:
        """True when a sight line reaches some part of the target.

        Sight lines are the cover lines; walls and solid ground block them, heavily obscured cells
        (and ``extra_obscured``: e.g. magical darkness) block them too. Light and senses are the
        engine's business.
        """
        vbox = self._box(viewer_cells, viewer_z)
        tbox = self._box(target_cells, target_z)
        if not extra_obscured:
            return self._sees(vbox, tbox)
        W = self.width
        dark = {y * W + x for x, y in extra_obscured}
        tx, ty, tn, _ = tbox
        vx, vy, vn, _ = vbox
        tcells = {(ty + j) * W + tx + i for j in range(tn) for i in range(tn)}
        vcells = {(vy + j) * W + vx + i for j in range(vn) for i in range(vn)}
        if tcells <= dark or vcells <= dark:
            return False
        # re-trace: the cached pairs do not keep the crossings of obstructed lines
        za = vbox[3] + 2.5 * vn
        zt = tbox[3] + 2.5 * tn
        own = tcells | vcells
        corners = [(vx + i, vy + j) for j in range(vn + 1) for i in range(vn + 1)
                   if i in (0, vn) or j in (0, vn)]
        for si in sorted(tcells - dark):
            sx, sy = si % W, si // W
            if self._flags[si] & OBSCURED and tbox[3] < self._elev[si] + self._top[si]:
                continue
            for cx, cy in corners:
                for qx, qy in ((sx, sy), (sx + 1, sy), (sx, sy + 1), (sx + 1, sy + 1)):
                    ln = self._eval_line(2 * cx, 2 * cy, 2 * qx, 2 * qy, za, zt, own)
                    if ln.blocked or ln.obscured or any(i in dark for i in ln.crossed):
                        continue
                    if not self._dark_seam(2 * cx, 2 * cy, 2 * qx, 2 * qy, za, zt, dark):
                        return True
        return False

    def _sees(self, vbox, tbox) -> bool:
        """Some sight line of :meth:`_pairs` is clear: from the cached pairs when there, else the
        same lines traced in the same order, stopping at the first clear one (asked again and again:
        who sees whom)."""
        return self._pair_answer("sight", vbox, tbox, 2, self._sees_traced)

    def _sees_traced(self, vbox, tbox) -> bool:
        ax, ay, an, az = vbox
        tx, ty, tn, tz = tbox
        W, flags, elev, top = self.width, self._flags, self._elev, self._top
        if all(flags[(ay + j) * W + ax + i] & OBSCURED and az < elev[(ay + j) * W + ax + i] + top[(ay + j) * W + ax + i]
               for j in range(an) for i in range(an)):
            return False   # the viewer stands inside a heavily obscured space
        za, zt, own, corners = _line_ends(W, ax, ay, an, az, tx, ty, tn, tz)
        for sy in range(ty, ty + tn):
            for sx in range(tx, tx + tn):
                si = sy * W + sx
                if flags[si] & OBSCURED and tz < elev[si] + top[si]:
                    continue
                for cx, cy in corners:
                    for qx, qy in ((sx, sy), (sx + 1, sy), (sx, sy + 1), (sx + 1, sy + 1)):
                        ln = self._eval_line(2 * cx, 2 * cy, 2 * qx, 2 * qy, za, zt, own)
                        if not ln.blocked and not ln.obscured:
                            return True
        return False

    def _dark_seam(self, X0, Y0, X1, Y1, za, zb, dark) -> bool:
        """Does the line squeeze between two cells that both hide it (darkness, fog, off the map)?"""
        _interiors, seams = _trace(X0 & 1, Y0 & 1, X1 - X0, Y1 - Y0)
        bx, by = X0 >> 1, Y0 >> 1
        W = self.width
        for xa, ya, xb, yb, t in seams:
            z = za + (zb - za) * t
            hidden = 0
            for x, y in ((bx + xa, by + ya), (bx + xb, by + yb)):
                if self._solidity(x, y, z) or (y * W + x in dark and 0 <= x < W):
                    hidden += 1
            if hidden == 2:
                return True
        return False

    def point_line_clear(self, p0: tuple, p1: tuple, own: Iterable[tuple[int, int]] = ()) -> bool:
        """Line of effect between two points in feet ``(x_ft, y_ft, z_ft)`` measured from the map's
        top-left corner, on the half-square lattice (multiples of 2.5 ft): walls and ground block.
        """
        X0, Y0 = round(p0[0] / 2.5), round(p0[1] / 2.5)
        X1, Y1 = round(p1[0] / 2.5), round(p1[1] / 2.5)
        W = self.width
        owni = {y * W + x for x, y in own}
        return not self._eval_line(X0, Y0, X1, Y1, p0[2], p1[2], owni).blocked

    # ------------------------------------------------------------------ movement (ground)
    def _row_names(self) -> dict:
        """y -> "row y=<y>", the group key of a row of destinations (kept)."""
        got = self._cache.get("row-names")
        if got is None:
            got = self._cache["row-names"] = {y: f"row y={y}" for y in range(self.height)}
        return got

    def _floor_array(self, n: int, squeeze: bool = False) -> np.ndarray | None:
        """The standing heights of n x n spaces per anchor index as int64, None when some height is
        not a whole number of feet (kept per size; ``squeeze``: of :meth:`_squeeze_anchors`)."""
        key = ("floor-array", n, squeeze)
        if key not in self._cache:
            zs = self._squeeze_anchors(n)[1] if squeeze else self._anchors(n)[1]
            self._cache[key] = np.array(zs, dtype=np.int64) if all(type(z) is int for z in zs) else None
        return self._cache[key]

    def _squeeze_anchors(self, n: int):
        """Per anchor index, for an n x n creature that may squeeze (n >= 2): (ok, standing z, OR of
        the flags, tight): ok where its whole space fits or, squeezed (tight), an (n-1)x(n-1) space
        at the anchor does; z and flags are those of the space it takes there."""
        key = ("anchors-sq", n)
        rec = self._cache.get(key)
        if rec is not None:
            return rec
        ok, z, fl = (list(t) for t in self._anchors(n))
        ok1, z1, fl1 = self._anchors(n - 1)
        tight = [False] * (self.width * self.height)
        for i, fits_small in enumerate(ok1):
            if fits_small and not ok[i]:
                ok[i], z[i], fl[i], tight[i] = True, z1[i], fl1[i], True
        rec = self._cache[key] = (ok, z, fl, tight)
        return rec

    def fits_squeezed(self, x: int, y: int, size: str | int = 1) -> bool:
        """True when a creature of this size can stand anchored at (x, y), squeezing if need be
        (its whole space fits, or one a size smaller does)."""
        n = size_squares(size)
        return self.fits(x, y, n) or (n > 1 and self.fits(x, y, n - 1))

    def _anchors(self, n: int):
        """Per anchor index: (ok, standing z, OR of the space's flags), for n x n spaces."""
        key = ("anchors", n)
        rec = self._cache.get(key)
        if rec is not None:
            return rec
        W, H = self.width, self.height
        f, e = self._flags, self._elev
        ok = [False] * (W * H)
        z = [0] * (W * H)
        fl = [0] * (W * H)
        for y in range(H - n + 1):
            for x in range(W - n + 1):
                idx = [(y + j) * W + x + i for j in range(n) for i in range(n)]
                acc = 0
                for k in idx:
                    acc |= f[k]
                i0 = y * W + x
                ok[i0] = not acc & IMPASSABLE
                z[i0] = max(e[k] for k in idx)
                fl[i0] = acc
        rec = (ok, z, fl)
        self._cache[key] = rec
        return rec

    def _edges(self, n: int, climb: bool, swim: bool, falls: bool, safe_drop: int, squeeze: bool = False):
        """Per anchor index: tuple of (dest, static cost, dest difficult, fall ft, hazard cells).
        ``squeeze`` (n >= 2): squeezed anchors too, a step onto one 5 ft dearer (:meth:`_squeeze_anchors`)."""
        key = ("edges", n, climb, swim, falls, safe_drop, squeeze)
        rec = self._cache.get(key)
        if rec is not None:
            return rec
        W, H = self.width, self.height
        if squeeze:
            ok, zs, fl, tight = self._squeeze_anchors(n)
            m = n - 1   # the smallest space it takes
        else:
            (ok, zs, fl), tight, m = self._anchors(n), None, n
        hz = self._hazards
        edges: list[tuple] = [()] * (W * H)
        for y in range(H - m + 1):
            for x in range(W - m + 1):
                u = y * W + x
                if not ok[u]:
                    continue
                out = []
                for dx, dy in _DIRS8:
                    nx, ny = x + dx, y + dy
                    if nx < 0 or ny < 0 or nx + m > W or ny + m > H:
                        continue
                    v = ny * W + nx
                    if not ok[v]:
                        continue
                    if dx and dy and not (ok[y * W + nx] and ok[ny * W + x]):
                        continue                        # no cutting wall corners
                    cost = SQUARE_FT
                    if tight is not None and tight[v]:
                        cost += SQUARE_FT               # squeezing: 1 extra foot per foot
                    f = fl[v]
                    diff = bool(f & (DIFFICULT | OVERGROWN))
                    if diff:   # overgrown plants: 4 ft a foot (20 ft a square), not on top of difficult terrain
                        cost += 3 * SQUARE_FT if f & OVERGROWN else SQUARE_FT
                    if f & WATER and not swim:
                        cost += SQUARE_FT
                    dz = zs[v] - zs[u]
                    fall = 0
                    variants = []
                    if dz > 0:
                        cost += dz * (1 if climb else 2)
                    elif -dz > safe_drop:
                        if falls:
                            variants.append(cost)       # the fall: no extra movement
                            fall = -dz
                        cost += -dz * (1 if climb else 2)
                    haz = ()
                    if f & HAZARD:
                        if n == 1:
                            haz = (v,)
                        else:
                            nu = n - 1 if tight is not None and tight[u] else n
                            nv = n - 1 if tight is not None and tight[v] else n
                            old = {(y + j) * W + x + i for j in range(nu) for i in range(nu)}
                            haz = tuple(k for k in ((ny + j) * W + nx + i for j in range(nv)
                                                    for i in range(nv)) if k in hz and k not in old)
                    out.append((v, cost, diff, 0, haz))
                    for c in variants:
                        out.append((v, c, diff, fall, haz))
                edges[u] = tuple(out)
        self._cache[key] = edges
        return edges

    def _spread(self, cells, n: int) -> set:
        """Anchor indices whose n x n space overlaps any of the cells."""
        W, H = self.width, self.height
        out = set()
        for c in cells:
            x, y = c[0], c[1]
            for j in range(n):
                for i in range(n):
                    ax, ay = x - i, y - j
                    if 0 <= ax < W and 0 <= ay < H:
                        out.add(ay * W + ax)
        return out

    def _spread_space(self, cells, n: int, tight) -> set:
        """:meth:`_spread` for a creature that may squeeze: at a squeezed (tight) anchor its space
        is (n-1)x(n-1), so only overlaps with that smaller space count there."""
        big = self._spread(cells, n)
        if tight is None or not big:
            return big
        small = self._spread(cells, n - 1)
        return {v for v in big if not tight[v] or v in small}

    def can_step(self, start, size: str | int, speed_ft: int, *, fly: bool = False,
                 swim_speed: int = 0, climb_speed: int = 0, blocked_by: Iterable = (),
                 pass_through: Iterable = (), difficult_extra: Iterable = (),
                 crawling: bool = False, allow_falls: bool = False, safe_drop_ft: int = 10,
                 max_altitude_ft: int | None = None) -> bool:
        """A cheap sufficient test for ``len(reachable(...)) > 1`` (same arguments): True when a
        walker can end a move on a neighbouring space with one step. False says nothing (ask
        :meth:`reachable`): the way out may take more steps, or the mover flies."""
        n = size_squares(size)
        sx, sy = int(start[0]), int(start[1])
        if fly or not self.fits(sx, sy, n):
            return False
        edges = self._edges(n, bool(climb_speed), bool(swim_speed), bool(allow_falls), int(safe_drop_ft))
        own = set(footprint(sx, sy, n))
        hostile = self._spread([c for c in blocked_by if (c[0], c[1]) not in own], n)
        allies = self._spread([c for c in pass_through if (c[0], c[1]) not in own], n)
        soft = allies | self._spread(difficult_extra, n) if difficult_extra else allies
        extra = SQUARE_FT if crawling else 0
        speed = int(speed_ft)
        for v, c, diff, _fall, _haz in edges[sy * self.width + sx]:
            if v in hostile or v in allies:
                continue   # never entered, or entered but not a place to stop
            if c + extra + (SQUARE_FT if not diff and v in soft else 0) <= speed:
                return True
        return False

    def can_fly_step(self, start, size: str | int, speed_ft: int, *, blocked_by: Iterable = (),
                     pass_through: Iterable = (), max_altitude_ft: int | None = None) -> bool:
        """The flyers' :meth:`can_step`: True when one 5-ft step in 3D ends on a space the flyer
        may stop in, by the very rules of :meth:`reachable` with ``fly=True`` (terrain, no corner
        cutting, the altitude cap, foes never entered, allies' spaces not ended in). False says
        nothing (ask :meth:`reachable`). Pure Python over 26 neighbours instead of the numpy
        window that a whole flight needs."""
        n = size_squares(size)
        if int(speed_ft) < SQUARE_FT:
            return False
        sx, sy = int(start[0]), int(start[1])
        W, H = self.width, self.height
        if not (0 <= sx <= W - n and 0 <= sy <= H - n):
            return False
        sl = (int(start[2]) if len(start) > 2 else self.standing_z(sx, sy, n)) // SQUARE_FT
        R = int(speed_ft) // SQUARE_FT
        l0 = max(self._min_layer, sl - R)
        l1 = sl + R if max_altitude_ft is None else min(sl + R, int(max_altitude_ft) // SQUARE_FT)
        l1 = max(l1, sl)
        elev = self._elev
        # occupied cubes as _fly_setup marks them: a creature's cell at its column's floor layer
        own = set(footprint(sx, sy, n))
        taken = set()
        for cells in (blocked_by, pass_through):
            for c in cells:
                if (c[0], c[1]) in own and (len(c) < 3 or sl <= int(c[2]) // SQUARE_FT < sl + n):
                    continue
                cl = (int(c[2]) if len(c) > 2 else elev[c[1] * W + c[0]]) // SQUARE_FT
                taken.add((c[0], c[1], cl))
        free_memo: dict = {}

        def free(x, y, layer):
            k = (x, y, layer)
            v = free_memo.get(k)
            if v is None:
                v = free_memo[k] = (0 <= x <= W - n and 0 <= y <= H - n and l0 <= layer <= l1
                                    and self._anchor_free3(x, y, layer, n))
            return v

        if not free(sx, sy, sl):
            return False
        rng = range(n)
        for dx, dy, dl in _DIRS26:
            x, y, layer = sx + dx, sy + dy, sl + dl
            if not free(x, y, layer):
                continue
            if any(not free(sx + ex, sy + ey, sl + el) for ex in {0, dx} for ey in {0, dy} for el in {0, dl}
                   if (ex, ey, el) != (0, 0, 0) and (ex, ey, el) != (dx, dy, dl)):
                continue   # no cutting a corner
            if taken and any((x + i, y + j, layer + k) in taken for i in rng for j in rng for k in rng):
                continue   # a foe's space (never entered) or an ally's (not a place to stop)
            return True
        return False

    def reachable(self, start, size: str | int, speed_ft: int, *, fly: bool = False,
                  swim_speed: int = 0, climb_speed: int = 0, blocked_by: Iterable = (),
                  pass_through: Iterable = (), difficult_extra: Iterable = (),
                  crawling: bool = False, allow_falls: bool = False, safe_drop_ft: int = 10,
                  max_altitude_ft: int | None = None, squeeze: bool = False) -> Reach:
        """Every position the creature can end its move in, with its cost and a cheapest path.

        ``start``: anchor ``(x, y)`` or position ``(x, y, z)``. ``blocked_by``: cells of hostile
        creatures (never entered); ``pass_through``: cells of non-hostile creatures (entered as
        difficult terrain, never ended in); ``difficult_extra``: cells that are difficult terrain
        this turn (spells, zones). Cells may be ``(x, y, z)`` cubes when flying (a 2-tuple is the
        cube on the floor). The mover's own cells are ignored. The start itself is included at
        cost 0. Returns a :class:`Reach` (a mapping position -> (cost_ft, path)). The same
        question asked again of this map gets the same answer back (shared: read it, don't change it).
        ``squeeze``: a walker two or more squares wide may squeeze (module docstring); the start may
        then be a squeezed anchor. Ignored when flying and for creatures one square wide.
        """
        args = (tuple(start), size, speed_ft, fly, swim_speed, climb_speed, tuple(blocked_by),
                tuple(pass_through), tuple(difficult_extra), crawling, allow_falls, safe_drop_ft,
                max_altitude_ft, squeeze)
        memo = self._cache.get("reach-memo")
        if memo is None:
            memo = self._cache["reach-memo"] = {}
        try:
            r = memo.get(args)
        except TypeError:   # cells given as lists: not hashable, no memo
            return self._reachable_search(*args)
        if r is None:
            if len(memo) >= 128:
                memo.clear()
            r = memo[args] = self._reachable_search(*args)
        return r

    def _reachable_search(self, start, size, speed_ft, fly, swim_speed, climb_speed, blocked_by,
                          pass_through, difficult_extra, crawling, allow_falls, safe_drop_ft,
                          max_altitude_ft, squeeze=False) -> Reach:
        n = size_squares(size)
        if fly:
            return self._reachable_fly(start, n, speed_ft, blocked_by, pass_through,
                                       max_altitude_ft)
        sx, sy = int(start[0]), int(start[1])
        squeeze = bool(squeeze) and n > 1
        if not (self.fits_squeezed(sx, sy, n) if squeeze else self.fits(sx, sy, n)):
            raise ValueError(f"map '{self.name}': a space of {n}x{n} squares does not fit at "
                             f"({sx}, {sy})")
        W = self.width
        edges = self._edges(n, bool(climb_speed), bool(swim_speed), bool(allow_falls),
                            int(safe_drop_ft), squeeze)
        ok, zs, _fl, tight = self._squeeze_anchors(n) if squeeze else (None, self._anchors(n)[1], None, None)
        own = set(footprint(sx, sy, n - 1 if tight is not None and tight[sy * W + sx] else n))
        if tight is not None:
            hostile = self._spread_space([c for c in blocked_by if (c[0], c[1]) not in own], n, tight)
            allies = self._spread_space([c for c in pass_through if (c[0], c[1]) not in own], n, tight)
            extra_diff = self._spread_space(difficult_extra, n, tight) if difficult_extra else set()
        else:
            hostile = self._spread([c for c in blocked_by if (c[0], c[1]) not in own], n)
            allies = self._spread([c for c in pass_through if (c[0], c[1]) not in own], n)
            extra_diff = self._spread(difficult_extra, n) if difficult_extra else set()
        soft = allies | extra_diff
        crawl = SQUARE_FT if crawling else 0
        s = sy * W + sx
        speed = int(speed_ft)
        # Dijkstra (a heap of (cost, cell): ties pop in cell order, so each cell's predecessor
        # is the first cheapest one); distances in a flat list, the cells reached in `seen`
        dist = [speed + 1] * (W * self.height)
        dist[s] = 0
        seen = [s]
        prev: dict[int, tuple[int, int]] = {}
        heap = [(0, s)]
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            d, u = pop(heap)
            if d > dist[u]:
                continue
            d += crawl
            for v, c, diff, fall, _haz in edges[u]:
                nd = d + c
                if nd > speed or v in hostile:
                    continue   # (the extra below only adds: too far stays too far)
                if not diff and v in soft:
                    nd += SQUARE_FT
                    if nd > speed:
                        continue
                if nd < dist[v]:
                    if dist[v] > speed:
                        seen.append(v)
                    dist[v] = nd
                    prev[v] = (u, fall)
                    push(heap, (nd, v))
        occupied = hostile | allies
        costs = {}
        kept = []
        for i in sorted(seen):
            if i in occupied and i != s:
                continue
            costs[(i % W, i // W, zs[i])] = dist[i]
            kept.append(i)
        r = Reach(self, n, (sx, sy, zs[s]), costs, prev, "ground", tight=tight)
        r._flat = kept
        return r

    # ------------------------------------------------------------------ movement (flight)
    def _anchor_free3(self, x: int, y: int, layer: int, n: int) -> bool:
        W, H = self.width, self.height
        if x < 0 or y < 0 or x + n > W or y + n > H:
            return False
        f, e, t = self._flags, self._elev, self._top
        for j in range(n):
            for i in range(n):
                k = (y + j) * W + x + i
                for dl in range(n):
                    z = (layer + dl) * SQUARE_FT
                    if z < e[k] or (f[k] & IMPASSABLE and z < e[k] + t[k]):
                        return False
        return True

    def _fly_setup(self, sx, sy, sl, n, speed_ft, blocked_by, pass_through, max_altitude_ft):
        R = int(speed_ft) // SQUARE_FT
        W, H = self.width, self.height
        x0, x1 = max(0, sx - R), min(W - n, sx + R)
        y0, y1 = max(0, sy - R), min(H - n, sy + R)
        l0 = max(self._min_layer, sl - R)
        l1 = sl + R
        if max_altitude_ft is not None:
            l1 = min(l1, int(max_altitude_ft) // SQUARE_FT)
        l1 = max(l1, sl)
        # cube terrain over the window, grown by n - 1 for the space's extent
        wx0, wy0 = x0, y0
        Xw, Yw, Lw = x1 - x0 + n, y1 - y0 + n, l1 - l0 + n
        elev = self.elevation[wy0:wy0 + Yw, wx0:wx0 + Xw].astype(np.float64)
        flags = self.flags[wy0:wy0 + Yw, wx0:wx0 + Xw]
        top = np.array(self._top, dtype=np.float64).reshape(H, W)[wy0:wy0 + Yw, wx0:wx0 + Xw]
        imp_top = np.where(flags & IMPASSABLE, elev + top, -np.inf)
        z = ((l0 + np.arange(Lw)) * SQUARE_FT).astype(np.float64)[:, None, None]
        cube = (z >= elev[None]) & (z >= imp_top[None])
        occ_h = np.zeros((Lw, Yw, Xw), dtype=bool)
        occ_a = np.zeros((Lw, Yw, Xw), dtype=bool)
        own = set(footprint(sx, sy, n))
        for arr, cells in ((occ_h, blocked_by), (occ_a, pass_through)):
            for c in cells:
                if (c[0], c[1]) in own and (len(c) < 3 or sl <= int(c[2]) // SQUARE_FT < sl + n):
                    continue
                cx, cy = c[0] - wx0, c[1] - wy0
                if not (0 <= cx < Xw and 0 <= cy < Yw):
                    continue
                cl = (int(c[2]) if len(c) > 2 else self._elev[c[1] * W + c[0]]) // SQUARE_FT - l0
                if 0 <= cl < Lw:
                    arr[cl, cy, cx] = True
        L, Hh, Ww = l1 - l0 + 1, y1 - y0 + 1, x1 - x0 + 1
        free = np.ones((L, Hh, Ww), dtype=bool)
        hostile = np.zeros((L, Hh, Ww), dtype=bool)
        ally = np.zeros((L, Hh, Ww), dtype=bool)
        for dl in range(n):
            for dy in range(n):
                for dx in range(n):
                    sl_ = (slice(dl, dl + L), slice(dy, dy + Hh), slice(dx, dx + Ww))
                    free &= cube[sl_]
                    hostile |= occ_h[sl_]
                    ally |= occ_a[sl_]
        return (x0, y0, l0), free, hostile, ally, R

    def _fly_allowed(self, free: np.ndarray) -> list:
        """Per direction of _DIRS26: where a step from each anchor is allowed by terrain."""
        L, H, W = free.shape
        P = np.zeros((L + 2, H + 2, W + 2), dtype=bool)
        P[1:-1, 1:-1, 1:-1] = free

        def at(dx, dy, dl):
            return P[1 + dl:1 + dl + L, 1 + dy:1 + dy + H, 1 + dx:1 + dx + W]

        out = []
        for dx, dy, dl in _DIRS26:
            a = free & at(dx, dy, dl)
            for ex in {0, dx}:
                for ey in {0, dy}:
                    for el in {0, dl}:
                        if (ex, ey, el) != (0, 0, 0) and (ex, ey, el) != (dx, dy, dl):
                            a = a & at(ex, ey, el)
            out.append(a)
        return out

    def _fly_allowed_cached(self, n: int, origin: tuple, free: np.ndarray) -> list:
        """_fly_allowed for a window (the window fixes the terrain): kept for the last 32 windows."""
        akey = ("fly-allowed", n, origin, free.shape)
        allowed = self._cache.get(akey)
        if allowed is None:
            if sum(1 for k in self._cache if k[0] == "fly-allowed") >= 32:
                for k in [k for k in self._cache if k[0] == "fly-allowed"]:
                    del self._cache[k]
            allowed = self._cache[akey] = self._fly_allowed(free)
        return allowed

    def _fly_static(self, n: int, top: int):
        """The terrain's flight graph over the whole map for n x n flyers, layers from the lowest
        floor up to ``top``: (free anchors, allowed steps per direction, flat neighbour table),
        kept per (n, top). A flight of R steps never leaves the window _fly_setup cuts around its
        start, so searching this graph R steps deep gives the window's answer; the terrain part
        is then worked out once per map instead of once per start."""
        key = ("fly-static", n, top)
        rec = self._cache.get(key)
        if rec is None:
            W, H = self.width, self.height
            l0 = self._min_layer
            Lw = top - l0 + n
            elev = self.elevation.astype(np.float64)
            top_h = np.array(self._top, dtype=np.float64).reshape(H, W)
            imp_top = np.where(self.flags & IMPASSABLE, elev + top_h, -np.inf)
            z = ((l0 + np.arange(Lw)) * SQUARE_FT).astype(np.float64)[:, None, None]
            cube = (z >= elev[None]) & (z >= imp_top[None])
            L, Hh, Ww = top - l0 + 1, H - n + 1, W - n + 1
            free = np.ones((L, Hh, Ww), dtype=bool)
            for dl in range(n):
                for dy in range(n):
                    for dx in range(n):
                        free &= cube[dl:dl + L, dy:dy + Hh, dx:dx + Ww]
            allowed = self._fly_allowed(free)
            idx = np.arange(L * Hh * Ww, dtype=np.int64).reshape(free.shape)
            nbr = np.stack([np.where(a, idx + (dl * Hh + dy) * Ww + dx, -1).ravel()
                            for (dx, dy, dl), a in zip(_DIRS26, allowed)])
            rec = self._cache[key] = (free, allowed, nbr)
        return rec

    def _reachable_fly(self, start, n, speed_ft, blocked_by, pass_through, max_altitude_ft):
        sx, sy = int(start[0]), int(start[1])
        if not (0 <= sx <= self.width - n and 0 <= sy <= self.height - n):
            raise ValueError(f"map '{self.name}': ({sx}, {sy}) is off the map")
        sz = int(start[2]) if len(start) > 2 else self.standing_z(sx, sy, n)
        sl = sz // SQUARE_FT
        R = int(speed_ft) // SQUARE_FT
        top = sl + R if max_altitude_ft is None else max(int(max_altitude_ft) // SQUARE_FT, sl)
        free, allowed, nbr = self._fly_static(n, top)
        l0 = self._min_layer
        L, H, W = free.shape
        p = (sl - l0, sy, sx)
        if not (0 <= p[0] < L) or not free[p]:
            raise ValueError(f"map '{self.name}': no room for a {n}x{n} flyer at {tuple(start)}")
        # the spaces creatures hold, as _fly_setup marks them: each cell's cube (on its column's
        # floor for a 2-number cell), then every anchor whose n-cube space overlaps one
        size = L * H * W
        own = set(footprint(sx, sy, n))
        marks = []
        for cells in (blocked_by, pass_through):
            flat = []
            for c in cells:
                if (c[0], c[1]) in own and (len(c) < 3 or sl <= int(c[2]) // SQUARE_FT < sl + n):
                    continue
                cl = (int(c[2]) if len(c) > 2 else self._elev[c[1] * self.width + c[0]]) // SQUARE_FT - l0
                for dl in range(n):
                    for dy in range(n):
                        for dx in range(n):
                            a, b, e = cl - dl, c[1] - dy, c[0] - dx
                            if 0 <= a < L and 0 <= b < H and 0 <= e < W:
                                flat.append((a * H + b) * W + e)
            m = np.zeros(size, dtype=bool)
            if flat:
                m[flat] = True
            marks.append(m)
        hostile_f, ally_flat = marks
        # breadth-first over flat cell indices: a step costs 1, into an ally's space 2 (the same
        # answer as stepping all 26 directions as whole-array shifts, without touching the cells
        # no frontier reaches)
        enter = free.ravel() & ~hostile_f
        any_ally = bool(ally_flat.any())
        dist = np.full(size, -1, dtype=np.int32)
        start_i = (p[0] * H + p[1]) * W + p[2]
        levels: list[list] = [[] for _ in range(R + 3)]
        levels[0].append(np.array([start_i], dtype=np.int64))
        for k in range(R + 1):
            if not levels[k]:
                continue
            cur = np.unique(np.concatenate(levels[k]))
            cur = cur[dist[cur] < 0]
            if not cur.size:
                continue
            dist[cur] = k
            if k == R:
                break
            nb = nbr[:, cur].ravel()
            nb = nb[nb >= 0]
            nb = nb[enter[nb] & (dist[nb] < 0)]
            if any_ally:
                into_ally = ally_flat[nb]
                if k + 2 <= R:
                    levels[k + 2].append(nb[into_ally])
                nb = nb[~into_ally]
            levels[k + 1].append(nb)
        ends = (dist >= 0) & ~hostile_f & ~ally_flat
        ends[start_i] = True
        order = np.flatnonzero(ends)
        ls, rest = np.divmod(order, H * W)
        ys, xs = np.divmod(rest, W)
        order = np.lexsort((ls, xs, ys))
        ls, ys, xs = ls[order], ys[order], xs[order]
        arr = np.stack((xs, ys, (ls + l0) * SQUARE_FT), axis=1).astype(np.int64, copy=False)
        keys = zip(*arr.T.tolist())
        dist = dist.reshape(free.shape)
        costs = dict(zip(keys, (dist[ls, ys, xs] * SQUARE_FT).tolist()))
        fly = ((0, 0, l0), dist, allowed, ally_flat.reshape(free.shape))
        return Reach(self, n, (sx, sy, sl * SQUARE_FT), costs, fly, "fly", arr)

    # ------------------------------------------------------------------ routes
    def routes(self, start, destination, size: str | int, speed_ft: int, *,
               threat_cells_by_creature: Mapping[Any, Iterable] | None = None,
               zone_cells: Mapping[Any, Iterable] | None = None,
               fly: bool = False, swim_speed: int = 0, climb_speed: int = 0,
               blocked_by: Iterable = (), pass_through: Iterable = (),
               difficult_extra: Iterable = (), crawling: bool = False,
               allow_falls: bool = False, safe_drop_ft: int = 10,
               max_altitude_ft: int | None = None, prune_dominated: bool = True,
               max_labels: int = 12, max_expansions: int = 50_000, squeeze: bool = False) -> list[Route]:
        """The routes to one destination that differ in consequences, cheapest of each class.

        Consequences: the creatures whose reach is left (opportunity attacks; from
        ``threat_cells_by_creature``: creature id -> the positions where the mover is within its
        reach, see :meth:`threat_area`), the hazard cells entered (counted per kind), the zones
        entered (``zone_cells``: zone key -> cells) and the falls taken. Cost (the movement left)
        is reported. With ``prune_dominated`` a class is dropped when another is no more costly and
        no worse in any consequence (subset of provocations, no more hazards or falls, the same
        zones). Order: cost, then provocations, hazards, zones, falls, path (canonical).
        A label-setting search over (position, consequences) with caps, bounded by the speed.
        Returns [] when the destination cannot be reached. ``squeeze`` as :meth:`reachable` (give
        threat areas asked with ``squeeze=True`` too).
        """
        n = size_squares(size)
        threats = threat_cells_by_creature or {}
        zones = zone_cells or {}
        ids = sorted(threats, key=lambda k: (type(k).__name__, str(k)))
        zkeys = sorted(zones, key=lambda k: (type(k).__name__, str(k)))
        kinds = sorted({h["kind"] for h in self._hazards.values()})
        kind_of = {i: kinds.index(h["kind"]) for i, h in self._hazards.items()}
        if fly:
            graph = self._fly_graph(start, n, speed_ft, blocked_by, pass_through, max_altitude_ft)
        else:
            graph = self._ground_graph(start, n, climb_speed, swim_speed, blocked_by, pass_through,
                                       difficult_extra, crawling, allow_falls, safe_drop_ft,
                                       bool(squeeze) and n > 1)
        s, target, succ, encode, decode, heur, can_end = graph(destination)
        if target is None or not can_end(target):
            return []
        in_reach, zone_at = self._consequence_bits(ids, threats, zkeys, zones, n, encode, fly)
        dominated = _dominated if kinds else _dominated_no_hazards
        entries, labels, dead = _route_search(s, target, succ, heur, in_reach, zone_at, kind_of, len(kinds),
                                              int(speed_ft), dominated, prune_dominated, max_labels,
                                              max_expansions)
        return _routes_found(entries, labels.get(target, []), dead, dominated, prune_dominated, decode,
                             ids, zkeys, kinds, zone_at.get(s, 0))

    def _consequence_bits(self, ids, threats, zkeys, zones, n, encode, fly) -> tuple[dict, dict]:
        """Per search state, as bit masks: the creatures whose reach it is in (bit b: ids[b]) and
        the zones its space overlaps (bit b: zkeys[b])."""
        in_reach: dict[int, int] = {}
        for b, cid in enumerate(ids):
            for pos in threats[cid]:
                for st in encode(pos):
                    in_reach[st] = in_reach.get(st, 0) | (1 << b)
        zone_at: dict[int, int] = {}
        for b, zk in enumerate(zkeys):
            for c in zones[zk]:
                for st in self._zone_states(c, n, encode, fly):
                    zone_at[st] = zone_at.get(st, 0) | (1 << b)
        return in_reach, zone_at

    def _zone_states(self, c, n, encode, fly):
        """States whose space overlaps zone cell c (2D zone cells: any height when flying)."""
        W = self.width
        out = []
        for j in range(n):
            for i in range(n):
                ax, ay = c[0] - i, c[1] - j
                if 0 <= ax < W and 0 <= ay < self.height:
                    if fly and len(c) < 3:
                        out.extend(encode((ax, ay, None)))
                    elif fly:
                        for dl in range(n):
                            out.extend(encode((ax, ay, int(c[2]) - dl * SQUARE_FT)))
                    else:
                        out.extend(encode((ax, ay)))
        return out

    def _ground_graph(self, start, n, climb_speed, swim_speed, blocked_by, pass_through,
                      difficult_extra, crawling, allow_falls, safe_drop_ft, squeeze=False):
        W = self.width
        sx, sy = int(start[0]), int(start[1])
        if not (self.fits_squeezed(sx, sy, n) if squeeze else self.fits(sx, sy, n)):
            raise ValueError(f"map '{self.name}': a space of {n}x{n} squares does not fit at "
                             f"({sx}, {sy})")
        edges = self._edges(n, bool(climb_speed), bool(swim_speed), bool(allow_falls),
                            int(safe_drop_ft), squeeze)
        if squeeze:
            ok, zs, _fl, tight = self._squeeze_anchors(n)
        else:
            (ok, zs, _fl), tight = self._anchors(n), None
        own = set(footprint(sx, sy, n - 1 if tight is not None and tight[sy * W + sx] else n))
        hostile = self._spread_space([c for c in blocked_by if (c[0], c[1]) not in own], n, tight)
        allies = self._spread_space([c for c in pass_through if (c[0], c[1]) not in own], n, tight)
        soft = allies | (self._spread_space(difficult_extra, n, tight) if difficult_extra else set())
        crawl = SQUARE_FT if crawling else 0
        s = sy * W + sx

        def build(destination):
            dx_, dy_ = int(destination[0]), int(destination[1])
            if not (0 <= dx_ < W and 0 <= dy_ < self.height):
                return s, None, None, None, None, None, None
            t = dy_ * W + dx_
            memo: dict = {}   # a state's successors, worked out once per search

            def succ(u):
                out = memo.get(u)
                if out is None:
                    out = memo[u] = [(v, c + crawl + (SQUARE_FT if not diff and v in soft else 0), fall, haz)
                                     for v, c, diff, fall, haz in edges[u] if v not in hostile]
                return out

            def encode(pos):
                x, y = pos[0], pos[1]
                if 0 <= x < W and 0 <= y < self.height:
                    return (y * W + x,)
                return ()

            def decode(i):
                return (i % W, i // W, zs[i])

            # the search's lower bound (Chebyshev feet to the target) for every state at once
            idx = np.arange(W * self.height)
            heur = (SQUARE_FT * np.maximum(np.abs(idx % W - dx_), np.abs(idx // W - dy_))).tolist().__getitem__

            def can_end(i):
                return ok[i] and (i == s or (i not in hostile and i not in allies))

            return s, t, succ, encode, decode, heur, can_end

        return build

    def _fly_graph(self, start, n, speed_ft, blocked_by, pass_through, max_altitude_ft):
        sx, sy = int(start[0]), int(start[1])
        sz = int(start[2]) if len(start) > 2 else self.standing_z(sx, sy, n)
        sl = sz // SQUARE_FT
        origin, free, hostile, ally, _R = self._fly_setup(sx, sy, sl, n, speed_ft, blocked_by,
                                                          pass_through, max_altitude_ft)
        x0, y0, l0 = origin
        L, H, W = free.shape
        # per window (terrain only): the allowed steps as lists, and each state's terrain-allowed
        # neighbours (filled in as searches reach them), for the last 32 windows
        wins = self._cache.get("fly-windows")
        if wins is None:
            wins = self._cache["fly-windows"] = {}
        win = wins.get((n, origin, free.shape))
        if win is None:
            if len(wins) >= 32:
                wins.clear()
            win = wins[(n, origin, free.shape)] = (
                [a.ravel().tolist() for a in self._fly_allowed_cached(n, origin, free)], {})
        allowed, nbrs = win
        hostile_l = hostile.ravel().tolist()
        ally_l = ally.ravel().tolist()
        free_l = free.ravel().tolist()
        steps = [(dx + W * (dy + H * dl), dx, dy, dl) for dx, dy, dl in _DIRS26]

        def enc3(x, y, layer):
            return ((layer - l0) * H + (y - y0)) * W + (x - x0)

        def dec(i):
            x = i % W
            y = (i // W) % H
            layer = i // (W * H)
            return (x + x0, y + y0, (layer + l0) * SQUARE_FT)

        s = enc3(sx, sy, sl)

        def build(destination):
            tx, ty = int(destination[0]), int(destination[1])
            tz = int(destination[2]) if len(destination) > 2 else self.standing_z(tx, ty, n)
            tl = tz // SQUARE_FT
            if not (x0 <= tx < x0 + W and y0 <= ty < y0 + H and l0 <= tl < l0 + L):
                return s, None, None, None, None, None, None
            t = enc3(tx, ty, tl)
            memo: dict = {}   # a state's successors, worked out once per search

            def succ(u):
                out = memo.get(u)
                if out is not None:
                    return out
                nb = nbrs.get(u)
                if nb is None:
                    nb = nbrs[u] = []
                    x = u % W
                    y = (u // W) % H
                    layer = u // (W * H)
                    for k, (off, dx, dy, dl) in enumerate(steps):
                        if allowed[k][u] and 0 <= x + dx < W and 0 <= y + dy < H and 0 <= layer + dl < L:
                            nb.append(u + off)
                out = memo[u] = [(v, (2 * SQUARE_FT if ally_l[v] else SQUARE_FT), 0, ())
                                 for v in nb if not hostile_l[v]]
                return out

            def encode(pos):
                x, y = pos[0], pos[1]
                if not (x0 <= x < x0 + W and y0 <= y < y0 + H):
                    return ()
                if len(pos) > 2 and pos[2] is None:
                    return tuple(enc3(x, y, lay) for lay in range(l0, l0 + L))
                z = int(pos[2]) if len(pos) > 2 else self.standing_z(x, y, n)
                lay = z // SQUARE_FT
                return (enc3(x, y, lay),) if l0 <= lay < l0 + L else ()

            # the search's lower bound (Chebyshev feet to the target) for every state at once
            idx = np.arange(L * H * W)
            heur = (SQUARE_FT * np.maximum(np.maximum(np.abs(idx % W + x0 - tx), np.abs((idx // W) % H + y0 - ty)),
                                           np.abs(idx // (W * H) + l0 - tl))).tolist().__getitem__

            def can_end(i):
                return free_l[i] and (i == s or (not hostile_l[i] and not ally_l[i]))

            return s, t, succ, encode, dec, heur, can_end

        return build


class Reach(Mapping):
    """Result of :meth:`BattleMap.reachable`: position -> (cost_ft, path), in canonical order.

    Paths are built on demand (:meth:`path`); :attr:`costs` maps position -> cost without them.
    """

    __slots__ = ("map", "squares", "start", "costs", "_prev", "_mode", "_paths", "_dests", "_array",
                 "_index", "_flat", "_box_ft", "_tight")

    def __init__(self, battle_map: BattleMap, n: int, start: tuple, costs: dict, prev, mode: str,
                 array: np.ndarray | None = None, tight: list | None = None):
        self.map = battle_map
        self.squares = n
        self._tight = tight   # a squeezing walk: per anchor index, whether it is squeezed there
        self.start = start
        self.costs = costs
        self._prev = prev
        self._mode = mode
        self._paths: dict = {}
        # asked of one shared answer by the menu, the destinations and the planner: kept
        self._dests = None
        self._array = array
        self._index = None
        self._flat = None   # a walk's flat cell indices, in order (the array is built from them)
        self._box_ft: dict = {}

    def __getitem__(self, pos):
        pos = self._norm(pos)
        return self.costs[pos], self.path(pos)

    def __iter__(self):
        return iter(self.costs)

    def __len__(self):
        return len(self.costs)

    def __contains__(self, pos):
        try:
            return self._norm(pos) in self.costs
        except (TypeError, IndexError):
            return False

    def _zs(self) -> list:
        """Standing heights per anchor index of the spaces this walk takes."""
        m = self.map
        return m._anchors(self.squares)[1] if self._tight is None else m._squeeze_anchors(self.squares)[1]

    def _norm(self, pos):
        """A position; an anchor (x, y) stands for the position standing there."""
        if len(pos) == 2:
            x, y = pos
            m = self.map
            k = self.squares - (self._tight is not None)
            if not (0 <= x <= m.width - k and 0 <= y <= m.height - k):
                return (x, y, None)
            return (x, y, self._zs()[y * m.width + x])
        return tuple(pos)

    def squeezed(self, pos) -> bool:
        """Whether the creature squeezes at this destination (its whole space does not fit there:
        it takes the (n-1)x(n-1) space at the anchor)."""
        if self._tight is None:
            return False
        x, y = pos[0], pos[1]
        m = self.map
        return 0 <= x < m.width and 0 <= y < m.height and self._tight[y * m.width + x]

    @property
    def destinations(self) -> tuple:
        if self._dests is None:
            self._dests = tuple(self.costs)
        return self._dests

    def array(self) -> np.ndarray | None:
        """The destinations as an (N, 3) int64 array, in their order; None when some height is
        not a whole number of feet (then ask the positions one at a time)."""
        if self._array is None:
            if self._flat is not None:   # a walk: its flat cells, and the floor's heights
                floor = self.map._floor_array(self.squares, self._tight is not None)
                if floor is not None:
                    idx = np.array(self._flat, dtype=np.int64)
                    W = self.map.width
                    self._array = np.stack((idx % W, idx // W, floor[idx]), axis=1)
                    return self._array
            P = np.array(self.destinations)
            if P.ndim != 2 or P.shape[1] != 3 or P.dtype.kind != "i":
                return None
            self._array = P.astype(np.int64, copy=False)
        return self._array

    def index(self) -> dict:
        """position -> its place in :attr:`destinations`."""
        if self._index is None:
            self._index = dict(zip(self.destinations, range(len(self.costs))))
        return self._index

    def box_ft(self, box: tuple) -> np.ndarray | None:
        """Distance in feet from this space at every destination to a box of inclusive extents
        (x0, y0, x1, y1, layer0, layer1): :func:`box_distance_ft`'s numbers, worked out once per
        box for everyone who asks (labels, the planner's squares); None as :meth:`array`."""
        row = self._box_ft.get(box)
        if row is None:
            P = self.array()
            if P is None:
                return None
            n = self.squares
            x0, y0, l0 = P[:, 0], P[:, 1], P[:, 2] // SQUARE_FT
            bx0, by0, bx1, by1, bl0, bl1 = box
            row = SQUARE_FT * np.maximum(
                np.maximum(np.maximum(bx0 - (x0 + n - 1), x0 - bx1), np.maximum(by0 - (y0 + n - 1), y0 - by1)),
                np.maximum(np.maximum(bl0 - (l0 + n - 1), l0 - bl1), 0))
            self._box_ft[box] = row
        return row

    def nearest(self, boxes: list) -> tuple[list, list] | None:
        """For every destination: the distance in feet to the nearest of the boxes and that box's
        index (the first on a tie), as :func:`nearest_box_ft`; None as :meth:`array`."""
        rows = [self.box_ft(b) for b in boxes]
        if not rows or rows[0] is None:
            return None
        table = np.stack(rows)
        k = table.argmin(axis=0)
        return table[k, np.arange(table.shape[1])].tolist(), k.tolist()

    def cost(self, pos) -> int:
        return self.costs[self._norm(pos)]

    def path(self, pos) -> tuple:
        """Positions from the start to pos (both included), one cheapest path."""
        pos = self._norm(pos)
        if pos not in self.costs:
            raise KeyError(pos)
        p = self._paths.get(pos)
        if p is not None:
            return p
        m = self.map
        if self._mode == "ground":
            W = m.width
            zs = self._zs()
            i = pos[1] * W + pos[0]
            out = [pos]
            while i in self._prev:
                i = self._prev[i][0]
                out.append((i % W, i // W, zs[i]))
            p = tuple(reversed(out))
        else:
            (x0, y0, l0), dist, allowed, ally = self._prev
            L, H, W = dist.shape
            cur = (pos[2] // SQUARE_FT - l0, pos[1] - y0, pos[0] - x0)
            out = [pos]
            while dist[cur] > 0:
                step = 2 if ally[cur] else 1
                want = dist[cur] - step
                for k, (dx, dy, dl) in enumerate(_DIRS26):
                    q = (cur[0] - dl, cur[1] - dy, cur[2] - dx)
                    if not (0 <= q[0] < L and 0 <= q[1] < H and 0 <= q[2] < W):
                        continue
                    if dist[q] == want and allowed[k][q]:
                        cur = q
                        break
                else:  # pragma: no cover - the distance field always has a predecessor
                    raise RuntimeError("broken flight distance field")
                out.append((cur[2] + x0, cur[1] + y0, (cur[0] + l0) * SQUARE_FT))
            p = tuple(reversed(out))
        self._paths[pos] = p
        return p

    def falls(self, pos) -> tuple:
        """Heights in feet of the falls along :meth:`path` (walking with allow_falls)."""
        if self._mode != "ground":
            return ()
        pos = self._norm(pos)
        W = self.map.width
        zs = self._zs()
        i = pos[1] * W + pos[0]
        out = []
        while i in self._prev:
            j, fall = self._prev[i]
            if fall:
                out.append(zs[j] - zs[i])
            i = j
        return tuple(reversed(out))
