"""Player characters built from the SRD class tables: Fighter, Rogue, Wizard and Cleric, levels 1-5.

An archetype fixes the ability scores, equipment and choices (our own standard-array builds);
the level decides hit points, proficiency, features and slots from ``content.class_spec``.
Weapon attacks are compiled into :class:`~.state.AttackProfile` tuples with the SRD rules:
finesse weapons use the better of Str and Dex, ranged weapons Dex, thrown weapons keep their
melee ability; Dueling adds 2 to a one-handed melee weapon's damage; a versatile weapon takes
its two-handed die when the off hand is free (no shield, no two-weapon fighting); heavy, ammunition
(a count per weapon in the resources, 20 by default) and loading go to the engine on the profile.
"""

from __future__ import annotations

from . import content
from .state import (
    ABILITIES,
    METAL_ARMOR,
    AttackProfile,
    Combatant,
    DamagePart,
    ability_mod,
)

# Standard array builds (15 14 13 12 10 8 plus racial +1s), improved at level 4.
ARCHETYPES: dict[str, dict] = {
    "fighter": {
        "class": "fighter", "abilities": {"str": 16, "dex": 12, "con": 15, "int": 10, "wis": 12, "cha": 8},
        "primary": "str", "armor": "chain-mail", "shield": True, "style": "defense",
        "weapons": ("longsword", "javelin"), "potions": 1,
    },
    "fighter_dueling": {
        "class": "fighter", "abilities": {"str": 16, "dex": 12, "con": 15, "int": 10, "wis": 12, "cha": 8},
        "primary": "str", "armor": "chain-mail", "shield": True, "style": "dueling",
        "weapons": ("longsword", "javelin"), "potions": 1,
    },
    "rogue": {
        "class": "rogue", "abilities": {"str": 10, "dex": 16, "con": 14, "int": 12, "wis": 12, "cha": 10},
        "primary": "dex", "armor": "leather-armor", "shield": False, "style": None,
        "weapons": ("shortsword", "dagger", "shortbow"), "potions": 1,   # two light blades
    },
    "wizard": {
        "class": "wizard", "abilities": {"str": 8, "dex": 14, "con": 14, "int": 16, "wis": 12, "cha": 10},
        "primary": "int", "armor": None, "shield": False, "style": None,
        "weapons": ("dagger",), "potions": 1,
        # one spell per mechanism: attack cantrips (Fire Bolt, Ray of Frost, Shocking Grasp, Chill
        # Touch), auto-hit darts, a cone, a cube with a push, an HP pool (Sleep), a reaction
        # (Shield), AC (Mage Armor), rays, a teleport, a held target, a sphere and a line at 5
        "spells": ("fire-bolt", "ray-of-frost", "shocking-grasp", "chill-touch", "magic-missile",
                   "burning-hands", "thunderwave", "sleep", "shield", "mage-armor", "scorching-ray",
                   "misty-step", "hold-person", "fireball", "lightning-bolt"),
    },
    "cleric": {
        "class": "cleric", "abilities": {"str": 14, "dex": 10, "con": 14, "int": 10, "wis": 16, "cha": 12},
        "primary": "wis", "armor": "scale-mail", "shield": True, "style": None,
        "weapons": ("mace",), "potions": 1,
        # Sacred Flame (save cantrip), Guiding Bolt (attack with a rider), heals (Cure Wounds by
        # touch, Healing Word as a bonus action), concentration buffs and debuffs (Bless, Bane,
        # Shield of Faith), Inflict Wounds (melee spell attack), Sanctuary, Hold Person, Spiritual
        # Weapon (a bonus-action attack every turn) and Spirit Guardians (a zone) at 5
        "spells": ("sacred-flame", "guiding-bolt", "cure-wounds", "healing-word", "bless", "bane",
                   "shield-of-faith", "inflict-wounds", "sanctuary", "hold-person", "spiritual-weapon",
                   "spirit-guardians"),
    },
}
PROFICIENT = {"fighter": {"simple", "martial"}, "rogue": {"simple", "crossbow-hand", "longsword",
                                                          "rapier", "shortsword"},
              "wizard": {"dagger", "dart", "sling", "quarterstaff", "crossbow-light"},
              "cleric": {"simple"}}


DEFAULT_AMMUNITION = 20   # arrows, bolts, needles or bullets per ammunition weapon (a quiver's 20)


