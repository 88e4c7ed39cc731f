"""Weapon attacks of PCs: which weapons each class is proficient with, and a weapon's attack profiles.

SRD rules compiled into :class:`~..state.AttackProfile` tuples: finesse weapons use the better of
Str and Dex, ranged weapons Dex, thrown weapons keep their melee ability; Dueling adds 2 to a
one-handed melee weapon's damage; a versatile weapon takes its two-handed die when the off hand is
free (no shield, no two-weapon fighting); heavy, ammunition and loading go to the engine on the
profile. Used by the PC builder and by mechanics that arm a PC mid-day (a pact weapon, a magic
weapon picked up), so it sits below both.
"""

from __future__ import annotations

from .. import content
from ..state import AttackProfile, Combatant, DamagePart, ability_mod

PROFICIENT = {"fighter": {"simple", "martial"}, "rogue": {"simple", "crossbow-hand", "longsword",
                                                          "rapier", "shortsword"},
              "wizard": {"dagger", "dart", "sling", "quarterstaff", "crossbow-light"},
              "cleric": {"simple"}, "barbarian": {"simple", "martial"}, "paladin": {"simple", "martial"},
              "ranger": {"simple", "martial"}, "monk": {"simple", "shortsword"},
              "bard": {"simple", "crossbow-hand", "longsword", "rapier", "shortsword"},
              "sorcerer": {"dagger", "dart", "sling", "quarterstaff", "crossbow-light"},
              "warlock": {"simple"},
              "druid": {"club", "dagger", "dart", "javelin", "mace", "quarterstaff", "scimitar", "sickle",
                        "sling", "spear"}}


def weapon_profile(weapon_key: str, abilities: dict, prof: int, proficient: bool,
                   style: str | None, two_weapons: bool = False,
                   off_hand_free: bool = False) -> list[AttackProfile]:
    """The attack profiles of one weapon: melee, and thrown or ranged where the weapon allows.

    ``off_hand_free`` (no shield, no second weapon for two-weapon fighting): a versatile weapon
    is wielded in two hands for its larger die (a longsword 1d10), unless Dueling (+2 one-handed)
    is the better grip. Heavy, ammunition (``ammo_<key>`` in the resources) and loading are
    carried on the profile for the engine. Archery: +2 to ranged weapon attack rolls."""
    w = content.weapon(weapon_key)
    s, d = ability_mod(abilities["str"]), ability_mod(abilities["dex"])
    finesse = w.has("finesse")
    bonus = prof if proficient else 0
    heavy, loading = w.has("heavy"), w.has("loading")
    out = []
    if w.range_type == "melee":
        mod = max(s, d) if finesse else s
        dueling = style == "dueling" and not w.has("two-handed") and not two_weapons
        dice = w.damage.dice
        if w.has("versatile") and w.two_handed_damage and off_hand_free and not dueling:
            dice = w.two_handed_damage.dice   # SRD versatile: both hands, the die in parentheses
        extra = 2 if dueling else 0
        # two-weapon fighting: the off-hand attack adds no positive ability modifier (SRD), unless
        # the Two-Weapon Fighting style adds it
        off_mod = mod if style == "two_weapon_fighting" else min(0, mod)
        offhand = (damage_part(w.damage.dice, off_mod, w.damage.type),) if w.has("light") else ()
        out.append(AttackProfile(w.key, w.name, mod + bonus, (damage_part(dice, mod + extra, w.damage.type),),
                                 True, w.reach, 0, 0, finesse=finesse, offhand=offhand, heavy=heavy))
        if w.throw_range:   # thrown: the melee ability, the one-handed die
            out.append(AttackProfile(w.key + "-thrown", w.name + " (thrown)", mod + bonus,
                                     (damage_part(w.damage.dice, mod, w.damage.type),), False, 0,
                                     w.throw_range[0], w.throw_range[1], finesse=finesse, heavy=heavy))
    else:
        ammo = f"ammo_{w.key}" if w.has("ammunition") else ""
        archery = 2 if style == "archery" else 0
        out.append(AttackProfile(w.key, w.name, d + bonus + archery, (damage_part(w.damage.dice, d, w.damage.type),),
                                 False, 0, w.range_normal, w.range_long, finesse=True, heavy=heavy,
                                 ammo=ammo, loading=loading))
    return out


def damage_part(dice: str, mod: int, dtype: str) -> DamagePart:
    """A damage part with the modifier written into its dice ("1d8+3")."""
    return DamagePart(f"{dice}{mod:+d}" if mod else dice, dtype)


def base_weapon(pc: Combatant, a: AttackProfile) -> str | None:
    """A PC's attack's base weapon key (a magic weapon's base, a thrown weapon's own), or None."""
    bases = pc.resources.get("weapon_bases", {})
    k = a.key.removesuffix("-thrown")
    if k in bases:
        return bases[k]
    return k if k in content.weapons() and not a.spell else None


def weapon_of(c: Combatant, a: AttackProfile) -> str | None:
    """The weapon an attack is made with (a base weapon key for PCs, the attack key for a monster's
    weapon attack), or None for spells and other attacks."""
    if c.is_pc:
        return base_weapon(c, a)
    if not c.monster:
        return None
    try:
        spec = content.monster(c.monster).action(a.key)
    except KeyError:
        return None
    kind = getattr(spec, "attack_type", "") or ""
    return a.key if kind.endswith("weapon") else None


# metal a creature carries (SRD Heat Metal: "a manufactured metal object")
METAL_WEAPONS = frozenset({"battleaxe", "dagger", "flail", "glaive", "greataxe", "greatsword", "halberd", "handaxe",
                           "light-hammer", "longsword", "mace", "maul", "morningstar", "pike", "rapier", "scimitar",
                           "shortsword", "sickle", "spear", "trident", "war-pick", "warhammer"})


def has_metal(t: Combatant) -> bool:
    """Metal armour worn, or a manufactured metal weapon held (one of its attacks)."""
    return t.metal_armor or any(a.key in METAL_WEAPONS for a in t.attacks)
