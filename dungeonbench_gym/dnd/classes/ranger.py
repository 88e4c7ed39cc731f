"""Ranger (Hunter): Hunter's Prey (Colossus Slayer, Giant Killer or Horde Breaker), Defensive
Tactics (Escape the Horde, Multiattack Defense), Multiattack (Whirlwind Attack or Volley),
Superior Hunter's Defense: Stand Against the Tide, Vanish, Feral Senses, Foe Slayer (Land's
Stride: :mod:`.druid`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..state import DamagePart
from .common import extra, is_weapon, option, react_option

if TYPE_CHECKING:   # pragma: no cover
    from ..rules.api import BattleAPI
    from ..state import Combatant

FAVORED = ("monstrosity", "humanoid")   # our ranger's favored enemies (Foe Slayer)
BIG = ("large", "huge", "gargantuan")


# ================================================================ builds
def finish_pc(lvls: dict, f: list, r: dict, choices) -> list:
    ran = lvls.get("ranger", 0)
    if ran:
        if ran >= 3 and "horde_breaker" in choices:   # instead of Colossus Slayer
            f = [k for k in f if k != "colossus_slayer"] + ["horde_breaker"]
        if ran >= 7 and "steel_will" not in choices:
            f.append("escape_the_horde" if "escape_the_horde" in choices else "multiattack_defense")
        if ran >= 11:
            f.append("volley" if "volley" in choices else "whirlwind_attack")
        f += [k for lv, k in ((14, "vanish"), (18, "feral_senses"), (20, "foe_slayer")) if ran >= lv]
        r["favored_enemies"] = FAVORED if ran >= 6 else FAVORED[:1]
    return f


def finish_hunter(lvls: dict, f: list, choices) -> list:
    """Giant Killer (instead of Colossus Slayer), Stand Against the Tide (instead of Evasion)."""
    ran = lvls.get("ranger", 0)
    if ran >= 3 and "giant_killer" in choices:
        f = [k for k in f if k not in ("colossus_slayer", "horde_breaker")] + ["giant_killer"]
    if ran >= 15 and "stand_against_the_tide" in choices:
        f = [k for k in f if k not in ("evasion", "uncanny_dodge")] + ["stand_against_the_tide"]
    return f


# ================================================================ the action menu
def adjacent_foes(b: BattleAPI, c: Combatant) -> list:
    return [o for o in b.enemies_of(c) if o.conscious and b.distance(c, o) <= 5]


def volley_weapon(b: BattleAPI, c: Combatant):
    """The ranged weapon a Volley shoots, when it has a target."""
    return next((a for a in c.attacks if not a.melee and is_weapon(a) and b.targets_for_attack(c, a)), None)


def volley_hits(b: BattleAPI, c: Combatant, a, centre: Combatant) -> list:
    """SRD Volley: every creature within 10 ft of the point (here: of the creature at its centre)
    the weapon can reach; the ranger's foes only, a separate attack roll each."""
    return [t for t in b.targets_for_attack(c, a) if t is centre or b.distance(centre, t) <= 10]


def multiattack_options(b: BattleAPI, c: Combatant, out: list) -> None:
    """Actions: Volley, Whirlwind Attack."""
    f, e = c.features, c.economy
    if "volley" in f and e.attacks_left == 0 and volley_weapon(b, c) is not None:
        a = volley_weapon(b, c)
        out.append(option(f"Volley (action: a {a.name} attack against each foe within 10 ft of a point; "
                          f"choose the creature at its centre)", "feature", ("volley",)))
    if "whirlwind_attack" in f and e.attacks_left == 0:
        a = next((a for a in c.attacks if a.melee), None)
        if a is not None and len(adjacent_foes(b, c)) >= 2:
            out.append(option(f"Whirlwind Attack (action: {a.name} against each of "
                              f"{len(adjacent_foes(b, c))} foes within 5 ft)", "feature", ("whirlwind",)))


def late_options(b: BattleAPI, c: Combatant, out: list) -> None:
    """Horde Breaker's extra attack, Vanish."""
    f, x = c.features, extra(c)
    if "horde_breaker" in f and x.get("horde_from") and not x.get("horde_used"):
        out.extend(_horde_options(b, c))
    if "vanish" in f and c.economy.bonus and "hidden" not in c.conditions and "cunning_action" not in f \
            and b.unseen(c):
        out.append(option(f"Vanish: Hide (bonus action, Stealth {b.stealth(c):+d})", "cunning_hide"))


