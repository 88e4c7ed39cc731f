"""Speed work must not change play: the fast paths give the same answers as the plain code.

* grid line tracing (per-map tables, no bounds checks) against a bounds-checked reference tracer
  on random lines over every encounter map, heights and low walls included;
* the planner's vectorised square scoring (:mod:`dungeonbench_gym.dnd.fastpaths`) against its
  one-square-at-a-time scorer on random squares, for every creature of several encounters;
* whole seeded heuristic battles played with and without the vectorised scoring: identical logs;
* a flyer's reach (flat-index breadth-first search) against a plain Dijkstra on the same steps.
"""

import json
import random

import numpy as np
import pytest

from dungeonbench_gym.dnd import fastpaths, heuristic
from dungeonbench_gym.dnd.advice import common
from dungeonbench_gym.dnd.grid import (
    BLOCKS,
    HALF_COVER,
    OBSCURED,
    THREE_QUARTERS_COVER,
    BattleMap,
    Cover,
    _Line,
    _trace,
)
from dungeonbench_gym.dnd.scenario import encounter_names, load_encounter


def _reference_line(m: BattleMap, X0, Y0, X1, Y1, za, zb, own=()):
    """The line rule written out plainly, every square bounds-checked."""
    interiors, seams = _trace(X0 & 1, Y0 & 1, X1 - X0, Y1 - Y0)
    bx, by = X0 >> 1, Y0 >> 1
    W, H = m.width, m.height
    blocked = _Line(True, 0, True, ())
    obst, obscured, crossed = 0, False, []
    for rx, ry, t in interiors:
        x, y = bx + rx, by + ry
        if not (0 <= x < W and 0 <= y < H):
            return blocked
        i = y * W + x
        if i in own:
            continue
        z = za + (zb - za) * t
        e, f = m._elev[i], m._flags[i]
        if z < e:
            return blocked
        if z < e + m._top[i]:
            if f & BLOCKS:
                return blocked
            if f & THREE_QUARTERS_COVER:
                obst = 2
            elif f & HALF_COVER:
                obst = max(obst, 1)
            if f & OBSCURED:
                obscured = True
        crossed.append(i)
    for xa, ya, xb, yb, t in seams:
        z = za + (zb - za) * t
        a = m._solidity(bx + xa, by + ya, z)
        b = m._solidity(bx + xb, by + yb, z)
        if a & b & 1:
            return blocked
        if a & b & 2:
            obscured = True
    return _Line(False, obst, obscured, tuple(crossed))


def _maps():
    seen = {}
    for name in encounter_names():
        m = load_encounter(name).build(0).map
        seen.setdefault(m.name, m)
    return list(seen.values())


def _random_spaces(rng, tries: int):
    """(map, size, x, y) for random free n x n spaces (n mostly 1), `tries` draws per map."""
    for m in _maps():
        for _ in range(tries):
            n = rng.choice((1, 1, 2))
            x, y = rng.randrange(m.width - n + 1), rng.randrange(m.height - n + 1)
            if m.fits(x, y, n):
                yield m, n, x, y


def test_line_tracing_matches_reference_on_every_map():
    rng = random.Random(7)
    checked = blocked = clear_with_cover = 0
    for m in _maps():
        W, H = m.width, m.height
        for _ in range(400):
            X0, Y0 = rng.randint(0, 2 * W), rng.randint(0, 2 * H)
            X1, Y1 = rng.randint(0, 2 * W), rng.randint(0, 2 * H)
            if rng.random() < 0.1:   # some lines leave the map
                X1 += rng.choice((-4, 2 * W + 4))
            za, zb = rng.choice((0, 2.5, 5, 12.5, 30)), rng.choice((0, 2.5, 7.5, 20))
            own = frozenset(rng.sample(range(W * H), 3)) if rng.random() < 0.5 else ()
            got = m._eval_line(X0, Y0, X1, Y1, za, zb, own)
            assert got == _reference_line(m, X0, Y0, X1, Y1, za, zb, own), (m.name, X0, Y0, X1, Y1, za, zb)
            checked += 1
            blocked += got.blocked
            clear_with_cover += (not got.blocked) and got.obstruction > 0
    assert checked > 1000 and blocked > 100 and clear_with_cover > 0


