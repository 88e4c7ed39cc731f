"""The battle map: distance, reach, cover, sight, movement, routes (constructed maps, known answers)."""

import statistics
import time

import pytest

from dungeonbench_gym.dnd.grid import (DIFFICULT, HAZARD, IMPASSABLE, OBSCURED, WALL, WATER,
                                       BattleMap, Cover, MapError, box_distance_ft, distance_ft,
                                       fall_damage_dice, footprint, size_squares, within_reach)


def bm(layout, legend=None, heights=None, name="t"):
    data = {"layout": layout}
    if legend is not None:
        data["legend"] = legend
    if heights is not None:
        data["heights"] = heights
    return BattleMap.from_dict(data, name)


def open_map(w=30, h=30):
    return bm(["." * w] * h, name="open")


# ----------------------------------------------------------------------------- data and validation
def test_from_dict_legend_and_heights():
    m = bm(["#.,~",
            "%=O^"],
           legend={"^": {"hazard": {"kind": "fire", "damage": "1d10"}, "difficult": True}},
           heights=[[0, 0, 5, 0], "0 10 10 -20"])
    assert (m.width, m.height) == (4, 2)
    assert m.flags_at(0, 0) & WALL == WALL and not m.is_passable(0, 0)
    assert m.is_difficult(2, 0) and m.is_water(3, 0) and m.is_obscured(0, 1)
    assert m.flags_at(2, 1) & IMPASSABLE and m.flags_at(1, 1) & DIFFICULT
    assert m.hazard_at(3, 1) == {"kind": "fire", "damage": "1d10"}
    assert m.flags_at(3, 1) & (HAZARD | DIFFICULT) == HAZARD | DIFFICULT
    assert m.hazard_cells == ((3, 1),)
    assert m.elevation_at(2, 0) == 5 and m.elevation_at(3, 1) == -20
    assert not m.flags_at(1, 0) & (WATER | OBSCURED)
    again = BattleMap.from_dict(m.to_dict())
    assert again.layout == m.layout and (again.elevation == m.elevation).all()
    assert (again.flags == m.flags).all()


def test_legend_height_without_grid():
    m = bm(["..HH"], legend={"H": {"height": 10}})
    assert [m.elevation_at(x, 0) for x in range(4)] == [0, 0, 10, 10]


@pytest.mark.parametrize("data, message", [
    ({"layout": ["." * 12] * 3 + ["." * 11]}, "map 'crypt': layout row 3 has 11 columns, expected 12"),
    ({"layout": ["..Q."]}, "map 'crypt': layout row 0, column 2: unknown legend character 'Q'"),
    ({"layout": ["...."], "legend": {"x": {"wet": True}}}, "map 'crypt': legend 'x': unknown key 'wet'"),
    ({"layout": ["...."], "legend": {"x": {"cover": "most"}}}, "legend 'x': 'cover' must be one of"),
    ({"layout": ["...."], "legend": {"x": {"hazard": 3}}}, "legend 'x': 'hazard' must be a kind"),
    ({"layout": ["...."], "legend": {"xy": {}}}, "legend key 'xy' must be a single character"),
    ({"layout": ["....", "...."], "heights": [[0, 0, 0, 0]]}, "'heights' has 1 rows, expected 2"),
    ({"layout": ["...."], "heights": [[0, 0, 0]]}, "heights row 0 has 3 values, expected 4"),
    ({"layout": ["...."], "heights": [[0, 7, 0, 0]]},
     "heights row 0, column 1: 7; expected a whole number of feet, a multiple of 5"),
    ({"legend": {}}, "map 'crypt': missing field 'layout'"),
    ({"layout": ["...."], "walls": []}, "map 'crypt': unknown field 'walls'"),
    ({"layout": []}, "'layout' must be a non-empty list of strings"),
])
def test_validation_errors_name_the_field(data, message):
    with pytest.raises(MapError) as err:
        BattleMap.from_dict(data, "crypt")
    assert message in str(err.value)
    assert isinstance(err.value, ValueError)


# ----------------------------------------------------------------------------- size, distance, reach
def test_sizes_and_footprints():
    assert [size_squares(s) for s in ("Tiny", "small", "MEDIUM", "Large", "huge", "Gargantuan")] \
        == [1, 1, 1, 2, 3, 4]
    assert footprint(3, 4, 2) == ((3, 4), (4, 4), (3, 5), (4, 5))
    with pytest.raises(ValueError, match="colossal"):
        size_squares("colossal")


