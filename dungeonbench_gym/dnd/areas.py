"""Areas of effect (SRD "Areas of Effect"): spheres, cylinders, cubes, cones, lines, emanations.

Conventions
-----------
* Geometry is 3D on the map's lattice of 5-foot cubes ``(x, y, layer)``; a layer is 5 feet of
  height (``layer = z_ft // 5``). A creature standing on a floor of height ``e`` is in the cube at
  layer ``e // 5`` (Large and bigger: all the cubes of its space).
* **A cube is covered when its centre is inside the shape** (boundary included). For circles this
  is the usual stand-in for the DMG's "at least half a square" rule.
* **Sphere / cylinder**: the point of origin is a grid intersection, the corner shared by four
  squares (``(x, y)`` is the top-left corner of cell ``(x, y)``), at ground height (the highest of
  the four floors) unless a height is given. Euclidean radius: a 20-ft sphere covers 52 squares
  of the ground layer (not a 8x8 block).
* **Cone, line, cube from a creature** (Burning Hands, Lightning Bolt, Thunderwave): the point of
  origin is on the edge of the caster's space in the chosen direction: the middle of that side for
  an orthogonal direction (for a Large or Gargantuan caster, the middle of the first square of
  that side, so its cone has the same shape as a Medium caster's), the corner for a diagonal, at
  the middle height of the caster's bottom layer (a horizontal cone stays on that layer). Directions are integer vectors ``(dx, dy, dz)``
  with components in -1..1 (:data:`DIRECTIONS_8` on the ground, :data:`DIRECTIONS_26` in 3D).
  A cone's width at distance d along its axis equals d (half-angle atan(1/2)); its length is
  measured along the axis. A line is ``width`` wide (5 ft) around its axis (square cross-section
  when axis-aligned, the extra half square going low for even widths; round on diagonals). A
  cube spans
  ``side`` along the direction from the origin and is centred on the origin across it (for an
  even number of squares across, the extra half goes to the low side). Origins are excluded
  (they lie on an edge), so the caster is never in its own cone, line or cube.
* **Emanation** (Spirit Guardians, auras): every cube within ``radius`` of the creature's space
  by the grid distance of :func:`grid.box_distance_ft` (Chebyshev, height included), so it agrees
  with "within N feet"; the creature's own cubes are included (the engine decides who is
  affected).
* **Line of effect** (:func:`affected_cells`): a cube is affected only if the straight line from
  the point of origin to its centre is not blocked by total cover (walls, solid ground).
* Templates are cached as relative offsets per (shape, size, direction, origin parity);
  :func:`sphere_placements` enumerates every placement of a point-origin area on a map at once
  (numpy), and :func:`placement_hits` turns that into a bitmask of creatures hit per placement.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
import numpy as np

from .grid import BLOCKS, SQUARE_FT, BattleMap, _trace, box_of, size_squares

__all__ = ["Area", "COMPASS", "DIRECTIONS_8", "DIRECTIONS_26", "sphere", "cylinder", "cube_from",
           "cube_at", "cone", "line", "emanation", "affected_cells", "affects", "ground_z_at_point",
           "Placements", "sphere_placements", "placement_hits"]

COMPASS: dict[str, tuple[int, int, int]] = {
    "N": (0, -1, 0), "NE": (1, -1, 0), "E": (1, 0, 0), "SE": (1, 1, 0),
    "S": (0, 1, 0), "SW": (-1, 1, 0), "W": (-1, 0, 0), "NW": (-1, -1, 0),
}
#: horizontal directions in canonical order (dx, then dy): what a direction decision offers
DIRECTIONS_8: tuple[tuple[int, int, int], ...] = tuple(sorted(COMPASS.values()))
#: every direction in 3D in canonical order (dx, then dy, then dz)
DIRECTIONS_26: tuple[tuple[int, int, int], ...] = tuple(
    (dx, dy, dz) for dx in (-1, 0, 1) for dy in (-1, 0, 1) for dz in (-1, 0, 1) if dx or dy or dz)

_HALF = SQUARE_FT / 2   # feet per doubled unit


class Area:
    """A placed area: the point of origin (doubled coordinates: half squares, half layers) and
    the covered cubes (relative offsets from ``base``, shared with every area of the same shape,
    size, direction and origin parity)."""

    __slots__ = ("shape", "origin", "base", "offsets", "_cubes")

    def __init__(self, shape: str, origin: tuple[int, int, int], offsets: tuple):
        self.shape = shape
        self.origin = origin
        self.base = (origin[0] >> 1, origin[1] >> 1, origin[2] >> 1)
        self.offsets = offsets
        self._cubes = None

    def __repr__(self) -> str:
        x, y, z = self.origin_ft
        return f"Area({self.shape}, origin=({x}, {y}, {z}) ft, {len(self.offsets)} cubes)"

    @property
    def origin_ft(self) -> tuple[float, float, float]:
        """The point of origin in feet from the map's top-left corner (z: height)."""
        return (self.origin[0] * _HALF, self.origin[1] * _HALF, self.origin[2] * _HALF)

    @property
    def cubes(self) -> frozenset:
        """Covered cubes ``(x, y, layer)`` (not clipped to any map)."""
        if self._cubes is None:
            bx, by, bl = self.base
            self._cubes = frozenset((bx + dx, by + dy, bl + dl) for dx, dy, dl in self.offsets)
        return self._cubes

    def cells(self, layer: int | None = None) -> tuple[tuple[int, int], ...]:
        """Covered cells of one layer (default: the origin's layer), row-major."""
        bx, by, bl = self.base
        if layer is None:
            layer = bl
        rel = layer - bl
        out = {(bx + dx, by + dy) for dx, dy, dl in self.offsets if dl == rel}
        return tuple(sorted(out, key=lambda c: (c[1], c[0])))

    def covers(self, x: int, y: int, z_ft: float = 0, size: str | int = 1) -> bool:
        """True when any cube of the space anchored at (x, y) with its bottom at z_ft is covered."""
        n = size_squares(size)
        c = self.cubes
        layer = int(z_ft // SQUARE_FT)
        return any((x + i, y + j, layer + k) in c
                   for k in range(n) for j in range(n) for i in range(n))


# ----------------------------------------------------------------------------- templates
def _grid(bound: int):
    r = np.arange(-bound, bound + 1)
    dl, dy, dx = np.meshgrid(r, r, r, indexing="ij")
    return dx.ravel(), dy.ravel(), dl.ravel()


def _offsets(mask, dx, dy, dl) -> tuple:
    sel = np.flatnonzero(mask)
    pts = sorted(zip(dx[sel].tolist(), dy[sel].tolist(), dl[sel].tolist()),
                 key=lambda p: (p[2], p[1], p[0]))
    return tuple(pts)


@lru_cache(maxsize=None)
def _template(shape: str, parity: tuple[int, int, int], size: int, extra: int,
              direction: tuple[int, int, int]) -> tuple:
    """Offsets (dx, dy, dl) from the base cube of an area with this origin parity.

    ``size`` and ``extra`` are in doubled units (2.5 ft): radius/length/side and height/width.
    """
    px, py, pz = parity
    bound = size // 2 + extra // 2 + 3
    dx, dy, dl = _grid(bound)
    # vector from the origin to each cube centre, doubled units
    vx = 2 * dx + 1 - px
    vy = 2 * dy + 1 - py
    vz = 2 * dl + 1 - pz
    if shape == "sphere":
        mask = vx * vx + vy * vy + vz * vz <= size * size
    elif shape == "cylinder":
        mask = (vx * vx + vy * vy <= size * size) & (vz > 0) & (vz < extra)
    elif shape in ("cone", "line"):
        ux, uy, uz = direction
        uu = ux * ux + uy * uy + uz * uz
        dot = vx * ux + vy * uy + vz * uz
        vv = vx * vx + vy * vy + vz * vz
        mask = (dot > 0) & (dot * dot <= size * size * uu)
        if shape == "cone":
            mask &= 4 * vv * uu <= 5 * dot * dot
        elif uu == 1:
            # axis-aligned: a square cross-section, half-open so that an even number of squares
            # across is exact (the extra half goes to the low side)
            for v, u in ((vx, ux), (vy, uy), (vz, uz)):
                if u == 0:
                    mask &= (v >= -(extra // 2)) & (v < extra - extra // 2)
        else:
            mask &= 4 * (vv * uu - dot * dot) <= extra * extra * uu
    elif shape == "cube":
        mask = np.ones_like(vx, dtype=bool)
        for v, u in ((vx, direction[0]), (vy, direction[1]), (vz, direction[2])):
            if u > 0:
                lo, hi = 0, size
            elif u < 0:
                lo, hi = -size, 0
            else:       # centred; an even count of squares puts the extra half low
                lo, hi = -(size // 2), size // 2
            mask &= (v >= lo) & (v < hi)
    else:  # pragma: no cover - callers pass known shapes
        raise ValueError(shape)
    return _offsets(mask, dx, dy, dl)


def _doubled(ft: float, what: str) -> int:
    d = ft / _HALF
    if ft <= 0 or d != int(d):
        raise ValueError(f"{what} {ft!r} ft: expected a positive multiple of 2.5 ft")
    return int(d)


def _direction(direction) -> tuple[int, int, int]:
    if isinstance(direction, str):
        try:
            return COMPASS[direction.upper()]
        except KeyError:
            raise ValueError(f"direction {direction!r}: expected one of {', '.join(COMPASS)} or "
                             f"a vector (dx, dy, dz)") from None
    d = tuple(int(v) for v in direction)
    if len(d) == 2:
        d = (*d, 0)
    if len(d) != 3 or any(v not in (-1, 0, 1) for v in d) or d == (0, 0, 0):
        raise ValueError(f"direction {direction!r}: expected (dx, dy, dz) with components -1, 0, 1")
    return d


def ground_z_at_point(battle_map: BattleMap, x: int, y: int) -> int:
    """Ground height (ft) at grid intersection (x, y): the highest floor of the squares around it."""
    zs = [battle_map.elevation_at(cx, cy) for cx in (x - 1, x) for cy in (y - 1, y)
          if battle_map.in_bounds(cx, cy)]
    return max(zs) if zs else 0


def _point_origin(point, battle_map):
    x, y = int(point[0]), int(point[1])
    if len(point) > 2 and point[2] is not None:
        z = point[2]
    elif battle_map is not None:
        z = ground_z_at_point(battle_map, x, y)
    else:
        z = 0
    return 2 * x, 2 * y, int(round(z / _HALF))


def sphere(point, radius_ft: float, battle_map: BattleMap | None = None) -> Area:
    """A sphere centred on grid intersection ``point`` = (x, y) or (x, y, z_ft) (Fireball)."""
    if battle_map is not None:   # the planner places the same spheres again and again: one per map
        memo = battle_map._cache.get("spheres")
        if memo is None or len(memo) > 20_000:
            memo = battle_map._cache["spheres"] = {}
        key = (tuple(point), radius_ft)
        got = memo.get(key)
        if got is None:
            got = memo[key] = _sphere(point, radius_ft, battle_map)
        return got
    return _sphere(point, radius_ft, None)


def _sphere(point, radius_ft: float, battle_map: BattleMap | None) -> Area:
    origin = _point_origin(point, battle_map)
    R = _doubled(radius_ft, "radius")
    par = (origin[0] & 1, origin[1] & 1, origin[2] & 1)
    return Area("sphere", origin, _template("sphere", par, R, 0, (0, 0, 0)))


def cylinder(point, radius_ft: float, height_ft: float,
             battle_map: BattleMap | None = None) -> Area:
    """A cylinder whose base circle is centred on grid intersection ``point``, rising height_ft."""
    origin = _point_origin(point, battle_map)
    R = _doubled(radius_ft, "radius")
    Hd = _doubled(height_ft, "height")
    par = (origin[0] & 1, origin[1] & 1, origin[2] & 1)
    return Area("cylinder", origin, _template("cylinder", par, R, Hd, (0, 0, 0)))


def _edge_origin(caster_cells, caster_z: float, d) -> tuple[int, int, int]:
    x, y, n = box_of(caster_cells)
    layer = int(caster_z // SQUARE_FT)
    out = []
    # across the direction: the middle of the space (of its first half, for an even size, so
    # that a Large caster's cone has the same shape as a Medium one's)
    mid = n if n % 2 else n - 1
    for lo, u in ((x, d[0]), (y, d[1]), (layer, d[2])):
        out.append(2 * (lo + n) if u > 0 else (2 * lo if u < 0 else 2 * lo + mid))
    return tuple(out)


def _directional(shape, caster_cells, size_ft, extra_ft, direction, caster_z):
    d = _direction(direction)
    origin = _edge_origin(caster_cells, caster_z, d)
    size = _doubled(size_ft, "size")
    extra = _doubled(extra_ft, "width") if extra_ft else 0
    par = (origin[0] & 1, origin[1] & 1, origin[2] & 1)
    return Area(shape, origin, _template(shape, par, size, extra, d))


def cone(caster_cells, length_ft: float, direction, caster_z: float = 0) -> Area:
    """A cone from the caster's edge in ``direction`` (Burning Hands: 15 ft, Cone of Cold: 60)."""
    return _directional("cone", caster_cells, length_ft, 0, direction, caster_z)


def line(caster_cells, length_ft: float, direction, width_ft: float = 5,
         caster_z: float = 0) -> Area:
    """A line from the caster's edge in ``direction`` (Lightning Bolt: 100 ft long, 5 ft wide)."""
    return _directional("line", caster_cells, length_ft, width_ft, direction, caster_z)


def cube_from(caster_cells, side_ft: float, direction, caster_z: float = 0) -> Area:
    """A cube with its point of origin on the caster's edge (Thunderwave: 15-ft cube)."""
    return _directional("cube", caster_cells, side_ft, 0, direction, caster_z)


def cube_at(cell, side_ft: float, z_ft: float = 0) -> Area:
    """A cube whose top-left bottom cube is ``cell`` at height z_ft (placed cubes, e.g. Fog Cloud
    as a cube): side_ft // 5 squares on each side."""
    k = _doubled(side_ft, "side") // 2
    x, y = int(cell[0]), int(cell[1])
    layer = int(z_ft // SQUARE_FT)
    offs = tuple((i, j, m) for m in range(k) for j in range(k) for i in range(k))
    return Area("cube", (2 * x, 2 * y, 2 * layer), offs)


@lru_cache(maxsize=1024)
def _emanation_offsets(n: int, r: int) -> tuple:
    return tuple((i, j, m) for m in range(-r, n + r) for j in range(-r, n + r)
                 for i in range(-r, n + r))


def emanation(creature_cells, radius_ft: int, z_ft: float = 0) -> Area:
    """Every cube within radius_ft of the creature's space (Spirit Guardians: 15 ft)."""
    x, y, n = box_of(creature_cells)
    layer = int(z_ft // SQUARE_FT)
    r = int(radius_ft) // SQUARE_FT
    # origin: the middle of the creature's space (line of effect is drawn from there)
    area = Area("emanation", (2 * x + n, 2 * y + n, 2 * layer + n), _emanation_offsets(n, r))
    # offsets are relative to the space's anchor, not to the middle
    area.base = (x, y, layer)
    return area


# ----------------------------------------------------------------------------- line of effect
def _reaches(battle_map: BattleMap, area: Area, x: int, y: int, layer: int) -> bool:
    X0, Y0, Z0 = area.origin
    W = battle_map.width
    own = {y * W + x}
    if X0 & 1 and Y0 & 1:
        own.add((Y0 >> 1) * W + (X0 >> 1))
    ln = battle_map._eval_line(X0, Y0, 2 * x + 1, 2 * y + 1, Z0 * _HALF, (2 * layer + 1) * _HALF,
                               own)
    return not ln.blocked


def affected_cells(area: Area, battle_map: BattleMap, *,
                   line_of_effect: bool = True) -> tuple[tuple[int, int], ...]:
    """Map cells whose ground-level cube (a creature standing there) the area reaches, row-major.

    Cells off the map and wall cells are dropped; with ``line_of_effect`` (default) so are cells with total
    cover from the point of origin. For flyers and big creatures use :func:`affects`.
    """
    W, H = battle_map.width, battle_map.height
    elev, flags = battle_map._elev, battle_map._flags
    out = []
    for x, y, layer in area.cubes:
        if (0 <= x < W and 0 <= y < H and layer == elev[y * W + x] // SQUARE_FT
                and not flags[y * W + x] & BLOCKS
                and (not line_of_effect or _reaches(battle_map, area, x, y, layer))):
            out.append((x, y))
    out.sort(key=lambda c: (c[1], c[0]))
    return tuple(out)


def affects(area: Area, battle_map: BattleMap, creature_cells, z_ft: float | None = None, *,
            line_of_effect: bool = True) -> bool:
    """True when the area reaches some cube of a creature's space (bottom at z_ft; default: standing)."""
    x, y, n = box_of(creature_cells)
    return affects_space(area, battle_map, x, y, n, z_ft, line_of_effect=line_of_effect)


def affects_space(area: Area, battle_map: BattleMap, x: int, y: int, n: int, z_ft: float | None = None, *,
                  line_of_effect: bool = True) -> bool:
    """:func:`affects` for the n x n space anchored at (x, y) (a creature's pos and squares)."""
    if z_ft is None:
        z_ft = battle_map.standing_z(x, y, n)
    layer0 = int(z_ft // SQUARE_FT)
    # the answer depends only on the map, the placed area and the space: the planner asks the
    # same placements of the same creatures turn after turn, so it is kept per map (the entry
    # holds the template, so its id cannot be reused while the entry lives)
    memo = battle_map._cache.get("affects")
    if memo is None or len(memo) > 200_000:
        memo = battle_map._cache["affects"] = {}
    key = (area.origin, area.base, id(area.offsets), x, y, n, layer0, line_of_effect)
    hit = memo.get(key)
    if hit is not None and hit[0] is area.offsets:
        return hit[1]
    # membership relative to the area's base: no need to build the placed area's cube set
    bx, by, bl = area.base
    offs = _offset_set(area.offsets)
    out = False
    for k in range(n):
        for j in range(n):
            for i in range(n):
                if (x + i - bx, y + j - by, layer0 + k - bl) in offs and (
                        not line_of_effect or _reaches(battle_map, area, x + i, y + j, layer0 + k)):
                    out = True
                    break
            if out:
                break
        if out:
            break
    memo[key] = (area.offsets, out)
    return out


_OFFSET_SETS: dict = {}


def _offset_set(offsets: tuple) -> frozenset:
    """The set of a template's offsets, kept per template (keyed by identity; the entry holds
    the template so its id is not reused while cached)."""
    rec = _OFFSET_SETS.get(id(offsets))
    if rec is None or rec[0] is not offsets:
        if len(_OFFSET_SETS) > 4096:
            _OFFSET_SETS.clear()
        rec = _OFFSET_SETS[id(offsets)] = (offsets, frozenset(offsets))
    return rec[1]


# ----------------------------------------------------------------------------- bulk placements
class Placements:
    """Every placement of a point-origin area: ``origins[k]`` = intersection (x, y) (row-major);
    ``cells[k]`` = covered map-cell indices (``y * width + x``), -1 where not covered."""

    __slots__ = ("origins", "cells", "width")

    def __init__(self, origins: np.ndarray, cells: np.ndarray, width: int):
        self.origins = origins
        self.cells = cells
        self.width = width

    def __len__(self) -> int:
        return len(self.origins)

    def covered(self, k: int) -> tuple[tuple[int, int], ...]:
        """The cells of placement k, row-major."""
        row = self.cells[k]
        idx = np.sort(row[row >= 0])
        return tuple((int(i) % self.width, int(i) // self.width) for i in idx)


def _map_arrays(battle_map: BattleMap):
    """Floor heights (flat, feet) and the ground layer at every grid intersection (row-major)."""
    key = ("area-arrays",)
    rec = battle_map._cache.get(key)
    if rec is None:
        H, W = battle_map.height, battle_map.width
        elev = battle_map.elevation.astype(np.float64).ravel()
        # an intersection's ground: the highest floor of the four squares around it
        pad = np.full((H + 2, W + 2), -(10 ** 9), dtype=np.int64)
        pad[1:-1, 1:-1] = battle_map.elevation
        g = np.maximum(np.maximum(pad[:-1, :-1], pad[:-1, 1:]), np.maximum(pad[1:, :-1], pad[1:, 1:]))
        rec = (elev, g.ravel() // SQUARE_FT)
        battle_map._cache[key] = rec
    return rec


@lru_cache(maxsize=256)
def _column_plan(offs: tuple):
    """Columns (dx, dy) of a point-origin template with their layer range, and the cells every
    origin-to-centre line crosses (origin at a grid intersection)."""
    cols: dict[tuple[int, int], list[int]] = {}
    for dx, dy, dl in offs:
        cols.setdefault((dx, dy), []).append(dl)
    keys = sorted(cols, key=lambda c: (c[1], c[0]))
    dxs = np.array([k[0] for k in keys], dtype=np.int64)
    dys = np.array([k[1] for k in keys], dtype=np.int64)
    lo = np.array([min(cols[k]) for k in keys], dtype=np.int64)
    hi = np.array([max(cols[k]) for k in keys], dtype=np.int64)
    exact = tuple((i, tuple(cols[k])) for i, k in enumerate(keys)
                  if len(cols[k]) != max(cols[k]) - min(cols[k]) + 1)
    e_col, e_rx, e_ry, e_t, s_col, s_a, s_b, s_t = [], [], [], [], [], [], [], []
    for i, (dx, dy) in enumerate(keys):
        interiors, seams = _trace(0, 0, 2 * dx + 1, 2 * dy + 1)
        for rx, ry, t in interiors:
            if (rx, ry) != (dx, dy):
                e_col.append(i), e_rx.append(rx), e_ry.append(ry), e_t.append(t)
        for xa, ya, xb, yb, t in seams:
            s_col.append(i), s_a.append((xa, ya)), s_b.append((xb, yb)), s_t.append(t)
    return (dxs, dys, lo, hi, exact, np.array(e_col, dtype=np.int64),
            np.array(e_rx, dtype=np.int64), np.array(e_ry, dtype=np.int64),
            np.array(e_t, dtype=np.float64), np.array(s_col, dtype=np.int64),
            np.array(s_a, dtype=np.int64).reshape(-1, 2), np.array(s_b, dtype=np.int64).reshape(-1, 2),
            np.array(s_t, dtype=np.float64))


def _padded(battle_map: BattleMap, B: int):
    """Map arrays padded by B cells of wall (off the map blocks lines), and where lines may be
    blocked at all (blockers or a change of floor height), as 2D padded arrays/flat vectors."""
    key = ("area-padded", B)
    rec = battle_map._cache.get(key)
    if rec is None:
        H, W = battle_map.height, battle_map.width
        Hp, Wp = H + 2 * B, W + 2 * B
        elev = np.zeros((Hp, Wp))
        elev[B:B + H, B:B + W] = battle_map.elevation
        wall = np.ones((Hp, Wp), dtype=bool)
        wall[B:B + H, B:B + W] = (battle_map.flags & BLOCKS) != 0
        top = np.full((Hp, Wp), np.inf)
        top[B:B + H, B:B + W] = np.array(battle_map._top).reshape(H, W)
        # a cell can block when it is a wall or its floor differs from a neighbour's
        rough = wall.copy()
        e = elev
        rough[:, 1:] |= e[:, 1:] != e[:, :-1]
        rough[:, :-1] |= e[:, 1:] != e[:, :-1]
        rough[1:, :] |= e[1:, :] != e[:-1, :]
        rough[:-1, :] |= e[1:, :] != e[:-1, :]
        rough[:B, :] = rough[-B:, :] = False      # the border blocks only lines that leave the map
        rough[:, :B] = rough[:, -B:] = False
        rec = (elev.ravel(), wall.ravel(), top.ravel(), rough)
        battle_map._cache[key] = rec
    return rec


def _near(rough: np.ndarray, B: int, oy: np.ndarray, ox: np.ndarray) -> np.ndarray:
    """Per origin (intersection): is any rough cell within B cells of it."""
    c = np.zeros((rough.shape[0] + 1, rough.shape[1] + 1), dtype=np.int64)
    c[1:, 1:] = np.cumsum(np.cumsum(rough, 0), 1)
    # padded cell (py, px) sits at padded coords; intersection (x, y) touches padded cells
    # (x + B - 1 .. x + B); take the window x + B - B .. x + B + B - 1
    y0 = np.clip(oy, 0, None)
    x0 = np.clip(ox, 0, None)
    y1 = np.clip(oy + 2 * B, None, rough.shape[0])
    x1 = np.clip(ox + 2 * B, None, rough.shape[1])
    return (c[y1, x1] - c[y0, x1] - c[y1, x0] + c[y0, x0]) > 0


def _or_columns(out: np.ndarray, hit: np.ndarray, col: np.ndarray) -> None:
    """out[:, c] |= any of hit's columns whose entry in col is c (col sorted)."""
    starts = np.flatnonzero(np.r_[True, col[1:] != col[:-1]])
    out[:, col[starts]] |= np.logical_or.reduceat(hit, starts, axis=1)


def sphere_placements(battle_map: BattleMap, radius_ft: float, *, shape: str = "sphere",
                      height_ft: float = 0, line_of_effect: bool = True) -> Placements:
    """Every grid-intersection placement of a sphere (or cylinder) on the ground, vectorised.

    A placement covers the map cells whose standing cube lies in the area (as
    :func:`affected_cells`); with ``line_of_effect`` cells behind total cover are dropped.
    """
    W, H = battle_map.width, battle_map.height
    elev, glayer = _map_arrays(battle_map)
    layers = (elev // SQUARE_FT).astype(np.int64)
    oy, ox = np.divmod(np.arange((W + 1) * (H + 1)), W + 1)
    R = _doubled(radius_ft, "radius")
    if shape == "sphere":
        offs = _template("sphere", (0, 0, 0), R, 0, (0, 0, 0))
    elif shape == "cylinder":
        offs = _template("cylinder", (0, 0, 0), R, _doubled(height_ft, "height"), (0, 0, 0))
    else:
        raise ValueError(f"shape {shape!r}: expected sphere or cylinder")
    rec = _column_plan(offs)
    dxs, dys, lo, hi, exact, e_col, e_rx, e_ry, e_t, s_col, s_a, s_b, s_t = rec
    cx = ox[:, None] + dxs[None, :]
    cy = oy[:, None] + dys[None, :]
    inb = (cx >= 0) & (cx < W) & (cy >= 0) & (cy < H)
    idx = np.where(inb, cy * W + cx, 0)
    tl = layers[idx]
    rel = tl - glayer[:, None]
    cov = inb & (rel >= lo[None, :]) & (rel <= hi[None, :])
    cov &= (battle_map.flags.ravel() & BLOCKS)[idx] == 0        # nobody stands inside a wall
    for k, dls in exact:                       # columns whose layers are not contiguous
        cov[:, k] &= np.isin(rel[:, k], dls)
    if line_of_effect and (battle_map._has_blockers or not battle_map._flat):
        B = int(max(np.abs(dxs).max(), np.abs(dys).max())) + 2
        elev_p, wall_p, top_p, rough = _padded(battle_map, B)
        Wp = W + 2 * B
        # only origins near something that can block a line need the check
        rows = np.flatnonzero(_near(rough, B, oy, ox))
        if rows.size:
            ro = (oy[rows] + B) * Wp + ox[rows] + B
            simple = battle_map._flat and not np.isfinite(top_p[wall_p]).any()
            z0 = (glayer[rows] * SQUARE_FT).astype(np.float64)[:, None]
            z1 = (2 * tl[rows] + 1) * _HALF
            blocked = np.zeros((rows.size, cov.shape[1]), dtype=bool)

            def solid(rx, ry, col, t):
                q = ro[:, None] + (ry * Wp + rx)[None, :]
                if simple:
                    return wall_p[q]
                z = z0 + (z1[:, col] - z0) * t[None, :]
                return (z < elev_p[q]) | (wall_p[q] & (z < elev_p[q] + top_p[q]))

            if e_col.size:
                _or_columns(blocked, solid(e_rx, e_ry, e_col, e_t), e_col)
            if s_col.size:
                hit = solid(s_a[:, 0], s_a[:, 1], s_col, s_t) & \
                    solid(s_b[:, 0], s_b[:, 1], s_col, s_t)
                _or_columns(blocked, hit, s_col)
            cov[rows] &= ~blocked
    out = np.where(cov, idx, -1).astype(np.int32)
    return Placements(np.stack([ox, oy], axis=1), out, W)


def placement_hits(placements: Placements, battle_map: BattleMap,
                   targets: Iterable) -> np.ndarray:
    """Per placement, a bitmask of the targets hit (bit i: targets[i], a creature's cells).

    At most 63 targets. A target is hit when any of its cells is covered.
    """
    targets = list(targets)
    if len(targets) > 63:
        raise ValueError("placement_hits: at most 63 targets")
    W, N = battle_map.width, battle_map.size
    owner = np.zeros(N + 1, dtype=np.int64)
    for b, cells in enumerate(targets):
        if isinstance(cells, tuple) and len(cells) == 2 and isinstance(cells[0], (int, np.integer)):
            cells = (cells,)
        for c in cells:
            if 0 <= c[0] < W and 0 <= c[1] < battle_map.height:
                owner[c[1] * W + c[0]] |= np.int64(1) << np.int64(b)
    idx = np.where(placements.cells >= 0, placements.cells, N)
    return np.bitwise_or.reduce(owner[idx], axis=1)