def test_line_tables_follow_a_replaced_map():
    """A wall that appears (a new BattleMap) blocks the line the old map's tables let through."""
    layout = ["#######", "#.....#", "#.....#", "#######"]
    before = BattleMap.from_dict({"layout": layout})
    after = BattleMap.from_dict({"layout": ["#######", "#..#..#", "#..#..#", "#######"]})
    assert not before._eval_line(3, 3, 11, 5, 2.5, 2.5).blocked
    assert after._eval_line(3, 3, 11, 5, 2.5, 2.5).blocked
    assert not before._eval_line(3, 3, 11, 5, 2.5, 2.5).blocked   # the old map's cache is its own


@pytest.mark.parametrize("name", ["standing_stones", "harpy_cliffs", "vault_heist", "watchtower_hold",
                                  "shrine_vigil"])
def test_vectorised_scores_match_the_planner(name):
    b = load_encounter(name).build(1)
    rng = random.Random(name)
    W, H = b.map.width, b.map.height
    tried = 0
    for c in b.creatures.values():
        foes = heuristic._foes(b, c)
        score = heuristic._scorer(b, c, foes)
        for _ in range(3):
            k = rng.randint(fastpaths.SMALL, 120)
            pts = [(rng.randrange(W), rng.randrange(H), 5 * rng.randint(-1, 6)) for _ in range(k)]
            keys = heuristic._score_keys(b, c, foes, pts)
            assert keys is not None
            want = [score(p) for p in pts]
            assert [tuple(int(k[i]) for k in keys) for i in range(len(pts))] == want
            assert fastpaths.argmin_keys(keys) == min(range(len(pts)), key=lambda i: (want[i], i))
            here = score(c.pos)
            assert fastpaths.any_below(keys, here) == any(w < here for w in want)
            tried += 1
    assert tried >= 6
    # few or odd positions fall back to the plain loop
    c = next(iter(b.creatures.values()))
    assert heuristic._score_keys(b, c, heuristic._foes(b, c), [(1, 1, 0)]) is None
    assert fastpaths.positions_array([(1, 1, 0), (1, 1)]) is None
    assert fastpaths.positions_array([(1, 1, 2.5)] * 30) is None


def _heuristic_decisions(b, limit: int):
    """Each pending decision of battle b (at most `limit`), the heuristic choosing after each."""
    for _ in range(limit):
        if b.outcome is not None:
            return
        yield b.decision
        b.choose(heuristic.choose(b))


def _play(name: str, seed: int) -> str:
    b = load_encounter(name).build(seed)
    while b.outcome is None:
        _ = b.decision
        b.choose(heuristic.choose(b))
    return json.dumps([b.log, b.outcome, b.decisions], default=str, sort_keys=True)


@pytest.mark.parametrize("name", ["standing_stones", "watchtower_hold", "ogre_bridge"])
def test_seeded_battles_identical_without_vectorised_scoring(name, monkeypatch):
    fast = [_play(name, s) for s in (0, 1)]
    monkeypatch.setattr(fastpaths, "SMALL", 10 ** 9)   # every question through the plain loop
    assert [_play(name, s) for s in (0, 1)] == fast


def test_nearest_ft_matches_box_distance():
    from dungeonbench_gym.dnd.grid import box_distance_ft
    rng = np.random.default_rng(3)
    P = np.column_stack([rng.integers(0, 30, 200), rng.integers(0, 30, 200), 5 * rng.integers(-2, 8, 200)])
    for n in (1, 2, 3):
        raw = [(int(rng.integers(0, 30)), int(rng.integers(0, 30)), int(rng.integers(1, 4)),
                5 * int(rng.integers(-1, 5))) for _ in range(4)]
        boxes = [heuristic._box_extents(x, y, bn, z) for x, y, bn, z in raw]
        got = fastpaths.nearest_ft(P, n, boxes)
        want = [min(box_distance_ft(int(p[0]), int(p[1]), n, int(p[2]), x, y, bn, z) for x, y, bn, z in raw)
                for p in P]
        assert got.tolist() == want


