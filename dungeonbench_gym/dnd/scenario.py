"""Encounters as data: load and check ``scenarios/dnd/encounters/<name>.toml``, build a Battle.

File format (every field checked: the shape by ``ENCOUNTER_SCHEMA``, core/schema.py, so an unknown
or misspelt key gets a "did you mean", then the rules; a malformed file raises ``FileFormatError``
naming the file, the field and the fix; day files are checked against ``DAY_SCHEMA`` here too)::

    name = "Goblin Ambush"
    family = "duel"                 # duel, objective or boss (the paper's families)
    round_limit = 10
    description = "..."
    seeds = [0, 1, 2]               # optional: the evaluation seeds (default 0, 1, 2)
    underwater = false              # optional: SRD underwater combat rules (Battle.underwater)
    light = "dark"                  # optional: "bright" (default, everywhere), "dim" or "dark"
                                    #   (dnd/lighting.py: darkvision, light sources, unseen creatures)
    surprise = { hiding = "enemies" }   # optional, SRD Surprise: that side's Stealth checks against
                                    #   each other creature's passive Perception; or name them:
                                    #   surprise = { surprised = ["guard_1"] }

    [map]
    layout = ["#######", "#.....#", "#######"]   # one string per row, north first
    legend = { "^" = { height = 10 } }            # optional, merged over grid.DEFAULT_LEGEND
    # a legend entry may shed light: { "*" = { name = "brazier", passable = false, light = 20 } }
    #   = bright light 20 ft around that square and dim light 20 ft more (in a dim or dark battle)
    # heights = ["0 0 0 ...", ...]                # optional floor heights in feet

    [objective]
    type = "defeat"                 # defeat | reach (cells = [[x, y], ...]) | survive | protect (creature = id)
                                    # | interact (object = [x, y], name = "lever"): a PC within 5 ft uses
                                    #   its free object interaction on it

    [[party]]
    id = "fighter"
    archetype = "fighter"           # a key of model.archetypes.ARCHETYPES
    level = 3
    at = [2, 1]
    items = ["potion-of-healing-common*2", "longsword-plus-1"]   # optional: dnd/items.py keys

    [[enemies]]
    id = "goblin_1"
    monster = "goblin"              # an SRD monster key
    at = [5, 1]
"""

from __future__ import annotations

import importlib.resources
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import content, items
from ..core.errors import FileFormatError
from ..core.schema import Field, read_text, validate
from .builders.monsters import monster_combatant
from .builders.pcs import build_pc
from .engine import Battle
from .grid import BattleMap, MapError, size_squares
from .items import equip
from .lighting import AMBIENTS, setup
from .model.archetypes import ARCHETYPES

ENCOUNTER_FOLDER = ("dnd", "encounters")   # inside the scenarios package
FAMILIES = ("duel", "objective", "boss")
OBJECTIVES = ("defeat", "reach", "survive", "protect", "interact", "hold")
MAX_MAP_SIDE = 63   # point decisions offer x in 0..width: it must fit in the 64 option slots