def test_distance_chebyshev_diagonals_and_height():
    assert distance_ft((0, 0), (1, 0)) == 5
    assert distance_ft((0, 0), (1, 1)) == 5                  # diagonal: 5 ft, not 10
    assert distance_ft((0, 0), (3, 4)) == 20
    assert distance_ft((0, 0), (0, 0)) == 0
    # between creatures: nearest occupied squares (a Large ogre at (2, 0)-(3, 1))
    ogre = footprint(2, 0, 2)
    assert distance_ft((0, 0), ogre) == 10
    assert distance_ft((1, 1), ogre) == 5
    assert distance_ft((5, 3), ogre) == 10
    # height: a flyer 10 ft above the next square is 10 ft away; 15 ft straight up is 15 ft
    assert distance_ft((0, 0), (1, 0), a_z=0, b_z=10) == 10
    assert distance_ft((0, 0), (0, 0), a_z=0, b_z=15) == 15
    assert distance_ft((0, 0), (4, 0), a_z=0, b_z=10) == 20  # the horizontal distance dominates
    # a Large creature is 10 ft tall: a flyer 10 ft up beside it is 5 ft away
    assert distance_ft(ogre, (4, 0), a_z=0, b_z=10) == 5
    assert box_distance_ft(0, 0, 1, 0, 2, 2, 1, 0) == 10


def test_reach_5_and_10_feet():
    assert within_reach((5, 5), (6, 6), 5)
    assert not within_reach((5, 5), (7, 5), 5)
    assert within_reach((5, 5), (7, 5), 10)
    assert within_reach((5, 5), (7, 7), 10)
    assert not within_reach((5, 5), (8, 5), 10)
    # a flyer 10 ft above the next square: out of 5-ft reach, within 10 ft
    assert not within_reach((5, 5), (6, 5), 5, b_z=10)
    assert within_reach((5, 5), (6, 5), 10, b_z=10)
    # the map fills in standing heights: a creature on a 10-ft ledge next door
    m = bm(["..", ".."], heights=[[0, 10], [0, 10]])
    assert m.distance_ft((0, 0), (1, 0)) == 10
    assert not m.within_reach((0, 0), (1, 0), 5)


def test_threat_area():
    m = open_map(10, 10)
    t = m.threat_area((5, 5), 5)
    assert t == {(x, y) for x in range(4, 7) for y in range(4, 7)}
    assert len(m.threat_area((5, 5), 10)) == 25
    big = m.threat_area((5, 5), 5, "large")              # anchors of a 2x2 mover touching reach
    assert (3, 3) in big and (6, 6) in big and (2, 2) not in big and len(big) == 16
    air = m.threat_area((5, 5), 5, fly=True)
    assert (5, 4, 5) in air and (5, 4, 10) not in air


