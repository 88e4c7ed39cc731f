"""Cleric (Life Domain): Preserve Life, Disciple of Life, Blessed Healer, Divine Strike, Supreme
Healing, the domain spells always prepared."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..state import DamagePart
from .common import class_level, done, extra, option, prepare

if TYPE_CHECKING:   # pragma: no cover
    from ..rules.api import BattleAPI
    from ..state import Combatant

# SRD Life Domain spells, always prepared: (class level, spells). The whole SRD list: every one of
# them has a mechanism now (Beacon of Hope, Guardian of Faith and Raise Dead were left out while
# the engine could not run them, and so were never prepared after it could)
DOMAIN_LIFE = ((1, ("bless", "cure-wounds")), (3, ("lesser-restoration", "spiritual-weapon")),
               (5, ("beacon-of-hope", "revivify")), (7, ("death-ward", "guardian-of-faith")),
               (9, ("mass-cure-wounds", "raise-dead")))
# SRD Channel Divinity: Turn Undead reaches the undead within 30 ft (a class feature, not spell data;
# the engine resolves it: battle/monster_actions.py, and a turned creature's moves: battle/movement.py)
TURN_UNDEAD_FT = 30


def finish_pc(lvls: dict, f: list, spells: list, max_slot: int) -> None:
    cle = lvls.get("cleric", 0)
    if cle:   # Life Domain
        f += [k for lv, k in ((1, "disciple_of_life"), (6, "blessed_healer"), (17, "supreme_healing"))
              if cle >= lv]
        prepare(spells, DOMAIN_LIFE, cle, max_slot)


def preserve_targets(b: BattleAPI, c: Combatant) -> list:
    return [o for o in b.creatures.values() if o.side == c.side and not o.dead and o.hp < o.max_hp // 2
            and o.creature_type not in ("undead", "construct") and (o is c or b.distance(c, o) <= 30)]


def action_options(b: BattleAPI, c: Combatant, out: list) -> None:
    if "preserve_life" in c.features and c.resources.get("channel_divinity", 0) > 0 and preserve_targets(b, c):
        out.append(option(f"Channel Divinity: Preserve Life (action: {5 * class_level(c, 'cleric')} HP shared among "
                          f"creatures within 30 ft below half their HP, up to half)", "feature", ("preserve_life",)))


def _preserve_life(b: BattleAPI, c: Combatant, opt) -> None:
    # SRD: the cleric divides the pool; here the worst off first (by fraction of HP), each up to half
    c.economy.actions -= 1
    c.resources["channel_divinity"] -= 1
    pool = 5 * class_level(c, "cleric")
    for t in sorted(preserve_targets(b, c), key=lambda o: (o.hp / o.max_hp, o.cid)):
        give = min(pool, t.max_hp // 2 - t.hp)
        if give > 0:
            pool -= give
            b.heal(t, give, "Preserve Life")
    done(b, c, "preserve_life")


ACTIONS = {"preserve_life": _preserve_life}


def divine_strike(b: BattleAPI, c: Combatant, weapon_hit: bool, parts: list) -> None:
    # SRD: "once on each of your turns": a hit on another creature's turn (an opportunity attack,
    # a readied attack) gets none, even when the cleric struck no one on its own turn
    if "divine_strike" in c.features and weapon_hit and b.active is c and not extra(c).get("divine_strike_used"):
        extra(c)["divine_strike_used"] = True   # Life Domain: once on each of its turns
        parts.append(DamagePart(c.resources["divine_strike"], "radiant"))


def supreme_healing(c: Combatant, key: str, sp, mods: dict) -> None:
    """Healing dice at their maximum."""
    if "supreme_healing" in c.features and sp.heal_at_slot_level:
        mods[f"heal {key}"] = {"max": True}


def heal_bonus(b: BattleAPI, t: Combatant, amount: int, source: str) -> int:
    """Disciple of Life (+2 + level on a healing spell) and Blessed Healer (the cleric too)."""
    c = b.active
    if c is None or not c.is_pc or "disciple_of_life" not in c.features:
        return amount
    casting = extra(c).get("casting")
    if not casting or casting[0] != source or casting[1] < 1:
        return amount
    bonus = 2 + casting[1]
    if "blessed_healer" in c.features and t is not c and extra(c).get("blessed_done") != casting:
        extra(c)["blessed_done"] = casting
        b.heal(c, bonus, "Blessed Healer")
    return amount + bonus