def _fresh(m: BattleMap) -> BattleMap:
    """The same terrain with empty caches."""
    return BattleMap.from_dict(m.to_dict(), name=m.name)


def test_line_of_effect_is_not_total_cover():
    """The early-stopping line of effect agrees with the full cover rule, asked in either order."""
    rng = random.Random(11)
    agree = walls = 0
    for m in _maps():
        a_first, b_first = _fresh(m), _fresh(m)
        W, H = m.width, m.height
        for _ in range(150):
            n, k = rng.choice((1, 1, 1, 2)), rng.choice((1, 1, 2, 3))
            a = (rng.randrange(W - n + 1), rng.randrange(H - n + 1))
            t = (rng.randrange(W - k + 1), rng.randrange(H - k + 1))
            ac = [(a[0] + i, a[1] + j) for j in range(n) for i in range(n)]
            tc = [(t[0] + i, t[1] + j) for j in range(k) for i in range(k)]
            az, tz = rng.choice((None, 0, 10, 25)), rng.choice((None, 0, 5))
            loe = a_first.line_of_effect(ac, tc, a_z=az, b_z=tz)
            full = a_first.cover(ac, tc, attacker_z=az, target_z=tz) != Cover.TOTAL
            assert loe == full == (b_first.cover(ac, tc, attacker_z=az, target_z=tz) != Cover.TOTAL) \
                == b_first.line_of_effect(ac, tc, a_z=az, b_z=tz), (m.name, ac, tc, az, tz)
            agree += 1
            walls += not loe
    assert agree > 1000 and walls > 50


@pytest.mark.parametrize("name", ["vault_heist", "haunted_chapel", "wyrmling_lair"])
def test_battle_line_of_effect_matches_cover(name):
    b = load_encounter(name).build(2)
    for _ in range(40):   # a few turns in, so that creatures stand in odd places
        if b.outcome is not None:
            break
        _ = b.decision
        b.choose(heuristic.choose(b))
    pairs = [(a, t) for a in b.creatures.values() for t in b.creatures.values() if a is not t]
    assert pairs
    for a, t in pairs:
        assert b.line_of_effect(a, t) == (b.cover(a, t) != Cover.TOTAL), (a.cid, t.cid)


def test_can_step_never_claims_a_move_reachable_denies():
    rng = random.Random(5)
    yes = no_but_moves = 0
    for m, n, x, y in _random_spaces(rng, 60):
        W, H = m.width, m.height
        cells = [(rng.randrange(W), rng.randrange(H)) for _ in range(rng.randint(0, 12))]
        kw = {"blocked_by": cells[::2], "pass_through": cells[1::2], "difficult_extra": cells[:2],
              "swim_speed": rng.choice((0, 30)), "crawling": rng.random() < 0.2}
        speed = rng.choice((0, 5, 10, 30))
        quick = m.can_step((x, y), n, speed, **kw)
        full = len(m._reachable_search((x, y), n, speed, False, kw["swim_speed"], 0, tuple(cells[::2]),
                                       tuple(cells[1::2]), tuple(cells[:2]), kw["crawling"], False, 10,
                                       None)) > 1
        assert not quick or full, (m.name, x, y, n, speed, kw)
        yes += quick
        no_but_moves += full and not quick
    assert yes > 100
    assert not m.can_step((1, 1), 1, 30, fly=True)   # flyers: always ask reachable
    # boxed in by allies: it may pass through them but not stop there, and 10 ft gets no further
    box = BattleMap.from_dict({"layout": ["#####", "#...#", "#...#", "#...#", "#####"]})
    ring = [(x, y) for y in (1, 2, 3) for x in (1, 2, 3) if (x, y) != (2, 2)]
    assert len(box.reachable((2, 2), 1, 10, pass_through=ring)) == 1
    assert not box.can_step((2, 2), 1, 10, pass_through=ring)
    assert box.can_step((2, 2), 1, 10, pass_through=ring[1:])   # one square free: one step