def _horde_options(b: BattleAPI, c: Combatant) -> list:
    first = b.creatures.get(extra(c)["horde_from"])
    if first is None:
        return []
    out = []
    for a in c.attacks:
        if not is_weapon(a):
            continue
        if any(t.cid != first.cid and b.distance(first, t) <= 5 for t in b.targets_for_attack(c, a)):
            out.append(option(f"Horde Breaker: attack with {a.name} a creature within 5 ft of {first.cid} "
                              f"({a.short()})", "attack", (a.key, "horde")))
    return out


def horde_targets(b: BattleAPI, c: Combatant, targets: list) -> list:
    """The targets of a Horde Breaker attack: near the first target, not it."""
    first = b.creatures.get(extra(c).get("horde_from"))
    return [t for t in targets if first is not None and t is not first and b.distance(first, t) <= 5]


def _whirlwind(b: BattleAPI, c: Combatant, opt) -> None:
    """SRD Whirlwind Attack: one melee weapon attack roll against each creature within 5 ft; a
    reaction pending (Shield) ends the sweep (like the rays of Scorching Ray)."""
    c.economy.actions -= 1
    a = next(a for a in c.attacks if a.melee)
    b.event("whirlwind", f"{c.cid} makes a Whirlwind Attack", creature=c.cid)
    for t in adjacent_foes(b, c):
        if b.make_attack(c, a, t, melee=True, then="menu") is None:
            return
        if b.outcome is not None or b.check_outcome():
            return
    b.back_to_menu(c)


def _volley_target(b: BattleAPI, c: Combatant, opt) -> None:
    b.pending = {"kind": "target", "actor": c.cid, "use": ("feature", "volley")}


ACTIONS = {"whirlwind": _whirlwind, "volley": _volley_target}


def volley_options(b: BattleAPI, c: Combatant) -> list:
    out = []
    a = volley_weapon(b, c)
    for t in b.targets_for_attack(c, a) if a is not None else ():
        n = len(volley_hits(b, c, a, t))
        out.append(option(f"Volley centred on {t.cid}: {n} foe{'s' if n > 1 else ''} within 10 ft "
                          f"[{b.distance(c, t)} ft]", "target", (t.cid,)))
    return out


def volley(b: BattleAPI, c: Combatant, centre: Combatant) -> None:
    c.economy.actions -= 1
    a = volley_weapon(b, c)
    b.event("volley", f"{c.cid} looses a Volley around {centre.cid}", creature=c.cid)
    for t in volley_hits(b, c, a, centre) if a is not None else ():
        if a.ammo and c.resources.get(a.ammo, 0) <= 0:
            break   # (each attack takes its own piece of ammunition)
        if b.make_attack(c, a, t, melee=False, then="menu") is None:
            return
        if b.outcome is not None or b.check_outcome():
            return
    b.back_to_menu(c)


def begin_attack(c: Combatant, source: str) -> None:
    if source == "horde":   # Horde Breaker: once a turn, no action spent
        extra(c)["horde_used"] = True


# ================================================================ attacks
UNSEEN = ("target invisible", "target hidden", "attacker blinded", "target unseen (obscured)")


def feral_senses(b: BattleAPI, c: Combatant, t: Combatant, dis: list) -> None:
    """Feral Senses: not seeing the target (invisible, hidden, obscured, the ranger blinded)
    gives no disadvantage, at any range: the SRD's 30 ft bounds only where the ranger knows an
    invisible creature to be, and the engine always knows where every creature is."""
    if "feral_senses" in c.features:
        dis[:] = [d for d in dis if d not in UNSEEN]


def escape_the_horde(t: Combatant, then: str, reasons: list) -> bool:
    """Opportunity attacks on the ranger have disadvantage."""
    if then == "move" and "escape_the_horde" in t.features:
        reasons.append("escape the horde")
        return True
    return False


def attack_bonus(b: BattleAPI, c: Combatant, t: Combatant, a) -> int:
    """Horde Breaker notes the first target; Multiattack Defense: -4 to hit (its +4 AC) for a
    creature that already hit the ranger this turn."""
    if "horde_breaker" in c.features and is_weapon(a) and b.active is c:
        x = extra(c)
        if x.get("source") != "horde":
            x.setdefault("horde_from", t.cid)
    if "multiattack_defense" in t.features and t.resources.get("mad") == (c.cid, b.round, b.turn_index):
        return -4
    return 0


