"""The D&D family's tools: the engine's look-ups (`dnd.lookup`) as function calls.

Every tool reads the battle in progress (``env.unwrapped.battle``) and changes nothing:
no dice are rolled, no state moves (tests compare ``battle.to_dict()`` before and after).
Creature arguments are ids as the observation shows them ("goblin_2"); an omitted
attacker / user / creature is the creature deciding now. Every string parameter has a
"maxLength" (`MAX_STRING_CHARS`), which grammar-constrained servers enforce.
"""

from __future__ import annotations

from typing import Any

from ..dnd import lookup
from ..dnd.areas import COMPASS
from .tools import Tool, ToolError, ToolSet

ABILITIES = ["str", "dex", "con", "int", "wis", "cha"]


def _id(battle, cid: str | None, what: str) -> str:
    """A creature id of this battle (the deciding creature when omitted)."""
    if cid is None:
        d = battle.decision
        if d is None:
            raise ToolError(f"give {what}: no creature is deciding now")
        return d.actor
    if cid not in battle.creatures:
        raise ToolError(f"no creature {cid!r} ({what}); creatures: {', '.join(sorted(battle.creatures))}")
    return cid


def attack_odds(battle, attack: str, target: str, attacker: str | None = None) -> dict:
    a = _id(battle, attacker, "attacker")
    t = _id(battle, target, "target")
    c = battle.creatures[a]
    keys = [x.key for x in c.attacks] + [s for s in c.spells if lookup.attack_profile_ok(s)]
    if attack not in keys:
        raise ToolError(f"{a} has no attack {attack!r}; its attacks and attack spells: {keys}")
    return lookup.attack_odds(battle, a, attack, t)


def save_odds(battle, target: str, ability: str, dc: int, magic: bool = False) -> dict:
    t = _id(battle, target, "target")
    return {"target": t, "ability": ability, "dc": dc, "magic": magic,
            "p_success": lookup.save_odds(battle, t, ability, dc, magic)}


def area_targets(battle, what: str, x: int | None = None, y: int | None = None,
                 direction: str | None = None, level: int | None = None, user: str | None = None) -> dict:
    u = _id(battle, user, "user")
    if direction is not None:
        where: Any = direction
    elif x is not None and y is not None:
        where = (x, y)
    else:
        raise ToolError("give x and y (a point, for spheres) or direction (cones and lines)")
    try:
        return lookup.area_effect(battle, u, what, where, level)
    except ValueError as error:
        raise ToolError(str(error)) from None


def routes(battle, x: int, y: int, creature: str | None = None) -> dict:
    c = _id(battle, creature, "creature")
    m = battle.map
    if not (0 <= x < m.width and 0 <= y < m.height):
        raise ToolError(f"({x}, {y}) is off the map ({m.width} x {m.height} squares)")
    found = lookup.routes(battle, c, (x, y))
    mover = battle.creatures[c]
    return {"creature": c, "destination": [x, y],
            "movement_left_ft": mover.economy.movement if battle.active is mover else mover.speed,
            "routes": found,
            "note": "no route within the movement left" if not found else
            "provokes: the creatures whose reach the route leaves (each may make an opportunity attack)"}


def creature(battle, name: str) -> dict:
    viewer = battle.decision.actor if battle.decision is not None else None
    return lookup.creature(battle, _id(battle, name, "name"), viewer)


def condition(battle, name: str) -> dict:
    return lookup.condition(name)


def spell(battle, name: str, caster: str | None = None) -> dict:
    level = 1
    if caster is not None or battle.decision is not None:
        level = battle.creatures[_id(battle, caster, "caster")].level or 1
    return lookup.spell(name.strip().lower().replace(" ", "-"), character_level=level)


def _schema(properties: dict, required: list[str]) -> dict:
    return {"type": "object", "properties": properties, "required": required}


# Every string argument is bounded: grammar-constrained servers (llama.cpp's with a
# function-calling chat format) otherwise let a small model write one string argument
# until the context ends, max_tokens or not (one ran 3,791 tokens). The longest id or key
# the game has is ~30 characters ("protection-from-evil-and-good", "goblin_12").
MAX_STRING_CHARS = 40
_STR = {"type": "string", "maxLength": MAX_STRING_CHARS}
_INT = {"type": "integer"}


def dnd_toolset() -> ToolSet:
    who = "creature id, e.g. goblin_2"
    tools = [
        Tool("attack_odds", "Exact chance to hit and to crit, and expected damage, of one attack "
             "now (cover, advantage and resistances included; Sneak Attack not).",
             _schema({"attack": {**_STR, "description": "attack key (e.g. longsword) or attack spell (fire-bolt)"},
                      "target": {**_STR, "description": who},
                      "attacker": {**_STR, "description": "default: the creature deciding now"}},
                     ["attack", "target"]), attack_odds),
        Tool("save_odds", "Chance that a creature succeeds on a saving throw of a given DC.",
             _schema({"target": {**_STR, "description": who},
                      "ability": {**_STR, "enum": ABILITIES}, "dc": _INT,
                      "magic": {"type": "boolean", "description": "against a spell (Magic Resistance)"}},
                     ["target", "ability", "dc"]), save_odds),
        Tool("area_targets", "Who an area spell or breath would hit if placed there, each with "
             "its chance to save and expected damage; allies hit are listed apart.",
             _schema({"what": {**_STR, "description": "spell or save-action key, e.g. burning-hands"},
                      "x": {**_INT, "description": "grid point x (spheres)"},
                      "y": {**_INT, "description": "grid point y (spheres)"},
                      "direction": {**_STR, "enum": list(COMPASS), "description": "cones and lines"},
                      "level": {**_INT, "description": "slot level (default: the spell's)"},
                      "user": {**_STR, "description": "default: the creature deciding now"}},
                     ["what"]), area_targets),
        Tool("routes", "The routes to a square that differ in consequences: cost in feet, the "
             "opportunity attacks each provokes, hazards, path.",
             _schema({"x": _INT, "y": _INT,
                      "creature": {**_STR, "description": "default: the creature deciding now"}},
                     ["x", "y"]), routes),
        Tool("creature", "A combatant: HP, AC now, conditions, speeds, saves, resistances and "
             "immunities, attacks, spells, features, resources, position and distance.",
             _schema({"name": {**_STR, "description": who}}, ["name"]), creature),
        Tool("condition", "The rules effects of a condition (prone, restrained, grappled, "
             "unconscious, ...) as this game applies them.",
             _schema({"name": _STR}, ["name"]), condition),
        Tool("spell", "A spell's rules: level, range, attack or save, damage by slot level, area.",
             _schema({"name": {**_STR, "description": "spell key, e.g. fire-bolt"},
                      "caster": {**_STR, "description": "for cantrip damage by level; default: "
                                 "the creature deciding now"}}, ["name"]), spell),
    ]
    return ToolSet("dnd", tools, lambda env: getattr(getattr(env, "unwrapped", env), "battle", None))
