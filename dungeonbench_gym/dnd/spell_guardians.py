"""Spirit Guardians (the ``"guardians"`` spell mechanism): spirits flit around the caster in an
emanation of the row's ``radius`` (15 ft) that moves with it, for its concentration. A foe that
enters the area on its turn or starts its turn there makes a Wisdom save: the slot level in d8
radiant (3d8 at 3rd level, +1d8 per level above), half on a success; once per turn per creature
and caster. Its speed is halved in the area (simplification: a foe that starts its turn there has
half speed for the whole turn; entering mid-move does not slow the rest of that move).

The whole mechanism is this module: its spell row names ``"mech": "guardians"``
(``content/data/spell_mechanics.json``), the spellbook asks it whether the spell is worth casting
(not while it is up) and runs its casting (``begin``: nothing to place; rules/hooks.py
``SPELL_MECHANISMS``), the start of a turn runs :func:`_turn_starts` (``TURN_STARTS``) and each
square of a move :func:`_stepped` (``MOVE_STEPS``). The spirits are a ``spirit_guardians``
condition on the caster, which ends with its concentration like any effect it keeps up.
"""

from __future__ import annotations

from .rules import hooks, spell_data

CONDITION = "spirit_guardians"


def available(b, c, key: str, level: int) -> bool:
    return c.concentration != key   # not again while it is up


def placement(key: str) -> str:
    return "self"


def begin(b, c, key: str, level: int) -> bool:
    """An emanation around the caster: nothing to place, it is up at once."""
    b.pay_spell(c, key, level)
    c.conditions[CONDITION] = {"by": c.cid, "spell": key, "level": level, "dc": c.resources["spell_dc"]}
    b.back_to_menu(c)
    return True


def guardians(b) -> list:
    """The creatures whose spirits are up."""
    return [o for o in b.creatures.values() if CONDITION in o.conditions and o.conscious]


def reach_ft(g) -> int:
    """How far g's Spirit Guardians reach (the spell's row: ``radius``)."""
    return spell_data.mech(g.conditions[CONDITION]["spell"])["radius"]


def strike(b, g, t) -> None:
    """Wis save, the slot level in d8 radiant, half on a success; once per turn per creature
    (entering the area or starting the turn there)."""
    if (t.cid, g.cid) in b.zone_hits or t.dead:
        return
    b.zone_hits.add((t.cid, g.cid))
    sg = g.conditions[CONDITION]
    ok = b.saving_throw(t, "wis", sg["dc"], magic=True)
    amount = b.roller.roll_damage(f"{sg['level']}d8", what="damage spirit-guardians radiant")
    b.event("zone", f"{t.cid} is struck by {g.cid}'s spirit guardians", creature=t.cid, source=g.cid)
    b.damage(t, amount // 2 if ok else amount, "radiant", magical=True, source=g.cid)


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
hooks.SPELL_MECHANISMS.register("guardians", hooks.SpellMechanism(placement=placement, available=available,
                                                                  begin=begin))


@hooks.TURN_STARTS.step(10)
def _turn_starts(b, c) -> None:
    """A foe starting its turn in the area: struck, and half speed for the turn."""
    started_in_zone = False
    for g in guardians(b):
        if g.side != c.side and b.distance(g, c) <= reach_ft(g) and not b.inside_apart(g, c):
            started_in_zone = True
            strike(b, g, c)
    if started_in_zone and c.conscious:   # half speed for the whole turn (the docstring)
        c.economy.movement //= 2


@hooks.MOVE_STEPS.step(10)
def _stepped(b, c, here) -> None:
    """A foe entering the area on a step of its move (from ``here`` to its new position)."""
    for g in guardians(b):
        if g.side != c.side and c.conscious and b.distance_from(c, here, g) > reach_ft(g) >= b.distance(c, g):
            strike(b, g, c)
