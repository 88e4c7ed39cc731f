"""Player characters built from the SRD class tables: all 12 classes (one SRD subclass each), levels 1-20,
and two multiclass builds.

An archetype fixes the ability scores, equipment and choices (our own standard-array builds);
the level decides hit points, proficiency, features and slots from ``content.class_spec``.
Weapon attacks are compiled into :class:`~..state.AttackProfile` tuples with the SRD rules:
finesse weapons use the better of Str and Dex, ranged weapons Dex, thrown weapons keep their
melee ability; Dueling adds 2 to a one-handed melee weapon's damage; a versatile weapon takes
its two-handed die when the off hand is free (no shield, no two-weapon fighting); heavy, ammunition
(a count per weapon in the resources, 20 by default) and loading go to the engine on the profile.
Class features that act in combat are listed in ``Combatant.features`` and played by :mod:`..features`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import content
from ..classes.druid import revert
from ..classes.dispatch import finish_pc, short_rest as _subclass_short_rest
from ..model.archetypes import ARCHETYPES
from ..model.factories import register_pc_builder
from ..model.weapons import PROFICIENT, damage_part, weapon_profile
from ..state import (
    ABILITIES,
    METAL_ARMOR,
    AttackProfile,
    Combatant,
    DamagePart,
    ability_mod,
)

MAX_LEVEL = 20
# SRD multiclass spellcasting: full casters count all levels, paladins and rangers half (rounded down)
CASTER_WEIGHT = {"bard": 1.0, "cleric": 1.0, "druid": 1.0, "sorcerer": 1.0, "wizard": 1.0,
                 "paladin": 0.5, "ranger": 0.5}
MONK_WEAPONS = ("shortsword",)   # SRD monk weapons: shortswords and simple melee weapons without two-handed/heavy


DEFAULT_AMMUNITION = 20   # arrows, bolts, needles or bullets per ammunition weapon (a quiver's 20)


def class_levels(archetype: str, level: int) -> tuple[tuple[str, int], ...]:
    """(class, levels) of an archetype at a character level. A multiclass archetype's ``classes``
    is a plan of steps (class, up to that many levels of it), taken in order."""
    arch = ARCHETYPES[archetype]
    plan = arch.get("classes")
    if not plan:
        return ((arch["class"], level),)
    got: dict[str, int] = {}
    left = level
    for cls, upto in plan:
        take = min(left, max(0, upto - got.get(cls, 0)))
        if take:
            got[cls] = got.get(cls, 0) + take
            left -= take
    if left:
        raise ValueError(f"{archetype}: the plan {plan} stops before level {level}")
    return tuple(got.items())


def _multiclass_slots(levels: dict) -> tuple:
    """SRD multiclass spellcaster table: full-caster levels + half of paladin/ranger levels; a
    single class uses its own table (a level-2 paladin has slots, a multiclass one counts 1)."""
    casters = [k for k in levels if k in CASTER_WEIGHT]
    if len(casters) == 1:
        return content.class_spec(casters[0]).level(levels[casters[0]]).slots
    lv = int(sum(levels[k] * CASTER_WEIGHT[k] for k in casters))
    return content.class_spec("wizard").level(lv).slots if lv else (0,) * 9


def asi_count(cls: str, level: int) -> int:
    """Ability Score Improvements a class has by a level: its SRD feature rows named so (the
    class table's running total is not used: it is not monotonic in the data for the rogue)."""
    return sum(1 for f in content.class_spec(cls).features_up_to(level) if "ability-score-improvement" in f.key)


def _apply_asis(abilities: dict, order: tuple, count: int) -> None:
    """Each Ability Score Improvement: +2 split over the first abilities in ``order`` below 20."""
    for _ in range(count):
        points = 2
        for ab in order:
            while points and abilities[ab] < 20:
                abilities[ab] += 1
                points -= 1
        # nothing left to raise: the improvement is wasted (a feat is not modelled)


def build_pc(archetype: str, level: int, cid: str, pos: tuple, name: str | None = None,
             side: str = "party", **loadout) -> Combatant:
    """A PC of an archetype in :data:`ARCHETYPES` at level 1-20. ``loadout`` may replace the
    archetype's "style" (a fighting style), "weapons", "shield" or "armor", or add "choices"
    (class options such as a Hunter's Defensive Tactics).

    The build steps, in order: the archetype with its loadout, ability scores, hit points, armour
    class, weapon attacks, the features of each class level, spellcasting, saving throws; then
    :func:`..classes.dispatch.finish_pc` adds the subclass and late features."""
    arch = _archetype_with(archetype, level, loadout)
    split = class_levels(archetype, level)
    lvls = dict(split)
    main = arch["class"]
    cls = content.class_spec(main)
    prof = cls.level(level).proficiency_bonus   # proficiency follows the character level
    abilities = _ability_scores(arch, split, lvls)
    hp = _hit_points(arch, split, lvls, ability_mod(abilities["con"]))
    ac, armored = _armor_class(arch, lvls, abilities)
    resources: dict = {"potions": arch["potions"]}
    resources["class_levels"] = dict(split)
    attacks = _weapon_attacks(arch, lvls, abilities, prof, resources)
    pc = _Gains(arch, abilities, prof, resources)
    _class_features(pc, split)
    spells = _spellcasting(arch, lvls, main, abilities, prof, resources)
    saves = {ab: ability_mod(abilities[ab]) + (prof if ab in cls.saving_throws or ab in pc.saves_extra else 0)
             for ab in ABILITIES}
    if split[0][0] != main:
        raise ValueError(f"{archetype}: the first class taken must be {main}")
    return finish_pc(Combatant(   # (classes/dispatch.py: subclass and late features, always-prepared spells)
        cid=cid, name=name or " / ".join(f"{content.class_spec(k).name} {n}" for k, n in split),
        side=side, kind="pc", size="medium", ac=ac,
        max_hp=hp, hp=hp, pos=tuple(pos), speed=pc.speed, abilities=abilities, saves=saves, prof=prof,
        attacks=tuple(attacks), pc_class=main, level=level, resources=resources,
        features=tuple(pc.features), spells=spells, style=arch["style"], armored=armored,
        metal_armor=arch["armor"] in METAL_ARMOR, immune=pc.immune, resist=pc.resist,
        condition_immunities=tuple(sorted(set(pc.condition_immunities)))), arch, lvls)


def _archetype_with(archetype: str, level: int, loadout: dict) -> dict:
    """The archetype's record with the loadout's replacements, after checking the request."""
    if archetype not in ARCHETYPES:
        raise KeyError(f"no PC archetype {archetype!r}; expected one of {sorted(ARCHETYPES)}")
    if not 1 <= level <= MAX_LEVEL:
        raise ValueError(f"PC level {level}: expected 1-{MAX_LEVEL}")
    bad = set(loadout) - {"style", "weapons", "shield", "armor", "choices", "spells"}
    if bad:
        raise KeyError(f"unknown loadout fields {sorted(bad)}")
    return dict(ARCHETYPES[archetype], **loadout)


def _ability_scores(arch: dict, split: tuple, lvls: dict) -> dict:
    """The archetype's scores raised by every Ability Score Improvement of its class levels
    (its "asi" order, then Con, Dex, Wis, Str, Cha, Int), and a level-20 barbarian's Primal Champion."""
    abilities = dict(arch["abilities"])
    first = tuple(arch.get("asi", (arch["primary"], "con")))
    order = first + tuple(ab for ab in ("con", "dex", "wis", "str", "cha", "int") if ab not in first)
    _apply_asis(abilities, order, sum(asi_count(k, n) for k, n in split))
    if lvls.get("barbarian", 0) >= 20:   # SRD Primal Champion: Str and Con +4, to 24
        abilities["str"] = min(24, abilities["str"] + 4)
        abilities["con"] = min(24, abilities["con"] + 4)
    return abilities


def _hit_points(arch: dict, split: tuple, lvls: dict, con: int) -> int:
    """Hit points: the first class's die in full at level 1, the fixed average (half + 1) after
    (SRD "Hit Points"), Con on every level; Draconic Resilience's 1 per sorcerer level."""
    hp = 0
    for i, (k, n) in enumerate(split):
        die = content.class_spec(k).hit_die
        hp += (die + con + (n - 1) * (die // 2 + 1 + con)) if i == 0 else n * (die // 2 + 1 + con)
    hp += lvls.get("sorcerer", 0) if arch.get("subclass") == "draconic" else 0   # Draconic Resilience
    return hp


def _armor_class(arch: dict, lvls: dict, abilities: dict) -> tuple[int, bool]:
    """(AC, armoured): worn armour, else a barbarian's or monk's Unarmored Defense or Draconic
    Resilience's 13 + Dex; a shield and the Defense style on top."""
    con, dex = ability_mod(abilities["con"]), ability_mod(abilities["dex"])
    armored = arch["armor"] is not None
    if armored:
        ac = content.armor(arch["armor"]).ac(dex)
    elif "barbarian" in lvls:   # SRD Unarmored Defense
        ac = 10 + dex + con
    elif "monk" in lvls:
        ac = 10 + dex + ability_mod(abilities["wis"])
    elif arch.get("subclass") == "draconic":
        ac = 13 + dex
    else:
        ac = 10 + dex
    if arch["shield"]:
        ac += content.shields()["shield"].ac_bonus
    if arch["style"] == "defense" and armored:
        ac += 1
    return ac, armored


def _weapon_attacks(arch: dict, lvls: dict, abilities: dict, prof: int, resources: dict) -> list:
    """The attack profiles of the archetype's weapons (a monk's Martial Arts die on monk weapons)
    and a monk's unarmed strike; each ammunition weapon's count goes into ``resources``."""
    proficient = set().union(*(PROFICIENT[k] for k in lvls))
    attacks = []
    light_melee = [wk for wk in arch["weapons"]
                   if content.weapon(wk).range_type == "melee" and content.weapon(wk).has("light")]
    off_hand_free = not arch["shield"] and len(light_melee) < 2   # no shield, no two-weapon fighting
    monk = lvls.get("monk", 0)
    for wk in arch["weapons"]:
        w = content.weapon(wk)
        profs = weapon_profile(wk, abilities, prof, w.category in proficient or wk in proficient, arch["style"],
                               off_hand_free=off_hand_free)
        if monk and (wk in MONK_WEAPONS or (w.category == "simple" and w.range_type == "melee"
                                            and not w.has("two-handed") and not w.has("heavy"))):
            profs = [_martial_arts(p, abilities, monk) for p in profs]
        attacks.extend(profs)
        if w.range_type == "ranged" and w.has("ammunition"):
            resources[f"ammo_{wk}"] = arch.get("ammunition", DEFAULT_AMMUNITION)
    if monk:   # SRD Martial Arts: unarmed strikes use Dex and the martial arts die
        die = content.class_spec("monk").level(monk).counters["martial_arts"]
        mod = max(ability_mod(abilities["str"]), ability_mod(abilities["dex"]))
        attacks.append(AttackProfile("unarmed-strike", "Unarmed Strike", mod + prof,
                                     (damage_part(die, mod, "bludgeoning"),), True, 5, 0, 0, finesse=True,
                                     spell=monk >= 6))   # Ki-Empowered Strikes: magical at 6
    return attacks


@dataclass
class _Gains:
    """What a build's class levels give, filled in by the per-class steps of :func:`_class_features`
    (a scratch record of one :func:`build_pc` call, never stored)."""

    arch: dict
    abilities: dict
    prof: int
    resources: dict
    features: list = field(default_factory=list)
    speed: int = 30
    saves_extra: set = field(default_factory=set)
    immune: tuple = ()
    resist: tuple = ()
    condition_immunities: tuple = ()


def _class_features(pc: _Gains, split: tuple) -> None:
    """Each class's features at its level (:data:`_CLASS_STEPS`), Extra Attack (not stacking
    across classes), into ``pc``."""
    for k, n in split:
        lv = content.class_spec(k).level(n)
        cn = lv.counters
        step = _CLASS_STEPS.get(k)
        if step is not None:
            step(pc, n, lv)
        if k in ("barbarian", "paladin", "ranger", "monk") and n >= 5:   # Extra Attack at 5
            pc.features.append("extra_attack")
        if k == "fighter" and cn.get("extra_attacks", 0):
            pc.features.append("extra_attack")
            pc.resources["extra_attacks"] = max(pc.resources.get("extra_attacks", 0), cn["extra_attacks"])
    if "extra_attack" in pc.features:
        pc.resources.setdefault("extra_attacks", 1)
    pc.features = list(dict.fromkeys(pc.features))   # Extra Attack from two classes does not stack (SRD)


def _fighter(pc: _Gains, n: int, lv) -> None:
    """Second Wind, Action Surge, Indomitable; Champion: Improved and Superior Critical,
    Remarkable Athlete, Survivor."""
    cn, features, resources = lv.counters, pc.features, pc.resources
    features.append("second_wind")
    resources["second_wind"] = 1
    if cn.get("action_surges", 0):
        features.append("action_surge")
        resources["action_surge"] = resources["action_surge_max"] = cn["action_surges"]
    if cn.get("indomitable_uses", 0):
        features.append("indomitable")
        resources["indomitable"] = resources["indomitable_max"] = cn["indomitable_uses"]
    if n >= 3:   # Champion: Improved Critical 19-20, Superior Critical 18-20
        resources["crit_min"] = 18 if n >= 15 else 19
    if n >= 7:
        features.append("remarkable_athlete")
    if n >= 18:
        features.append("survivor")


def _rogue(pc: _Gains, n: int, lv) -> None:
    """Sneak Attack, Cunning Action, Uncanny Dodge, Evasion, Slippery Mind, Elusive, Stroke of Luck."""
    pc.features.append("sneak_attack")
    pc.resources["sneak_attack_dice"] = lv.counters["sneak_attack"]
    pc.features += [f for lvl, f in ((2, "cunning_action"), (5, "uncanny_dodge"), (7, "evasion"),
                                     (18, "elusive"), (20, "stroke_of_luck")) if n >= lvl]
    if n >= 15:   # Slippery Mind
        pc.saves_extra.add("wis")
    if n >= 20:
        pc.resources["stroke_of_luck"] = 1


def _wizard(pc: _Gains, n: int, lv) -> None:
    """SRD Arcane Recovery: once a day, after a short rest."""
    pc.features.append("arcane_recovery")
    pc.resources["arcane_recovery"] = 1
    pc.resources["arcane_recovery_levels"] = lv.counters.get("arcane_recovery_levels", (n + 1) // 2)


def _cleric(pc: _Gains, n: int, lv) -> None:
    """SRD Channel Divinity from 2: Turn Undead, Destroy Undead at 5; Life Domain: Preserve Life,
    Divine Strike at 8."""
    if n < 2:
        return
    cn, resources = lv.counters, pc.resources
    pc.features += ["channel_divinity", "preserve_life"]   # Life Domain: Preserve Life
    resources["channel_divinity"] = cn.get("channel_divinity_charges", 1)
    resources["channel_divinity_max"] = resources["channel_divinity"]
    if cn.get("destroy_undead_cr"):
        resources["destroy_undead_cr"] = cn["destroy_undead_cr"]
    if n >= 8:   # Life Domain: Divine Strike, 1d8 radiant (2d8 at 14) once a turn
        pc.features.append("divine_strike")
        resources["divine_strike"] = "2d8" if n >= 14 else "1d8"


def _barbarian(pc: _Gains, n: int, lv) -> None:
    """Rage and the features of the Path of the Berserker; Fast Movement unless in heavy armour."""
    cn, resources = lv.counters, pc.resources
    pc.features.append("rage")
    resources["rage"] = resources["rage_max"] = cn["rage_count"] or 99   # unlimited at 20
    resources["rage_damage"] = cn["rage_damage_bonus"]
    pc.features += [f for lvl, f in ((2, "reckless_attack"), (2, "danger_sense"), (3, "frenzy"),
                                     (6, "mindless_rage"), (7, "feral_instinct"),
                                     (10, "intimidating_presence"), (11, "relentless_rage"),
                                     (15, "persistent_rage")) if n >= lvl]
    if cn.get("brutal_critical_dice"):
        resources["brutal_critical"] = cn["brutal_critical_dice"]
    if n >= 5 and pc.arch["armor"] not in ("chain-mail", "splint-armor", "plate-armor", "ring-mail"):
        pc.speed += 10   # Fast Movement


def _paladin(pc: _Gains, n: int, lv) -> None:
    """Lay on Hands, Divine Smite, the Oath of Devotion's Sacred Weapon, Divine Health, the auras,
    Improved Divine Smite, Purity of Spirit, Holy Nimbus."""
    features, resources = pc.features, pc.resources
    features.append("lay_on_hands")
    resources["lay_on_hands"] = resources["lay_on_hands_max"] = 5 * n
    if n >= 2:
        features.append("divine_smite")
    if n >= 3:
        features.append("sacred_weapon")
        resources["channel_divinity"] = resources["channel_divinity_max"] = 1
        pc.condition_immunities += ("diseased",)   # Divine Health
    if n >= 6:
        features.append("aura_of_protection")
        resources["aura_ft"] = 30 if n >= 18 else 10
    if n >= 7:
        features.append("aura_of_devotion")
    if n >= 10:
        features.append("aura_of_courage")
    if n >= 11:
        features.append("improved_divine_smite")
    if n >= 15:
        features.append("purity_of_spirit")
    if n >= 20:
        features.append("holy_nimbus")
        resources["holy_nimbus"] = resources["holy_nimbus_max"] = 1


def _monk(pc: _Gains, n: int, lv) -> None:
    """Martial Arts, Unarmored Movement, ki and its uses, the Way of the Open Hand; Purity of Body,
    Diamond Soul."""
    cn, resources = lv.counters, pc.resources
    ma = cn["martial_arts"]
    resources["martial_arts"] = ma
    pc.features.append("martial_arts")
    pc.speed += cn.get("unarmored_movement", 0)
    if n >= 2:
        pc.features += ["flurry_of_blows", "patient_defense", "step_of_the_wind"]
        resources["ki"] = resources["ki_max"] = cn["ki_points"]
        resources["ki_dc"] = 8 + pc.prof + ability_mod(pc.abilities["wis"])
    pc.features += [f for lvl, f in ((3, "deflect_missiles"), (3, "open_hand_technique"), (5, "stunning_strike"),
                                     (6, "wholeness_of_body"), (7, "evasion"), (7, "stillness_of_mind"),
                                     (10, "purity_of_body"), (14, "diamond_soul"), (17, "quivering_palm"),
                                     (18, "empty_body"), (20, "perfect_self"))
                    if n >= lvl]
    if n >= 6:
        resources["wholeness_of_body"] = 1
    if n >= 10:   # Purity of Body: immune to disease and poison
        pc.immune += (("poison", False),)
        pc.condition_immunities += ("poisoned", "diseased")
    if n >= 14:   # Diamond Soul: proficient in every save
        pc.saves_extra.update(ABILITIES)


def _bard(pc: _Gains, n: int, lv) -> None:
    """Bardic Inspiration, Jack of All Trades, the College of Lore's Cutting Words, Font of
    Inspiration, Superior Inspiration."""
    features, resources = pc.features, pc.resources
    features.append("bardic_inspiration")
    resources["bardic_inspiration"] = resources["bardic_inspiration_max"] = \
        max(1, ability_mod(pc.abilities["cha"]))
    resources["inspiration_die"] = f"1d{lv.counters['bardic_inspiration_die']}"
    if n >= 2:
        features.append("jack_of_all_trades")
    if n >= 3:   # College of Lore
        features.append("cutting_words")
    if n >= 5:
        features.append("font_of_inspiration")
    if n >= 20:
        features.append("superior_inspiration")


def _sorcerer(pc: _Gains, n: int, lv) -> None:
    """Font of Magic's sorcery points, four Metamagic options, Sorcerous Restoration."""
    if n >= 2:
        pc.resources["sorcery_points"] = pc.resources["sorcery_points_max"] = lv.counters["sorcery_points"]
        pc.features.append("font_of_magic")
    if n >= 3:
        pc.features += ["quickened_spell", "twinned_spell"]
    if n >= 10:   # the third Metamagic option
        pc.features.append("heightened_spell")
    if n >= 17:   # the fourth
        pc.features.append("careful_spell")
    if n >= 20:
        pc.features.append("sorcerous_restoration")


def _warlock(pc: _Gains, n: int, lv) -> None:
    """Pact Magic's slots, the Fiend's blessings, the invocations the build chooses, Mystic Arcanum,
    Fiendish Resilience."""
    features, resources = pc.features, pc.resources
    features.append("pact_magic")
    slots = lv.slots
    resources["pact_slots"] = tuple(slots)
    features.append("dark_ones_blessing")
    resources["dark_ones_blessing"] = max(1, ability_mod(pc.abilities["cha"]) + n)
    if n >= 2:
        features.append("agonizing_blast")
        # further invocations when the build chooses them
        features += [f for f in ("repelling_blast", "armor_of_shadows", "fiendish_vigor")
                     if f in pc.arch.get("choices", ())]
    if n >= 6:
        features.append("dark_ones_own_luck")
        resources["dark_ones_own_luck"] = 1
    # SRD Mystic Arcanum: one spell of each level 6-9, once a long rest without a slot
    arcanum = tuple(key for lvl, key in ((11, "circle-of-death"), (13, "finger-of-death"),
                                         (15, "power-word-stun"), (17, "power-word-kill")) if n >= lvl)
    if arcanum:
        features.append("mystic_arcanum")
        resources["arcanum"] = arcanum
        resources["innate"] = {key: 1 for key in arcanum}
        resources["innate_max"] = dict(resources["innate"])
    if n >= 10:   # Fiendish Resilience: slashing chosen (magic and silver still bite)
        pc.resist += (("slashing", True),)


def _ranger(pc: _Gains, n: int, lv) -> None:
    """The Hunter's Colossus Slayer, Defensive Tactics (Steel Will when chosen) and Superior
    Hunter's Defense."""
    choices = pc.arch.get("choices", ())
    if n >= 3:
        pc.features.append("colossus_slayer")
    if n >= 7 and "steel_will" in choices:   # Defensive Tactics: Steel Will
        pc.features.append("steel_will")
        pc.resources["save_adv_vs"] = ("frightened",)
    if n >= 15:   # Superior Hunter's Defense: Evasion unless Uncanny Dodge is chosen
        pc.features.append("uncanny_dodge" if "uncanny_dodge" in choices else "evasion")


def _druid(pc: _Gains, n: int, lv) -> None:
    """From 2: Wild Shape (unlimited at 20) up to the class table's CR, and the Circle of the
    Land's Natural Recovery."""
    if n < 2:
        return
    pc.features += ["wild_shape", "natural_recovery"]
    pc.resources["natural_recovery"] = 1
    pc.resources["natural_recovery_levels"] = (n + 1) // 2
    pc.resources["wild_shape"] = pc.resources["wild_shape_max"] = 2 if n < 20 else 99
    if n >= 20:   # Archdruid: also no verbal or somatic components (dnd/spell_zones.py blocks_casting)
        pc.features.append("archdruid")
    # SRD Beast Shapes table: CR 1/4 at 2nd, 1/2 at 4th, 1 at 8th. (The SRD level data's counter
    # already says 1 at 7th, against the feature's own table and the 8th-level row that grants it.)
    pc.resources["wild_shape_cr"] = 1 if n >= 8 else 0.5 if n >= 4 else 0.25


_CLASS_STEPS = {"fighter": _fighter, "rogue": _rogue, "wizard": _wizard, "cleric": _cleric,
                "barbarian": _barbarian, "paladin": _paladin, "monk": _monk, "bard": _bard,
                "sorcerer": _sorcerer, "warlock": _warlock, "ranger": _ranger, "druid": _druid}


def _spellcasting(arch: dict, lvls: dict, main: str, abilities: dict, prof: int, resources: dict) -> tuple:
    """Slots (the multiclass table; Pact Magic's alone when it has no others), the build's spells
    up to its highest slot and a warlock's arcanum, the spell attack, DC and modifier of the last
    casting class; returns the spells."""
    spells: tuple = ()
    slots = tuple(_multiclass_slots(lvls))
    casting = [k for k in lvls if content.class_spec(k).spellcasting_ability]
    if any(slots) or "pact_slots" in resources or arch.get("spells"):
        if "pact_slots" in resources and not any(slots):
            slots = resources.pop("pact_slots")   # Pact Magic alone: these are the slots
            resources["pact_magic_only"] = True
        resources["slots"] = slots
        resources["slots_max"] = slots
        max_slot = max((i + 1 for i, n in enumerate(slots) if n), default=0)
        spells = tuple(k for k in arch.get("spells", ()) if content.spell(k).level <= max_slot)
        spells += resources.get("arcanum", ())
        ab = content.class_spec(casting[-1] if casting else main).spellcasting_ability or arch["primary"]
        resources["spell_attack"] = prof + ability_mod(abilities[ab])
        resources["spell_dc"] = 8 + prof + ability_mod(abilities[ab])
        resources["spell_mod"] = ability_mod(abilities[ab])
    return spells


def _martial_arts(p: AttackProfile, abilities: dict, monk_level: int) -> AttackProfile:
    """SRD Martial Arts on a monk weapon: the martial arts die when it is larger than the weapon's
    (the monk weapons here are finesse, so the better of Str and Dex is already used)."""
    die = content.class_spec("monk").level(monk_level).counters["martial_arts"]
    head = p.damage[0].dice
    dice, sign, rest = head.partition("+") if "+" in head else head.partition("-")
    if int(die.split("d")[1]) > int(dice.split("d")[1]):
        dice = die
    return p._replace(damage=(DamagePart(dice + sign + rest, p.damage[0].type),) + p.damage[1:])


def arcane_recovery(pc: Combatant, levels: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """SRD Arcane Recovery, for the Day track's short rest (no ``Battle`` needed): once per day,
    recover expended spell slots whose levels total at most half the wizard level (rounded up),
    none of 6th level or higher. ``levels`` names the slots to recover (one entry per slot);
    by default the highest expended slots that fit are chosen. Returns the recovered levels (empty
    when the feature is spent or nothing is expended); raises ``ValueError`` on an illegal choice."""
    return _recover_slots(pc, "arcane_recovery", levels)


def natural_recovery(pc: Combatant, levels: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """SRD Natural Recovery (Circle of the Land, druid 2+): as Arcane Recovery, once a day during a
    short rest, slots totalling at most half the druid level (rounded up), none of 6th level or higher."""
    return _recover_slots(pc, "natural_recovery", levels)


def _recover_slots(pc: Combatant, feature: str, levels: tuple[int, ...] | None) -> tuple[int, ...]:
    if feature not in pc.features or pc.resources.get(feature, 0) <= 0:
        return ()
    budget = pc.resources.get(f"{feature}_levels", (pc.level + 1) // 2)
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
            raise ValueError(f"{feature}: slots {chosen} exceed {budget} levels or include 6th+")
        for lv in chosen:
            if expended.get(lv, 0) <= 0:
                raise ValueError(f"{feature}: no expended level-{lv} slot")
            expended[lv] -= 1
    if not chosen:
        return ()
    for lv in chosen:
        slots[lv - 1] += 1
    pc.resources["slots"] = tuple(slots)
    pc.resources[feature] = 0
    return tuple(chosen)


# what a short rest gives back (SRD: "regain ... when you finish a short or long rest")
SHORT_REST = ("channel_divinity", "action_surge", "ki", "wild_shape")


def short_rest(pc: Combatant) -> None:
    """What a short rest restores here: Channel Divinity, Second Wind, Action Surge, ki, Wild Shape,
    Pact Magic slots, Bardic Inspiration (Font of Inspiration, 5+), Stroke of Luck, Dark One's Own
    Luck, 4 sorcery points (Sorcerous Restoration). Arcane Recovery is a choice: call
    :func:`arcane_recovery`."""
    r = pc.resources
    for k in SHORT_REST:
        if f"{k}_max" in r:
            r[k] = r[f"{k}_max"]
    if "second_wind" in pc.features:
        r["second_wind"] = 1
    if "pact_magic" in pc.features and r.get("pact_magic_only"):
        r["slots"] = r["slots_max"]
    elif "pact_slots_max" in r:
        r["pact_slots"] = r["pact_slots_max"]
    if "font_of_inspiration" in pc.features:
        r["bardic_inspiration"] = r["bardic_inspiration_max"]
    for k in ("stroke_of_luck", "dark_ones_own_luck"):
        if k in pc.features:
            r[k] = 1
    if "sorcerous_restoration" in pc.features:
        r["sorcery_points"] = min(r["sorcery_points_max"], r["sorcery_points"] + 4)
    if "signature" in r:   # Signature Spell (dnd/classes/wizard.py)
        _subclass_short_rest(pc)


def long_rest(pc: Combatant) -> None:
    """SRD long rest: all hit points, every spell slot and every use back (each ``<name>_max`` in
    the resources), one level of exhaustion less, death saves cleared; potions are not restored."""
    r = pc.resources
    revert(None, pc)   # out of a Wild Shape form
    short_rest(pc)
    for k in [k for k in r if k.endswith("_max")]:
        r[k[:-4]] = dict(r[k]) if isinstance(r[k], dict) else r[k]   # (Mystic Arcanum's uses: a copy)
    for k in ("arcane_recovery", "natural_recovery", "wholeness_of_body"):
        if k in r:
            r[k] = 1
    if "base_max_hp" in r and pc.exhaustion <= 4:
        pc.max_hp = r.pop("base_max_hp")
    level = pc.exhaustion
    if level > 1:
        pc.conditions["exhaustion"] = {"level": level - 1}
    else:
        pc.conditions.pop("exhaustion", None)
    if "base_max_hp" in r and level - 1 < 4:
        pc.max_hp = r.pop("base_max_hp")
    pc.hp, pc.temp_hp = pc.max_hp, 0
    pc.death_successes = pc.death_failures = 0
    pc.stable = False
    for k in ("raging", "frenzied", "sacred_weapon", "inspired"):
        pc.conditions.pop(k, None)
    r.pop("natures_sanctuary_immune", None)   # its 24 hours are over by the next long rest


register_pc_builder(build_pc)   # Simulacrum builds a PC through model.factories
