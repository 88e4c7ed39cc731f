"""The planner's advice on light (:mod:`..lighting`): in a dark battle, when its side cannot see a
foe, Light on the front-liner (or on an unseen foe within touch), Dancing Lights by the unseen foes
and moved onto them, Darkvision on the front-liner. Asked by :mod:`..heuristic`."""

from __future__ import annotations

from .. import spell_zones
from ..lighting import SPELLS, _dark_ahead, _lit_by, _my_lights, _reaches, active, carried, darkvision, targets
from .common import _ranged_minded


def _unseen_foes(b, c) -> list:
    """Conscious foes that no conscious creature of c's side can see."""
    mine = [o for o in b.creatures.values() if o.side == c.side and o.conscious]
    return [f for f in b.enemies_of(c) if f.conscious and not any(spell_zones.sees(b, o, f) for o in mine)]


def _front(b, c, pool: list):
    """The creature of c's side to light or give darkvision first: a melee one nearest the foes."""
    foes = [o for o in b.enemies_of(c) if o.conscious]

    def key(o):
        near = min((b.distance(o, f) for f in foes), default=0)
        return (_ranged_minded(o) if o.is_pc else not any(a.melee for a in o.attacks), near, o.cid)
    mine = [o for o in pool if o.side == c.side]
    return min(mine, key=key) if mine else None


def heuristic_choice(b, c, opts: list):
    """In a dark battle, when c's side cannot see some foe: Light on the front-liner (none of the
    side carries a light yet) or on an unseen foe within touch, Dancing Lights by the unseen foes
    (and moved to them), Darkvision on the front-liner. None: nothing worth it."""
    if active(b) is None or not any(o.kind in ("spell", "lights") for o in opts):
        return None
    unseen = _unseen_foes(b, c)
    if not unseen:
        return None
    side = [o for o in b.creatures.values() if o.side == c.side and not o.dead]
    lit_side = any(carried(o) != (0, 0) for o in side)
    e = c.economy
    for i, o in enumerate(opts):
        if o.kind == "lights":   # the lights reach no unseen foe: move them where they do
            s = _my_lights(b, c)
            box = [(f.pos[0], f.pos[1], f.squares, f.pos[2]) for f in unseen]
            if s is not None and not any(_reaches(b.map, "point", tuple(s["at"]), s["dim"], x) for x in box):
                return i
    for i, o in enumerate(opts):
        if o.kind != "spell" or o.data[0] not in SPELLS or len(o.data) > 2:   # (not a metamagic variant)
            continue
        key = o.data[0]
        if key == "light":
            pool = targets(b, c, key)
            if not lit_side and _front(b, c, pool) is not None:
                return i
            if not _lit_by(b, c) and any(t in unseen for t in pool):   # its Light is free: on a foe in touch
                return i
        elif key == "continual-flame" and not lit_side and _front(b, c, targets(b, c, key)) is not None:
            return i
        elif key == "dancing-lights" and c.concentration is None and e.actions > 0:
            return i
        elif key == "darkvision" and c.concentration is None and _front(b, c, targets(b, c, key)) is not None \
                and any(b.distance(_front(b, c, targets(b, c, key)), f) <= 60 for f in unseen):
            return i
    return None


def heuristic_target(b, c, key: str, opts: list) -> int | None:
    """The planner's pick among a light spell's targets: an unseen foe for Light when our side
    already carries a light, else the front-liner."""
    real = [i for i, o in enumerate(opts) if o.kind == "target"]
    if not real or key not in SPELLS:
        return None
    pool = [b.creatures[opts[i].data[0]] for i in real]
    side = [o for o in b.creatures.values() if o.side == c.side and not o.dead]
    if key == "light" and any(carried(o) != (0, 0) for o in side) and not _lit_by(b, c):
        unseen = _unseen_foes(b, c)
        for i in real:
            if b.creatures[opts[i].data[0]] in unseen:
                return i
    front = _front(b, c, pool)
    return next((i for i in real if front is not None and opts[i].data[0] == front.cid), real[0])


def heuristic_destination(b, c, opts: list) -> int:
    """Where to move the dancing lights: onto the most unseen foes, then the most foes."""
    unseen = {f.cid for f in _unseen_foes(b, c)}
    foes = {f.cid for f in b.enemies_of(c) if f.conscious}

    def score(o):
        names = o.label.rsplit("(lights ", 1)[-1].rstrip(")").split(", ")
        return (sum(n in unseen for n in names), sum(n in foes for n in names))
    return max(range(len(opts)), key=lambda i: (score(opts[i]), -i))


def plan(run, opts) -> int | None:
    """The baseline before a dark fight: a light for the party if none of it carries one
    (Continual Flame, else Light when the next fight is dark), then Darkvision on the front-liner."""
    mine = [i for i, o in enumerate(opts) if o.kind == "day_light"]
    if not mine:
        return None
    living = [c for c in run.party.values() if not c.dead]
    lit = any(carried(c) != (0, 0) for c in living)

    def front_first(i):
        t = run.party[opts[i].data[3][0]]
        return (bool(t.spells), -t.max_hp, t.cid)
    for key in ("continual-flame", "light"):
        if lit or (key == "light" and not _dark_ahead(run, next_only=True)):
            continue
        pick = sorted((i for i in mine if opts[i].data[1] == key), key=front_first)
        if pick:
            return pick[0]
    if not any(darkvision(c) for c in living):
        pick = sorted((i for i in mine if opts[i].data[1] == "darkvision"), key=front_first)
        if pick:
            return pick[0]
    return None