def multiattack_defense(b: BattleAPI, c: Combatant, t: Combatant) -> None:
    if "multiattack_defense" in t.features:
        t.resources["mad"] = (c.cid, b.round, b.turn_index)   # this creature's hit, this turn


def colossus_slayer(b: BattleAPI, c: Combatant, t: Combatant, weapon_hit: bool, parts: list) -> None:
    # "once per turn": any creature's turn (an opportunity attack may add it again), so the mark
    # is the battle's turn number, not a flag that lives until the ranger's own next turn
    if "colossus_slayer" in c.features and weapon_hit and t.hp < t.max_hp \
            and extra(c).get("colossus_turn") != b.turn_mark():
        extra(c)["colossus_turn"] = b.turn_mark()
        parts.append(DamagePart("1d8", parts[0].type if parts else "slashing"))


def foe_slayer(b: BattleAPI, c: Combatant, t: Combatant, a, parts: list) -> None:
    """Once on each of the ranger's own turns (SRD), on a favored enemy: + Wis modifier."""
    if "foe_slayer" in c.features and is_weapon(a) and t.creature_type in c.resources.get("favored_enemies", ()) \
            and b.active is c and not extra(c).get("foe_slain"):
        extra(c)["foe_slain"] = True
        parts.append(DamagePart(str(max(0, c.mod("wis"))), parts[0].type if parts else "slashing"))


# ================================================================ reactions after an attack
def weapons_on(b: BattleAPI, c: Combatant, t: Combatant) -> list:
    """c's weapon attacks that reach t now (melee within reach, or a ranged weapon in long range)."""
    d = b.distance(c, t)
    return [a for a in c.attacks if is_weapon(a) and ((a.melee and d <= max(a.reach, 5))
                                                      or (not a.melee and a.range_long and d <= a.range_long))]


def tide_targets(b: BattleAPI, reactor: Combatant, attacker: Combatant, key: str) -> list:
    a = attacker.attack(key)
    reach = max(a.reach, 5)
    out = [o for o in b.creatures.values() if o is not attacker and o is not reactor and not o.dead
           and "removed" not in o.conditions and b.distance(attacker, o) <= reach]
    # the attacker's own allies first (the planner takes the first "yes"), then the nearest
    return sorted(out, key=lambda o: (o.side != attacker.side, o.is_pc, o.hp, o.cid))


def giant_killer_offer(b: BattleAPI, c: Combatant, t: Combatant, st: dict) -> bool:
    """A Large or larger creature within 5 ft hit or missed the ranger t."""
    return c.size in BIG and b.distance(c, t) <= 5 and bool(weapons_on(b, t, c))


def tide_offer(b: BattleAPI, c: Combatant, t: Combatant, st: dict) -> bool:
    """A hostile creature missed the ranger t with a melee attack."""
    return not st["hit"] and st["melee"] and st["key"] in {a.key for a in c.attacks} \
        and bool(tide_targets(b, t, c, st["key"]))


def giant_killer_options(b: BattleAPI, c: Combatant, attacker: Combatant) -> list:
    return [react_option(f"Giant Killer: attack {attacker.cid} with {a.key} ({a.short()})", (True, a.key))
            for a in weapons_on(b, c, attacker)]


def tide_options(b: BattleAPI, c: Combatant, attacker: Combatant, key: str) -> list:
    return [react_option(f"Stand Against the Tide: {attacker.cid} repeats its {key} against {o.cid}",
                         (True, o.cid)) for o in tide_targets(b, c, attacker, key)]


def stand_against_the_tide(b: BattleAPI, c: Combatant, attacker: Combatant, other: Combatant, key: str,
                           then: str) -> bool:
    """The missed attack repeated against another creature. False: a reaction to it is pending."""
    c.economy.reaction = False
    b.event("reaction", f"{c.cid} stands against the tide: {attacker.cid}'s attack turns on {other.cid}",
            creature=c.cid, target=other.cid, feature="stand_against_the_tide")
    if not attacker.dead and not other.dead and \
            b.make_attack(attacker, attacker.attack(key), other, melee=True, then=then) is None:
        return False
    return True
