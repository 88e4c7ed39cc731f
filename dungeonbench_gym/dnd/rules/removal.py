"""Leaving the battle and coming back: the rule Banishment, Maze, Blink, Etherealness
(dnd/spell_control.py) and a warlock's Hurl Through Hell (dnd/classes/warlock.py) share.

A removed creature is marked dead with a ``"removed"`` condition saying who removed it and how
it returns; the battle's ``controls`` flag tells the turn hooks that such a creature may exist
(they cost nothing in a battle without one). Kept below the spells and the class features so
that both can use it without importing each other.
"""

from __future__ import annotations


def mark_controls(b) -> None:
    """Something a control rule must watch is in play (the turn hooks stop being free)."""
    b.controls = True


def leave(b, t) -> None:
    """What t lets go of as it leaves: its concentration, grapples, those it swallowed."""
    b.end_concentration(t)
    b.release(t)
    b.release_grapples_by(t)
    for o in sorted(b.swallowed_by(t), key=lambda o: o.cid):
        b.spit_out(t, o, f"{t.cid} left the battle")


def come_back(b, t, why: str) -> None:
    """A removed creature returns to its space, or the nearest free one."""
    v = t.conditions.pop("removed")
    taken = {cell for o in b.creatures.values() if not o.dead and o is not t for cell in o.cells}
    if any(cell in taken for cell in t.cells):
        spot = b.free_spot_beside(t, t.squares) or t.pos
        t.pos = spot
    t.dead = False
    b.forget_reach()
    b.event("return", f"{t.cid} returns to the battle at ({t.pos[0]}, {t.pos[1]}) ({why})", creature=t.cid,
            spell=v.get("spell"))
