"""The Day track's baseline between fights (:mod:`..day`): rest when someone is badly hurt and a rest
is left, spend hit dice while they help, recover slots, heal the worst hurt, put all-day buffs up,
lay wards, prepare for the next fight's light and water, then go on. The Gym Day env's baseline
agent plays it; each mechanic's part is its module here."""

from __future__ import annotations

from ..day import DayRun
from ..model.durations import effect_duration
from ..rules import spell_data
from . import lighting as lighting_advice, spell_buffs as buffs_advice
from . import spell_utility as utility_advice, spell_wards as wards_advice


def plan_intermission(run: DayRun) -> int:
    """The baseline's intermission choice (deterministic): rest when someone is badly hurt and a
    rest is left, spend hit dice while they help, recover slots, heal the worst hurt with potions
    and then spells when still low, put all-day buffs up, then go on."""
    if "_ward_pending" in run.__dict__:   # placing a ward (dnd/spell_wards.py)
        return wards_advice.plan_pending(run)
    shown = run._visible()
    if any(o.kind == "group" for o in shown) or any(o.kind == "back" for o in shown):
        # too many options to show at once: decide over all of them, then open the group that
        # holds the choice (or come back out of a member's group that does not)
        full = run._options()
        saved = run._group
        run._group, run.max_options, limit = None, 10 ** 6, run.max_options
        try:
            pick = full[plan_intermission(run)]
        finally:
            run._group, run.max_options = saved, limit
        for i, o in enumerate(shown):
            if o == pick or (o.kind == "group" and pick.data and o.data[0] == pick.data[0]):
                return i
        return next(i for i, o in enumerate(shown) if o.kind == "back")
    opts = shown
    kinds = [o.kind for o in opts]
    living = [c for c in run.party.values() if not c.dead]

    def frac(c):
        return c.hp / c.max_hp

    def first(kind, pred=lambda o: True):
        for i, o in enumerate(opts):
            if o.kind == kind and pred(o):
                return i
        return None

    if run.phase == "rest":
        i = first("arcane")
        if i is not None:
            return i
        best = None
        for i, o in enumerate(opts):   # a hit die for whoever is missing the most, while it cannot overheal much
            if o.kind == "hit_die":
                c = run.party[o.data[0]]
                missing = c.max_hp - c.hp
                if missing >= (c.resources["hit_die"] + 1) / 2 + c.mod("con") and \
                        (best is None or missing > best[0]):
                    best = (missing, i)
        return best[1] if best else first("finish_rest")
    i = buffs_advice.plan(run, opts)   # revive the dead, feast, Lay on Hands, berries
    if i is not None:
        return i
    worst = min(living, key=frac) if living else None
    if worst is not None and frac(worst) < 0.5:
        if "short_rest" in kinds and sum(c.resources.get("hit_dice", 0) for c in living) > 0 \
                and any(frac(c) < 0.5 for c in living):
            return kinds.index("short_rest")
        i = first("potion", lambda o: o.data[1] == worst.cid)
        if i is None:
            i = first("item_potion", lambda o: o.data[2] == worst.cid)
        if i is not None:
            return i
        i = first("heal", lambda o: worst.cid in o.data[3] and o.data[2] == 1)
        if i is not None and frac(worst) < 0.34:
            return i
    i = lighting_advice.plan(run, opts)   # a light and darkvision before a dark fight
    if i is not None:
        return i

    def worth(o) -> bool:   # Mage Armor only where 13 + Dex beats the AC one has (a monk's, say)
        t = run.party[o.data[3][0]]
        return spell_data.mech(o.data[1]).get("unarmored") and effect_duration(o.data[1]) == "all_day" \
            and 13 + t.dex_mod > t.ac

    i = first("day_spell", worth)   # (the other all-day buffs are buffs_advice's)
    if i is not None:
        return i
    i = wards_advice.plan(run, opts)   # a glyph on the foes' way in, a magic circle against their type
    if i is not None:
        return i
    i = utility_advice.plan(run, opts)   # Water Walk, Water Breathing, an Unseen Servant for the next fight
    if i is not None:
        return i
    return kinds.index("continue")
