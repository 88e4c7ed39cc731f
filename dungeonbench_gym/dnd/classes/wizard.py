"""Wizard (School of Evocation): Sculpt Spells, Potent Cantrip, Empowered Evocation, Overchannel
(armed for the next spell: see :func:`.common.arm`), Spell Mastery, Signature Spell."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import content
from .common import class_level, extra, option

if TYPE_CHECKING:   # pragma: no cover
    from ..rules.api import BattleAPI
    from ..state import Combatant

OVERCHANNEL_TEXT = ("Overchannel: the next wizard damage spell of 1st-5th level you cast this turn deals maximum "
                    "damage (once a long rest)")


def finish_pc(lvls: dict, f: list, r: dict, spells: list) -> None:
    wiz = lvls.get("wizard", 0)
    if wiz:   # School of Evocation
        f += [k for lv, k in ((2, "sculpt_spells"), (6, "potent_cantrip"), (10, "empowered_evocation"),
                              (14, "overchannel")) if wiz >= lv]
        if wiz >= 14:
            r["overchannel"] = r["overchannel_max"] = 1
        innate = dict(r.get("innate", {}))
        if wiz >= 18:   # Spell Mastery: at will at their lowest level
            r["mastery"] = ("magic-missile", "misty-step")
            innate.update({k: -1 for k in r["mastery"]})
            spells += [k for k in r["mastery"] if k not in spells]
        if wiz >= 20:   # Signature Spell: once each per short rest at 3rd level
            r["signature"] = ("fireball", "lightning-bolt")
            innate.update({k: 1 for k in r["signature"]})
            spells += [k for k in r["signature"] if k not in spells]
        if innate:
            r["innate"], r["innate_max"] = innate, dict(innate)


def arm_options(c: Combatant, out: list) -> None:
    if "overchannel" in c.features and c.resources.get("overchannel", 0) > 0:
        out.append(option(OVERCHANNEL_TEXT, "feature", ("arm", "overchannel")))


# ================================================================ spells
def _evocation(c: Combatant, sp) -> bool:
    return sp.school == "evocation" and class_level(c, "wizard") > 0


def evocation_change(c: Combatant, sp, change: dict) -> None:
    """Empowered Evocation: + Int modifier to one damage roll of a wizard evocation spell."""
    if "empowered_evocation" in c.features and _evocation(c, sp):
        change["add"] = max(0, c.mod("int"))


def overchannel_change(b: BattleAPI, c: Combatant, key: str, tag, change: dict) -> None:
    """Overchannel: maximum damage (once a long rest)."""
    if tag == "overchannel":
        c.resources["overchannel"] = 0
        change["max"] = True
        b.event("overchannel", f"{c.cid} overchannels {key}", creature=c.cid)


def sculpt(c: Combatant, sp, level: int) -> None:
    """Sculpt Spells: an evocation area with a save spares 1 + the spell's level allies."""
    if "sculpt_spells" in c.features and _evocation(c, sp) and sp.area is not None and sp.save_ability:
        extra(c)["sculpt"] = 1 + level


def sculpt_saves(b: BattleAPI, c: Combatant, t: Combatant) -> bool:
    """Sculpt Spells: an ally of the wizard (not the wizard) in its evocation area succeeds, and
    takes no damage (noted for :func:`sculpted`)."""
    x = extra(c)
    if not x.get("sculpt") or c.side != t.side or c is t:
        return False
    x["sculpt"] -= 1
    t.economy.extra["sculpted"] = (c.cid, b.round)
    b.event("save", f"{t.cid} is shielded by Sculpt Spells", creature=t.cid, success=True)
    return True


def sculpted(b: BattleAPI, t: Combatant, source: str | None) -> bool:
    """The sculpted ally's damage from that spell: none."""
    mark = t.economy.extra.pop("sculpted", None)
    return mark is not None and mark == (source, b.round)


def potent(c: Combatant, sp) -> bool:
    """SRD Potent Cantrip: a cantrip's save success still takes half the damage."""
    return sp.level == 0 and "potent_cantrip" in c.features


def free_cast(c: Combatant, key: str, level: int) -> bool:
    """Spell Mastery (at will at its level) and Signature Spell (its own uses at 3rd level): the
    casting takes no slot."""
    r = c.resources
    if "mastery" not in r and "signature" not in r:
        return False
    if key in r.get("mastery", ()) and level == content.spell(key).level:
        return True
    innate = r.get("innate", {})
    if key in r.get("signature", ()) and level == 3 and innate.get(key, 0) > 0:
        innate[key] -= 1
        return True
    return False


def short_rest(pc: Combatant) -> None:
    """Signature Spell's uses come back on a short rest."""
    r = pc.resources
    for key in r.get("signature", ()):
        r["innate"][key] = 1