def test_reachable_memo_gives_the_search_answer():
    m = _fresh(_maps()[0])
    W, H = m.width, m.height
    spots = [(x, y) for y in range(H) for x in range(W) if m.fits(x, y, 1)][:30]
    for x, y in spots:
        foes = ((x + 2, y), (x, y + 2, 0))
        r1 = m.reachable((x, y), 1, 30, blocked_by=foes, pass_through=[(x + 1, y + 1)])
        r2 = m.reachable((x, y), 1, 30, blocked_by=foes, pass_through=[(x + 1, y + 1)])
        assert r1 is r2   # asked again: the same answer object
        ref = m._reachable_search((x, y), 1, 30, False, 0, 0, foes, ((x + 1, y + 1),), (), False, False, 10, None)
        assert r1.costs == ref.costs
        assert all(r1.path(p) == ref.path(p) for p in ref.costs)
    # cells as lists (unhashable) still work, without the memo
    assert m.reachable(spots[0], 1, 30, blocked_by=[[0, 0]]).costs == \
        m._reachable_search(spots[0], 1, 30, False, 0, 0, ([0, 0],), (), (), False, False, 10, None).costs


@pytest.mark.parametrize("name", ["standing_stones", "orc_raid"])
def test_destination_options_cached_equal_fresh(name):
    b = load_encounter(name).build(0)
    compared = 0
    for d in _heuristic_decisions(b, 300):
        c = b.creatures[d.actor]
        if d.kind in ("destination", "group") and b.pending.get("kind") == "destination" \
                and not b.pending.get("use"):
            cached = b.destination_options(c)
            assert cached == b._destination_options_uncached(c, b.reach(c))
            b._dest_cache = None
            assert b.destination_options(c) == cached
            compared += 1
    assert compared >= 3


def _best_point_full_scan(battle, c, use):
    from dungeonbench_gym.dnd import content
    from dungeonbench_gym.dnd.state import monster_action
    rng = content.spell(use[1]).range_feet or 0 if use[0] == "spell" else \
        min(monster_action(c, use[1]).range or 30, 5 * (battle.map.width + battle.map.height))
    foes = [o for o in battle.enemies_of(c) if o.conscious]
    near = sorted({(o.pos[0] + dx, o.pos[1] + dy) for o in foes for dx in range(-2, 3) for dy in range(-2, 3)},
                  key=lambda p: (p[1], p[0]))
    near = [p for p in near if battle.point_ok(c, p[0], p[1], rng)]
    best = (-99, near[0] if near else c.pos[:2])
    for p in near:
        v = heuristic._area_value(battle, c, use, p)
        if v > best[0]:
            best = (v, p)
    return best


def test_best_point_stops_early_with_the_same_answer():
    from dungeonbench_gym.dnd.engine import Battle
    from dungeonbench_gym.dnd.builders.pcs import build_pc
    from dungeonbench_gym.dnd.builders.monsters import monster_combatant
    layout = ["#" * 16] + ["#" + "." * 14 + "#"] * 10 + ["#" * 16]
    m = BattleMap.from_dict({"layout": layout})
    checked = 0
    for foes_at in ([(9, 5)], [(9, 5), (10, 5)], [(9, 5), (12, 8), (3, 9)], [(5, 2), (6, 2), (12, 9)]):
        wizard = build_pc("wizard", 5, "wizard", (2, 5, 0))
        orcs = [monster_combatant("orc", f"orc_{i}", "enemies", (x, y, 0)) for i, (x, y) in enumerate(foes_at)]
        b = Battle(m, [wizard, *orcs], seed=0)
        use = ("spell", "fireball", 3)
        assert heuristic._best_point_uncached(b, wizard, use) == _best_point_full_scan(b, wizard, use)
        checked += 1
    assert checked == 4


