"""**Gibbering** and **Aberrant Ground** (gibbering mouther): a creature starting its turn within
10 ft saves (Str DC 10) or has speed 0 this turn (any creature but the mouther); within 20 ft (and
not deafened), a Wis DC 10 save or no reactions and a d8: 1-4 nothing, 5-6 a move in a random
direction (no opportunity attacks) and nothing else, 7-8 a melee attack against a random creature
within reach (its only option) or nothing. Simplification: the doughy ground is not difficult
terrain."""

from __future__ import annotations

from ..areas import DIRECTIONS_8
from ..grid import SQUARE_FT, footprint
from ..model.options import Opt
from ..rules import hooks
from ..state import expected_damage
from .common import _ms, _sees

GIBBER = {"dc": 10, "range": 20, "ground_dc": 10, "ground": 10}


def compile_traits(spec, c, ms, traits) -> None:
    if spec.key == "gibbering-mouther" and {"gibbering", "aberrant-ground"} <= traits:
        ms["gibbering"] = dict(GIBBER)


TRAIT_RUN = {
    "gibbering": lambda c: "gibbering" in _ms(c),
    "aberrant-ground": lambda c: "gibbering" in _ms(c),
}


def aura(b, m, c, mms) -> None:
    """The start of another creature's turn near the mouther."""
    if "gibbering" in mms and not m.incapacitated:
        _gibber(b, m, c, mms["gibbering"])


def clear(c) -> None:
    """The d8's result lasts until the end of the creature's turn (and no longer than its next start)."""
    c.conditions.pop("gibbering", None)


def gibbering_menu(b, c, out: list) -> list:
    """What the d8 left it: nothing, or one melee attack."""
    e = c.economy
    g = c.conditions["gibbering"]
    keep = [o for o in out if o.kind == "end_turn"]
    t = b.creatures.get(g.get("target", ""))
    if e.actions > 0 and t is not None and not t.dead and _best_melee(b, c, t) is not None:
        keep.insert(0, Opt(f"Gibbering: attack {t.cid} (the d8's random creature)", "ms_gibber_attack", (t.cid,)))
    return keep


@hooks.OPTION_KINDS.handles("ms_gibber_attack")
def _gibber_attack(b, c, p, opt) -> None:
    t = b.creatures[opt.data[0]]
    a = _best_melee(b, c, t)
    c.economy.actions = 0
    c.conditions.pop("gibbering", None)
    b.event("gibbering_attack", f"{c.cid} lashes out at {t.cid}", creature=c.cid, target=t.cid)
    if b.make_attack(c, a, t, melee=True, then="menu") is None:
        return
    b.back_to_menu(c)


def _best_melee(b, c, t):
    melee = [a for a in c.attacks if a.melee and a.damage and b.distance(c, t) <= a.reach]
    return max(melee, key=lambda a: (expected_damage(a), a.key)) if melee else None


def _gibber(b, m, c, g) -> None:
    d = b.distance(m, c)
    if d <= g["ground"] and c.pos[2] <= b.map.standing_z(c.pos[0], c.pos[1], c.squares) \
            and not b.saving_throw(c, "str", g["ground_dc"]):   # Aberrant Ground
        c.economy.movement = 0
        b.event("aberrant_ground", f"{c.cid} is stuck in the doughy ground", creature=c.cid)
    if d > g["range"] or "deafened" in c.conditions or "gibbering" in c.conditions \
            or not any(_sees(b, m, o) for o in b.creatures.values() if o is not m and not o.dead):
        return
    if b.saving_throw(c, "wis", g["dc"]):
        return
    c.economy.reaction = False
    roll = b.roller.roll("1d8", what=f"gibbering {c.cid}")
    b.event("gibbering", f"{c.cid} is overwhelmed by the gibbering ({roll})", creature=c.cid, roll=roll)
    entry = {"by": m.cid, "roll": roll}
    c.economy.bonus = False
    if roll <= 6:
        c.economy.actions = 0
    if 5 <= roll <= 6:
        _random_walk(b, c)
    c.economy.movement = 0
    if roll >= 7:
        near = [o for o in sorted(b.creatures.values(), key=lambda o: o.cid)
                if o is not c and not o.dead and _best_melee(b, c, o) is not None]
        if near:
            entry["target"] = near[b.roller.roll(f"1d{len(near)}", what=f"gibbering target {c.cid}") - 1].cid
    c.conditions["gibbering"] = entry


def _random_walk(b, c) -> None:
    dx, dy = DIRECTIONS_8[b.roller.roll("1d8", what=f"gibbering direction {c.cid}") - 1][:2]
    taken = {cell for o in b.creatures.values() if not o.dead and o is not c for cell in o.cells}
    left = c.economy.movement
    x, y = c.pos[0], c.pos[1]
    moved = False
    while left >= SQUARE_FT:
        nx, ny = x + dx, y + dy
        if not b.map.fits(nx, ny, c.squares) or set(footprint(nx, ny, c.squares)) & taken:
            break
        x, y, left, moved = nx, ny, left - SQUARE_FT, True
    if moved:
        c.pos = (x, y, b.map.standing_z(x, y, c.squares))
        b.forget_reach()
        b.event("move", f"{c.cid} stumbles to ({x}, {y})", creature=c.cid, pos=list(c.pos))