# The shape of encounter and day files (core/schema.py): every key known, typed and bounded. The
# checks that need the rules (an archetype, a monster, a square on the map) follow in the parsers.
_AT = Field(list, required=True, fix="give the square as at = [x, y]")
_SEEDS = Field(list, fix="give non-negative whole numbers, e.g. seeds = [0, 1, 2]")
_ITEMS = Field(list, fix='list item keys, e.g. items = ["potion-of-healing-common*2"]')
_PC_NAME = Field(str, fix='a display name, e.g. name = "Brienne"')
_LEVEL = Field(int, required=True, low=1, high=20, fix="a level from 1 to 20, e.g. level = 3")
PARTY_SCHEMA = {
    "id": Field(str, required=True, fix='give a unique id, e.g. id = "fighter"'),
    "archetype": Field(str, required=True, fix='a PC archetype, e.g. archetype = "fighter"'),
    "level": _LEVEL, "at": _AT, "items": _ITEMS, "name": _PC_NAME,
}
ENEMY_SCHEMA = {
    "id": Field(str, required=True, fix='give a unique id, e.g. id = "goblin_1"'),
    "monster": Field(str, required=True, fix='an SRD monster key, e.g. monster = "goblin"'),
    "at": _AT, "name": _PC_NAME,
}
ENCOUNTER_SCHEMA = {
    "name": Field(str, required=True, fix='give a display name, e.g. name = "Goblin Ambush"'),
    "family": Field(str, required=True, choices=FAMILIES, noun="a scenario family",
                    fix=f"one of {FAMILIES}"),
    "round_limit": Field(int, required=True, low=1,
                         fix="a positive number of rounds, e.g. round_limit = 10"),
    "description": Field(str, fix='describe the fight, e.g. description = "..."'),
    "seeds": _SEEDS,
    "underwater": Field(bool, fix="write underwater = true for a fight under water (or leave it out)"),
    # any type: _light says "must be one of" the light levels for a wrong value and a wrong type alike
    "light": Field(object, fix='write light = "dark" or "dim" (or leave it out: bright everywhere)'),
    "surprise": Field(dict, fix='write surprise = { hiding = "enemies" } or surprise = { surprised = ["id"] }',
                      fields={
                          "hiding": Field(str, choices=("party", "enemies"), noun="a side",
                                          fix='the side that hides, "party" or "enemies"'),
                          "surprised": Field(list, items=Field(str),
                                             fix='the ids of surprised combatants, e.g. surprised = ["guard_1"]'),
                      }),
    "map": Field(dict, required=True, fix='add a [map] table with layout = ["#####", ...]', fields={
        "layout": Field(list, required=True, min_items=1, items=Field(str),
                        fix='one string per row, north first, e.g. layout = ["#####", "#...#", "#####"]'),
        "legend": Field(dict, fix='a table of characters, e.g. legend = { "^" = { height = 10 } }'),
        "heights": Field(list, fix='one row of floor heights per layout row, e.g. heights = ["0 0 5"]'),
        "name": Field(str, fix='the map\'s name, e.g. name = "forest road"'),
    }),
    "objective": Field(dict, required=True, fix='add [objective] with type = "defeat"', fields={
        "type": Field(str, required=True, choices=OBJECTIVES, noun="an objective",
                      fix=f"one of {OBJECTIVES}"),
        "cells": Field(list, fix="list the goal squares, e.g. cells = [[9, 2], [9, 3]]"),
        "rounds": Field(int, low=1, fix="the consecutive rounds to hold the area, e.g. rounds = 3"),
        "creature": Field(str, fix='the id of the party member to protect, e.g. creature = "apprentice"'),
        "object": Field(list, fix="the object's square, e.g. object = [9, 2]"),
        "name": Field(str, fix='what the object is, e.g. name = "lever"'),
    }),
    "party": Field(list, required=True, min_items=1, items=Field(dict, fields=PARTY_SCHEMA),
                   fix="add at least one [[party]] entry"),
    "enemies": Field(list, required=True, min_items=1, items=Field(dict, fields=ENEMY_SCHEMA),
                     fix="add at least one [[enemies]] entry"),
}
DAY_SCHEMA = {   # read by dnd/day.py (parse_day checks the encounters and squares it names)
    "name": Field(str, required=True, fix='give a display name, e.g. name = "Bandit Hideout"'),
    "description": Field(str, fix='describe the day, e.g. description = "..."'),
    "short_rests": Field(int, required=True, low=0, high=5,
                         fix="the short rests allowed this day, 0 to 5, e.g. short_rests = 2"),
    "seeds": Field(list, fix="give non-negative whole numbers, e.g. seeds = [0]"),
    "party": Field(list, required=True, min_items=1, fix="add at least one [[party]] entry (id, archetype, level)",
                   items=Field(dict, fields={
                       **{k: PARTY_SCHEMA[k] for k in ("id", "archetype", "level", "items", "name")},
                       "gp": Field(int, low=0, fix="gold for costly spell components, e.g. gp = 500"),
                   })),
    "encounters": Field(list, required=True, min_items=1,
                        fix='add 3 to 5 [[encounters]] entries with scenario = "<name>"',
                        items=Field(dict, fields={
                            "scenario": Field(str, required=True,
                                              fix='an encounter file\'s name, e.g. scenario = "goblin_ambush"'),
                            "place": Field(dict, values=Field(list, fix="a square, e.g. place = { rogue = [3, 4] }"),
                                           fix="write place = { rogue = [3, 4] }"),
                        })),
}
# keys people expect that the rules derive: said in the message instead of the list of fields
SCHEMA_NOTES = {
    "hp": "hit points come from the archetype and level (party) or the SRD stat block (enemies)",
    "max_hp": "hit points come from the archetype and level (party) or the SRD stat block (enemies)",
    "ac": "armour class comes from the archetype's kit (party) or the SRD stat block (enemies)",
}
SCHEMAS = {"encounter": ENCOUNTER_SCHEMA, "day": DAY_SCHEMA}


