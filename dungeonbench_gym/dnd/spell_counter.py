"""Counterspell (SRD 5.1): a reaction when a creature within 60 ft that the reactor can see casts
a spell. A counter at a slot level at least the spell's level stops it; a lower one needs an
ability check with the reactor's spellcasting ability, DC 10 + the spell's level. A Counterspell
is itself a spell being cast, so a foe of the counterspeller may counter it in turn: the casts
stack up and resolve from the top.

The reaction is offered as soon as a spell is chosen (the casting is seen before its targets are
named): the engine's ``_begin_spell`` asks :func:`offer` first. While the stack is open the
pending decision is ``reaction`` with ``reaction="counterspell"``; the options carry
``(True, level)`` to counter at that slot level and ``(False,)`` to let it be.
"""

from __future__ import annotations

from . import content
from .model.options import Opt
from .model.slots import spend_slot
from .rules import hooks

RANGE_FT = 60
KEY = "counterspell"
BASE_LEVEL = 3


def _slots(o, stack: list = ()) -> list[int]:
    """The slot levels o can counter with; the slot of o's own casting at the bottom of the stack is
    kept for it (that spell is paid when the stack resolves)."""
    slots = list(o.resources.get("slots", ()))
    if stack and stack[0][0] == o.cid and stack[0][2] > 0:
        slots[stack[0][2] - 1] -= 1
    return [lv for lv in range(BASE_LEVEL, len(slots) + 1) if slots[lv - 1] > 0]


def can_counter(b, o, caster, stack: list = ()) -> bool:
    """o could counter a spell caster is casting now (``stack``: the castings waiting to resolve)."""
    return (KEY in o.spells and o.side != caster.side and o.conscious and not o.incapacitated
            and o.economy.reaction and bool(_slots(o, stack)) and b.distance(o, caster) <= RANGE_FT
            and b.map.can_see(o.cells, caster.cells, viewer_z=o.pos[2], target_z=caster.pos[2]))


def _next_reactor(b, stack: list, declined: tuple):
    caster = b.creatures[stack[-1][0]]
    for o in sorted(b.creatures.values(), key=lambda o: o.cid):
        if o.cid not in declined and can_counter(b, o, caster, stack):
            return o
    return None


def offer(b, c, key: str, level: int) -> bool:
    """Called when c starts casting key at level: open a counterspell decision if someone can
    react; True when the engine must wait for it."""
    cleared = b.__dict__.pop("_counter_cleared", None)
    if c.is_pc and c.economy.extra.get("metamagic") == "subtle":
        return False   # Subtle Spell: nothing to see, nothing to counter (dnd/classes/sorcerer.py)
    if cleared == (c.cid, key, level):
        return False   # this casting already survived its counterspells
    stack = [(c.cid, key, level)]
    o = _next_reactor(b, stack, ())
    if o is None:
        return False
    b.pending = {"kind": "reaction", "actor": o.cid, "reaction": "counterspell", "stack": stack,
                 "declined": (), "prompt": f"{o.cid}: {c.cid} casts {key}" + (f" at level {level}" if level else "")}
    b.forget_options()
    return True


def options(b, o, p: dict) -> list:
    cid, key, level = p["stack"][-1]
    out = []
    for lv in _slots(o, p["stack"]):
        how = "stops it" if lv >= level else \
            f"ability check {o.resources.get('spell_mod', 0):+d} vs DC {10 + level}"
        out.append(Opt(f"Counterspell {cid}'s {key} with a level-{lv} slot ({how})", "reaction", (True, lv)))
    out.append(Opt(f"Let {cid} cast {key}", "reaction", (False,)))
    return out


def answer(b, o, p: dict, data: tuple) -> None:
    stack, declined = list(p["stack"]), p["declined"]
    if data[0]:
        lv = data[1]
        spend_slot(o, lv)
        o.economy.reaction = False
        o.conditions.pop("hidden", None)
        b.event("cast", f"{o.cid} casts counterspell at level {lv} against {stack[-1][0]}'s {stack[-1][1]}",
                creature=o.cid, spell=KEY, level=lv, reaction=True)
        stack.append((o.cid, KEY, lv))
        declined = ()
    else:
        declined = declined + (o.cid,)
    nxt = _next_reactor(b, stack, declined)
    if nxt is not None:
        top = stack[-1]
        b.pending = {"kind": "reaction", "actor": nxt.cid, "reaction": "counterspell", "stack": stack,
                     "declined": declined, "prompt": f"{nxt.cid}: {top[0]} casts {top[1]} at level {top[2]}"}
        b.forget_options()
        return
    _resolve(b, stack)


def _succeeds(b, counter: tuple, spell: tuple) -> bool:
    o = b.creatures[counter[0]]
    if counter[2] >= spell[2]:
        b.event("counterspell", f"{o.cid}'s counterspell stops {spell[0]}'s {spell[1]}", creature=o.cid,
                success=True)
        return True
    roll = b.roller.roll_d20(bonus=o.resources.get("spell_mod", 0), what=f"counterspell check {o.cid}")
    ok = roll.total >= 10 + spell[2]
    b.event("counterspell", f"{o.cid}'s counterspell check {roll.total} vs DC {10 + spell[2]}: "
            f"{'stops' if ok else 'fails to stop'} {spell[0]}'s {spell[1]}", creature=o.cid, success=ok)
    return ok


def _resolve(b, stack: list) -> None:
    """Resolve from the top: a successful counter cancels the cast below it (so the one below
    that stands, unopposed); a failed one lets the cast below it go ahead."""
    countered = set()
    i = len(stack) - 1
    while i > 0:
        if _succeeds(b, stack[i], stack[i - 1]):
            countered.add(i - 1)
            i -= 2
        else:
            i -= 1
    cid, key, level = stack[0]
    c = b.creatures[cid]
    if 0 in countered:   # the slot and the action are spent; nothing happens
        b.pay_spell(c, key, level)
        if content.spell(key).concentration:
            c.concentration = None
        b.event("countered", f"{c.cid}'s {key} is countered", creature=c.cid, spell=key)
        b.pending = {"kind": "action", "actor": c.cid}
        b.forget_options()
        b.back_to_menu(c)
        return
    b.__dict__["_counter_cleared"] = (cid, key, level)
    b.forget_options()
    b.begin_spell(c, key, level)


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
hooks.REACTIONS.register("counterspell", hooks.Reaction(options, answer))
