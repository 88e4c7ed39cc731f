"""Paladin (Oath of Devotion): Lay on Hands, Divine Smite, Sacred Weapon, Turn the Unholy, Aura of
Protection, Aura of Devotion, Aura of Courage, Improved Divine Smite, Cleansing Touch, Purity of
Spirit, Holy Nimbus, the oath spells always prepared."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model.slots import spend_slot
from ..state import INCAPACITATING, DamagePart, ability_mod
from .common import done, is_weapon, option, prepare

if TYPE_CHECKING:   # pragma: no cover
    from ..rules.api import BattleAPI
    from ..state import AttackProfile, Combatant

# SRD protection from evil and good (Purity of Spirit): the creature types it wards against
EVIL_TYPES = ("aberration", "celestial", "elemental", "fey", "fiend", "undead")
# (zone of truth at 5 and commune at 17 are out of scope: no effect on a battle)
OATH_DEVOTION = ((3, ("protection-from-evil-and-good", "sanctuary")), (5, ("lesser-restoration",)),
                 (9, ("beacon-of-hope", "dispel-magic")), (13, ("freedom-of-movement", "guardian-of-faith")),
                 (17, ("flame-strike",)))


def finish_pc(pc: Combatant, lvls: dict, f: list, r: dict, spells: list, max_slot: int) -> None:
    pal = lvls.get("paladin", 0)
    if pal >= 3:   # Oath of Devotion
        f.append("turn_the_unholy")
        prepare(spells, OATH_DEVOTION, pal, max_slot)
    if pal >= 14:
        f.append("cleansing_touch")
        r["cleansing_touch"] = r["cleansing_touch_max"] = max(1, ability_mod(pc.abilities["cha"]))


def lay_targets(b: BattleAPI, c: Combatant) -> list:
    return [o for o in b.creatures.values() if o.side == c.side and not o.dead and o.hp < o.max_hp
            and o.creature_type not in ("undead", "construct") and (o is c or b.distance(c, o) <= 5)]


def unholy(b: BattleAPI, c: Combatant) -> list:
    """SRD Turn the Unholy: each fiend or undead within 30 ft that can see or hear the paladin."""
    return [o for o in b.enemies_of(c) if o.creature_type in ("fiend", "undead") and o.conscious
            and "turned" not in o.conditions and b.distance(c, o) <= 30 and (b.watches(o, c) or b.hears(o, c))]


def cleanse_targets(b: BattleAPI, c: Combatant) -> list:
    return [o for o in b.creatures.values() if o.side == c.side and not o.dead and b.distance(c, o) <= 5
            and any(v.get("spell") and b.creatures.get(v.get("by")) is not None
                    and b.creatures[v["by"]].side != c.side for v in o.conditions.values())]


# ================================================================ the action menu
def menu_options(b: BattleAPI, c: Combatant, out: list) -> None:
    """Lay on Hands, Holy Nimbus, Sacred Weapon."""
    f, e, r = c.features, c.economy, c.resources
    if "lay_on_hands" in f and e.actions > 0 and r.get("lay_on_hands", 0) > 0 and lay_targets(b, c):
        out.append(option(f"Lay on Hands (action: heal from a pool of {r['lay_on_hands']} HP, touch)", "feature",
                          ("lay_on_hands",)))
    if "holy_nimbus" in f and e.actions > 0 and r.get("holy_nimbus", 0) > 0:
        # (its advantage on saves against fiends' and undead spells is not modelled: a save here
        # does not know who cast the spell)
        out.append(option("Holy Nimbus (action, once a day: 10 radiant damage to each foe starting its turn within "
                          "30 ft, 1 minute)", "feature", ("holy_nimbus",)))
    if "sacred_weapon" in f and e.actions > 0 and r.get("channel_divinity", 0) > 0 \
            and "sacred_weapon" not in c.conditions:
        out.append(option(f"Channel Divinity: Sacred Weapon (action: +{max(1, c.mod('cha'))} to weapon attack "
                          f"rolls for 1 minute)", "feature", ("sacred_weapon",)))


def devotion_options(b: BattleAPI, c: Combatant, out: list) -> None:
    """Actions: Turn the Unholy, Cleansing Touch."""
    f, r = c.features, c.resources
    if "turn_the_unholy" in f and r.get("channel_divinity", 0) > 0 and unholy(b, c):
        out.append(option(f"Channel Divinity: Turn the Unholy (WIS DC {r['spell_dc']}: fiends and undead within "
                          f"30 ft are turned)", "feature", ("turn_unholy",)))
    if "cleansing_touch" in f and r.get("cleansing_touch", 0) > 0 and cleanse_targets(b, c):
        out.append(option(f"Cleansing Touch (action: end a spell on a creature you touch; "
                          f"{r['cleansing_touch']} left)", "feature", ("cleansing_touch",)))


def _pick_target(b: BattleAPI, c: Combatant, opt) -> None:
    b.pending = {"kind": "target", "actor": c.cid, "use": ("feature", opt.data[0])}


def _sacred_weapon(b: BattleAPI, c: Combatant, opt) -> None:
    c.economy.actions -= 1
    c.resources["channel_divinity"] -= 1
    # SRD: one weapon held is imbued (our builds: the first melee weapon, the longsword)
    held = next((a.key for a in c.attacks if a.melee and is_weapon(a)), None)
    # SRD: the weapon sheds bright light 20 ft and dim light 20 ft beyond (dnd/lighting.py reads "light")
    c.conditions["sacred_weapon"] = {"until_round": b.round + 10, "bonus": max(1, c.mod("cha")), "weapon": held,
                                     "light": [20, 20]}
    b.event("sacred_weapon", f"{c.cid} channels divinity into its weapon", creature=c.cid)
    done(b, c, "sacred_weapon")


def _holy_nimbus(b: BattleAPI, c: Combatant, opt) -> None:
    c.economy.actions -= 1
    c.resources["holy_nimbus"] = 0
    c.conditions["holy_nimbus"] = {"until_round": b.round + 10, "light": [30, 30]}   # SRD: sunlight, 30 + 30 ft
    b.event("holy_nimbus", f"{c.cid} shines with a holy nimbus", creature=c.cid)
    done(b, c, "holy_nimbus")


def _turn_unholy(b: BattleAPI, c: Combatant, opt) -> None:
    r = c.resources
    c.economy.actions -= 1
    r["channel_divinity"] -= 1
    b.event("channel_divinity", f"{c.cid} presents a holy symbol: Turn the Unholy", creature=c.cid)
    for t in unholy(b, c):
        if not b.saving_throw(t, "wis", r["spell_dc"], adv="turn_resistance" in t.features):
            t.conditions["turned"] = {"by": c.cid, "until": b.round + 10}
            t.economy.reaction = False
            b.end_concentration(t)
            b.event("condition", f"{t.cid} is turned", creature=t.cid, condition="turned")
    b.back_to_menu(c)


ACTIONS = {"lay_on_hands": _pick_target, "cleansing_touch": _pick_target, "sacred_weapon": _sacred_weapon,
           "holy_nimbus": _holy_nimbus, "turn_unholy": _turn_unholy}


def lay_options(b: BattleAPI, c: Combatant) -> list:
    pool = c.resources["lay_on_hands"]
    return [option(f"Lay on Hands on {t.cid}: heal {min(pool, t.max_hp - t.hp)} [{t.hp}/{t.max_hp} HP]", "target",
                   (t.cid,)) for t in lay_targets(b, c)]


def lay_on_hands(b: BattleAPI, c: Combatant, t: Combatant) -> None:
    """SRD: as much of the pool as the target is missing."""
    r = c.resources
    c.economy.actions -= 1
    amount = min(r["lay_on_hands"], t.max_hp - t.hp)
    r["lay_on_hands"] -= amount
    b.heal(t, amount, "Lay on Hands")


def _worst_spell(b: BattleAPI, c: Combatant, t: Combatant) -> str:
    """The one hostile spell a Cleansing Touch ends on t: one that incapacitates first, then by name.
    (The SRD ends one spell a use; which one is not asked, the worst is the player's choice.)"""
    foes = {o.cid for o in b.enemies_of(c)}
    spells = {}
    for k, v in t.conditions.items():
        if v.get("spell") and v.get("by") in foes:
            spells[v["spell"]] = spells.get(v["spell"], False) or k in INCAPACITATING
    return min(spells, key=lambda s: (not spells[s], s))


def cleanse_options(b: BattleAPI, c: Combatant) -> list:
    return [option(f"Cleansing Touch on {t.cid} (ends {_worst_spell(b, c, t)})", "target", (t.cid,))
            for t in cleanse_targets(b, c)]


def cleansing_touch(b: BattleAPI, c: Combatant, t: Combatant) -> None:
    c.economy.actions -= 1
    c.resources["cleansing_touch"] -= 1
    spell = _worst_spell(b, c, t)
    foes = {o.cid for o in b.enemies_of(c)}
    ended = set()
    for k, v in list(t.conditions.items()):   # SRD: one spell a use (all the conditions it put on t)
        if v.get("spell") == spell and v.get("by") in foes:
            ended.add(v["spell"])
            del t.conditions[k]
    b.event("cleansing_touch", f"{c.cid} cleanses {t.cid} of {', '.join(sorted(ended))}", creature=c.cid,
            target=t.cid)


# ================================================================ attacks
def purity_of_spirit(c: Combatant, t: Combatant, dis: list) -> None:
    if "purity_of_spirit" in t.features and c.creature_type in EVIL_TYPES:   # protection from evil and good
        dis.append("purity of spirit")


def sacred_weapon(c: Combatant, a: AttackProfile) -> int:
    """The attack-roll bonus of an attack with the imbued weapon (not a thrown javelin)."""
    sw = c.conditions.get("sacred_weapon")
    if not sw or not is_weapon(a):
        return 0
    return sw["bonus"] if sw.get("weapon", a.key) == a.key else 0


def on_unconscious(b: BattleAPI, c: Combatant) -> None:
    """SRD Sacred Weapon: it ends if the paladin falls unconscious."""
    if c.conditions.pop("sacred_weapon", None) is not None:
        b.event("condition_end", f"{c.cid}'s sacred weapon fades", creature=c.cid, condition="sacred_weapon")


def smite_dice(level: int, t: Combatant) -> int:
    """SRD: 2d8 with a 1st-level slot, +1d8 per level above, at most 5d8; +1d8 against undead or fiends."""
    return min(5, 1 + level) + (1 if t.creature_type in ("undead", "fiend") else 0)


def smite_riders(c: Combatant, t: Combatant, st: dict, out: list) -> None:
    """Divine Smite at each slot level the paladin has left."""
    if "divine_smite" in c.features:
        slots = c.resources.get("slots", ())
        for lv, n in enumerate(slots, 1):
            if n > 0:
                out.append(option(f"Divine Smite with a level-{lv} slot (+{smite_dice(lv, t)}d8 radiant"
                                  f"{', doubled: critical' if st['crit'] else ''})", "reaction", (True, ("smite", lv))))


def smite_damage(b: BattleAPI, c: Combatant, t: Combatant, st: dict, weapon_hit: bool, parts: list) -> None:
    """Improved Divine Smite, then a chosen Divine Smite (its slot spent now)."""
    if st["melee"] and weapon_hit and "improved_divine_smite" in c.features:
        parts.append(DamagePart("1d8", "radiant"))
    rider = st.get("rider")
    if rider and rider[0] == "smite":
        spend_slot(c, rider[1])
        n = smite_dice(rider[1], t)
        b.event("smite", f"{c.cid} smites {t.cid} (level-{rider[1]} slot, {n}d8 radiant)", creature=c.cid)
        parts.append(DamagePart(f"{n}d8", "radiant"))


# ================================================================ auras, Holy Nimbus
def save_bonus(b: BattleAPI, t: Combatant, ability: str) -> int:
    """SRD Aura of Protection: + the paladin's Cha modifier (at least +1) within 10 ft (30 at 18),
    while the paladin is conscious; the best one counts (auras do not stack)."""
    best = 0
    for p in b.creatures.values():
        if "aura_of_protection" in p.features and p.side == t.side and p.conscious \
                and (p is t or b.distance(p, t) <= p.resources.get("aura_ft", 10)):
            best = max(best, max(1, p.mod("cha")))
    return best


def aura_blocks(b: BattleAPI, t: Combatant, cond: str) -> bool:
    """Aura of Devotion (charmed) and Aura of Courage (frightened) within 10 ft of a conscious
    paladin (30 ft at 18)."""
    aura = "aura_of_devotion" if cond == "charmed" else "aura_of_courage" if cond == "frightened" else None
    return aura is not None and any(
        aura in p.features and p.side == t.side and p.conscious
        and (p is t or b.distance(p, t) <= p.resources.get("aura_ft", 10)) for p in b.creatures.values())


def holy_nimbus(b: BattleAPI, c: Combatant) -> None:
    """A foe starting its turn within 30 ft of a paladin's Holy Nimbus takes 10 radiant (SRD: the
    light shines for its minute; nothing ends it when the paladin falls unconscious, as auras do)."""
    for p in b.creatures.values():
        if "holy_nimbus" in p.conditions and p.side != c.side and not p.dead and c.conscious \
                and b.distance(p, c) <= 30:
            b.event("nimbus", f"{c.cid} is seared by {p.cid}'s holy nimbus", creature=c.cid)
            b.damage(c, 10, "radiant", magical=True, source=p.cid)