# ----------------------------------------------------------------------------- cover and sight
def test_line_trace_matches_sampling():
    import random

    from dungeonbench_gym.dnd.grid import _trace
    rng = random.Random(3)
    for _ in range(300):
        X0, Y0 = rng.randrange(0, 4), rng.randrange(0, 4)
        dX, dY = rng.randrange(-13, 14), rng.randrange(-13, 14)
        interiors, _seams = _trace(X0 & 1, Y0 & 1, dX, dY)
        got = {(X0 // 2 + rx, Y0 // 2 + ry) for rx, ry, _t in interiors}
        want = set()
        for k in range(1, 4000):
            t = k / 4000
            x, y = (X0 + dX * t) / 2, (Y0 + dY * t) / 2
            if abs(x - round(x)) > 1e-6 and abs(y - round(y)) > 1e-6:
                want.add((int(x // 1), int(y // 1)))
        assert want <= got, (X0, Y0, dX, dY)
        # every reported square is really crossed: the reported point lies strictly inside it
        for rx, ry, t in interiors:
            x, y = (X0 + dX * t) / 2, (Y0 + dY * t) / 2
            cx, cy = X0 // 2 + rx, Y0 // 2 + ry
            assert cx < x < cx + 1 and cy < y < cy + 1, (X0, Y0, dX, dY, rx, ry, t)


COVER_MAP = [
    "..............",   # 0: open
    "......#.......",   # 1
    "......#.......",   # 2: a wall segment x=6, y=1..3
    "......#.......",   # 3
    "..............",   # 4
    "......=.......",   # 5: low wall
    "..............",   # 6
    "......O.......",   # 7: thick pillar
    "..............",   # 8
    "......%.......",   # 9: a fog bank x=6, y=9..11
    "......%.......",   # 10
    "......%.......",   # 11
    "..............",   # 12
]


def test_wall_gives_total_cover():
    m = bm(COVER_MAP)
    assert m.cover((3, 2), (9, 2)) == Cover.TOTAL
    assert not m.line_of_effect((3, 2), (9, 2))
    assert not m.can_see((3, 2), (9, 2))
    # past the wall's end: the best corner's lines are partly blocked
    assert m.cover((3, 2), (9, 4)) == Cover.THREE_QUARTERS    # one line grazes the corner
    assert m.cover((3, 2), (8, 4)) == Cover.HALF
    assert m.cover((4, 3), (8, 4)) == Cover.NONE              # along the wall's face
    # nothing in the way
    assert m.cover((3, 0), (9, 0)) == Cover.NONE
    assert Cover.TOTAL.bonus is None and Cover.HALF.bonus == 2 and Cover.THREE_QUARTERS.bonus == 5


def test_single_wall_square_gives_half_cover():
    # DMG grid rule: one wall square in line blocks two of the best corner's four lines
    m = bm([".......",
            "...#...",
            "......."])
    assert m.cover((1, 1), (5, 1)) == Cover.HALF


def test_low_wall_gives_half_cover():
    m = bm(COVER_MAP)
    assert m.cover((3, 5), (9, 5)) == Cover.HALF
    assert m.cover((3, 5), (7, 5)) == Cover.HALF            # hiding right behind it
    assert m.cover((3, 4), (9, 4)) == Cover.NONE            # a row away: no cover
    assert m.cover((7, 5), (8, 5)) == Cover.NONE            # the wall is behind the attacker? no
    assert m.can_see((3, 5), (9, 5))                        # a low wall hides nothing
    # 2.5D: a flyer 20 ft up looks over the 3-ft wall
    assert m.cover((3, 5), (9, 5), attacker_z=20) == Cover.NONE


def test_pillar_gives_three_quarters_cover():
    m = bm(COVER_MAP)
    assert m.cover((3, 7), (9, 7)) == Cover.THREE_QUARTERS
    assert m.cover((3, 7), (7, 7)) == Cover.THREE_QUARTERS
    assert m.cover((3, 8), (9, 8)) == Cover.NONE


def test_creature_in_between_gives_half_cover():
    m = bm(COVER_MAP)
    assert m.cover((3, 0), (9, 0), {(6, 0)}) == Cover.HALF
    assert m.cover((3, 0), (9, 0), frozenset({(6, 2)})) == Cover.NONE     # off the line
    # the attacker's and the target's own squares never count
    assert m.cover((3, 0), (9, 0), {(3, 0), (9, 0)}) == Cover.NONE
    # a creature adds nothing to better cover: the pillar still gives three-quarters
    assert m.cover((3, 7), (9, 7), {(5, 7)}) == Cover.THREE_QUARTERS
    # degrees do not add: a creature in front of a low wall is still half
    assert m.cover((3, 5), (9, 5), {(5, 5)}) == Cover.HALF


def test_heavily_obscured_blocks_sight_not_cover():
    m = bm(COVER_MAP)
    assert m.cover((3, 10), (9, 10)) == Cover.NONE           # fog is no obstacle to effect
    assert m.line_of_effect((3, 10), (9, 10))
    assert not m.can_see((3, 10), (9, 10))                   # ... but hides the target
    assert m.can_see((3, 10), (5, 10))                       # this side of the fog
    assert not m.can_see((3, 10), (6, 10))                   # standing in the fog
    assert not m.can_see((6, 10), (3, 10))                   # and seeing out of it
    assert m.can_see((3, 12), (9, 12))
    # magical darkness from the engine
    assert not m.can_see((3, 12), (9, 12), extra_obscured={(6, 11), (6, 12), (6, 13)})
    assert m.can_see((3, 0), (9, 0), extra_obscured={(6, 5)})


def test_ledge_hides_creatures_back_from_its_edge():
    m = bm(["........"] * 3, heights=["0 0 0 10 10 10 10 10"] * 3)
    assert m.cover((0, 1), (6, 1)) == Cover.TOTAL           # three squares back: hidden
    assert m.cover((0, 1), (3, 1)) == Cover.NONE            # at the edge: seen
    assert m.cover((0, 1), (6, 1), attacker_z=30) == Cover.NONE   # a flyer sees it
    assert m.can_see((0, 1), (6, 1), viewer_z=30)


def test_cover_is_cached_and_symmetric_enough():
    m = bm(COVER_MAP)
    a = m.cover((3, 2), (9, 2))
    assert m.cover((3, 2), (9, 2)) is a
    assert m.cover((9, 2), (3, 2)) == Cover.TOTAL


def test_large_target_partly_behind_wall():
    m = bm([".........",
            "....#....",
            "....#....",
            "........."])
    # a Large target at (6, 2)-(7, 3): its lower squares are visible under the wall's end
    assert m.cover((1, 1), footprint(6, 1, 2)) != Cover.TOTAL
    assert m.cover((1, 1), footprint(6, 1, 2), {(5, 3)}) != Cover.TOTAL


# ----------------------------------------------------------------------------- movement
def test_reachable_open_ground():
    m = open_map()
    r = m.reachable((15, 15), "medium", 30)
    assert len(r) == 13 * 13                                    # Chebyshev disc of 6 squares
    assert r.cost((21, 21)) == 30 and r.cost((15, 15)) == 0
    assert (22, 15) not in r
    cost, path = r[(18, 12)]
    assert cost == 15 and path[0] == (15, 15, 0) and path[-1] == (18, 12, 0) and len(path) == 4
    keys = list(r)
    assert keys == sorted(keys, key=lambda p: (p[1], p[0], p[2]))   # canonical order


def test_difficult_terrain_costs_double():
    m = bm(["#######",
            "..,,,..",
            "#######"])
    r = m.reachable((0, 1), 1, 30)
    assert r.cost((1, 1)) == 5
    assert r.cost((2, 1)) == 15 and r.cost((3, 1)) == 25
    assert (4, 1) not in r                                      # 35 ft: one square short
    r = m.reachable((0, 1), 1, 40)
    assert r.cost((4, 1)) == 35 and r.cost((5, 1)) == 40
    # a zone that makes terrain difficult (difficult_extra) is the same
    m2 = bm(["......."])
    assert m2.reachable((0, 0), 1, 30, difficult_extra={(1, 0), (2, 0)}).cost((3, 0)) == 25
    # crawling costs one extra foot per foot, three in difficult terrain
    assert m.reachable((0, 1), 1, 60, crawling=True).cost((3, 1)) == 10 + 15 + 15


def test_water_costs_double_without_swim_speed():
    m = bm(["..~~~.."])
    assert m.reachable((0, 0), 1, 60).cost((5, 0)) == 40
    assert m.reachable((0, 0), 1, 60, swim_speed=30).cost((5, 0)) == 25


def test_creatures_block_and_pass_through():
    m = bm(["#####",
            ".....",
            "#####"])
    # an ally in the corridor: move through (difficult), never end there
    r = m.reachable((0, 1), 1, 30, pass_through={(2, 1)})
    assert (2, 1) not in r
    assert r.cost((3, 1)) == 20                                 # 5 + 10 (ally's space) + 5
    # an enemy blocks the corridor
    r = m.reachable((0, 1), 1, 30, blocked_by={(2, 1)})
    assert (1, 1) in r and (2, 1) not in r and (3, 1) not in r
    # in the open the enemy is walked around, not through; the mover's own cell is ignored
    r = open_map(7, 3).reachable((0, 1), 1, 30, blocked_by={(2, 1), (0, 1)})
    assert r.cost((3, 1)) == 15 and (2, 1) not in r
    assert all(p[:2] != (2, 1) for p in r.path((3, 1)))


def test_large_creature_in_a_corridor():
    m = bm(["######",
            "......",
            "######"])
    with pytest.raises(ValueError):
        m.reachable((0, 1), "large", 30)                        # it does not even fit
    room = bm(["..#...",
               "..#...",
               "......",
               "..#...",
               "..#..."])
    r = room.reachable((0, 0), "large", 60)
    assert (3, 0) not in r and (4, 0) not in r                  # the 1-wide gap (x=2, y=2)
    r = room.reachable((0, 0), "medium", 60)
    assert r.cost((4, 0)) == 30          # a Medium creature slips through (no corner cutting)
    assert not room.fits(1, 1, "large") and room.fits(0, 0, "large")
    # a Large creature checks all four of its cells against an enemy
    r = open_map(8, 8).reachable((0, 0), "large", 30, blocked_by={(3, 1)})
    assert all(a not in r for a in ((2, 0), (3, 0), (2, 1), (3, 1)))
    assert (4, 0) in r and (3, 2) in r and (1, 1) in r


def test_no_cutting_wall_corners():
    m = bm(["...",
            ".#.",
            "..."])
    r = m.reachable((0, 0), 1, 30)
    assert r.cost((2, 2)) == 20                                 # around, not diagonally past
    m2 = bm([".#",
             "#."])
    assert (1, 1) not in m2.reachable((0, 0), 1, 30)


def test_climbing_a_ledge_and_dropping_down():
    m = bm(["......"] * 3, heights=["0 0 0 10 10 10"] * 3)
    r = m.reachable((2, 1), 1, 30)
    assert r.cost((3, 1)) == 25                                 # 5 + 10 ft climbed at double cost
    assert r[(3, 1)][1][-1] == (3, 1, 10)                       # z: standing on the ledge
    assert m.reachable((2, 1), 1, 30, climb_speed=30).cost((3, 1)) == 15
    assert (4, 1) not in m.reachable((2, 1), 1, 25)
    r = m.reachable((3, 1), 1, 30)
    assert r.cost((2, 1)) == 5                                  # a 10-ft drop down is free


def test_deep_drop_is_a_climb_or_a_fall():
    m = bm(["....."] * 3, heights=["30 30 0 0 0"] * 3)
    r = m.reachable((1, 1), 1, 30)
    assert (2, 1) not in r                                      # climbing down 30 ft costs 65
    r = m.reachable((1, 1), 1, 80)
    assert r.cost((2, 1)) == 65 and r.falls((2, 1)) == ()
    r = m.reachable((1, 1), 1, 30, allow_falls=True)
    assert r.cost((2, 1)) == 5 and r.falls((2, 1)) == (30,)
    assert fall_damage_dice(30) == 3


def test_fall_damage_dice():
    assert [fall_damage_dice(h) for h in (0, 5, 10, 15, 20, 100, 200, 500)] == [0, 0, 1, 1, 2, 10, 20, 20]


def test_flying_over_a_low_wall_not_a_high_one():
    m = bm(["..L..",
            "..L..",
            "..L.."], legend={"L": {"wall": True, "top": 10}})
    assert (4, 1) not in m.reachable((0, 1), 1, 60)              # walkers: the wall is solid
    r = m.reachable((0, 1), 1, 30, fly=True)
    assert (4, 1, 0) in r
    cost, path = r[(4, 1, 0)]
    assert cost == 30 and max(p[2] for p in path) >= 10          # up over the wall and down
    assert r.cost((4, 1, 0)) == 30 and r.cost((1, 1, 15)) == 15
    high = bm(["..#..",
               "..#..",
               "..#.."])
    assert not any(p[0] > 2 for p in high.reachable((0, 1), 1, 60, fly=True))
    # flyers ignore difficult terrain; hostile creatures block only their own cube
    mud = bm([",,,,,"])
    assert mud.reachable((0, 0), 1, 30, fly=True).cost((4, 0, 0)) == 20
    r = open_map(5, 1).reachable((0, 0), 1, 30, fly=True, blocked_by={(2, 0)})
    assert (2, 0, 0) not in r and r.cost((4, 0, 0)) == 20       # over the enemy's head


# ----------------------------------------------------------------------------- routes
ALCOVE = ["#######",
          "#.....#",
          "#.###.#",
          "#.....#",
          "###.###",
          "#######"]


def test_routes_opportunity_attack_or_detour():
    m = bm(ALCOVE)
    enemy = (3, 4)
    threat = {"orc": m.threat_area(enemy, 5)}
    routes = m.routes((1, 3), (5, 3), 1, 40, threat_cells_by_creature=threat, blocked_by={enemy})
    assert len(routes) == 2
    fast, safe = routes
    assert fast.cost_ft == 20 and fast.provoked == ("orc",)
    assert safe.cost_ft == 40 and safe.provoked == ()
    assert all(p[1] <= 2 or p[0] in (1, 5) for p in safe.path)   # around through the top
    assert fast.path[0] == (1, 3, 0) and fast.path[-1] == (5, 3, 0)
    # too slow for the detour: only one class
    assert [r.provoked for r in m.routes((1, 3), (5, 3), 1, 30, threat_cells_by_creature=threat,
                                         blocked_by={enemy})] == [("orc",)]
    # Disengage (no threats): one class, the cheapest
    only = m.routes((1, 3), (5, 3), 1, 40, blocked_by={enemy})
    assert len(only) == 1 and only[0].cost_ft == 20


def test_routes_one_class_when_consequences_are_equal():
    m = open_map(9, 5)
    # the enemy is far from every sensible path: every route has the same consequences
    threat = {"far": m.threat_area((8, 4), 5)}
    rs = m.routes((0, 0), (4, 0), 1, 30, threat_cells_by_creature=threat)
    assert len(rs) == 1 and rs[0].cost_ft == 20 and rs[0].provoked == ()
    # a route leaving reach at equal cost is dominated by one that does not
    threat = {"near": m.threat_area((2, 2), 5)}
    rs = m.routes((2, 0), (6, 0), 1, 30, threat_cells_by_creature=threat)
    assert len(rs) == 1 and rs[0].provoked == ()


def test_routes_start_in_reach_always_provokes_a_single_class():
    m = open_map(7, 3)
    threat = {"a": m.threat_area((1, 1), 5)}
    rs = m.routes((2, 1), (5, 1), 1, 30, threat_cells_by_creature=threat, blocked_by={(1, 1)})
    assert [r.provoked for r in rs] == [("a",)]


def test_routes_hazards_and_zones():
    m = bm(["#######",
            "#.....#",
            "#.###.#",
            "#..^..#",
            "#######"], legend={"^": {"hazard": "fire"}})
    rs = m.routes((1, 3), (5, 3), 1, 40)
    assert [(r.cost_ft, r.hazards) for r in rs] == [(20, (("fire", 1),)), (40, ())]
    # without dominance pruning every distinct consequence is a class (even pacing in the fire)
    unpruned = m.routes((1, 3), (5, 3), 1, 40, prune_dominated=False)
    assert {(r.cost_ft, r.hazards) for r in rs} < {(r.cost_ft, r.hazards) for r in unpruned}
    # a zone (Spirit Guardians) over the bottom corridor
    rs = m.routes((1, 3), (5, 3), 1, 40, zone_cells={"guardians": {(2, 3), (3, 3), (4, 3)}})
    assert {(r.cost_ft, r.zones) for r in rs} == {(20, ("guardians",)), (40, ())}


def test_routes_falls_are_consequences():
    m = bm(["....."] * 3, heights=["30 30 0 0 0"] * 3)
    rs = m.routes((1, 1), (3, 1), 1, 80, allow_falls=True)
    assert [(r.cost_ft, r.falls) for r in rs] == [(10, (30,)), (70, ())]


def test_routes_for_flyers():
    m = open_map(9, 3)
    enemy = (4, 1)
    threat = {"ogre": m.threat_area(enemy, 5, fly=True, max_altitude_ft=30)}
    rs = m.routes((2, 1, 0), (6, 1, 0), 1, 60, fly=True, threat_cells_by_creature=threat,
                  blocked_by={enemy})
    assert len(rs) >= 2
    assert rs[0].provoked == ("ogre",) and rs[-1].provoked == ()
    assert rs[-1].cost_ft > rs[0].cost_ft


def test_routes_unreachable_destination():
    m = bm(["..#.."])
    assert m.routes((0, 0), (4, 0), 1, 30) == []
    assert m.routes((0, 0), (1, 0), 1, 30, pass_through={(1, 0)}) == []   # occupied


# ----------------------------------------------------------------------------- timing (generous)
def _median_ms(fn, n=30):
    fn()
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def test_timing_reachable_routes_cover():
    m = bm(["." * 30] * 12 + ["......####....,,,,..........~~"] + ["." * 30] * 17, name="timing")
    allies = {(14, 14), (16, 16)}
    enemies = {(15, 17), (12, 13)}
    assert _median_ms(lambda: m.reachable((15, 15), 1, 30, blocked_by=enemies,
                                          pass_through=allies)) < 5
    threat = {i: m.threat_area(c, 5) for i, c in enumerate(sorted(enemies))}
    assert _median_ms(lambda: m.routes((15, 15), (19, 19), 1, 30, blocked_by=enemies,
                                       pass_through=allies,
                                       threat_cells_by_creature=threat)) < 20
    # cover: cached queries are dictionary lookups
    m.cover((2, 2), (25, 20), enemies)
    assert _median_ms(lambda: m.cover((2, 2), (25, 20), frozenset(enemies)), n=200) < 0.2
