"""Squeezing (SRD Combat > Movement and Position > Squeezing into a Smaller Space) opens the gaps
that a creature's whole space does not fit through but a creature one size smaller's does. This
test finds every such gap on the shipped maps (for each creature two or more squares wide) and
checks that the engine's walk (BattleMap.reachable with squeeze=True) crosses it: from the first
place on one side, the first place on the other side is reachable (unlimited movement, nobody in
the way), and the way passes through a squeezed place. Serpent Pit's Huge giant constrictor snake
crosses the 10-ft gap between the pillars to the west half so."""

from collections import deque

import pytest

from dungeonbench_gym.dnd.scenario import encounter_names, load_encounter

STEPS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]


def _anchors(m, n):
    return {(x, y) for x in range(m.width) for y in range(m.height) if m.fits(x, y, n)}


def _components(cells):
    """Connected groups of anchors, moving one square in any of the 8 directions."""
    label, k = {}, 0
    for start in sorted(cells):
        if start in label:
            continue
        label[start], todo = k, deque([start])
        while todo:
            x, y = todo.popleft()
            for dx, dy in STEPS:
                p = (x + dx, y + dy)
                if p in cells and p not in label:
                    label[p] = k
                    todo.append(p)
        k += 1
    return label


def squeeze_gaps(m, n: int) -> list[tuple]:
    """Pairs of places a creature n squares wide can stand in but cannot walk between, though a
    creature one size smaller could (each such pair is a gap only squeezing would cross)."""
    whole, smaller = _components(_anchors(m, n)), _components(_anchors(m, n - 1))
    first_of = {}
    for p, k in sorted(whole.items()):
        first_of.setdefault(k, p)
    gaps, seen = [], {}
    for k, p in sorted(first_of.items(), key=lambda kv: kv[1]):
        joined = seen.setdefault(smaller[p], p)
        if joined != p:
            gaps.append((joined, p))
    return gaps


def test_the_gap_finder_sees_a_5_ft_door_between_two_rooms():
    """A Large creature (2 squares) cannot pass a one-square door that a Medium one walks through."""
    from dungeonbench_gym.dnd.grid import BattleMap
    door = ["#########", "#...#...#", "#...#...#", "#.......#", "#...#...#", "#########"]
    wide = ["#########", "#...#...#", "#.......#", "#.......#", "#...#...#", "#########"]
    assert len(squeeze_gaps(BattleMap.from_dict({"layout": door}), 2)) == 1
    assert squeeze_gaps(BattleMap.from_dict({"layout": wide}), 2) == []


def test_a_large_creature_squeezes_through_the_5_ft_door():
    """The door the gap finder sees is crossed by a Large creature's walk, squeezed in the door."""
    from dungeonbench_gym.dnd.grid import BattleMap
    door = ["#########", "#...#...#", "#...#...#", "#.......#", "#...#...#", "#########"]
    m = BattleMap.from_dict({"layout": door})
    (a, b), = squeeze_gaps(m, 2)
    assert b not in m.reachable(a, 2, 10_000)
    r = m.reachable(a, 2, 10_000, squeeze=True)
    assert b in r and any(r.squeezed(p) for p in r.path(b))


@pytest.mark.parametrize("name", encounter_names())
def test_every_squeeze_gap_on_the_shipped_maps_is_crossed(name):
    b = load_encounter(name).build(0)
    for n in sorted({c.squares for c in b.creatures.values() if c.squares >= 2}):
        for a, z in squeeze_gaps(b.map, n):
            r = b.map.reachable(a, n, 10_000, squeeze=True)
            assert z in r, f"{name}: a creature {n} squares wide cannot squeeze from {a} to {z}"
            assert any(r.squeezed(p) for p in r.path(z)), f"{name}: {a} -> {z} crosses without squeezing"


def test_serpent_pits_giant_snake_walks_to_the_west_half():
    """The Huge snake (3x3 at (11, 3)) passes the 10-ft gap between the pillars at (7, 2) and
    (7, 5) squeezed to 2x2, paying 5 ft extra for each of the three squeezed steps."""
    b = load_encounter("serpent_pit").build(0)
    s = b.creatures["giant_snake"]
    assert not b.map.reachable(s.pos, s.size, 10_000).__contains__((1, 3))
    r = b.map.reachable(s.pos, s.size, 10_000, squeeze=True)
    path = r.path((1, 3))
    assert [p[:2] for p in path if r.squeezed(p)] == [(7, 3), (6, 3), (5, 3)]
    assert r.cost((1, 3)) == 5 * (len(path) - 1) + 3 * 5
