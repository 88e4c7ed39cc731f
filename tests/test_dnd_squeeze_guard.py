"""Squeezing (SRD Combat > Movement and Position > Squeezing into a Smaller Space) is not modelled:
a creature moves only where its whole space fits (docs/dnd-rules.md says why). That is harmless
only while no shipped map has a gap that a Large or bigger creature would need to squeeze through
to get somewhere; this test keeps it so, and names the encounter and the gap when a new map breaks
it (widen the gap, or model squeezing first)."""

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


@pytest.mark.parametrize("name", encounter_names())
def test_no_shipped_encounter_needs_squeezing(name):
    b = load_encounter(name).build(0)
    for n in sorted({c.squares for c in b.creatures.values() if c.squares >= 2}):
        assert squeeze_gaps(b.map, n) == [], (
            f"{name}: a creature {n} squares wide could reach the other side of these gaps only by "
            "squeezing, which the engine does not model: widen the gap in the map, or model squeezing")
