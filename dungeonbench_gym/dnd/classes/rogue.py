"""Rogue (Thief): Evasion (the monk's too), Elusive, Stroke of Luck, Fast Hands, Supreme Sneak,
Reliable Talent, Thief's Reflexes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .common import option

if TYPE_CHECKING:   # pragma: no cover
    from ..rules.api import BattleAPI
    from ..state import Combatant


def finish_pc(arch: dict, lvls: dict, f: list) -> None:
    rog = lvls.get("rogue", 0)
    if rog >= 3 and "classes" not in arch:   # Thief
        f.append("fast_hands")
    if rog >= 9 and "classes" not in arch:
        f.append("supreme_sneak")
    if rog >= 11:
        f.append("reliable_talent")


def finish_reflexes(arch: dict, lvls: dict, f: list) -> None:
    if lvls.get("rogue", 0) >= 17 and "classes" not in arch:   # our rogues are Thieves
        f.append("thiefs_reflexes")


def fast_hands_option(c: Combatant, out: list) -> None:
    r = c.resources
    if "fast_hands" in c.features and c.economy.bonus and r.get("potions", 0) > 0 and c.hp < c.max_hp:
        out.append(option(f"Fast Hands: drink a potion of healing as a bonus action (2d4+2, {r['potions']} left)",
                          "feature", ("fast_potion",)))


def _fast_potion(b: BattleAPI, c: Combatant, opt) -> None:
    c.economy.bonus = False
    c.resources["potions"] -= 1
    b.heal(c, b.roller.roll("2d4+2", what=f"potion {c.cid}"), "a potion of healing (Fast Hands)")
    b.back_to_menu(c)


ACTIONS = {"fast_potion": _fast_potion}


def elusive(t: Combatant, adv: list) -> None:
    if "elusive" in t.features and not t.incapacitated:   # SRD Elusive: no advantage against it
        adv.clear()


def stroke_of_luck(b: BattleAPI, c: Combatant) -> bool:
    """A miss becomes a hit, once a short rest."""
    if "stroke_of_luck" in c.features and c.resources.get("stroke_of_luck", 0) > 0:
        c.resources["stroke_of_luck"] = 0
        b.event("stroke_of_luck", f"{c.cid} uses Stroke of Luck: the miss becomes a hit", creature=c.cid)
        return True
    return False


def area_damage(t: Combatant, ability: str, ok: bool, half: bool, amount: int) -> int:
    """Damage from a save-for-half effect; SRD Evasion (Dex saves): none on a success, half on a failure."""
    # (no exception for an incapacitated creature: a stunned or paralyzed one fails the Dex save
    # automatically and Evasion still halves the damage)
    if ability == "dex" and half and "evasion" in t.features:
        return 0 if ok else amount // 2
    return (amount // 2 if half else 0) if ok else amount


def stealth_advantage(c: Combatant) -> bool:
    """SRD Supreme Sneak: advantage on a Stealth check after moving no more than half the speed."""
    return c.is_pc and "supreme_sneak" in c.features and c.economy.moved <= c.speed // 2


def reliable_talent(c: Combatant, natural: int, total: int, trained: bool) -> int:
    """A trained check's d20 below 10 counts as 10."""
    if "reliable_talent" in c.features and trained and natural < 10:
        total += 10 - natural
    return total


def reflex_order(b: BattleAPI) -> None:
    """At the start of round 1: a rogue with Thief's Reflexes gets a second place in the order, at
    its initiative - 10 (after every creature above that count; ties go after); at the start of
    round 2 that place is taken out again; not for a surprised rogue (SRD)."""
    if b.round == 1:
        for c in sorted(b.creatures.values(), key=lambda c: c.cid):
            if "thiefs_reflexes" in c.features and not c.dead and b.order.count(c.cid) == 1 \
                    and "surprised" not in c.conditions:
                late = c.initiative - 10
                i = b.order.index(c.cid) + 1
                while i < len(b.order) and b.creatures[b.order[i]].initiative >= late:
                    i += 1
                b.order.insert(i, c.cid)
                b.__dict__["_reflexes"] = True
                b.event("thiefs_reflexes", f"{c.cid} will take a second turn this round (initiative {late})",
                        creature=c.cid)
    elif b.__dict__.pop("_reflexes", False):
        for cid in sorted({cid for cid in b.order if b.order.count(cid) > 1}):
            j = len(b.order) - 1 - b.order[::-1].index(cid)
            del b.order[j]