def test_box_distance_matches_the_gap_rule():
    from dungeonbench_gym.dnd.grid import _gap, box_distance_ft
    rng = random.Random(2)
    for _ in range(5000):
        ax, ay, bx, by = (rng.randint(-3, 20) for _ in range(4))
        an, bn = rng.randint(1, 4), rng.randint(1, 4)
        az, bz = rng.choice((0, 5, 7.5, 10, 25, -5)), rng.choice((0, 5, 12.5, 30))
        la, lb = int(az // 5), int(bz // 5)
        want = 5 * max(_gap(ax, ax + an - 1, bx, bx + bn - 1), _gap(ay, ay + an - 1, by, by + bn - 1),
                       _gap(la, la + an - 1, lb, lb + bn - 1))
        assert box_distance_ft(ax, ay, an, az, bx, by, bn, bz) == want


def test_sight_memo_gives_the_traced_answer():
    rng = random.Random(4)
    seen = hidden = 0
    for m in _maps():
        fresh = _fresh(m)
        W, H = m.width, m.height
        for _ in range(80):
            v = (rng.randrange(W), rng.randrange(H))
            t = (rng.randrange(W), rng.randrange(H))
            vz, tz = rng.choice((None, 0, 20)), rng.choice((None, 0))
            first = fresh.can_see([v], [t], viewer_z=vz, target_z=tz)
            again = fresh.can_see([v], [t], viewer_z=vz, target_z=tz)
            traced = m._sees_traced(m._box([v], vz), m._box([t], tz))
            assert first == again == traced, (m.name, v, t, vz, tz)
            seen += first
            hidden += not first
    assert seen > 100 and hidden > 50


def _reference_fly_costs(m: BattleMap, start, n, speed_ft, hostile_cells, ally_cells, alt):
    """A flyer's reach written out plainly: Dijkstra over the 26 step directions the map allows
    from each anchor (1 square each, 2 into an ally's space, never into a hostile's)."""
    import heapq

    from dungeonbench_gym.dnd.grid import _DIRS26, SQUARE_FT
    sx, sy, sz = start
    sl = sz // SQUARE_FT
    origin, free, hostile, ally, R = m._fly_setup(sx, sy, sl, n, speed_ft, hostile_cells, ally_cells, alt)
    allowed = m._fly_allowed(free)
    x0, y0, l0 = origin
    p = (sl - l0, sy - y0, sx - x0)
    best = {p: 0}
    heap = [(0, p)]
    while heap:
        d, cell = heapq.heappop(heap)
        if d > best.get(cell, 99) or d >= R:
            continue
        for (dx, dy, dl), a in zip(_DIRS26, allowed):
            if not a[cell]:
                continue
            nxt = (cell[0] + dl, cell[1] + dy, cell[2] + dx)
            if hostile[nxt]:
                continue
            nd = d + (2 if ally[nxt] else 1)
            if nd <= R and nd < best.get(nxt, 99):
                best[nxt] = nd
                heapq.heappush(heap, (nd, nxt))
    ends = {(c[2] + x0, c[1] + y0, (c[0] + l0) * SQUARE_FT): d * SQUARE_FT for c, d in best.items()
            if c == p or not (hostile[c] or ally[c])}
    # steps per reached anchor, by absolute (layer, y, x)
    return ends, {(c[0] + l0, c[1] + y0, c[2] + x0): d for c, d in best.items()}


@pytest.mark.parametrize("name", ["harpy_cliffs", "wyrmling_lair"])
def test_flyer_reach_matches_a_plain_dijkstra(name):
    """The flat-index breadth-first search of a flyer's reach against Dijkstra on the same steps."""
    b = load_encounter(name).build(0)
    rng = random.Random(3)
    cs = list(b.creatures.values())
    for _ in range(30):
        c = rng.choice(cs)
        others = [o for o in cs if o is not c]
        rng.shuffle(others)
        hostile = [cell for o in others[: len(others) // 2] for cell in o.cells]
        friends = [cell for o in others[len(others) // 2:] for cell in o.cells]
        speed, alt = rng.choice([10, 20, 30, 50, 80]), rng.choice([None, 30, 60])
        r = b.map.reachable(c.pos, c.size, speed, fly=True, blocked_by=hostile, pass_through=friends,
                            max_altitude_ft=alt)
        want, steps = _reference_fly_costs(b.map, tuple(r.start), c.squares, speed, hostile, friends, alt)
        assert dict(r.costs) == want
        (ox, oy, ol), dist = r._prev[0], r._prev[1]   # every square's cost in steps, allies' squares included
        assert {(int(la) + ol, int(y) + oy, int(x) + ox): int(dist[la, y, x])
                for la, y, x in zip(*np.nonzero(dist >= 0))} == steps


# ---------------------------------------------------------------- this wave's fast paths
def test_a_flyers_one_step_test_never_claims_a_move_reachable_denies():
    rng = random.Random(7)
    yes = 0
    for m, n, x, y in _random_spaces(rng, 40):
        W, H = m.width, m.height
        z = m.standing_z(x, y, n) + rng.choice((0, 0, 5, 10))
        cells = [(rng.randrange(W), rng.randrange(H)) for _ in range(rng.randint(0, 14))]
        alt = rng.choice((None, 15, 30))
        kw = {"blocked_by": cells[::2], "pass_through": cells[1::2], "max_altitude_ft": alt}
        try:
            full = len(m.reachable((x, y, z), n, 10, fly=True, **kw)) > 1
        except ValueError:   # no room for the flyer at that height
            continue
        quick = m.can_fly_step((x, y, z), n, 30, **kw)
        assert not quick or full, (m.name, x, y, z, n, kw)
        yes += quick
    assert yes > 150
    # walled in on every side and above by a low ceiling: no step, and the test says nothing
    box = BattleMap.from_dict({"layout": ["###", "#.#", "###"]})
    assert not box.can_fly_step((1, 1, 0), 1, 30, max_altitude_ft=0)


@pytest.mark.parametrize("name", ["gate_lever", "harpy_cliffs", "pillared_hall"])
def test_point_columns_are_the_full_scan(name):
    """point_x offers the columns with some legal point, point_y every legal point of the column:
    the same as asking point_ok of every intersection."""
    b = load_encounter(name).build(0)
    for c in list(b.creatures.values())[:4]:
        for use in (("spell", "fireball", 3), ("spell", "sleep", 1)):
            p = {"use": use}
            rng = b._point_range(c, use)
            full = [(x, y) for y in range(b.map.height + 1) for x in range(b.map.width + 1)
                    if b.point_ok(c, x, y, rng)]
            assert b._point_xs(c, p) == sorted({x for x, _ in full})
            for x in b._point_xs(c, p):
                assert b._point_ys(c, p, x) == [y for xx, y in full if xx == x]


@pytest.mark.parametrize("name", ["cult_sanctum", "standing_stones", "mummy_lord_tomb"])
def test_area_spells_skipped_as_unable_to_catch_two_could_not(name):
    """The planner skips scoring an area spell when no two awake foes could share the area; every
    time it skips, the full scoring would not have reached the value (2) it casts at."""
    from dungeonbench_gym.dnd import content
    b = load_encounter(name).build(1)
    skipped = 0
    for d in _heuristic_decisions(b, 400):
        c = b.creatures[d.actor]
        awake = [o for o in b.enemies_of(c) if o.conscious]
        if d.kind == "action" and len(awake) >= 2:
            for key in c.spells:
                sp = content.spell(key)
                if sp.area is None or sp.area.shape not in ("sphere", "cylinder", "cone", "line") \
                        or heuristic._two_could_fit(b, c, awake, sp.area):
                    continue
                use = ("spell", key, max(1, sp.level))
                best = heuristic._best_point_uncached(b, c, use)[0] if sp.area.shape == "sphere" else \
                    max(heuristic._area_value(b, c, use, dd) for dd in __import__(
                        "dungeonbench_gym.dnd.areas", fromlist=["DIRECTIONS_8"]).DIRECTIONS_8)
                assert best < 2, (name, c.cid, key, best)
                skipped += 1
    assert skipped > 0


def test_area_memos_give_the_fresh_answer():
    """affects_space and spheres are kept per map: a fresh map (empty caches) agrees everywhere."""
    from dungeonbench_gym.dnd import areas
    rng = random.Random(9)
    for m in _maps()[:8]:
        fresh = _fresh(m)
        for _ in range(60):
            pt = (rng.randrange(m.width + 1), rng.randrange(m.height + 1))
            r = rng.choice((5, 10, 20))
            a, a2 = areas.sphere(pt, r, m), areas.sphere(pt, r, fresh)
            assert areas.sphere(pt, r, m) is a   # the same placement again: the kept area
            for _ in range(5):
                n = rng.choice((1, 1, 2))
                x, y = rng.randrange(m.width - n + 1), rng.randrange(m.height - n + 1)
                z = rng.choice((None, 0, 10))
                want = areas.affects(a2, fresh, [(x + i, y + j) for j in range(n) for i in range(n)], z)
                assert areas.affects_space(a, m, x, y, n, z) == want
                assert areas.affects_space(a, m, x, y, n, z) == want   # asked again: from the memo


@pytest.mark.parametrize("name", ["harpy_cliffs", "standing_stones", "watchtower_hold"])
def test_reach_shared_distances_give_the_positions_answer(name):
    """The planner's keys and the labels' nearest foe read the reach's per-box rows: the same
    numbers as working them out from the positions."""
    from dungeonbench_gym.dnd.grid import nearest_box_ft
    b = load_encounter(name).build(0)
    checked = 0
    for d in _heuristic_decisions(b, 250):
        c = b.creatures[d.actor]
        if d.kind == "action" and any(o.kind == "move" for o in d.options):
            r = b.reach(c)
            foes = heuristic._foes(b, c)
            pos = list(r.destinations)
            if len(pos) >= fastpaths.SMALL:
                got = heuristic._score_keys(b, c, foes, r.destinations, r)
                want = heuristic._score_keys(b, c, foes, pos)
                assert all(np.array_equal(g, w) for g, w in zip(got, want))
                sub = pos[::3]
                got = heuristic._score_keys(b, c, foes, sub, r)
                want = heuristic._score_keys(b, c, foes, sub)
                assert got is None or all(np.array_equal(g, w) for g, w in zip(got, want))
                others = sorted(b.enemies_of(c), key=lambda o: o.cid)
                if others:
                    boxes = [(o.pos[0], o.pos[1], o.squares, o.pos[2]) for o in others]
                    from dungeonbench_gym.dnd.battle.movement import _extents
                    assert r.nearest([_extents(o) for o in others]) == tuple(nearest_box_ft(pos, c.squares, boxes))
                checked += 1
    assert checked >= 3


def test_a_rectangle_of_goal_squares_is_one_box_with_the_same_distance():
    m = load_encounter("harpy_cliffs").build(0).map
    cells = [(x, y) for x in (20, 21) for y in range(1, 7)]
    boxes = common._goal_boxes(m, cells)
    assert len(boxes) == 1
    per_cell = [common._box_extents(x, y, 1, m.standing_z(x, y, 1)) for x, y in cells]
    rng = random.Random(3)
    for _ in range(300):
        pos = (rng.randrange(m.width - 1), rng.randrange(m.height - 1), rng.choice((0, 10, 30, 45)))
        n = rng.choice((1, 2))
        assert common._nearest_ft(pos, n, boxes) == common._nearest_ft(pos, n, per_cell)
    ragged = cells[:-1]   # one square short of a rectangle: one box a square
    assert len(common._goal_boxes(m, ragged)) == len(ragged)


def test_lazy_destination_labels_read_like_written_ones():
    import pickle
    b = load_encounter("harpy_cliffs").build(0)
    for _ in range(200):
        d = b.decision
        if b.pending.get("kind") == "destination" and not b.pending.get("use") \
                and b.flying(b.creatures[d.actor]):
            opts = b.visible_options()
            aloft = [o for o in opts if "ft up" in o.label]
            assert aloft and all(o.label.startswith("Move to (") and " ft from " in o.label for o in opts)
            o = opts[0]
            assert pickle.loads(pickle.dumps(o)).label == o.label and o.group.startswith("row y=")
            return
        b.choose(heuristic.choose(b))
    raise AssertionError("no destination decision of a flyer in 200 decisions")