def weapon_profile(weapon_key: str, abilities: dict, prof: int, proficient: bool,
                   style: str | None, two_weapons: bool = False,
                   off_hand_free: bool = False) -> list[AttackProfile]:
    """The attack profiles of one weapon: melee, and thrown or ranged where the weapon allows.

    ``off_hand_free`` (no shield, no second weapon for two-weapon fighting): a versatile weapon
    is wielded in two hands for its larger die (a longsword 1d10), unless Dueling (+2 one-handed)
    is the better grip. Heavy, ammunition (``ammo_<key>`` in the resources) and loading are
    carried on the profile for the engine."""
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
        # two-weapon fighting: the off-hand attack adds no positive ability modifier (SRD)
        offhand = (_dmg(w.damage.dice, min(0, mod), w.damage.type),) if w.has("light") else ()
        out.append(AttackProfile(w.key, w.name, mod + bonus, (_dmg(dice, mod + extra, w.damage.type),),
                                 True, w.reach, 0, 0, finesse=finesse, offhand=offhand, heavy=heavy))
        if w.throw_range:   # thrown: the melee ability, the one-handed die
            out.append(AttackProfile(w.key + "-thrown", w.name + " (thrown)", mod + bonus,
                                     (_dmg(w.damage.dice, mod, w.damage.type),), False, 0,
                                     w.throw_range[0], w.throw_range[1], finesse=finesse, heavy=heavy))
    else:
        ammo = f"ammo_{w.key}" if w.has("ammunition") else ""
        out.append(AttackProfile(w.key, w.name, d + bonus, (_dmg(w.damage.dice, d, w.damage.type),),
                                 False, 0, w.range_normal, w.range_long, finesse=True, heavy=heavy,
                                 ammo=ammo, loading=loading))
    return out


def _dmg(dice: str, mod: int, dtype: str) -> DamagePart:
    return DamagePart(f"{dice}{mod:+d}" if mod else dice, dtype)


