"""What the baseline heuristic and its per-mechanic advice both ask: who keeps its distance, the
foes to close with, and the planner's score of standing on a square (lower is better).

Below :mod:`..heuristic` and the advice modules, so that neither imports the other both ways.
:mod:`..fastpaths` has the vectorised twins of these scores (``heuristic._score_keys`` asks them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..grid import SIZE_SQUARES, SQUARE_FT

if TYPE_CHECKING:
    from ..engine import Battle
    from ..state import Combatant


def _ranged_minded(c: Combatant) -> bool:
    """Casters keep their distance; everyone else closes in."""
    return bool(c.spells)


def _foes(battle: Battle, c: Combatant) -> list:
    """(position, squares) of the foes to close with: the conscious ones, else any left."""
    foes = [o for o in battle.enemies_of(c) if o.conscious] or battle.enemies_of(c)
    return [(o.pos, o.squares) for o in foes]


def _planned_squares(c) -> int:
    """The space the planner measures a square from: the creature's whole space, also where it
    would squeeze (as :class:`..grid.Reach` measures its destinations; a squeezed square then
    reads at most 5 ft nearer than it is)."""
    return SIZE_SQUARES[c.size]


def _nearest_ft(pos: tuple, n: int, boxes: list) -> int:
    """grid.box_distance_ft from an n x n space at pos to the nearest of boxes (precomputed
    inclusive extents x0, y0, x1, y1 and layers l0, l1): the same numbers, inlined."""
    x0, y0 = pos[0], pos[1]
    x1, y1 = x0 + n - 1, y0 + n - 1
    l0 = int(pos[2] // SQUARE_FT)
    l1 = l0 + n - 1
    return SQUARE_FT * min(max(bx0 - x1, x0 - bx1, by0 - y1, y0 - by1, bl0 - l1, l0 - bl1, 0)
                           for bx0, by0, bx1, by1, bl0, bl1 in boxes)


def _goal_boxes(m, cells: list) -> list:
    """The objective's squares as boxes for :func:`_nearest_ft`: the squares at one height that
    fill a rectangle become that one box. The nearest distance is the same (the nearest square
    of a rectangle is found per axis), and a hold area of a dozen squares is one box to measure."""
    by_layer: dict = {}
    for x, y in cells:
        by_layer.setdefault(int(m.standing_z(x, y, 1) // SQUARE_FT), []).append((x, y))
    out = []
    for layer, group in by_layer.items():
        xs, ys = [x for x, _ in group], [y for _, y in group]
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        if len(set(group)) == (x1 - x0 + 1) * (y1 - y0 + 1):
            out.append((x0, y0, x1, y1, layer, layer))
        else:
            out.extend((x, y, x, y, layer, layer) for x, y in group)
    return out


def _box_extents(x: int, y: int, n: int, z: float) -> tuple:
    la = int(z // SQUARE_FT)
    return (x, y, x + n - 1, y + n - 1, la, la + n - 1)


def _scorer(battle: Battle, c: Combatant, foes: list | None = None):
    """pos -> the planner's score of standing there (lower is better): the objective's distance
    first for the party, then the fight. The targets' boxes are worked out once per question.
    :func:`..heuristic._score_keys` gives the same scores for many squares at once: change both
    together."""
    obj = battle.objective
    n = _planned_squares(c)
    party = c.side == battle.party_side
    if party and obj["type"] in ("reach", "interact", "hold"):
        cells = [tuple(obj["object"])] if obj["type"] == "interact" else [tuple(x) for x in obj["cells"]]
        goal = _goal_boxes(battle.map, cells)
        if obj["type"] != "hold":
            return lambda pos: (_nearest_ft(pos, n, goal), 0)
        # get into the area first; inside it, fight from the best square that stays inside
        fight = _fight_scorer(battle, c, foes)
        return lambda pos: (_nearest_ft(pos, n, goal),) + fight(pos)
    return _fight_scorer(battle, c, foes)


def _fight_scorer(battle: Battle, c: Combatant, foes: list | None = None):
    if foes is None:
        foes = _foes(battle, c)
    if not foes:
        return lambda pos: (0, 0)
    n = _planned_squares(c)
    boxes = [_box_extents(fp[0], fp[1], fn, fp[2]) for fp, fn in foes]
    if _ranged_minded(c):
        def ranged(pos):
            d = _nearest_ft(pos, n, boxes)
            return (0 if 10 <= d <= 60 else abs(d - 30), -d)
        return ranged
    reach = c.melee_reach or SQUARE_FT

    def melee(pos):
        d = _nearest_ft(pos, n, boxes)
        return (max(0, d - reach), d)
    return melee