@dataclass(frozen=True)
class Scenario:
    key: str
    name: str
    family: str
    description: str
    round_limit: int
    map_data: dict
    objective: dict
    party: tuple
    enemies: tuple
    path: str
    seeds: tuple = (0, 1, 2)
    underwater: bool = False   # SRD underwater combat (engine: Battle.underwater)
    light: str = "bright"      # the battle's light: bright, dim or dark (dnd/lighting.py)
    surprised: tuple = ()      # SRD Surprise: combatants surprised whatever the dice
    hiding: str | None = None  # SRD Surprise: the side whose Stealth checks may surprise the other

    def battle_map(self) -> BattleMap:
        """The scenario's map, shared by every battle built from it (maps are immutable and keep
        their cover and sight caches). Mechanics that look ahead to a fight (the Day track's
        intermissions) read it here, without importing this module."""
        return _map_cache(self)

    def build(self, seed: int, max_options: int = 64):
        """A fresh Battle (initiative rolled from ``seed``)."""

        bmap = self.battle_map()
        fighters = []
        for p in self.party:
            pc = build_pc(p["archetype"], p["level"], p["id"], _pos(bmap, p), p.get("name"))
            if p.get("items"):
                equip(pc, p["items"])
            fighters.append(pc)
        for e in self.enemies:
            fighters.append(monster_combatant(e["monster"], e["id"], "enemies", _pos(bmap, e), e.get("name")))
        b = Battle(bmap, fighters, seed=seed, objective=self.objective, round_limit=self.round_limit,
                   max_options=max_options, surprised=self.surprised, hiding=self.hiding)
        b.underwater = self.underwater
        if self.light != "bright":   # a dim or dark battle (dnd/lighting.py)
            setup(b, self.light)
        return b


_MAPS: dict = {}


def _map_cache(s: Scenario) -> BattleMap:
    # maps are immutable and keep cover/sight caches: share one per scenario (a file read again
    # with another map, or two in-memory scenarios under one name, get their own)
    got = _MAPS.get(s.path)
    if got is None or got[0] != s.map_data:
        got = _MAPS[s.path] = (s.map_data, BattleMap.from_dict(s.map_data, name=s.key))
    return got[1]


def _pos(bmap: BattleMap, entry: dict) -> tuple:
    x, y = entry["at"]
    return (x, y, bmap.standing_z(x, y))


def encounter_dir() -> Path:
    return Path(str(importlib.resources.files("dungeonbench_gym.scenarios"))).joinpath(*ENCOUNTER_FOLDER)


def encounter_names() -> list[str]:
    return sorted(p.stem for p in encounter_dir().glob("*.toml"))


def read_toml(name_or_path: str | Path, folder: Path, what: str, names: list[str]) -> tuple[dict, Path]:
    """A scenario file's data by name (``folder/<name>.toml``) or by path; errors name the fix."""
    path = Path(name_or_path)
    if path.suffix != ".toml":
        path = folder / f"{name_or_path}.toml"
        if not path.exists():
            raise FileFormatError(path, "(file)", f"no {what} named {name_or_path!r}",
                                  f"use one of {names} or pass a path to a .toml file")
    text = read_text(path, saved_as="UTF-8 TOML",
                     missing_fix=f"check the path, or give the name (without .toml) of a shipped "
                                 f"{what}, e.g. {names[0]!r}" if names else "check the path")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FileFormatError(path, "(syntax)", f"not valid TOML: {exc}",
                              "check quotes, brackets and commas on the line named") from None
    if what in SCHEMAS:
        validate(data, SCHEMAS[what], path, notes=SCHEMA_NOTES)
    return data, path


def load_encounter(name_or_path: str | Path) -> Scenario:
    """An encounter by name (a file in scenarios/dnd/encounters/) or by path."""
    data, path = read_toml(name_or_path, encounter_dir(), "encounter", encounter_names())
    return parse_encounter(data, path)