def build_pc(archetype: str, level: int, cid: str, pos: tuple, name: str | None = None,
             side: str = "party") -> Combatant:
    """A PC of an archetype in :data:`ARCHETYPES` at level 1-5."""
    if archetype not in ARCHETYPES:
        raise KeyError(f"no PC archetype {archetype!r}; expected one of {sorted(ARCHETYPES)}")
    if not 1 <= level <= 5:
        raise ValueError(f"PC level {level}: expected 1-5")
    arch = ARCHETYPES[archetype]
    cls = content.class_spec(arch["class"])
    lv = cls.level(level)
    abilities = dict(arch["abilities"])
    if level >= 4:  # Ability Score Improvement: +2 to the primary ability (max 20)
        abilities[arch["primary"]] = min(20, abilities[arch["primary"]] + 2)
    prof = lv.proficiency_bonus
    con = ability_mod(abilities["con"])
    # max hit die at level 1, the fixed average (half + 1) after (SRD "Hit Points")
    hp = cls.hit_die + con + (level - 1) * (cls.hit_die // 2 + 1 + con)
    dex = ability_mod(abilities["dex"])
    armored = arch["armor"] is not None
    ac = content.armor(arch["armor"]).ac(dex) if armored else 10 + dex
    if arch["shield"]:
        ac += content.shields()["shield"].ac_bonus
    style = arch["style"]
    if style == "defense" and armored:
        ac += 1
    proficient = PROFICIENT[arch["class"]]
    attacks = []
    light_melee = [wk for wk in arch["weapons"]
                   if content.weapon(wk).range_type == "melee" and content.weapon(wk).has("light")]
    off_hand_free = not arch["shield"] and len(light_melee) < 2   # no shield, no two-weapon fighting
    resources: dict = {"potions": arch["potions"]}
    for wk in arch["weapons"]:
        w = content.weapon(wk)
        attacks.extend(weapon_profile(wk, abilities, prof, w.category in proficient or wk in proficient, style,
                                      off_hand_free=off_hand_free))
        if w.range_type == "ranged" and w.has("ammunition"):
            resources[f"ammo_{wk}"] = arch.get("ammunition", DEFAULT_AMMUNITION)
    features = []
    spells: tuple = ()
    if arch["class"] == "fighter":
        features.append("second_wind")
        resources["second_wind"] = 1
        if lv.counters.get("action_surges", 0):
            features.append("action_surge")
            resources["action_surge"] = lv.counters["action_surges"]
        if lv.counters.get("extra_attacks", 0):
            features.append("extra_attack")
    elif arch["class"] == "rogue":
        features.append("sneak_attack")
        resources["sneak_attack_dice"] = lv.counters["sneak_attack"]
        if level >= 2:
            features.append("cunning_action")
        if level >= 5:
            features.append("uncanny_dodge")
    elif arch["class"] in ("wizard", "cleric"):
        resources["slots"] = tuple(lv.slots[:5])
        max_slot = max((i + 1 for i, n in enumerate(lv.slots) if n), default=0)
        spells = tuple(k for k in arch["spells"] if content.spell(k).level <= max_slot)
        ab = cls.spellcasting_ability
        resources["spell_attack"] = prof + ability_mod(abilities[ab])
        resources["spell_dc"] = 8 + prof + ability_mod(abilities[ab])
        resources["spell_mod"] = ability_mod(abilities[ab])
        resources["slots_max"] = tuple(lv.slots[:5])
        if arch["class"] == "wizard":   # SRD Arcane Recovery: once a day, after a short rest
            features.append("arcane_recovery")
            resources["arcane_recovery"] = 1
            resources["arcane_recovery_levels"] = lv.counters.get("arcane_recovery_levels", (level + 1) // 2)
        elif level >= 2:   # SRD Channel Divinity: Turn Undead at 2, Destroy Undead at 5
            features.append("channel_divinity")
            resources["channel_divinity"] = lv.counters.get("channel_divinity_charges", 1)
            resources["channel_divinity_max"] = resources["channel_divinity"]
            if lv.counters.get("destroy_undead_cr"):
                resources["destroy_undead_cr"] = lv.counters["destroy_undead_cr"]
    saves = {ab: ability_mod(abilities[ab]) + (prof if ab in cls.saving_throws else 0) for ab in ABILITIES}
    return Combatant(
        cid=cid, name=name or f"{cls.name} {level}", side=side, kind="pc", size="medium", ac=ac,
        max_hp=hp, hp=hp, pos=tuple(pos), speed=30, abilities=abilities, saves=saves, prof=prof,
        attacks=tuple(attacks), pc_class=arch["class"], level=level, resources=resources,
        features=tuple(features), spells=spells, style=style, armored=armored,
        metal_armor=arch["armor"] in METAL_ARMOR)


def arcane_recovery(pc: Combatant, levels: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """SRD Arcane Recovery, for the Day track's short rest (no ``Battle`` needed): once per day,
    recover expended spell slots whose levels total at most half the wizard level (rounded up),
    none of 6th level or higher. ``levels`` names the slots to recover (one entry per slot);
    by default the highest expended slots that fit are chosen. Returns the recovered levels (empty
    when the feature is spent or nothing is expended); raises ``ValueError`` on an illegal choice."""
    if "arcane_recovery" not in pc.features or pc.resources.get("arcane_recovery", 0) <= 0:
        return ()
    budget = pc.resources.get("arcane_recovery_levels", (pc.level + 1) // 2)
    slots = list(pc.resources["slots"])
    top = list(pc.resources.get("slots_max", slots))
    expended = {lv: top[lv - 1] - slots[lv - 1] for lv in range(1, min(len(slots), 5) + 1)}
    if levels is None:
        chosen: list[int] = []
        left = budget
        for lv in sorted(expended, reverse=True):
            while expended[lv] > 0 and lv <= left:
                chosen.append(lv)
                expended[lv] -= 1
                left -= lv
    else:
        chosen = list(levels)
        if sum(chosen) > budget or any(not 1 <= lv <= 5 for lv in chosen):
            raise ValueError(f"Arcane Recovery: slots {chosen} exceed {budget} levels or include 6th+")
        for lv in chosen:
            if expended.get(lv, 0) <= 0:
                raise ValueError(f"Arcane Recovery: no expended level-{lv} slot")
            expended[lv] -= 1
    if not chosen:
        return ()
    for lv in chosen:
        slots[lv - 1] += 1
    pc.resources["slots"] = tuple(slots)
    pc.resources["arcane_recovery"] = 0
    return tuple(chosen)


def short_rest(pc: Combatant) -> None:
    """What a short rest restores here: Channel Divinity uses (SRD: regained on a short or long
    rest) and Second Wind / Action Surge. Arcane Recovery is a choice: call :func:`arcane_recovery`."""
    r = pc.resources
    if "channel_divinity_max" in r:
        r["channel_divinity"] = r["channel_divinity_max"]
    if "second_wind" in pc.features:
        r["second_wind"] = 1
    if "action_surge" in pc.features:
        r["action_surge"] = 1 if pc.level < 17 else 2
