"""Barbarian (Path of the Berserker): Rage, Reckless Attack, Danger Sense, Frenzy, Mindless Rage,
Intimidating Presence, Feral Instinct, Brutal Critical, Relentless Rage, Persistent Rage,
Retaliation, Indomitable Might."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..state import DamagePart
from .common import done, extra, is_weapon, option, react_option

if TYPE_CHECKING:   # pragma: no cover
    from ..rules.api import BattleAPI
    from ..state import AttackProfile, Combatant

RAGE_RESIST = ("bludgeoning", "piercing", "slashing")


def _uses_str(c: Combatant, a: AttackProfile) -> bool:
    """A melee weapon attack made with Strength (the finesse ones: when Str is the better; a magic
    weapon is a weapon, :func:`.common.is_weapon`)."""
    return a.melee and is_weapon(a) and (not a.finesse or c.mod("str") >= c.mod("dex"))


def intimidate_targets(b: BattleAPI, c: Combatant) -> list:
    return [o for o in b.enemies_of(c) if o.conscious and b.distance(c, o) <= 30 and "frightened" not in o.conditions
            and "frightened" not in o.condition_immunities and f"intimidate:{c.cid}" not in o.resources]


# ================================================================ builds
def finish_pc(lvls: dict, f: list) -> None:
    if lvls.get("barbarian", 0) >= 18:
        f.append("indomitable_might")


def finish_retaliation(lvls: dict, f: list) -> None:
    if lvls.get("barbarian", 0) >= 14 and "frenzy" in f:   # our barbarians walk the Path of the Berserker
        f.append("retaliation")


# ================================================================ the action menu
def rage_options(b: BattleAPI, c: Combatant, out: list) -> None:
    """Rage (with Frenzy), Intimidating Presence, Reckless Attack."""
    f, e, r, x = c.features, c.economy, c.resources, extra(c)
    if "rage" in f and e.bonus and "raging" not in c.conditions and r.get("rage", 0) > 0 \
            and c.concentration is None:
        left = f"{r['rage']} left" if r["rage"] < 99 else "unlimited"
        out.append(option(f"Rage (bonus action: +{r['rage_damage']} melee Str damage, resistance to "
                          f"bludgeoning/piercing/slashing, advantage on Str saves; {left})", "feature", ("rage",)))
        if "frenzy" in f:
            out.append(option("Rage with Frenzy (as Rage, and a bonus-action melee attack on each later turn of "
                              "it; one level of exhaustion when it ends)", "feature", ("rage", "frenzy")))
    if "intimidating_presence" in f and e.actions > 0 and intimidate_targets(b, c):
        out.append(option(f"Intimidating Presence (action: a creature within 30 ft, WIS save DC "
                          f"{8 + c.prof + c.mod('cha')} or frightened until the end of your next turn)", "feature",
                          ("intimidate",)))
    if "reckless_attack" in f and e.actions > 0 and e.attacks_left == 0 and not x.get("attacked") \
            and "reckless" not in c.conditions and any(a.melee for a in c.attacks):
        out.append(option("Reckless Attack (advantage on melee Str attacks this turn; attacks against you have "
                          "advantage until your next turn)", "feature", ("reckless",)))


def frenzy_options(b: BattleAPI, c: Combatant, out: list) -> None:
    if "frenzied" in c.conditions and c.economy.bonus and c.conditions["frenzied"]["round"] < b.round:
        for a in c.attacks:
            if a.melee and b.targets_for_attack(c, a):
                out.append(option(f"Frenzy: attack with {a.name} (bonus action, {a.short()})", "attack",
                                  (a.key, "frenzy")))


def _rage(b: BattleAPI, c: Combatant, opt) -> None:
    r = c.resources
    c.economy.bonus = False
    r["rage"] -= 1 if r["rage"] < 99 else 0
    c.conditions["raging"] = {"ends": b.round + 10, "kept": False}   # kept: attacked or hurt
    if "mindless_rage" in c.features:
        # SRD Mindless Rage: a charm or fear already on the barbarian is suspended for the rage, not
        # ended; set aside here, every rule that reads the condition sees it gone until end_rage
        held = {k: c.conditions.pop(k) for k in ("charmed", "frightened") if k in c.conditions}
        if held:
            c.conditions["raging"]["suspended"] = held
    if len(opt.data) > 1:
        c.conditions["frenzied"] = {"round": b.round}
    b.event("rage", f"{c.cid} rages" + (" in a frenzy" if len(opt.data) > 1 else ""), creature=c.cid)
    done(b, c, "rage")


def _reckless(b: BattleAPI, c: Combatant, opt) -> None:
    c.conditions["reckless"] = {"round": b.round}
    b.event("reckless", f"{c.cid} attacks recklessly", creature=c.cid)
    done(b, c, "reckless")


def _intimidate(b: BattleAPI, c: Combatant, opt) -> None:
    b.pending = {"kind": "target", "actor": c.cid, "use": ("feature", "intimidate")}


ACTIONS = {"rage": _rage, "reckless": _reckless, "intimidate": _intimidate}


def intimidate_options(b: BattleAPI, c: Combatant) -> list:
    return [option(f"Frighten {t.cid} [WIS save {t.saves['wis']:+d}, {b.distance(c, t)} ft]", "target", (t.cid,))
            for t in intimidate_targets(b, c)]


def intimidate(b: BattleAPI, c: Combatant, t: Combatant) -> None:
    """SRD: a success makes it immune for 24 hours (this battle)."""
    c.economy.actions -= 1
    if b.saving_throw(t, "wis", 8 + c.prof + c.mod("cha")):
        t.resources[f"intimidate:{c.cid}"] = 1
    else:
        t.conditions["frightened"] = {"by": c.cid, "until": "end_of_source_next_turn", "turn_of": c.cid,
                                      "round": b.round}
        b.event("condition", f"{t.cid} is frightened of {c.cid}", creature=t.cid, condition="frightened")


def begin_attack(c: Combatant, source: str) -> None:
    if source == "frenzy":
        c.economy.bonus = False


# ================================================================ attacks
def reckless_advantage(b: BattleAPI, c: Combatant, t: Combatant, melee: bool, a, adv: list) -> None:
    if a is not None and "reckless" in c.conditions and c.conditions["reckless"]["round"] == b.round \
            and _uses_str(c, a) and melee:
        adv.append("reckless")
    if "reckless" in t.conditions:
        adv.append("target reckless")


def note_attack(c: Combatant) -> None:
    """An attack keeps a rage up."""
    if "raging" in c.conditions:
        c.conditions["raging"]["kept"] = True


def rage_damage(c: Combatant, a: AttackProfile, st: dict, parts: list) -> None:
    if "raging" in c.conditions and st["melee"] and _uses_str(c, a) and parts:
        p0 = parts[0]
        parts[0] = DamagePart(f"{p0.dice}+{c.resources['rage_damage']}", p0.type)


def brutal_critical(c: Combatant, st: dict, weapon_hit: bool, parts: list, out_extra: list) -> None:
    if st["crit"] and c.resources.get("brutal_critical") and st["melee"] and weapon_hit and parts:
        die = parts[0].dice.split("+")[0].split("-")[0].split("d")[1]
        out_extra.append((DamagePart(f"{c.resources['brutal_critical']}d{die}", parts[0].type), False))


# ================================================================ saves, damage, conditions
def save_advantage(b: BattleAPI, t: Combatant, ability: str) -> bool:
    if ability == "str" and "raging" in t.conditions:
        return True
    # Danger Sense: effects it can see (not blinded, deafened or incapacitated)
    return ability == "dex" and "danger_sense" in t.features and not t.incapacitated \
        and "blinded" not in t.conditions and "deafened" not in t.conditions


def resists(t: Combatant, dtype: str) -> bool:
    return "raging" in t.conditions and dtype in RAGE_RESIST


def mindless_rage(t: Combatant, cond: str) -> bool:
    return cond in ("charmed", "frightened") and "mindless_rage" in t.features and "raging" in t.conditions


def feral_instinct(c: Combatant) -> bool:
    return "feral_instinct" in c.features


def feral_surprise(c: Combatant) -> bool:
    """SRD Feral Instinct: surprised and not incapacitated, the barbarian acts on its first turn if
    it rages before doing anything else (so only while it can still rage, or already has)."""
    return "feral_instinct" in c.features and "surprised" in c.conditions and not c.incapacitated \
        and ("raging" in c.conditions or (c.resources.get("rage", 0) > 0 and c.economy.bonus))


def check_advantage(c: Combatant, ability: str) -> bool:
    """SRD Rage: advantage on Strength checks."""
    return ability == "str" and "raging" in c.conditions


def relentless_rage(b: BattleAPI, t: Combatant, excess: int) -> None:
    """SRD Relentless Rage: while raging and not killed outright, a DC 10 Con save (+5 per use)
    leaves 1 HP."""
    if "relentless_rage" in t.features and "raging" in t.conditions and excess < t.max_hp:
        dc = 10 + 5 * t.resources.get("relentless_uses", 0)
        t.resources["relentless_uses"] = t.resources.get("relentless_uses", 0) + 1
        if b.saving_throw(t, "con", dc):
            t.hp = 1
            b.event("relentless_rage", f"{t.cid} keeps standing (Relentless Rage, DC {dc})", creature=t.cid)


def keep_rage(t: Combatant) -> None:
    """Damage taken keeps a rage up."""
    if "raging" in t.conditions:
        t.conditions["raging"]["kept"] = True


def start_turn(b: BattleAPI, c: Combatant) -> None:
    if c.conditions.get("reckless"):
        del c.conditions["reckless"]
    if "raging" in c.conditions and b.round >= c.conditions["raging"]["ends"]:
        end_rage(b, c, "1 minute")


def end_turn(b: BattleAPI, c: Combatant) -> None:
    """Rage ends early when the turn ends with no attack made and no damage taken since the last turn
    (not with Persistent Rage), or when the barbarian is unconscious."""
    rage = c.conditions.get("raging")
    if rage is None:
        return
    if not rage["kept"] and "persistent_rage" not in c.features:
        end_rage(b, c, "no attack and no damage this turn")
    else:
        rage["kept"] = False


def end_rage(b: BattleAPI, c: Combatant, why: str) -> None:
    rage = c.conditions.pop("raging", None) or {}
    b.event("rage_end", f"{c.cid}'s rage ends ({why})", creature=c.cid)
    for k, v in rage.get("suspended", {}).items():   # Mindless Rage: a suspended charm or fear resumes
        c.conditions.setdefault(k, v)
    if c.conditions.pop("frenzied", None) is not None:   # Frenzy: one level of exhaustion
        b.add_exhaustion(c, 1)


def on_unconscious(b: BattleAPI, c: Combatant) -> None:
    if "raging" in c.conditions:
        end_rage(b, c, "unconscious")


def indomitable_might(c: Combatant, ability: str, total: int) -> int:
    """A Str check totals at least the Str score."""
    if "indomitable_might" in c.features and ability == "str":
        total = max(total, c.abilities["str"])
    return total


# ================================================================ Retaliation (Berserker, 14)
def _melee_weapons(c: Combatant) -> list:
    """SRD Retaliation: "a melee weapon attack" (a magic weapon's too, :func:`.common.is_weapon`)."""
    return [a for a in c.attacks if a.melee and is_weapon(a)]


def retaliation_offer(b: BattleAPI, c: Combatant, t: Combatant, st: dict) -> bool:
    """The barbarian t took damage from c's attack within 5 ft."""
    return st["damaged"] and b.distance(c, t) <= 5 and any(b.distance(t, c) <= max(a.reach, 5)
                                                            for a in _melee_weapons(t))


def retaliation_options(b: BattleAPI, c: Combatant, attacker: Combatant) -> list:
    return [react_option(f"Retaliation: attack {attacker.cid} with {a.key} ({a.short()})", (True, a.key))
            for a in _melee_weapons(c) if b.distance(c, attacker) <= max(a.reach, 5)]