def parse_encounter(data: dict[str, Any], path: str | Path = "<memory>") -> Scenario:

    def need(table, field, kind, fix, where=""):
        if field not in table:
            raise FileFormatError(path, where + field, "is missing", fix)
        v = table[field]
        if not isinstance(v, kind) or isinstance(v, bool) and kind is not bool:
            raise FileFormatError(path, where + field, f"must be {_kind_name(kind)}, got {v!r}", fix)
        return v

    validate(data, ENCOUNTER_SCHEMA, path, notes=SCHEMA_NOTES)   # unknown keys, types and ranges first
    name = need(data, "name", str, 'give a display name, e.g. name = "Goblin Ambush"')
    family = need(data, "family", str, f"one of {FAMILIES}")
    if family not in FAMILIES:
        raise FileFormatError(path, "family", f"{family!r} is not a scenario family", f"use one of {FAMILIES}")
    limit = need(data, "round_limit", int, "a positive number of rounds, e.g. round_limit = 10")
    if limit < 1:
        raise FileFormatError(path, "round_limit", f"{limit} is not positive", "use at least 1 round")
    seeds = data.get("seeds", [0, 1, 2])
    if not (isinstance(seeds, list) and seeds and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                                      for v in seeds)):
        raise FileFormatError(path, "seeds", f"{seeds!r} is not a list of seeds",
                              "give non-negative whole numbers, e.g. seeds = [0, 1, 2]")
    mp = need(data, "map", dict, 'add a [map] table with layout = ["#####", ...]')
    try:
        bmap = BattleMap.from_dict(mp, name=Path(str(path)).stem)
    except MapError as exc:
        raise FileFormatError(path, "map", str(exc), "fix the layout rows or the legend entry named") from None
    if bmap.width > MAX_MAP_SIDE or bmap.height > MAX_MAP_SIDE:
        raise FileFormatError(path, "map.layout", f"{bmap.width}x{bmap.height} is too big",
                              f"keep both sides at most {MAX_MAP_SIDE} squares")
    obj = need(data, "objective", dict, 'add [objective] with type = "defeat"')
    otype = need(obj, "type", str, f"one of {OBJECTIVES}", "objective.")
    if otype not in OBJECTIVES:
        raise FileFormatError(path, "objective.type", f"{otype!r} is not an objective", f"use one of {OBJECTIVES}")
    objective: dict = {"type": otype}
    if otype in ("reach", "hold"):
        cells = need(obj, "cells", list, "list the goal squares, e.g. cells = [[9, 2], [9, 3]]", "objective.")
        if not cells:
            raise FileFormatError(path, "objective.cells", "is empty", "list at least one [x, y] square")
        for cell in cells:
            if not (isinstance(cell, list) and len(cell) == 2 and bmap.in_bounds(*cell) and bmap.fits(*cell)):
                raise FileFormatError(path, "objective.cells", f"{cell!r} is not a passable square on the map",
                                      "give [x, y] pairs inside the layout, on floor squares")
        objective["cells"] = [list(c) for c in cells]
    if otype == "survive":
        objective["rounds"] = limit
    if otype == "hold":
        rounds = need(obj, "rounds", int, "the consecutive rounds to hold the area, e.g. rounds = 3", "objective.")
        if not 1 <= rounds <= limit:
            raise FileFormatError(path, "objective.rounds", f"{rounds} is not between 1 and round_limit ({limit})",
                                  "hold for at least 1 round and at most round_limit rounds")
        objective["rounds"] = rounds
        objective["held"] = 0
    if otype == "interact":
        at = need(obj, "object", list, "give the object's square, e.g. object = [9, 2]", "objective.")
        if not (len(at) == 2 and all(isinstance(v, int) for v in at) and bmap.in_bounds(*at)):
            raise FileFormatError(path, "objective.object", f"{at!r} is not a square on the map",
                                  "give [x, y] inside the layout")
        objective["object"] = list(at)
        objective["name"] = str(obj.get("name", "lever"))
    party = need(data, "party", list, "add at least one [[party]] entry")
    enemies = need(data, "enemies", list, "add at least one [[enemies]] entry")
    if not party or not enemies:
        raise FileFormatError(path, "party" if not party else "enemies", "is empty",
                              "each side needs at least one creature")
    seen: dict = {}
    taken: dict = {}
    for side, entries in (("party", party), ("enemies", enemies)):
        for i, e in enumerate(entries):
            where = f"{side}[{i}]."
            cid = need(e, "id", str, 'give a unique id, e.g. id = "goblin_1"', where)
            if cid in seen:
                raise FileFormatError(path, where + "id", f"{cid!r} is used twice", "give every creature its own id")
            seen[cid] = side
            at = need(e, "at", list, "give the square as at = [x, y]", where)
            if len(at) != 2 or not all(isinstance(v, int) for v in at):
                raise FileFormatError(path, where + "at", f"{at!r} is not [x, y]", "use two whole numbers")
            if side == "party":
                arch = need(e, "archetype", str, f"one of {sorted(ARCHETYPES)}", where)
                if arch not in ARCHETYPES:
                    raise FileFormatError(path, where + "archetype", f"{arch!r} is not a PC archetype",
                                          f"use one of {sorted(ARCHETYPES)}")
                level = need(e, "level", int, "a level from 1 to 20", where)
                if not 1 <= level <= 20:
                    raise FileFormatError(path, where + "level", f"{level} is out of range", "use 1 to 20")
                size = "medium"
                if "items" in e:   # optional kit: item keys of dnd/items.py ("key*N" for N of them)
                    check_items(path, where, e["items"])
            else:
                key = need(e, "monster", str, 'an SRD monster key, e.g. monster = "goblin"', where)
                try:
                    size = content.monster(key).size
                except KeyError as exc:
                    raise FileFormatError(path, where + "monster", str(exc.args[0]),
                                          "use a key from dungeonbench_gym.dnd.content.monsters()") from None
            n = size_squares(size)
            if not bmap.fits(at[0], at[1], n):
                raise FileFormatError(path, where + "at", f"{cid} ({size}) does not fit at {at}",
                                      "place it on floor squares inside the map")
            for dx in range(n):
                for dy in range(n):
                    cell = (at[0] + dx, at[1] + dy)
                    if cell in taken:
                        raise FileFormatError(path, where + "at", f"{cid} overlaps {taken[cell]} at {cell}",
                                              "move one of them to a free square")
                    taken[cell] = cid
    if otype == "protect":
        ward = need(obj, "creature", str, "name the party member to protect", "objective.")
        if seen.get(ward) != "party":
            raise FileFormatError(path, "objective.creature", f"{ward!r} is not a party member",
                                  "name the id of a [[party]] entry")
        objective["creature"] = ward
    return Scenario(Path(str(path)).stem, name, family, str(data.get("description", "")), limit, dict(mp),
                    objective, tuple(dict(p) for p in party), tuple(dict(e) for e in enemies), str(path),
                    tuple(seeds), _underwater(path, data), _light(path, data), *_surprise(path, data, seen))


