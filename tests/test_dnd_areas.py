"""Areas of effect: template cell counts, symmetry, directions, line of effect, bulk placement."""

import statistics
import time

import numpy as np
import pytest

from dungeonbench_gym.dnd.areas import (COMPASS, DIRECTIONS_8, DIRECTIONS_26, affected_cells,
                                        affects, cone, cube_at, cube_from, cylinder, emanation,
                                        line, placement_hits, sphere, sphere_placements)
from dungeonbench_gym.dnd.grid import BattleMap, footprint


def bm(layout, heights=None, legend=None):
    data = {"layout": layout}
    if heights is not None:
        data["heights"] = heights
    if legend is not None:
        data["legend"] = legend
    return BattleMap.from_dict(data, "areas")


OPEN = bm(["." * 30] * 30)


def rot90(cells, cx2, cy2):
    """Rotate cells a quarter turn (clockwise on screen) about the point (cx2/2, cy2/2)."""
    out = set()
    for x, y in cells:
        px, py = 2 * x + 1 - cx2, 2 * y + 1 - cy2
        qx, qy = -py, px
        out.add(((qx + cx2 - 1) // 2, (qy + cy2 - 1) // 2))
    return out


def test_directions():
    assert len(DIRECTIONS_8) == 8 and len(DIRECTIONS_26) == 26
    assert DIRECTIONS_8 == tuple(sorted(DIRECTIONS_8))
    assert set(COMPASS.values()) == set(DIRECTIONS_8)
    with pytest.raises(ValueError, match="direction"):
        cone((5, 5), 15, "UP")
    with pytest.raises(ValueError, match="direction"):
        cone((5, 5), 15, (2, 0, 0))


def test_sphere_20ft_radius():
    a = sphere((15, 15), 20)
    cells = set(a.cells())
    assert len(cells) == 52                               # centre-of-square test, Euclidean
    assert (14, 14) in cells and (11, 14) in cells and (18, 15) in cells
    assert (11, 11) not in cells and (10, 15) not in cells
    assert rot90(cells, 30, 30) == cells                  # fourfold symmetric about the point
    assert affected_cells(a, OPEN) == tuple(sorted(cells, key=lambda c: (c[1], c[0])))
    # 3D: a flyer 15 ft up near the middle is inside; one 25 ft up is not
    assert a.covers(14, 14, 15) and not a.covers(14, 14, 25)
    assert affects(a, OPEN, (14, 14), 15) and not affects(a, OPEN, (14, 14), 20)
    # clipped by the map's edge
    assert len(affected_cells(sphere((0, 0), 20), OPEN)) == 13


def test_cylinder():
    c = cylinder((10, 10), 10, 20)
    assert len(c.cells()) == 12                           # r = 10 ft: 12 squares on the ground
    assert c.covers(10, 10, 15) and not c.covers(10, 10, 20)


def test_cone_15ft_each_direction_symmetric():
    caster = (10, 10)
    shapes = {name: set(cone(caster, 15, d).cells()) for name, d in COMPASS.items()}
    for name in ("N", "E", "S", "W"):
        assert len(shapes[name]) == 5                     # 1 + 1 + 3 squares
    for name in ("NE", "SE", "SW", "NW"):
        assert len(shapes[name]) == 6                     # 1 + 2 + 2 + 1 (rounded diagonally)
    # quarter turns about the caster's square map one direction onto the next
    turn = {"N": "E", "E": "S", "S": "W", "W": "N", "NE": "SE", "SE": "SW", "SW": "NW", "NW": "NE"}
    for a, b in turn.items():
        assert rot90(shapes[a], 21, 21) == shapes[b], (a, b)
    assert shapes["E"] == {(11, 10), (12, 10), (13, 9), (13, 10), (13, 11)}
    assert all(caster not in s for s in shapes.values())  # the caster is not in its own cone
    # a Large caster: the cone starts at its edge
    big = set(cone(footprint(10, 10, 2), 15, "E").cells())
    assert big == {(x + 1, y) for x, y in shapes["E"]}


def test_cone_aimed_down_from_a_flyer():
    c = cone((10, 10), 30, (1, 0, -1), caster_z=20)
    ground = affected_cells(c, OPEN)
    assert ground and all(x > 10 for x, _ in ground)
    # aimed horizontally from 20 ft up, a 15-ft cone never reaches the ground
    assert affected_cells(cone((10, 10), 15, "E", caster_z=20), OPEN) == ()


def test_line_100ft_5ft_wide():
    a = line((0, 10), 100, "E")
    assert a.cells() == tuple((x, 10) for x in range(1, 21))           # 20 squares
    assert len(affected_cells(line((0, 10), 100, "E"), OPEN)) == 20
    assert len(line((15, 15), 100, "W").cells()) == 20
    assert len(line((5, 5), 60, "S", width_ft=10).cells()) == 24       # 2 squares wide
    diag = line((0, 0), 100, "SE").cells()
    assert diag == tuple((i, i) for i in range(1, 15))                 # 100 ft along a diagonal


def test_cube_15ft_is_9_squares():
    a = cube_from((10, 10), 15, "E")
    assert set(a.cells()) == {(x, y) for x in (11, 12, 13) for y in (9, 10, 11)}
    assert len(cube_from((10, 10), 15, "NE").cells()) == 9
    assert set(cube_from((10, 10), 15, "NE").cells()) == {(x, y) for x in (11, 12, 13)
                                                          for y in (7, 8, 9)}
    assert len(cube_from((10, 10), 10, "S").cells()) == 4
    assert len(cube_at((3, 3), 15).cells()) == 9
    assert (10, 10) not in cube_from((10, 10), 15, "E").cells()


def test_emanation_15ft():
    e = emanation((10, 10), 15)
    assert len(e.cells()) == 49                           # 7x7 with the creature's own square
    assert e.covers(13, 13) and not e.covers(14, 10)
    assert len(emanation(footprint(10, 10, 2), 10).cells()) == 36
    assert e.covers(10, 10, 15) and not e.covers(10, 10, 20)          # height counts


def test_wall_blocks_part_of_a_fireball():
    m = bm(["..............",
            "..............",
            "..............",
            "........#.....",
            "........#.....",
            "........#.....",
            "........#.....",
            "........#.....",
            "..............",
            "..............",
            ".............."])
    a = sphere((6, 5), 20, m)
    reached = set(affected_cells(a, m))
    everything = set(affected_cells(a, m, line_of_effect=False))
    behind = everything - reached
    assert (9, 5) in behind and (9, 4) in behind              # right behind the wall
    assert (8, 5) not in reached                              # the wall itself is not a target
    assert (3, 5) in reached and (7, 5) in reached and (7, 8) in reached
    assert all(x > 8 for x, _ in behind)
    assert behind == {(9, 3), (9, 4), (9, 5), (9, 6)}


def test_sphere_on_uneven_ground():
    m = bm(["........"] * 8, heights=["0 0 0 0 10 10 10 10"] * 8)
    a = sphere((3, 4), 20, m)             # placed on the low side, next to a 10-ft step
    cells = set(affected_cells(a, m))
    assert (3, 4) in cells and (4, 4) in cells               # the ledge's top edge is hit
    assert a.origin_ft[2] == 10 or a.origin_ft[2] == 0
    low = sphere((2, 4, 0), 20)                               # explicit ground height
    assert low.origin_ft == (10.0, 20.0, 0.0)


def test_placements_match_single_areas():
    m = bm(["..............",
            "..............",
            ".....#........",
            ".....#....%...",
            ".....#........",
            "..............",
            "..............",
            ".........,...."], heights=None)
    pl = sphere_placements(m, 10)
    assert len(pl) == (m.width + 1) * (m.height + 1)
    for k in range(len(pl)):
        x, y = (int(v) for v in pl.origins[k])
        assert pl.covered(k) == affected_cells(sphere((x, y), 10, m), m), (x, y)
    hills = bm(["......"] * 6, heights=["0 0 10 10 0 0"] * 3 + ["0 0 0 0 0 0"] * 3)
    pl = sphere_placements(hills, 15)
    for k in range(len(pl)):
        x, y = (int(v) for v in pl.origins[k])
        assert pl.covered(k) == affected_cells(sphere((x, y), 15, hills), hills), (x, y)


def test_placement_hits():
    pl = sphere_placements(OPEN, 20)
    hits = placement_hits(pl, OPEN, [(5, 5), footprint(20, 20, 2), (6, 5)])
    k = 5 * 31 + 5                                            # the intersection (5, 5)
    assert hits[k] & 1 and hits[k] & 4 and not hits[k] & 2
    both = np.flatnonzero((hits & 3) == 3)
    assert both.size == 0                                     # 15+ squares apart: never both
    assert (hits != 0).sum() > 100


def _median_ms(fn, n=20):
    fn()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def test_timing_all_fireball_placements():
    walls = bm(["." * 30] * 10 + ["..........##########.........."] + ["." * 30] * 19)
    assert _median_ms(lambda: sphere_placements(OPEN, 20)) < 10
    assert _median_ms(lambda: sphere_placements(walls, 20)) < 20
    assert _median_ms(lambda: [affected_cells(cone((15, 15), 15, d), OPEN)
                               for d in DIRECTIONS_8]) < 10
