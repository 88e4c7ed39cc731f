"""SRD 5.1 content as frozen specs: monsters, spells, equipment, classes, conditions.

The JSON under ``data/`` is written by :mod:`.convert` from the 5e-database (facts only) plus
``overlay.json`` (our own mechanics for traits the SRD gives as prose). Everything is read once,
through ``importlib.resources``, and cached::

    from dungeonbench_gym.dnd import content
    goblin = content.monster("goblin")
    goblin.action("scimitar").damage[0].dice        # "1d6+2"
    content.spell("fireball").damage_for(slot_level=5)  # "10d6"

Conventions: distances in feet; durations in rounds (1 minute = 10 rounds); ability keys are
"str", "dex", "con", "int", "wis", "cha"; damage and condition names are SRD index keys.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from types import MappingProxyType
from typing import Any

__all__ = [
    "ActionRef",
    "ActionSpec",
    "AreaSpec",
    "ArmorSpec",
    "AttackSpec",
    "CheckSpec",
    "ChoiceSpec",
    "ClassLevelSpec",
    "ClassSpec",
    "ConditionSpec",
    "DamageModSpec",
    "DamageSpec",
    "FeatureRef",
    "GrappleSpec",
    "HealSpec",
    "MonsterSpec",
    "MonsterSpellSpec",
    "MoveSpec",
    "MultiattackSpec",
    "ParrySpec",
    "PotionSpec",
    "SaveActionSpec",
    "SaveEffectSpec",
    "ShieldSpec",
    "SpeedSpec",
    "SpellSpec",
    "SpellcastingSpec",
    "SubclassSpec",
    "TeleportSpec",
    "TraitSpec",
    "UsageSpec",
    "UseActionSpec",
    "WeaponSpec",
    "armor",
    "armors",
    "class_spec",
    "classes",
    "conditions",
    "load_json",
    "monster",
    "monsters",
    "overlay",
    "potions",
    "shields",
    "spell",
    "spells",
    "weapon",
    "weapons",
]

ABILITIES = ("str", "dex", "con", "int", "wis", "cha")
_EMPTY: Mapping[str, Any] = MappingProxyType({})


def _frozen(d: Mapping | None) -> Mapping:
    return MappingProxyType(dict(d)) if d else _EMPTY


# ---------------------------------------------------------------- small parts

@dataclass(frozen=True, slots=True)
class DamageSpec:
    dice: str
    type: str
    type_choices: tuple[str, ...] = ()  # "lightning or thunder damage (its choice)"

    @classmethod
    def of(cls, d: Mapping) -> DamageSpec:
        return cls(d["dice"], d["type"], tuple(d.get("type_choices", ())))


def _damages(items) -> tuple[DamageSpec, ...]:
    return tuple(DamageSpec.of(d) for d in items or ())


@dataclass(frozen=True, slots=True)
class UsageSpec:
    type: str                       # "recharge", "per_day", "per_rest", "at_will"
    times: int | None = None        # per_day
    min_roll: int | None = None     # recharge: available again on die >= min_roll
    die: str | None = None          # recharge die, "1d6"
    rests: tuple[str, ...] = ()     # per_rest: "short", "long"

    @classmethod
    def of(cls, d: Mapping | None) -> UsageSpec | None:
        if not d:
            return None
        return cls(d["type"], d.get("times"), d.get("min_roll"), d.get("die"), tuple(d.get("rests", ())))


@dataclass(frozen=True, slots=True)
class AreaSpec:
    shape: str                  # cone, line, sphere, cube, cylinder, emanation (around self), own_space
    size: int                   # length (cone, line), radius (sphere, emanation, cylinder), edge (cube)
    width: int | None = None    # lines
    height: int | None = None   # cylinders

    @classmethod
    def of(cls, d: Mapping | None) -> AreaSpec | None:
        if not d:
            return None
        return cls(d.get("shape") or d["type"], d["size"], d.get("width"), d.get("height"))


@dataclass(frozen=True, slots=True)
class SaveEffectSpec:
    ability: str
    dc: int
    damage: tuple[DamageSpec, ...] = ()
    half_on_success: bool = False
    conditions: tuple[str, ...] = ()    # applied on a failed save
    rounds: int | None = None           # condition duration
    until: str | None = None            # "end_of_target_next_turn" / "end_of_source_next_turn"
    repeat_save: str | None = None      # "end_of_turn"
    immune_on_success: bool = False
    ability_choices: tuple[str, ...] = ()  # the target picks one of these abilities
    size_max: str | None = None
    exempt_types: tuple[str, ...] = ()

    @classmethod
    def of(cls, d: Mapping) -> SaveEffectSpec:
        return cls(d["ability"], d["dc"], _damages(d.get("damage")), d.get("half_on_success", False),
                   tuple(d.get("conditions", ())), d.get("rounds"), d.get("until"),
                   d.get("repeat_save"), d.get("immune_on_success", False),
                   tuple(d.get("ability_choices", ())), d.get("size_max"),
                   tuple(d.get("exempt_types", ())))


@dataclass(frozen=True, slots=True)
class GrappleSpec:
    escape_dc: int
    size_max: str | None = None
    restrained: bool = False


# ---------------------------------------------------------------- actions

@dataclass(frozen=True, kw_only=True)
class ActionSpec:
    """Common part of every monster action, legendary action and reaction. ``executable`` is
    False (with ``reason``) when the stat block gives nothing the engine can run; ``partial``
    marks a runnable record whose stat block says more than the record captures."""

    key: str
    name: str
    kind: str
    executable: bool
    usage: UsageSpec | None = None
    partial: bool = False
    forms: tuple[str, ...] = ()     # only usable in these shapes ("oni", "fiend", ...)
    cost: int = 1                   # legendary action cost
    reason: str | None = None


@dataclass(frozen=True, kw_only=True)
class AttackSpec(ActionSpec):
    attack_type: str                # melee_weapon, ranged_weapon, melee_or_ranged_weapon, melee_spell, ranged_spell
    bonus: int
    reach: int | None = None
    range_normal: int | None = None
    range_long: int | None = None
    targets: int = 1
    damage: tuple[DamageSpec, ...] = ()
    alt_damage: tuple[tuple[str, tuple[DamageSpec, ...]], ...] = ()  # (when, damage): two_handed, ranged, ...
    on_hit_saves: tuple[SaveEffectSpec, ...] = ()
    on_hit_grapple: GrappleSpec | None = None
    on_hit_conditions: tuple[str, ...] = ()
    on_hit_escape_check: Mapping | None = None   # {"ability": "str", "dc": 12}
    creatures_only: bool = False
    target_restriction: Mapping = field(default_factory=lambda: _EMPTY)

    @property
    def is_melee(self) -> bool:
        return self.attack_type.startswith("melee")

    @property
    def is_ranged(self) -> bool:
        return "ranged" in self.attack_type

    @property
    def is_spell(self) -> bool:
        return self.attack_type.endswith("_spell")


@dataclass(frozen=True, kw_only=True)
class SaveActionSpec(ActionSpec):
    save: SaveEffectSpec
    area: AreaSpec | None = None
    range: int | None = None            # to the area's point, or to the single target
    targets: int | None = None          # None with target_filter: every qualifying creature
    target_filter: str | None = None    # "grappled_by_self"
    chosen_creatures: bool = False      # the creature picks who in the area is affected
    exempt_types: tuple[str, ...] = ()
    then_move: Mapping | None = None    # {"mode": "fly", "fraction": 0.5}
    requires_no_grapple: bool = False


@dataclass(frozen=True, kw_only=True)
class HealSpec(ActionSpec):
    dice: str
    range: int = 0
    targets: int = 0
    self_only: bool = False


@dataclass(frozen=True, kw_only=True)
class TeleportSpec(ActionSpec):
    distance: int


@dataclass(frozen=True, kw_only=True)
class ParrySpec(ActionSpec):
    ac_bonus: int
    trigger: str
    requires: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ActionRef:
    action: str | None          # key of the action; None if the stat block names none we know
    count: int | None = 1       # None: see count_from
    count_from: str | None = None   # "heads" (the Hydra)
    mode: str | None = None     # "melee" / "ranged" for melee-or-ranged weapons
    name: str | None = None     # the unresolved name, when action is None


@dataclass(frozen=True, kw_only=True)
class MultiattackSpec(ActionSpec):
    alternatives: tuple[tuple[ActionRef, ...], ...]
    alternatives_executable: tuple[bool, ...] = ()
    skipped: tuple[str, ...] = ()   # steps left out when running an alternative


@dataclass(frozen=True, kw_only=True)
class ChoiceSpec(ActionSpec):
    options: tuple[ActionSpec, ...]


@dataclass(frozen=True, kw_only=True)
class UseActionSpec(ActionSpec):
    actions: tuple[str, ...]        # any one of these actions (legendary "makes one tail attack")


@dataclass(frozen=True, kw_only=True)
class MoveSpec(ActionSpec):
    fraction: float
    provokes_opportunity_attacks: bool = True


@dataclass(frozen=True, kw_only=True)
class CheckSpec(ActionSpec):
    ability: str
    skill: str


def _base(d: Mapping) -> dict:
    return {"key": d["key"], "name": d["name"], "kind": d.get("kind", "other"),
            "executable": bool(d.get("executable")), "usage": UsageSpec.of(d.get("usage")),
            "partial": bool(d.get("partial")), "forms": tuple(d.get("forms", ())),
            "cost": d.get("cost", 1), "reason": d.get("reason")}


def _action(d: Mapping) -> ActionSpec:
    b, kind = _base(d), d.get("kind")
    if not b["executable"] and kind != "multiattack":
        return ActionSpec(**b)
    if kind == "attack":
        rng = d.get("range") or (None, None)
        grapple = d.get("on_hit_grapple")
        return AttackSpec(**b, attack_type=d["attack_type"], bonus=d["bonus"], reach=d.get("reach"),
                          range_normal=rng[0], range_long=rng[1], targets=d.get("targets", 1),
                          damage=_damages(d.get("damage")),
                          alt_damage=tuple((a["when"], _damages(a["damage"])) for a in d.get("alt_damage", ())),
                          on_hit_saves=tuple(SaveEffectSpec.of(s) for s in d.get("on_hit_saves", ())),
                          on_hit_grapple=GrappleSpec(**grapple) if grapple else None,
                          on_hit_conditions=tuple(d.get("on_hit_conditions", ())),
                          on_hit_escape_check=_frozen(d.get("on_hit_escape_check")) or None,
                          creatures_only=d.get("creatures_only", False),
                          target_restriction=_frozen(d.get("target_restriction")))
    if kind == "save":
        return SaveActionSpec(**b, save=SaveEffectSpec.of(d["save"]), area=AreaSpec.of(d.get("area")),
                              range=d.get("range"), targets=d.get("targets"),
                              target_filter=d.get("target_filter"),
                              chosen_creatures=d.get("chosen_creatures", False),
                              exempt_types=tuple(d.get("exempt_types", ())),
                              then_move=_frozen(d.get("then_move")) or None,
                              requires_no_grapple=d.get("requires_no_grapple", False))
    if kind == "heal":
        return HealSpec(**b, dice=d["dice"], range=d["range"], targets=d["targets"], self_only=d["self"])
    if kind == "teleport":
        return TeleportSpec(**b, distance=d["distance"])
    if kind == "parry":
        return ParrySpec(**b, ac_bonus=d["ac_bonus"], trigger=d["trigger"], requires=tuple(d["requires"]))
    if kind == "multiattack":
        return MultiattackSpec(**b, alternatives=tuple(
            tuple(ActionRef(r["action"], r.get("count", 1), r.get("count_from"), r.get("mode"), r.get("name"))
                  for r in alt) for alt in d["alternatives"]),
            alternatives_executable=tuple(d.get("alternatives_executable", ())),
            skipped=tuple(d.get("skipped", ())))
    if kind == "choice":
        return ChoiceSpec(**b, options=tuple(_action(o) for o in d["options"]))
    if kind == "use_action":
        return UseActionSpec(**b, actions=tuple(d["actions"]))
    if kind == "move":
        return MoveSpec(**b, fraction=d["fraction"],
                        provokes_opportunity_attacks=d["provokes_opportunity_attacks"])
    if kind == "check":
        return CheckSpec(**b, ability=d["ability"], skill=d["skill"])
    raise ValueError(f"action {d['key']!r}: unknown kind {kind!r}")


# ---------------------------------------------------------------- monsters

@dataclass(frozen=True, slots=True)
class TraitSpec:
    key: str
    name: str
    usage: UsageSpec | None = None
    save: Mapping | None = None
    damage: tuple[DamageSpec, ...] = ()
    params: Mapping = field(default_factory=lambda: _EMPTY)  # numbers from the stat block
    per_turn: int | None = None
    effect: Mapping | None = None   # the overlay entry, when we model this trait
    executable: bool = False


@dataclass(frozen=True, slots=True)
class MonsterSpellSpec:
    spell: str
    level: int
    usage: UsageSpec | None = None


@dataclass(frozen=True, slots=True)
class SpellcastingSpec:
    key: str                    # "spellcasting" or "innate-spellcasting"
    ability: str
    dc: int | None
    attack_bonus: int | None
    caster_level: int | None
    caster_class: str | None
    slots: Mapping[int, int]
    spells: tuple[MonsterSpellSpec, ...]
    components_required: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DamageModSpec:
    type: str                       # damage type key, or "all" (with from_spells_only)
    nonmagical_only: bool = False
    magical_only: bool = False
    except_material: str | None = None  # "silvered", "adamantine"
    from_spells_only: bool = False
    wielder_alignment: str | None = None


@dataclass(frozen=True, slots=True)
class SpeedSpec:
    walk: int = 0
    fly: int = 0
    swim: int = 0
    climb: int = 0
    burrow: int = 0
    hover: bool = False


@dataclass(frozen=True)
class MonsterSpec:
    key: str
    name: str
    size: str
    type: str
    subtype: str | None
    alignment: str
    ac: int
    ac_source: str
    armor: tuple[str, ...]
    ac_alternatives: tuple[Mapping, ...]   # {"value": 15, "spell": "mage-armor"} / {"condition": "prone"}
    hp: int
    hit_dice: str
    hp_roll: str
    speed: SpeedSpec
    abilities: Mapping[str, int]
    saving_throws: Mapping[str, int]        # proficient saves only; others use the modifier
    skills: Mapping[str, int]
    proficiency_bonus: int
    challenge_rating: float
    xp: int
    vulnerabilities: tuple[DamageModSpec, ...]
    resistances: tuple[DamageModSpec, ...]
    immunities: tuple[DamageModSpec, ...]
    condition_immunities: frozenset[str]
    senses: Mapping[str, Any]
    actions: tuple[ActionSpec, ...]
    legendary_actions: tuple[ActionSpec, ...]
    legendary_actions_per_round: int
    reactions: tuple[ActionSpec, ...]
    traits: tuple[TraitSpec, ...]
    spellcasting: tuple[SpellcastingSpec, ...]
    forms: tuple[str, ...]

    def ability_mod(self, ability: str) -> int:
        return (self.abilities[ability] - 10) // 2

    def save_bonus(self, ability: str) -> int:
        return self.saving_throws.get(ability, self.ability_mod(ability))

    def action(self, key: str) -> ActionSpec:
        for a in self.actions:
            if a.key == key:
                return a
        raise KeyError(f"{self.key} has no action {key!r}; it has {[a.key for a in self.actions]}")

    def legendary(self, key: str) -> ActionSpec:
        for a in self.legendary_actions:
            if a.key == key:
                return a
        raise KeyError(f"{self.key} has no legendary action {key!r}")

    @functools.cached_property
    def _traits_by_key(self) -> dict:
        """(building a combatant asks dozens of trait lookups)"""
        index: dict = {}
        for t in self.traits:
            index.setdefault(t.key, t)   # the first of a key, as a scan would find
        return index

    def trait(self, key: str) -> TraitSpec | None:
        return self._traits_by_key.get(key)

    @property
    def all_actions(self) -> tuple[ActionSpec, ...]:
        return self.actions + self.legendary_actions + self.reactions

    @property
    def executable_actions(self) -> tuple[ActionSpec, ...]:
        return tuple(a for a in self.actions if a.executable)


def _trait(d: Mapping, effects: Mapping) -> TraitSpec:
    effect = effects.get(d["key"])
    params = d.get("params", {})
    ok = effect is not None and all(params.get(p) not in (None, [], "") for p in effect.get("requires", ()))
    return TraitSpec(d["key"], d["name"], UsageSpec.of(d.get("usage")), _frozen(d.get("save")) or None,
                     _damages(d.get("damage")), _frozen(params), d.get("per_turn"),
                     _frozen(effect) if effect else None, ok)


def _spellcasting(d: Mapping) -> SpellcastingSpec:
    return SpellcastingSpec(
        d["key"], d["ability"], d.get("dc"), d.get("attack_bonus"), d.get("caster_level"), d.get("class"),
        MappingProxyType({int(k): v for k, v in d.get("slots", {}).items()}),
        tuple(MonsterSpellSpec(s["spell"], s["level"], UsageSpec.of(s.get("usage"))) for s in d["spells"]),
        tuple(d.get("components_required", ())))


def _monster(d: Mapping, effects: Mapping) -> MonsterSpec:
    ac = d["armor_class"]
    return MonsterSpec(
        key=d["key"], name=d["name"], size=d["size"], type=d["type"], subtype=d.get("subtype"),
        alignment=d["alignment"], ac=ac["value"], ac_source=ac["source"], armor=tuple(ac.get("armor", ())),
        ac_alternatives=tuple(_frozen(a) for a in ac.get("alternatives", ())),
        hp=d["hit_points"], hit_dice=d["hit_dice"], hp_roll=d["hit_points_roll"],
        speed=SpeedSpec(**d["speed"]), abilities=_frozen(d["abilities"]),
        saving_throws=_frozen(d["saving_throws"]), skills=_frozen(d["skills"]),
        proficiency_bonus=d["proficiency_bonus"], challenge_rating=d["challenge_rating"], xp=d["xp"],
        vulnerabilities=tuple(DamageModSpec(**m) for m in d["damage_vulnerabilities"]),
        resistances=tuple(DamageModSpec(**m) for m in d["damage_resistances"]),
        immunities=tuple(DamageModSpec(**m) for m in d["damage_immunities"]),
        condition_immunities=frozenset(d["condition_immunities"]), senses=_frozen(d["senses"]),
        actions=tuple(_action(a) for a in d["actions"]),
        legendary_actions=tuple(_action(a) for a in d["legendary_actions"]),
        legendary_actions_per_round=d["legendary_actions_per_round"],
        reactions=tuple(_action(a) for a in d["reactions"]),
        traits=tuple(_trait(t, effects) for t in d["traits"]),
        spellcasting=tuple(_spellcasting(s) for s in d["spellcasting"]),
        forms=tuple(d.get("forms", ())))


# ---------------------------------------------------------------- spells

@dataclass(frozen=True)
class SpellSpec:
    key: str
    name: str
    level: int
    school: str
    casting_time: str               # action, bonus_action, reaction, minute, hour
    casting_amount: int
    range_kind: str                 # feet, self, touch, sight, special, unlimited
    range_feet: int | None
    verbal: bool
    somatic: bool
    material: bool
    material_cost_gp: int | None
    material_consumed: bool
    duration_kind: str              # instantaneous, rounds, minutes, hours, days, until_dispelled, special
    duration_rounds: int | None
    concentration: bool
    ritual: bool
    classes: frozenset[str]
    subclasses: frozenset[str]
    attack_type: str | None         # melee / ranged spell attack
    save_ability: str | None
    save_success: str | None        # half, none, other
    damage_type: str | None
    damage_at_slot_level: Mapping[int, str]
    damage_at_character_level: Mapping[int, str]
    damage_adds_modifier: bool
    heal_at_slot_level: Mapping[int, str]
    heal_adds_modifier: bool
    area: AreaSpec | None

    def damage_for(self, slot_level: int | None = None, character_level: int | None = None) -> str | None:
        """Damage dice at a slot level (upcasting) or, for cantrips, at a character level."""
        if self.damage_at_character_level:
            lvl = character_level or 1
            return self.damage_at_character_level[max(k for k in self.damage_at_character_level if k <= lvl)]
        return _at_slot(self.damage_at_slot_level, slot_level or self.level)

    def heal_for(self, slot_level: int | None = None) -> str | None:
        return _at_slot(self.heal_at_slot_level, slot_level or self.level)


def _at_slot(table: Mapping | None, slot: int) -> str | None:
    """A per-slot table's entry for a slot level: a spell without "At Higher Levels" lists its own
    level only, and cast with a higher slot it does just that (SRD Casting a Spell at a Higher Level)."""
    if not table:
        return None
    below = [lv for lv in table if lv <= slot]
    return table[max(below)] if below else None


def _spell(d: Mapping) -> SpellSpec:
    dmg, comps, dur = d.get("damage", {}), d["components"], d["duration"]
    save = d.get("save") or {}
    return SpellSpec(
        key=d["key"], name=d["name"], level=d["level"], school=d["school"],
        casting_time=d["casting_time"]["unit"], casting_amount=d["casting_time"]["amount"],
        range_kind=d["range"]["kind"], range_feet=d["range"].get("feet"),
        verbal=comps["v"], somatic=comps["s"], material=comps["m"],
        material_cost_gp=comps.get("material_cost_gp"), material_consumed=comps.get("material_consumed", False),
        duration_kind=dur["kind"], duration_rounds=dur.get("rounds"),
        concentration=d["concentration"], ritual=d["ritual"],
        classes=frozenset(d["classes"]), subclasses=frozenset(d["subclasses"]),
        attack_type=d.get("attack_type"), save_ability=save.get("ability"), save_success=save.get("on_success"),
        damage_type=dmg.get("type"),
        damage_at_slot_level=MappingProxyType({int(k): v for k, v in dmg.get("at_slot_level", {}).items()}),
        damage_at_character_level=MappingProxyType(
            {int(k): v for k, v in dmg.get("at_character_level", {}).items()}),
        damage_adds_modifier=dmg.get("adds_modifier", False),
        heal_at_slot_level=MappingProxyType({int(k): v for k, v in d.get("heal_at_slot_level", {}).items()}),
        heal_adds_modifier=d.get("heal_adds_modifier", False),
        area=AreaSpec.of(d.get("area")))


# ---------------------------------------------------------------- equipment

@dataclass(frozen=True, slots=True)
class WeaponSpec:
    key: str
    name: str
    category: str                   # simple / martial
    range_type: str                 # melee / ranged
    damage: DamageSpec | None       # None: the Net
    two_handed_damage: DamageSpec | None
    range_normal: int
    range_long: int
    throw_range: tuple[int, int] | None
    properties: frozenset[str]      # finesse, light, heavy, reach, thrown, ammunition, versatile, two-handed, loading, special, monk
    weight: float
    cost_gp: float | None

    def has(self, prop: str) -> bool:
        return prop in self.properties

    @property
    def reach(self) -> int:
        return 10 if "reach" in self.properties else 5


@dataclass(frozen=True, slots=True)
class ArmorSpec:
    key: str
    name: str
    category: str                   # light, medium, heavy
    base_ac: int
    dex_bonus: bool
    max_dex_bonus: int | None
    str_minimum: int
    stealth_disadvantage: bool
    weight: float
    cost_gp: float | None

    def ac(self, dex_mod: int) -> int:
        if not self.dex_bonus:
            return self.base_ac
        return self.base_ac + (dex_mod if self.max_dex_bonus is None else min(dex_mod, self.max_dex_bonus))


@dataclass(frozen=True, slots=True)
class ShieldSpec:
    key: str
    name: str
    ac_bonus: int
    weight: float
    cost_gp: float | None


@dataclass(frozen=True, slots=True)
class PotionSpec:
    key: str
    name: str
    rarity: str
    heal: str


# ---------------------------------------------------------------- classes

@dataclass(frozen=True, slots=True)
class FeatureRef:
    key: str
    name: str


@dataclass(frozen=True)
class ClassLevelSpec:
    level: int
    proficiency_bonus: int
    ability_score_improvements_total: int
    features: tuple[FeatureRef, ...]
    cantrips_known: int
    spells_known: int | None
    slots: tuple[int, ...]          # slots[i] = slots of level i+1
    counters: Mapping[str, Any]     # action_surges, sneak_attack "3d6", channel_divinity_charges, ...


@dataclass(frozen=True)
class SubclassSpec:
    key: str
    name: str
    levels: tuple[tuple[int, tuple[FeatureRef, ...], Mapping[str, Any]], ...]


@dataclass(frozen=True)
class ClassSpec:
    key: str
    name: str
    hit_die: int
    saving_throws: tuple[str, ...]
    proficiencies: frozenset[str]
    spellcasting_ability: str | None
    spellcasting_from_level: int | None
    levels: tuple[ClassLevelSpec, ...]
    subclasses: Mapping[str, SubclassSpec]
    feature_choices: Mapping[str, tuple[str, ...]]

    def level(self, n: int) -> ClassLevelSpec:
        return self.levels[n - 1]

    def features_up_to(self, n: int) -> tuple[FeatureRef, ...]:
        return tuple(f for lv in self.levels[:n] for f in lv.features)


def _feats(items) -> tuple[FeatureRef, ...]:
    return tuple(FeatureRef(f["key"], f["name"]) for f in items)


def _class(d: Mapping) -> ClassSpec:
    levels = []
    for lv in d["levels"]:
        sc = lv.get("spellcasting") or {}
        levels.append(ClassLevelSpec(lv["level"], lv["proficiency_bonus"], lv["ability_score_improvements_total"],
                                     _feats(lv["features"]), sc.get("cantrips_known", 0), sc.get("spells_known"),
                                     tuple(sc.get("slots", (0,) * 9)), _frozen(lv.get("counters"))))
    subs = {k: SubclassSpec(k, s["name"], tuple((lv["level"], _feats(lv["features"]), _frozen(lv.get("counters")))
                                               for lv in s["levels"]))
            for k, s in d["subclasses"].items()}
    sc = d.get("spellcasting") or {}
    return ClassSpec(d["key"], d["name"], d["hit_die"], tuple(d["saving_throws"]), frozenset(d["proficiencies"]),
                     sc.get("ability"), sc.get("from_level"), tuple(levels), MappingProxyType(subs),
                     MappingProxyType({k: tuple(v) for k, v in d["feature_choices"].items()}))


@dataclass(frozen=True, slots=True)
class ConditionSpec:
    key: str
    name: str


# ---------------------------------------------------------------- loading

@functools.cache
def load_json(name: str) -> Any:
    """The raw JSON of ``data/<name>.json`` (parsed once)."""
    return json.loads(resources.files(__name__).joinpath("data", f"{name}.json").read_text(encoding="utf-8"))


def _lookup(table: Mapping, key: str, what: str):
    try:
        return table[key]
    except KeyError:
        import difflib
        close = difflib.get_close_matches(key, list(table), n=3)
        raise KeyError(f"no {what} {key!r}" + (f"; did you mean {close}?" if close else "")) from None


@functools.cache
def overlay() -> Mapping[str, Mapping]:
    return MappingProxyType(load_json("overlay")["traits"])


@functools.cache
def monsters() -> Mapping[str, MonsterSpec]:
    effects = overlay()
    return MappingProxyType({k: _monster(v, effects) for k, v in load_json("monsters").items()})


def monster(key: str) -> MonsterSpec:
    return _lookup(monsters(), key, "monster")


@functools.cache
def spells() -> Mapping[str, SpellSpec]:
    return MappingProxyType({k: _spell(v) for k, v in load_json("spells").items()})


def spell(key: str) -> SpellSpec:
    return _lookup(spells(), key, "spell")


@functools.cache
def weapons() -> Mapping[str, WeaponSpec]:
    out = {}
    for k, w in load_json("equipment")["weapons"].items():
        out[k] = WeaponSpec(
            k, w["name"], w["category"], w["range_type"],
            DamageSpec.of(w["damage"]) if w["damage"] else None,
            DamageSpec.of(w["two_handed_damage"]) if w.get("two_handed_damage") else None,
            w["range"][0], w["range"][1], tuple(w["throw_range"]) if w.get("throw_range") else None,
            frozenset(w["properties"]), w["weight"], w["cost_gp"])
    return MappingProxyType(out)


def weapon(key: str) -> WeaponSpec:
    return _lookup(weapons(), key, "weapon")


@functools.cache
def armors() -> Mapping[str, ArmorSpec]:
    return MappingProxyType({k: ArmorSpec(**a) for k, a in load_json("equipment")["armor"].items()})


def armor(key: str) -> ArmorSpec:
    return _lookup(armors(), key, "armor")


@functools.cache
def shields() -> Mapping[str, ShieldSpec]:
    return MappingProxyType({k: ShieldSpec(**s) for k, s in load_json("equipment")["shields"].items()})


@functools.cache
def potions() -> Mapping[str, PotionSpec]:
    return MappingProxyType({k: PotionSpec(**p) for k, p in load_json("equipment")["potions"].items()})


@functools.cache
def classes() -> Mapping[str, ClassSpec]:
    return MappingProxyType({k: _class(v) for k, v in load_json("classes").items()})


def class_spec(key: str) -> ClassSpec:
    return _lookup(classes(), key, "class")


@functools.cache
def conditions() -> Mapping[str, ConditionSpec]:
    return MappingProxyType({k: ConditionSpec(**v) for k, v in load_json("conditions").items()})
