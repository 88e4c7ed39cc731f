"""Monk (Way of the Open Hand): Martial Arts, Flurry of Blows, Patient Defense, Step of the Wind,
Deflect Missiles, Slow Fall, Stunning Strike, Open Hand Technique, Wholeness of Body, Stillness of
Mind, Diamond Soul, Empty Body, Quivering Palm, Perfect Self (Evasion: :mod:`.rogue`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .common import class_level, done, extra, is_weapon, option

if TYPE_CHECKING:   # pragma: no cover
    from ..rules.api import BattleAPI
    from ..state import AttackProfile, Combatant


def finish_pc(lvls: dict, f: list) -> None:
    if lvls.get("monk", 0) >= 4:
        f.append("slow_fall")


# ================================================================ the action menu
def menu_options(b: BattleAPI, c: Combatant, out: list) -> None:
    """Martial Arts and Flurry of Blows, Patient Defense, Step of the Wind, Wholeness of Body,
    Stillness of Mind."""
    f, e, r, x = c.features, c.economy, c.resources, extra(c)
    # SRD: Martial Arts' bonus strike follows the Attack action taken with an unarmed strike or a monk
    # weapon; Flurry of Blows follows any Attack action (a thrown dart too)
    if "martial_arts" in f and e.bonus and x.get("attack_action") and not x.get("flurry_left"):
        ua = c.attack("unarmed-strike")
        if b.targets_for_attack(c, ua):
            if x.get("monk_attack"):
                out.append(option(f"Martial Arts: unarmed strike (bonus action, {ua.short()})", "attack",
                                  ("unarmed-strike", "martial_arts")))
            if "flurry_of_blows" in f and r.get("ki", 0) >= 1:
                out.append(option(f"Flurry of Blows (bonus action, 1 ki: two unarmed strikes, {ua.short()}; "
                                  f"{r['ki']} ki left)", "attack", ("unarmed-strike", "flurry")))
    if x.get("flurry_left"):
        ua = c.attack("unarmed-strike")
        if b.targets_for_attack(c, ua):
            out.append(option(f"Flurry of Blows: the second unarmed strike ({ua.short()})", "attack",
                              ("unarmed-strike", "flurry")))
    if e.bonus and r.get("ki", 0) >= 1:
        if "patient_defense" in f:
            out.append(option("Patient Defense (bonus action, 1 ki: Dodge)", "feature", ("patient_defense",)))
        if "step_of_the_wind" in f:
            out.append(option("Step of the Wind: Dash (bonus action, 1 ki)", "feature", ("step_dash",)))
            out.append(option("Step of the Wind: Disengage (bonus action, 1 ki)", "feature", ("step_disengage",)))
    if "wholeness_of_body" in f and e.actions > 0 and r.get("wholeness_of_body", 0) > 0 and c.hp < c.max_hp:
        out.append(option(f"Wholeness of Body (action: regain {3 * class_level(c, 'monk')} HP, once a day)",
                          "feature", ("wholeness",)))
    if "stillness_of_mind" in f and e.actions > 0 and ("charmed" in c.conditions or "frightened" in c.conditions):
        out.append(option("Stillness of Mind (action: end being charmed or frightened)", "feature", ("stillness",)))


def action_options(b: BattleAPI, c: Combatant, out: list) -> None:
    """Empty Body, ending Quivering Palm."""
    f, r = c.features, c.resources
    if "empty_body" in f and r.get("ki", 0) >= 4 and "empty_body" not in c.conditions:
        out.append(option("Empty Body (action, 4 ki: invisible and resistance to all damage but force for 1 minute)",
                          "feature", ("empty_body",)))
    palm = b.creatures.get(r.get("quivering_palm_on", ""))
    if "quivering_palm" in f and palm is not None and not palm.dead and palm.hp > 0:
        out.append(option(f"Quivering Palm: end the vibrations in {palm.cid} (action: CON save DC {r['ki_dc']} or "
                          f"drop to 0 HP; 10d10 necrotic on a success)", "feature", ("palm_end",)))


def _patient_defense(b: BattleAPI, c: Combatant, opt) -> None:
    c.economy.bonus = False
    c.resources["ki"] -= 1
    c.dodging = True
    b.event("dodge", f"{c.cid} uses Patient Defense (Dodge)", creature=c.cid)
    done(b, c, "patient_defense")


def _step(b: BattleAPI, c: Combatant, opt) -> None:
    key, e = opt.data[0], c.economy
    e.bonus = False
    c.resources["ki"] -= 1
    if key == "step_dash":
        e.movement += b.speed(c)
    else:
        e.disengaged = True
    b.event("step_of_the_wind", f"{c.cid} uses Step of the Wind ({key[5:]})", creature=c.cid)
    done(b, c, key)


def _wholeness(b: BattleAPI, c: Combatant, opt) -> None:
    c.economy.actions -= 1
    c.resources["wholeness_of_body"] = 0
    b.heal(c, 3 * class_level(c, "monk"), "Wholeness of Body")
    done(b, c, "wholeness")


def _stillness(b: BattleAPI, c: Combatant, opt) -> None:
    c.economy.actions -= 1
    for k in ("charmed", "frightened"):
        if c.conditions.pop(k, None) is not None:
            b.event("condition_end", f"{c.cid} is no longer {k}", creature=c.cid, condition=k)
    done(b, c, "stillness")


def _empty_body(b: BattleAPI, c: Combatant, opt) -> None:
    """(its astral projection use is out of a battle's scope)"""
    c.economy.actions -= 1
    c.resources["ki"] -= 4
    others = ("acid", "bludgeoning", "cold", "fire", "lightning", "necrotic", "piercing", "poison",
              "psychic", "radiant", "slashing", "thunder")
    c.conditions["invisible"] = {"by": c.cid, "until_round": b.round + 10}
    c.conditions["empty_body"] = {"until_round": b.round + 10, "resist": others}
    b.event("empty_body", f"{c.cid} uses Empty Body", creature=c.cid)
    done(b, c, "empty_body")


def _palm_end(b: BattleAPI, c: Combatant, opt) -> None:
    r = c.resources
    c.economy.actions -= 1
    t = b.creatures[r.pop("quivering_palm_on")]
    b.event("quivering_palm", f"{c.cid} ends the vibrations in {t.cid}", creature=c.cid, target=t.cid)
    if b.saving_throw(t, "con", r["ki_dc"]):
        b.damage(t, b.roller.roll_damage("10d10", what=f"quivering palm {t.cid}"), "necrotic", magical=True,
                 source=c.cid)
    else:   # reduced to 0 hit points (not damage: no resistance applies)
        t.temp_hp, t.hp = 0, 0
        b.event("down", f"{t.cid} is reduced to 0 HP by Quivering Palm", creature=t.cid)
        if t.is_pc:
            b.fall_unconscious(t)
        elif not t.resources.get("regeneration", {}).get("at_zero"):
            b.die(t, "quivering palm")
    done(b, c, "palm_end")


ACTIONS = {"patient_defense": _patient_defense, "step_dash": _step, "step_disengage": _step,
           "wholeness": _wholeness, "stillness": _stillness, "empty_body": _empty_body, "palm_end": _palm_end}


def begin_attack(c: Combatant, a: AttackProfile, source: str) -> None:
    """Flurry of Blows paid (1 ki, the bonus action, two strikes), Martial Arts' bonus strike paid,
    and the Attack action with a monk weapon noted (it enables that strike)."""
    e, x = c.economy, extra(c)
    if source == "flurry":
        if not x.get("flurry_left"):
            e.bonus = False
            c.resources["ki"] -= 1
            x["flurry_left"] = 2
        x["flurry_left"] -= 1
    elif source == "martial_arts":
        e.bonus = False
    elif source == "attack" and "martial_arts" in c.features:
        x["attack_action"] = True   # the Attack action: Flurry of Blows
        if a.key in ("unarmed-strike", "shortsword") or (a.melee and a.finesse and a.key != "rapier"):
            x["monk_attack"] = True   # ... with a monk weapon: the bonus unarmed strike


# ================================================================ riders after a hit
def riders(c: Combatant, t: Combatant, a: AttackProfile, out: list) -> None:
    """Stunning Strike, Quivering Palm, the Open Hand Technique (after a flurry's hit)."""
    if "stunning_strike" in c.features and c.resources.get("ki", 0) >= 1 and "stunned" not in t.conditions:
        out.append(option(f"Stunning Strike (1 ki: CON save DC {c.resources['ki_dc']} or stunned until the end of "
                          f"your next turn)", "reaction", (True, ("stun",))))
    if "quivering_palm" in c.features and a.key == "unarmed-strike" and c.resources.get("ki", 0) >= 3 \
            and c.resources.get("quivering_palm_on") != t.cid:
        out.append(option("Quivering Palm (3 ki: start lethal vibrations; end them later with an action)", "reaction",
                          (True, ("palm",))))
    if "open_hand_technique" in c.features and extra(c).get("source") == "flurry":
        dc = c.resources["ki_dc"]
        out.append(option(f"Open Hand: knock prone (DEX save DC {dc})", "reaction", (True, ("prone",))))
        out.append(option(f"Open Hand: push 15 ft (STR save DC {dc})", "reaction", (True, ("push",))))
        out.append(option("Open Hand: no reactions until the end of your next turn", "reaction",
                          (True, ("no_reactions",))))


def rider_lands(b: BattleAPI, c: Combatant, t: Combatant, rider: tuple) -> None:
    """The chosen rider after the damage: Quivering Palm's vibrations, Stunning Strike's save, the
    Open Hand's effects."""
    if rider[0] == "palm":   # one creature at a time: a new one replaces the old
        c.resources["ki"] -= 3
        c.resources["quivering_palm_on"] = t.cid
        b.event("quivering_palm", f"{c.cid} sets vibrations in {t.cid}", creature=c.cid, target=t.cid)
        return
    dc = c.resources.get("ki_dc", 0)
    if rider[0] == "stun":
        c.resources["ki"] -= 1
        if not b.saving_throw(t, "con", dc):
            t.conditions["stunned"] = {"by": c.cid, "until": "end_of_source_next_turn", "turn_of": c.cid,
                                       "round": b.round}
            b.event("condition", f"{t.cid} is stunned", creature=t.cid, condition="stunned")
    elif rider[0] == "prone" and not b.saving_throw(t, "dex", dc):
        t.conditions["prone"] = {}
        b.event("condition", f"{t.cid} is knocked prone", creature=t.cid, condition="prone")
    elif rider[0] == "push" and not b.saving_throw(t, "str", dc):
        b.push(c, t, 15)   # 15 ft straight away
        b.event("push", f"{t.cid} is pushed to ({t.pos[0]}, {t.pos[1]})", creature=t.cid)
    elif rider[0] == "no_reactions":
        t.economy.reaction = False
        t.conditions["no_reactions"] = {"by": c.cid, "until": "end_of_source_next_turn", "turn_of": c.cid,
                                        "round": b.round}


def hold_reactions(b: BattleAPI, c: Combatant) -> None:
    """The Open Hand's "no reactions" lasts until the end of the monk's next turn."""
    for o in b.creatures.values():
        nr = o.conditions.get("no_reactions")
        if nr and nr["by"] == c.cid:
            o.economy.reaction = False


# ================================================================ Deflect Missiles
def can_deflect(b: BattleAPI, t: Combatant, a: AttackProfile, melee: bool) -> bool:
    """SRD: hit by a ranged weapon attack (a magic arrow's too, :func:`.common.is_weapon`)."""
    return ("deflect_missiles" in t.features and not melee and is_weapon(a) and t.economy.reaction
            and not t.incapacitated)


def deflect_options(c: Combatant, st: dict) -> list:
    lv = class_level(c, "monk")
    return [option(f"Deflect Missiles (reduce the damage of {st['attacker']}'s {st['attack'].key} by "
                   f"1d10{c.mod('dex') + lv:+d})", "reaction", (True, ("deflect",))),
            option("Take the hit", "reaction", (False, None))]


def resolve_deflect(b: BattleAPI, c: Combatant, st: dict, take: bool) -> dict:
    if take:
        c.economy.reaction = False
        cut = b.roller.roll(f"1d10+{c.mod('dex') + class_level(c, 'monk')}", what=f"deflect missiles {c.cid}")
        b.event("reaction", f"{c.cid} deflects the missile: damage reduced by {cut}", creature=c.cid)
        return dict(st, reduce=cut, deflect_done=True)
    return dict(st, deflect_done=True)


def reduce_damage(st: dict, amount: int) -> int:
    """Deflect Missiles takes its reduction from the first damage roll."""
    cut = st.get("reduce", 0)
    if cut:
        st["reduce"] = max(0, cut - amount)
        return max(0, amount - cut)
    return amount


# ================================================================ falls, saves, initiative
def slow_fall(b: BattleAPI, c: Combatant, amount: int) -> int:
    """SRD Slow Fall: a reaction that reduces falling damage by 5 x monk level."""
    if "slow_fall" not in c.features or not c.economy.reaction or c.incapacitated:
        return amount
    c.economy.reaction = False
    cut = 5 * class_level(c, "monk")
    b.event("slow_fall", f"{c.cid} slows its fall (-{cut} damage)", creature=c.cid)
    return max(0, amount - cut)


def perfect_self(c: Combatant) -> None:
    """As initiative is rolled: 4 ki if none is left."""
    if "perfect_self" in c.features and c.resources.get("ki", 1) == 0:
        c.resources["ki"] = 4
