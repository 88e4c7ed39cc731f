"""Fighter (Champion): Improved/Superior Critical, Remarkable Athlete, Survivor, Indomitable, the
Additional Fighting Style; the Fighting Styles played here (Great Weapon Fighting, Protection),
which paladins and rangers may take too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import content
from ..dice import parse
from .common import is_weapon

if TYPE_CHECKING:   # pragma: no cover
    from ..rules.api import BattleAPI
    from ..state import AttackProfile, Combatant


def finish_pc(pc: Combatant, arch: dict, lvls: dict, f: list, r: dict) -> None:
    fig = lvls.get("fighter", 0)
    if fig >= 10 and arch.get("shield") and arch["class"] == "fighter" and "classes" not in arch:
        r["style2"] = "protection"   # Champion: Additional Fighting Style
    if (pc.style == "protection" or r.get("style2") == "protection") and arch.get("shield"):
        f.append("protection")


def crit_min(c: Combatant) -> int:
    return c.resources.get("crit_min", 20) if c.is_pc else 20


def remarkable_athlete(c: Combatant) -> int:
    """Half the proficiency bonus rounded up (initiative; Str, Dex and Con checks)."""
    return (c.prof + 1) // 2 if "remarkable_athlete" in c.features else 0


def survivor(b: BattleAPI, c: Combatant) -> None:
    if "survivor" in c.features and 0 < c.hp <= c.max_hp // 2:
        b.heal(c, 5 + c.mod("con"), "Survivor")


def protection(b: BattleAPI, c: Combatant, t: Combatant, reasons: list) -> bool:
    """Fighting Style: Protection: an ally with a shield within 5 ft spends its reaction; the attack
    has disadvantage (used on the first attack it can affect)."""
    for p in b.creatures.values():
        if "protection" in p.features and p is not t and p.side == t.side and p.side != c.side \
                and p.economy.reaction and not p.incapacitated and b.distance(p, t) <= 5 \
                and "blinded" not in p.conditions and "invisible" not in c.conditions:
            p.economy.reaction = False
            reasons.append(f"protected by {p.cid}")
            b.event("reaction", f"{p.cid} protects {t.cid}: the attack has disadvantage", creature=p.cid)
            return True
    return False


def _two_handed_melee(c: Combatant, a: AttackProfile) -> bool:
    """A melee weapon wielded in two hands: a two-handed weapon, or a versatile one rolling its
    two-handed die (no shield, no second weapon: :func:`..model.weapons.weapon_profile` picked that die)."""
    if not a.melee or not is_weapon(a) or not c.is_pc:
        return False
    try:
        w = content.weapon(a.key)
    except KeyError:
        return False
    if w.has("two-handed"):
        return True
    return bool(w.has("versatile") and w.two_handed_damage and a.damage
                and a.damage[0].dice.startswith(w.two_handed_damage.dice))


def roll_damage(b: BattleAPI, c: Combatant, a: AttackProfile, dice: str, critical: bool, what: str) -> int:
    """One damage roll of a hit. SRD Great Weapon Fighting: with a melee weapon in two hands, a 1 or
    2 on a damage die is rerolled once and the new roll stands (every die of the attack's damage)."""
    if c.style != "great_weapon_fighting" or not _two_handed_melee(c, a):
        return b.roller.roll_damage(dice, critical=critical, what=what)
    e = parse(dice)
    rolls = []
    for count, sides in e.dice:
        for v in b.roller._dice(2 * count if critical else count, sides):
            rolls.append(b.roller._dice(1, sides)[0] if v <= 2 else v)
    total = max(0, sum(rolls) + e.bonus)
    if b.roller.record:
        b.roller.log.append({"what": what + " (great weapon fighting)", "expr": e.text, "rolls": rolls,
                             "bonus": e.bonus, "total": total})
    return total
