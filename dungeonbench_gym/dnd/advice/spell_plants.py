"""The planner's advice on trees and plants (:mod:`..spell_plants`): how much Plant Growth and Tree
Stride are worth in its spell choice, and when a tree stride or a Transport via Plants link beats
walking. Asked by :mod:`..heuristic`."""

from __future__ import annotations

from ..grid import OVERGROWN, SQUARE_FT
from ..spell_plants import (
    STRIDE_FT,
    STRIDE_RANGE_FT,
    _gap,
    _link,
    _tree_ft,
    excluded,
    exits,
    stride_exits,
    trees_near,
)
from .common import _foes, _scorer


def worth(b, c, key: str, level: int) -> float:
    """A rough value in HP for the planner's spell choice. Plant Growth: 8 for each foe still
    closing in (more than 10 ft from the caster's side, on its feet) with plants the spell would
    overgrow within 15 ft of it. Tree Stride: 30 when the caster is badly hurt, in a foe's reach
    and a tree beside it leads to a square 30 ft or more from every foe. Transport via Plants: not
    cast by the planner (it uses the links others make)."""
    foes = [o for o in b.enemies_of(c) if o.conscious]
    if not foes:
        return 0.0
    if key == "plant-growth":
        mine = [o for o in b.creatures.values() if o.side == c.side and not o.dead]
        spare = excluded(b, c)
        grow = [p for p in b.map.plant_cells if not b.map.flags_at(*p) & OVERGROWN and p not in spare]
        n = 0
        for o in foes:
            if b.flying(o) or any(b.distance(o, a) <= 10 for a in mine):
                continue
            x, y, _ = o.pos
            if any(_gap(x, y, o.squares, p) <= 3 for p in grow):
                n += 1
        return 8.0 * n
    if key == "tree-stride":
        if c.hp > c.max_hp // 2 or not any(b.distance(c, o) <= SQUARE_FT for o in foes) \
                or c.economy.movement < STRIDE_FT:
            return 0.0
        entries = trees_near(b, c, SQUARE_FT)
        for t in b.map.tree_cells:
            if any(e != t and _tree_ft(e, t) <= STRIDE_RANGE_FT for e in entries) and any(
                    min(b.distance_from(c, pos, o) for o in foes) >= 30 for pos in exits(b, c, t)):
                return 30.0
    return 0.0


def heuristic_choice(b, c, opts: list, idxs: list):
    """Tree Stride or a link when stepping out there beats every square c can walk to now, by
    the planner's own square score (closer to the foe or the objective, or back at range)."""
    foes = _foes(b, c)
    score = _scorer(b, c, foes)
    best_walk = score(c.pos)
    if c.economy.movement >= SQUARE_FT:
        best_walk = min([best_walk] + [score(p) for p in b.reach(c).destinations])
    best = None
    for i in idxs:
        o = opts[i]
        if o.data[0] == "stride":
            spots = list(stride_exits(b, c))
        else:
            ln = _link(b, o.data[1])
            spots = exits(b, c, ln["to"]) if ln is not None else []
        if not spots:
            continue
        s = min(score(p) for p in spots)
        if s < best_walk and (best is None or s < best[0]):
            best = (s, i)
    return None if best is None else best[1]