def _surprise(path, data: dict, seen: dict) -> tuple:
    """(surprised ids, hiding side) of the optional ``surprise`` table."""
    s = data.get("surprise", {})
    for cid in s.get("surprised", ()):
        if cid not in seen:
            raise FileFormatError(path, "surprise.surprised", f"{cid!r} is no combatant of this encounter",
                                  f"name ids of [[party]] or [[enemies]] entries: {sorted(seen)}")
    return tuple(s.get("surprised", ())), s.get("hiding")


def _underwater(path, data: dict) -> bool:
    v = data.get("underwater", False)
    if not isinstance(v, bool):
        raise FileFormatError(path, "underwater", f"must be true or false, got {v!r}",
                              "write underwater = true for a fight under water (or leave it out)")
    return v


def _light(path, data: dict) -> str:
    v = data.get("light", "bright")
    if not isinstance(v, str) or v not in AMBIENTS:
        raise FileFormatError(path, "light", f"must be one of {sorted(AMBIENTS)}, got {v!r}",
                              'write light = "dark" for an unlit battle, light = "dim" for twilight '
                              "(or leave it out: bright everywhere)")
    return v


def check_items(path, where: str, keys) -> None:
    if not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
        raise FileFormatError(path, where + "items", f"{keys!r} is not a list of item keys",
                              'list item keys, e.g. items = ["potion-of-healing-common*2", "longsword-plus-1"]')
    for k in keys:
        try:
            (key, _), = items.parse_entries([k])
        except (KeyError, ValueError) as exc:
            raise FileFormatError(path, where + "items", str(exc.args[0]),
                                  "use a key from dungeonbench_gym.dnd.items.items(), optionally with *N") from None
        st, why = items.status(key)
        if st != "executable":
            raise FileFormatError(path, where + "items", f"{key!r} is {st} ({why})",
                                  "use an executable item (dungeonbench_gym.dnd.items.coverage())")


def _kind_name(kind) -> str:
    return {str: "a string", int: "a whole number", list: "a list", dict: "a table"}.get(kind, str(kind))
