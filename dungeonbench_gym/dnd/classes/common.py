"""Helpers several classes' features share: options, the per-turn state, class levels, the
spells a subclass always has prepared, a reaction's attack back, a save reroll, and arming a
choice (Overchannel, a Metamagic) for the next spell it fits."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from .. import content
from ..model.options import Opt

if TYPE_CHECKING:   # pragma: no cover
    from ..rules.api import BattleAPI
    from ..state import AttackProfile, Combatant


def option(label, kind, data=()):
    return Opt(label, kind, tuple(data))


def react_option(label, data=()):
    """An option of a ``reaction`` decision."""
    return Opt(label, "reaction", tuple(data))


def extra(c: Combatant) -> dict:
    """What lasts one turn (``Economy.extra``)."""
    return c.economy.extra


def class_level(c: Combatant, cls: str) -> int:
    return c.resources.get("class_levels", {}).get(cls, c.level if c.pc_class == cls else 0)


def is_weapon(a: AttackProfile) -> bool:
    """A weapon attack, not a spell attack. A magic weapon's profile (``items``: a +1 longsword,
    Shillelagh's club; a monster's Magic Weapons) is marked ``spell`` only so that resistances to
    nonmagical attacks pass it by; it is still a weapon (Divine Smite, Sacred Weapon, Colossus
    Slayer, Great Weapon Fighting, Rage, Retaliation, Deflect Missiles). A spell attack is a
    spell's, or a stat block's "Melee/Ranged Spell Attack" (a devil's Hurl Flame)."""
    return not a.spell or a.key == "unarmed-strike" or (a.key not in content.spells()
                                                        and a.key not in _monster_spell_attacks())


@functools.cache
def _monster_spell_attacks() -> frozenset:
    """The keys of the stat blocks' spell attacks (Hurl Flame, Shock, a specter's Life Drain); no
    monster with magic weapons has a weapon attack of the same key."""
    return frozenset(a.key for k in content.monsters() for a in content.monster(k).actions
                     if isinstance(a, content.AttackSpec) and a.is_spell)


def done(b: BattleAPI, c: Combatant, key: str) -> None:
    """A menu feature was carried out: noted for the turn, back to the menu."""
    extra(c)["used_" + key] = True
    b.back_to_menu(c)


def prepare(spells: list, table, level: int, max_slot: int) -> None:
    """A subclass's always-prepared spells (of a level the caster has slots for) into ``spells``."""
    for lv, keys in table:
        if level >= lv:
            spells.extend(k for k in keys if content.spell(k).level <= max_slot)


# ================================================================ reactions
def able(c: Combatant) -> bool:
    return c.conscious and not c.incapacitated and c.economy.reaction and not c.dead


def attack_back(b: BattleAPI, c: Combatant, attacker: Combatant, key: str, stage: str, name: str,
                then: str) -> bool:
    """A reaction that buys one weapon attack on the attacker (Retaliation, Giant Killer). False:
    the attacker reacts in turn (Shield) and the chain carries on from there."""
    c.economy.reaction = False
    a = c.attack(key)
    b.event("reaction", f"{c.cid} uses {name} on {attacker.cid}", creature=c.cid, target=attacker.cid,
            feature=stage)
    if not attacker.dead and b.make_attack(c, a, attacker, melee=a.melee, then=then) is None:
        return False
    return True


def reroll_save(b: BattleAPI, t: Combatant, key: str, cost: str, ability: str, own: int, dc: int,
                adv: bool, dis: bool):
    """Indomitable, Diamond Soul: a failed save rerolled (None: the feature is not there to spend).
    SRD: the saving throw is rolled again, a new saving throw: it gets every bonus the first one had
    (``own``: the save's modifier and cover; an aura, Warding Bond), and its dice (Bless's d4,
    Bane's) are rolled anew through :meth:`BattleAPI.save_bonus`, not copied from the first roll
    (Resistance, spent on the first, is gone)."""
    r = t.resources
    if key in t.features and r.get(cost, 0) > 0:
        r[cost] -= 1
        roll = b.roller.roll_d20(adv, dis, bonus=own + b.save_bonus(t, ability), what=f"{key} {t.cid}")
        b.event(key, f"{t.cid} rerolls the save ({key}: {roll.total})", creature=t.cid)
        return roll.total >= dc
    return None


# ================================================================ armed for the next spell
def arm(b: BattleAPI, c: Combatant, opt) -> None:
    """Overchannel or a Metamagic readied: nothing spent yet, the next spell it fits pays."""
    extra(c)["armed"] = opt.data[1]
    b.event("metamagic", f"{c.cid} readies {opt.data[1].title()}"
            + ("" if opt.data[1] == "overchannel" else " Spell"), creature=c.cid)
    b.forget_options()
    b.back_to_menu(c)


def fits(tag: str, sp, level: int) -> bool:
    """Whether an armed Overchannel or Metamagic applies to this casting."""
    if tag == "overchannel":
        return bool(sp.damage_type) and 1 <= level <= 5
    if tag == "subtle":
        return level >= 1
    if tag == "empowered":
        return bool(sp.damage_type)
    if tag == "extended":
        return bool(sp.concentration)
    # distant: a range of 5 ft or more, or touch (which becomes 30 ft: classes/sorcerer.distant_range);
    # a touch spell used to get the longer reach without paying the point
    return sp.area is None and ((sp.range_feet or 0) >= 5 or sp.range_kind == "touch")
