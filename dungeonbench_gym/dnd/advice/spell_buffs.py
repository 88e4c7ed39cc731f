"""The planner's advice on buffs between fights (:mod:`..spell_buffs`): what the Day track's baseline
casts or uses first in an intermission. Asked by :mod:`.intermission`."""

from __future__ import annotations

from ..model.durations import effect_duration
from ..spell_buffs import _day_buff, _mech


def plan(run, opts) -> int | None:
    """The baseline planner's use of these options: bring the dead back (or keep the body for a
    later Revivify), feast, then Lay on Hands or Regenerate on the worst hurt, berries when the
    party misses ten HP or more."""
    living = [c for c in run.party.values() if not c.dead]
    if not living:
        return None

    def first(pred):
        return next((i for i, o in enumerate(opts) if pred(o)), None)

    def day(o, kind):
        return o.kind == "day_spell" and (_mech(o.data[1]).get("day") == kind
                                          or (kind == "revive" and o.data[1] == "revivify"))

    for kind in ("revive", "repose", "feast"):   # Gentle Repose keeps a later Revivify possible
        i = first(lambda o, kind=kind: day(o, kind))
        if i is not None:
            return i
    worst = min(living, key=lambda t: t.hp / t.max_hp)
    if worst.hp / worst.max_hp < 0.5:
        i = first(lambda o: o.kind == "lay_on_hands" and o.data[1] == worst.cid)
        if i is None and worst.hp / worst.max_hp < 0.34:
            i = first(lambda o: day(o, "regenerate") and o.data[3] == (worst.cid,))
        if i is not None:
            return i
    if sum(t.max_hp - t.hp for t in living) >= 10:
        i = first(lambda o: day(o, "goodberry"))
        if i is not None:
            return i
    if worst.hp / worst.max_hp >= 0.5:   # all-day buffs (Mind Blank, Death Ward, Foresight) while slots last
        return first(lambda o: o.kind == "day_spell" and effect_duration(o.data[1]) == "all_day"
                     and (_day_buff(o.data[1]) or _mech(o.data[1]).get("day") == "buff")
                     and not _mech(o.data[1]).get("unarmored"))   # Mage Armor: intermission's, where it is worth it
    return None
