"""The tactical state of a battle: combatants and their turn economy, as plain picklable data.

A :class:`Combatant` holds only plain values (ints, strings, tuples, dicts): content specs are
looked up by key when needed, because the specs' mapping proxies cannot be pickled and an env
must survive pickling and process boundaries. Attacks are compiled once, at build time (:mod:`.builders`),
into :class:`AttackProfile` tuples (to-hit, damage, reach, range) for PCs and monsters alike, so the
engine resolves every attack the same way.

Conventions: positions are ``(x, y, z)`` anchors as in :mod:`.grid`; ``side`` is "party" or
"enemies"; conditions are SRD keys ("prone", "grappled", "restrained", "unconscious") mapped to a
small dict of details (who grapples, the escape DC).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from . import content
from .dice import parse
from .grid import SIZE_SQUARES, footprint

SIZES = ("tiny", "small", "medium", "large", "huge", "gargantuan")   # smallest first

ABILITIES = ("str", "dex", "con", "int", "wis", "cha")
INCAPACITATING = ("incapacitated", "paralyzed", "petrified", "stunned", "unconscious")
METAL_ARMOR = frozenset({"ring-mail", "chain-shirt", "scale-mail", "breastplate", "half-plate", "chain-mail",
                         "splint-armor", "splint", "plate-armor", "plate"})
SIDES = ("party", "enemies")


def ability_mod(score: int) -> int:
    return (score - 10) // 2


class DamagePart(NamedTuple):
    dice: str
    type: str


class AttackProfile(NamedTuple):
    """One way to attack, ready to roll: the bonus, the damage, reach (melee) or range (ranged)."""

    key: str                  # "longsword", "bite", "fire-bolt"
    name: str
    to_hit: int
    damage: tuple             # DamagePart, ...
    melee: bool
    reach: int                # feet (melee)
    range_normal: int         # feet (ranged); 0 for melee
    range_long: int
    finesse: bool = False     # sneak attack needs finesse or ranged
    spell: bool = False       # magical: resistances to nonmagical attacks do not apply
    on_hit: tuple = ()        # ("save", ability, dc, conditions, damage tuple) / ("grapple", dc, size_max, restrained)
    offhand: tuple = ()       # a light melee weapon's off-hand damage (no ability modifier); () if none
    heavy: bool = False       # SRD heavy: Small creatures attack with it at disadvantage
    ammo: str = ""            # SRD ammunition: the resources key counting what is left ("ammo_shortbow")
    loading: bool = False     # SRD loading: one attack with it per action, bonus action or reaction

    def damage_text(self) -> str:
        return " + ".join(f"{p.dice} {p.type}" for p in self.damage)

    def short(self) -> str:
        return f"{self.to_hit:+d}, " + "+".join(p.dice for p in self.damage)


@dataclass
class Economy:
    """What a creature may still do this turn (SRD "Your Turn")."""

    movement: int = 0          # feet left
    actions: int = 1           # Action Surge adds one
    bonus: bool = True
    reaction: bool = True
    object_use: bool = True    # the one free object interaction
    attacks_left: int = 0      # attacks left in an Attack action already taken (Extra Attack)
    attack_queue: tuple = ()   # a monster's remaining multiattack steps (attack keys)
    moved: int = 0             # feet moved this turn
    disengaged: bool = False
    sneak_used: int = -1       # the battle's turn (Battle.turn_mark) Sneak Attack / Martial Advantage was last added in
    surged: bool = False
    bonus_spell: bool = False            # a bonus-action spell was cast: only action cantrips now
    levelled_action_spell: bool = False  # a levelled action spell was cast: no bonus-action spell
    light_attack: str | None = None      # the light melee weapon attacked with (two-weapon fighting)
    loading_fired: bool = False          # a loading weapon was fired in the current Attack action
    extra: dict = field(default_factory=dict)   # class features' per-turn state (dnd/classes/)


@dataclass
class Combatant:
    cid: str
    name: str
    side: str
    kind: str                  # "monster" or "pc"
    size: str
    ac: int
    max_hp: int
    hp: int
    pos: tuple
    speed: int
    abilities: dict
    saves: dict                # ability -> total save bonus
    prof: int
    attacks: tuple             # AttackProfile, ...
    monster: str | None = None  # content key of a monster
    pc_class: str | None = None
    level: int = 0
    temp_hp: int = 0
    resist: tuple = ()          # (type, nonmagical_only)
    immune: tuple = ()
    vulnerable: tuple = ()
    condition_immunities: tuple = ()
    conditions: dict = field(default_factory=dict)
    resources: dict = field(default_factory=dict)   # second_wind, action_surge, potions, slots...
    features: tuple = ()        # "sneak_attack", "cunning_action", "extra_attack", ...
    spells: tuple = ()          # spell keys a PC can cast
    save_actions: tuple = ()    # monster save-based action keys
    multiattack: tuple = ()     # attack keys of one multiattack, in order
    recharge: dict = field(default_factory=dict)    # action key -> available now
    initiative: int = 0
    economy: Economy = field(default_factory=Economy)
    death_successes: int = 0
    death_failures: int = 0
    stable: bool = False
    dead: bool = False
    dodging: bool = False
    concentration: str | None = None
    style: str | None = None    # fighting style
    armored: bool = False
    metal_armor: bool = False   # Shocking Grasp has advantage against it
    fly: int = 0                # fly speed (feet); flyers move in 3D up to the battle's altitude cap
    hover: bool = False         # a hoverer does not fall when knocked prone or held
    creature_type: str = "humanoid"   # Hold Person, Sleep and Chill Touch care
    legendary: tuple = ()       # (key, cost, kind, payload): "attack" (attack key) or "heal" (dice)
    legendary_per_round: int = 0
    # SRD Squeezing into a Smaller Space: it stands where its whole space does not fit, so it takes
    # the space of a creature one size smaller, (n-1)x(n-1) squares at its anchor (dnd/grid.py);
    # disadvantage on its attack rolls and Dex saves, advantage to attacks against it. Set by the
    # engine as it moves (battle/movement.py), cleared where its space fits again.
    squeezing: bool = False

    # ----------------------------------------------------------------- derived
    @property
    def squares(self) -> int:
        """Squares on a side of the space it takes now (one fewer while squeezing)."""
        n = SIZE_SQUARES[self.size]
        return n - 1 if self.squeezing and n > 1 else n

    @property
    def cells(self) -> tuple:
        n = SIZE_SQUARES[self.size]
        return footprint(self.pos[0], self.pos[1], n - 1 if self.squeezing and n > 1 else n)

    @property
    def dex_mod(self) -> int:
        return ability_mod(self.abilities["dex"])

    def mod(self, ability: str) -> int:
        return ability_mod(self.abilities[ability])

    @property
    def alive(self) -> bool:
        return not self.dead

    @property
    def conscious(self) -> bool:
        return not self.dead and self.hp > 0

    @property
    def incapacitated(self) -> bool:
        # SRD: paralyzed, petrified, stunned and unconscious all include incapacitated
        return not self.conscious or any(k in self.conditions for k in INCAPACITATING)

    @property
    def exhaustion(self) -> int:
        return self.conditions.get("exhaustion", {}).get("level", 0)

    @property
    def is_pc(self) -> bool:
        return self.kind == "pc"

    @property
    def dying(self) -> bool:
        return self.is_pc and not self.dead and self.hp == 0 and not self.stable

    def has(self, condition: str) -> bool:
        return condition in self.conditions

    @property
    def melee_reach(self) -> int:
        reaches = [a.reach for a in self.attacks if a.melee]
        return max(reaches) if reaches else 0

    def attack(self, key: str) -> AttackProfile:
        for a in self.attacks:
            if a.key == key:
                return a
        raise KeyError(f"{self.cid} has no attack {key!r}; it has {[a.key for a in self.attacks]}")

    def to_dict(self) -> dict[str, Any]:
        e = self.economy
        return {
            "id": self.cid, "name": self.name, "side": self.side, "kind": self.kind,
            "monster": self.monster, "class": self.pc_class, "level": self.level,
            "size": self.size, "ac": self.ac, "hp": self.hp, "max_hp": self.max_hp,
            "temp_hp": self.temp_hp, "pos": list(self.pos), "speed": self.speed,
            "conditions": {k: dict(v) for k, v in sorted(self.conditions.items())}
            | ({"squeezing": {}} if self.squeezing else {}),   # shown with the conditions
            "resources": {k: (list(v) if isinstance(v, tuple) else v)
                          for k, v in sorted(self.resources.items())},
            "recharge": dict(sorted(self.recharge.items())),
            "attacks": [{"key": a.key, "to_hit": a.to_hit, "damage": a.damage_text(),
                         "melee": a.melee, "reach": a.reach, "range": [a.range_normal, a.range_long]}
                        for a in self.attacks],
            "spells": list(self.spells), "features": list(self.features),
            "initiative": self.initiative, "dead": self.dead, "stable": self.stable,
            "death_saves": {"successes": self.death_successes, "failures": self.death_failures},
            "dodging": self.dodging, "concentration": self.concentration,
            "economy": {"movement": e.movement, "actions": e.actions, "bonus": e.bonus,
                        "reaction": e.reaction, "attacks_left": e.attacks_left,
                        "attack_queue": list(e.attack_queue), "disengaged": e.disengaged},
        }


@functools.cache
def breath_rider(monster: str, key: str):
    """A metallic dragon's second breath (repulsion, slowing, weakening) as a cone save action
    built from our data (``monster_traits.json``); None when there is none."""
    d = content.load_json("monster_traits")["breath-weapons"].get(monster, {}).get(key)
    if d is None:
        return None
    cond = (d["condition"],) if "condition" in d else ()
    shape = "cone" if "cone" in d else "emanation"
    return content.SaveActionSpec(
        key=key, name=key.replace("-", " ").title(), kind="save", executable=True,
        usage=next((a.usage for a in content.monster(monster).actions if a.key == key), None),
        save=content.SaveEffectSpec(d["ability"], d["dc"], conditions=cond, rounds=10 if cond else None,
                                    repeat_save="end_of_turn" if cond else None),
        area=content.AreaSpec(shape, d[shape]), chosen_creatures=d.get("chosen_creatures", False))


def monster_action(c: Combatant, key: str):
    """The stat-block action ``key`` of a monster combatant (a breath of "Breath Weapons" and
    legendary save actions included; a breath rider from our data first)."""
    extra = breath_rider(c.monster, key)   # a save action from our data (a copper dragon's Slowing Breath)
    if extra is not None:
        return extra
    spec = content.monster(c.monster)
    for a in spec.actions + spec.legendary_actions:   # legendary save actions (a wing attack) too
        if a.key == key:
            return a
        if isinstance(a, content.ChoiceSpec):   # one breath of "Breath Weapons"
            for o in a.options:
                if o.key == key:
                    return breath_rider(c.monster, key) or o
    return spec.action(key)


def expected_damage(a: AttackProfile) -> float:
    """The average damage of one hit of ``a`` (its dice's averages and bonuses)."""
    return sum(parse(p.dice).average for p in a.damage)
