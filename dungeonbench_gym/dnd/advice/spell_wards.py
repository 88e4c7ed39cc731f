"""The planner's advice on glyphs and magic circles (:mod:`..spell_wards`): which ward to lay before
the next fight, and where (a glyph on the foes' way in, a circle at the party's centre). Asked by
:mod:`.intermission`."""

from __future__ import annotations

from .. import areas, content
from ..grid import SQUARE_FT, box_distance_ft, size_squares
from ..model.factories import build_monster
from ..spell_buffs import REVIVIFY_GP
from ..spell_wards import ENERGY, _foe_types, _mech, _next, pending, pending_options, places


def _spare(run, c, key: str) -> bool:
    """After this casting, a slot of 3rd level or higher is left for the next fight and for each
    fight after it (Spirit Guardians, Revivify), and the gold (a Revivify diamond kept back when
    the caster knows Revivify)."""
    slots = c.resources.get("slots") or ()
    later = len(run.day.stages) - run.stage - 1   # fights after the next one
    reserve = REVIVIFY_GP if "revivify" in c.spells else 0
    return sum(slots[2:]) >= 2 + later and c.resources.get("gp", 0) >= _mech(key)["cost_gp"] + reserve


def plan(run, opts) -> int | None:
    """The baseline: one Magic Circle around the party's start when the next fight has foes of
    its types, one Glyph of Warding on the foes' way to the party; the lowest slot for each."""
    if not any(o.kind == "ward_cast" for o in opts):
        return None
    laid = {w["spell"] for w in run.__dict__.get("_wards", ()) if w["stage"] == run.stage}
    for key in ("magic-circle", "glyph-of-warding"):
        if key in laid:
            continue
        for i, o in enumerate(opts):
            if o.kind == "ward_cast" and o.data[1] == key and _spare(run, run.party[o.data[0]], key):
                target = _circle_point(run) if key == "magic-circle" else _glyph_point(run)
                if target is not None:
                    return i
    return None


def _centre(run) -> tuple:
    _, _, squares = _next(run)
    pts = [squares[cid] for cid in sorted(squares) if not run.party[cid].dead]
    return sum(p[0] for p in pts) / len(pts) + 0.5, sum(p[1] for p in pts) / len(pts) + 0.5


def _circle_point(run):
    """The placeable point nearest the party's starting squares' centre."""
    _, points = places(run)
    cx, cy = _centre(run)
    return min(points, key=lambda p: ((p[0] - cx) ** 2 + (p[1] - cy) ** 2, p)) if points else None


def _glyph_point(run):
    """A point on the walking path from the foe nearest the party to the party's nearest starting
    square: the first one (from the party's end) whose 20-ft blast misses every party square."""
    sc, bmap, squares = _next(run)
    _, points = places(run)
    party = [(x, y) for cid, (x, y) in sorted(squares.items()) if not run.party[cid].dead]
    best = None
    for e in sc.enemies:
        n = size_squares(content.monster(e["monster"]).size)
        d = min(box_distance_ft(e["at"][0], e["at"][1], n, 0, x, y, 1, 0) for x, y in party)
        if best is None or d < best[0]:
            best = (d, e, n)
    if best is None:
        return None
    _, e, n = best
    far = SQUARE_FT * 4 * bmap.width * bmap.height
    r = bmap.reachable(tuple(e["at"]), n, far)
    goals = [p for p in r.destinations if any(box_distance_ft(p[0], p[1], n, 0, x, y, 1, 0) <= SQUARE_FT
                                              for x, y in party)]
    if not goals:
        return None
    path = r.path(min(goals, key=lambda p: (r.costs[p], p)))
    spots = [(x, y, bmap.standing_z(x, y)) for x, y in party]
    for pos in reversed(path):
        for pt in ((pos[0], pos[1]), (pos[0] + 1, pos[1]), (pos[0], pos[1] + 1), (pos[0] + 1, pos[1] + 1)):
            if pt not in points or tuple(pos[:2]) not in points[pt]:
                continue
            a = areas.sphere(pt, _mech("glyph-of-warding")["radius"], bmap)
            if not any(areas.affects(a, bmap, [(x, y)], z) for x, y, z in spots):
                return pt
    return None


def _least_resisted(run) -> str:
    foes = [build_monster(e["monster"], e["id"], "enemies", (0, 0, 0)) for e in run.current.scenario.enemies]

    def score(energy):
        return sum(2 * any(k == energy for k, _ in f.immune) + any(k == energy for k, _ in f.resist)
                   - any(k == energy for k, _ in f.vulnerable) for f in foes)
    return min(ENERGY, key=lambda k: (score(k), k != "fire", k))


def plan_pending(run) -> int:
    """The baseline's answer to a ward decision under way (its own or another's)."""
    p = pending(run)
    shown = run._visible()
    if p["spell"] == "magic-circle":
        point, kind = _circle_point(run), tuple(_foe_types(run))
    else:   # a glyph on the foes' way in; else (Symbol, which the baseline never casts) far from the party
        point = _glyph_point(run) if p["spell"] == "glyph-of-warding" else None
        if point is None:
            _, points = places(run)
            cx, cy = _centre(run)
            point = max(points, key=lambda q: ((q[0] - cx) ** 2 + (q[1] - cy) ** 2, q))
        kind = _least_resisted(run) if p["spell"] == "glyph-of-warding" else "stunning"
    want = {"x": (point[0],), "y": (point[1],), "kind": (kind,)}[p["step"]]
    full = pending_options(run)
    j = next((j for j, o in enumerate(full) if o.data == want), 0)
    for i, o in enumerate(shown):
        if o.kind == "ward_span" and o.data[0] <= j < o.data[1]:
            return i
        if o.kind != "ward_span" and o.data == want:
            return i
    return 0
