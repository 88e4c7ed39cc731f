"""The Day track: 3 to 5 encounters in a row with what the party spends carried between them.

A day file (``scenarios/dnd/days/<name>.toml``) names the party once and the encounters in order;
each encounter is an Encounter-track scenario, so a day's fights can also be played alone::

    name = "Bandit Hideout"
    description = "..."
    short_rests = 2                  # short rests allowed this day (each one hour)
    seeds = [0]                      # optional: the evaluation seeds (default [0], the paper's fixed seed)

    [[party]]
    id = "fighter"                   # matched by id with each encounter's [[party]] entries (their squares)
    archetype = "fighter"
    level = 3                        # 1 to 20
    items = ["potion-of-healing-greater"]   # optional kit (dnd/items.py keys, "key*N" for N)
    gp = 500                         # optional gold for costly spell components (Raise Dead's diamond)

    [[encounters]]
    scenario = "watchtower_hold"     # a file of scenarios/dnd/encounters/
    place = { rogue = [3, 4] }       # optional: squares for day members the encounter file does not place

The day's party replaces the encounter file's party (same ids: the file gives the squares);
encounter party entries the day lacks are left out. HP, hit dice, spell slots, feature uses,
potions and ammunition persist from fight to fight; the dead stay dead, the dying are stabilised
when a fight ends. Between fights comes an intermission (a decision phase of the same stream):
drink or give potions, cast healing and buffs, Second Wind, Wild Shape, take a short rest (spend
hit dice, Arcane Recovery, then short-rest features refresh), or go on to the next fight.

Durations follow DungeonBench's intermission abstraction, read from each spell's SRD duration:
under 10 minutes is combat-only (gone when the fight ends); 10 minutes up to an hour lasts into the
next fight only ("next encounter"); an hour up to 8 lasts until a short rest; 8 hours or more
(or until dispelled: Continual Flame), all day. Effects cast during a fight are combat-only whatever their duration.

``rested=True`` is the control condition: every fight starts from the party at full strength,
there is no intermission, and a lost fight does not end the run: the day's encounters played
alone, to compare with the day.
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from itertools import combinations_with_replacement
from pathlib import Path
from typing import Any

from ..core.errors import FileFormatError
from . import content, spell_buffs
from . import spell_summons   # long summonings cast between fights
from . import spell_wards   # glyphs and circles laid on the next fight's map
from . import lighting   # dark fights: light and darkvision between fights
from . import spell_utility   # Water Walk, Water Breathing, Unseen Servant between fights; breath under water
from .builders.monsters import monster_combatant
from .builders.pcs import arcane_recovery, build_pc, natural_recovery, short_rest
from .dice import Roller
from .engine import Battle
from .classes.barbarian import end_rage
from .classes.bard import song_of_rest
from .classes.common import class_level
from .classes.druid import beast_forms, revert, take_wild_shape
from .grid import size_squares
from .items import equip, item, settle, use_out_of_combat
from .model.archetypes import ARCHETYPES
from .model.durations import DURATION_TEXT, wild_shape_duration
from .model.options import Decision, Opt
from .model.slots import spend_slot
from .scenario import Scenario, check_items, encounter_names, load_encounter, read_toml
from .state import Economy

DAY_FOLDER = ("dnd", "days")
MIN_STAGES, MAX_STAGES = 3, 5
KEPT_CONDITIONS = ("exhaustion",)   # what a fight's end does not clear by itself


@dataclass(frozen=True)
class Stage:
    scenario: Scenario
    place: dict      # day member id -> (x, y) for members the encounter file does not place


@dataclass(frozen=True)
class Day:
    key: str
    name: str
    description: str
    party: tuple         # dicts: id, archetype, level (and optional name, items)
    stages: tuple        # Stage, ...
    short_rests: int
    path: str
    seeds: tuple = (0,)

    def squares(self, stage: Stage) -> dict[str, tuple[int, int]]:
        """Where each day member starts the stage's fight."""
        placed = {p["id"]: tuple(p["at"]) for p in stage.scenario.party}
        placed.update(stage.place)
        return {p["id"]: placed[p["id"]] for p in self.party}


def day_dir() -> Path:
    return Path(str(importlib.resources.files("dungeonbench_gym.scenarios"))).joinpath(*DAY_FOLDER)


def day_names() -> list[str]:
    return sorted(p.stem for p in day_dir().glob("*.toml"))


def load_day(name_or_path: str | Path) -> Day:
    """A day by name (a file in scenarios/dnd/days/) or by path."""
    data, path = read_toml(name_or_path, day_dir(), "day", day_names())
    return parse_day(data, path)


def parse_day(data: dict[str, Any], path: str | Path = "<memory>") -> Day:

    def need(table, field, kind, fix, where=""):
        v = table.get(field)
        if field not in table:
            raise FileFormatError(path, where + field, "is missing", fix)
        if not isinstance(v, kind) or (isinstance(v, bool) and kind is not bool):
            raise FileFormatError(path, where + field, f"has the wrong type ({type(v).__name__})", fix)
        return v

    allowed = {"name", "description", "short_rests", "seeds", "party", "encounters"}
    for k in data:
        if k not in allowed:
            raise FileFormatError(path, k, "is not a known field", f"use only {sorted(allowed)}")
    name = need(data, "name", str, 'give a display name, e.g. name = "Bandit Hideout"')
    rests = need(data, "short_rests", int, "the short rests allowed this day, e.g. short_rests = 2")
    if not 0 <= rests <= 5:
        raise FileFormatError(path, "short_rests", f"{rests} is out of range", "use 0 to 5")
    seeds = data.get("seeds", [0])
    if not (isinstance(seeds, list) and seeds and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                                      for v in seeds)):
        raise FileFormatError(path, "seeds", f"{seeds!r} is not a list of seeds",
                              "give non-negative whole numbers, e.g. seeds = [0]")
    party = need(data, "party", list, "add at least one [[party]] entry (id, archetype, level)")
    if not party:
        raise FileFormatError(path, "party", "is empty", "add at least one [[party]] entry")
    ids = []
    for i, p in enumerate(party):
        where = f"party[{i}]."
        if not isinstance(p, dict):
            raise FileFormatError(path, f"party[{i}]", "is not a table", "write [[party]] entries")
        cid = need(p, "id", str, 'give an id matching the encounters\' party ids, e.g. id = "fighter"', where)
        if cid in ids:
            raise FileFormatError(path, where + "id", f"{cid!r} is used twice", "give every member its own id")
        ids.append(cid)
        arch = need(p, "archetype", str, f"one of {sorted(ARCHETYPES)}", where)
        if arch not in ARCHETYPES:
            raise FileFormatError(path, where + "archetype", f"{arch!r} is not a PC archetype",
                                  f"use one of {sorted(ARCHETYPES)}")
        level = need(p, "level", int, "a level, e.g. level = 3", where)
        if not 1 <= level <= 20:
            raise FileFormatError(path, where + "level", f"{level} is out of range", "use 1 to 20")
        if "items" in p:   # the day's kit: dnd/items.py keys, "key*N" for N of them
            check_items(path, where, p["items"])
        gp = p.get("gp", 0)   # optional: gold for costly spell components (Raise Dead's diamond)
        if not isinstance(gp, int) or isinstance(gp, bool) or gp < 0:
            raise FileFormatError(path, where + "gp", f"{gp!r} is not a sum of gold", "give a whole number, e.g. gp = 500")
        extra = set(p) - {"id", "archetype", "level", "name", "items", "gp"}
        if extra:
            raise FileFormatError(path, where + min(extra), "is not a known field",
                                  "use only id, archetype, level, name, items and gp")
    entries = need(data, "encounters", list, 'add 3 to 5 [[encounters]] entries with scenario = "<name>"')
    if not MIN_STAGES <= len(entries) <= MAX_STAGES:
        raise FileFormatError(path, "encounters", f"has {len(entries)} entries",
                              f"a day links {MIN_STAGES} to {MAX_STAGES} encounters")
    stages = []
    for i, e in enumerate(entries):
        where = f"encounters[{i}]."
        key = need(e, "scenario", str, f"an encounter name, one of {encounter_names()}", where)
        extra = set(e) - {"scenario", "place"}
        if extra:
            raise FileFormatError(path, where + min(extra), "is not a known field",
                                  "use only scenario and place")
        try:
            sc = load_encounter(key)
        except FileFormatError as exc:
            raise FileFormatError(path, where + "scenario", f"cannot load {key!r}: {exc}",
                                  f"use one of {encounter_names()}") from None
        place = e.get("place", {})
        if not isinstance(place, dict):
            raise FileFormatError(path, where + "place", "is not a table", "write place = { rogue = [3, 4] }")
        stage = Stage(sc, {k: tuple(v) for k, v in place.items()
                           if isinstance(v, list) and len(v) == 2 and all(isinstance(n, int) for n in v)})
        for k, v in place.items():
            if k not in ids:
                raise FileFormatError(path, where + f"place.{k}", f"{k!r} is not a day party member",
                                      f"name one of {ids}")
            if k not in stage.place:
                raise FileFormatError(path, where + f"place.{k}", f"{v!r} is not [x, y]", "use two whole numbers")
        file_ids = {p["id"] for p in sc.party}
        missing = [cid for cid in ids if cid not in file_ids and cid not in stage.place]
        if missing:
            raise FileFormatError(path, where + "place", f"{missing} have no square in {key!r}",
                                  f"add place = {{ {missing[0]} = [x, y] }} (a free floor square)")
        ward = sc.objective.get("creature")
        if ward is not None and ward not in ids:
            raise FileFormatError(path, where + "scenario", f"{key!r} must protect {ward!r}, who is not in the day",
                                  f"add a [[party]] member with id = {ward!r}")
        _check_squares(path, where, sc, stage, ids)
        stages.append(stage)
    return Day(Path(str(path)).stem, name, str(data.get("description", "")), tuple(dict(p) for p in party),
               tuple(stages), rests, str(path), tuple(seeds))


def _check_squares(path, where: str, sc: Scenario, stage: Stage, ids: list) -> None:
    bmap = sc.battle_map()
    taken: dict = {}
    placed = {p["id"]: tuple(p["at"]) for p in sc.party if p["id"] in ids}
    placed.update(stage.place)
    spots = [(cid, at, 1) for cid, at in placed.items()]
    spots += [(e["id"], tuple(e["at"]), size_squares(content.monster(e["monster"]).size)) for e in sc.enemies]
    for cid, (x, y), n in spots:
        if not bmap.fits(x, y, n):
            raise FileFormatError(path, where + f"place.{cid}", f"({x}, {y}) is not a free floor square",
                                  "choose a floor square inside the encounter's map")
        for dx in range(n):
            for dy in range(n):
                if (x + dx, y + dy) in taken:
                    raise FileFormatError(path, where + f"place.{cid}",
                                          f"{cid} overlaps {taken[(x + dx, y + dy)]} at ({x + dx}, {y + dy})",
                                          "choose a free square")
                taken[(x + dx, y + dy)] = cid


# ====================================================================== the day in play
# healing spells worth casting between fights; the others in the SRD data give temporary or
# maximum HP (False Life, Aid) or heal over time in a fight (Regenerate)
PARTY_HEALS = ("prayer-of-healing", "mass-cure-wounds", "mass-healing-word", "mass-heal")
NOT_HEALS = ("aid", "false-life", "regenerate", "mass-heal")


def heal_dice(spell_key: str, level: int) -> str | None:
    """The healing roll of a spell at a slot level, without the modifier (None if it does not heal)."""
    if spell_key in NOT_HEALS:
        return None
    return (_spell_json(spell_key).get("heal_at_slot_level") or {}).get(str(level))


def heal_modifier(caster, spell_key: str) -> int:
    return caster.resources.get("spell_mod", 0) if _spell_json(spell_key).get("heal_adds_modifier") else 0


_SPELL_JSON: dict | None = None


def _spell_json(key: str) -> dict:
    global _SPELL_JSON
    if _SPELL_JSON is None:
        import json
        path = importlib.resources.files("dungeonbench_gym.dnd.content").joinpath("data", "spells.json")
        _SPELL_JSON = json.loads(path.read_text(encoding="utf-8"))
    return _SPELL_JSON.get(key, {})


class DayRun:
    """One day in play. Read :attr:`decision` (the battle's, or the intermission's) and call
    :meth:`choose` until :attr:`over`. Enemies are not played here: the env (or a test) asks
    :meth:`party_to_decide` and plays the other side with the heuristic."""

    def __init__(self, day: Day, seed: int = 0, *, rested: bool = False, max_options: int = 64):
        self.day = day
        self.seed = int(seed)
        self.rested = rested
        self.max_options = max_options
        self.log: list = []
        self.roller = Roller(_mix(self.seed, 997), log=self.log)   # the intermissions' own dice
        self.party = self._fresh_party()
        self.stage = 0
        self.results: list[str] = []        # "win" / "loss" per fight played
        self.short_rests_left = day.short_rests
        self.short_rests_used = 0
        self.phase = "battle"               # battle | intermission | rest | over
        self.battle = None
        self.intermission_decisions = 0
        self.decisions_total = 0            # every decision the party made (battles + intermissions)
        self._menu: list[tuple[str, tuple]] | None = None
        self._group: str | None = None
        self._start_battle()

    # ------------------------------------------------------------------ party
    def _fresh_party(self) -> dict:
        party = {}
        for p in self.day.party:
            pc = build_pc(p["archetype"], p["level"], p["id"], (0, 0, 0), p.get("name"))
            if p.get("items"):
                equip(pc, p["items"])
            if "hit_dice" not in pc.resources:   # SRD: a character has hit dice equal to its level
                pc.resources["hit_dice"] = pc.level
            if "hit_die" not in pc.resources:
                pc.resources["hit_die"] = content.class_spec(pc.pc_class).hit_die
            if p.get("gp"):   # spent on costly spell components (dnd/spell_buffs.py)
                pc.resources["gp"] = p["gp"]
            party[pc.cid] = pc
        return party

    @property
    def over(self) -> bool:
        return self.phase == "over"

    @property
    def full_clear(self) -> bool:
        return len(self.results) == len(self.day.stages) and all(r == "win" for r in self.results)

    @property
    def encounters_won(self) -> int:
        return sum(r == "win" for r in self.results)

    @property
    def current(self) -> Stage:
        return self.day.stages[min(self.stage, len(self.day.stages) - 1)]

    def party_to_decide(self) -> bool:
        """Whether the pending decision is the party's (the intermission always is)."""
        if self.phase in ("intermission", "rest"):
            return True
        b = self.battle
        return b is not None and b.outcome is None and b.creatures[b.decision.actor].side == b.party_side

    # ------------------------------------------------------------------ fights
    def _start_battle(self) -> None:
        if self.rested:
            self.party = self._fresh_party()
        stage = self.current
        sc = stage.scenario
        ward = sc.objective.get("creature")
        if ward is not None and self.party[ward].dead:   # nobody left to protect: lost before it starts
            self.results.append("loss")
            self.event("fight", f"Encounter {self.stage + 1} ({sc.name}): lost, {ward} is dead")
            self.phase = "over"
            return
        bmap = sc.battle_map()
        squares = self.day.squares(stage)
        fighters = []
        for cid, pc in self.party.items():
            if pc.dead:
                continue
            if "wild_shape_saved" in pc.resources and pc.squares > 1 and not self._room_for(cid, pc.squares, squares):
                self._end_shape(pc, "no room for its form at its square")
            x, y = squares[cid]
            pc.pos = (x, y, bmap.standing_z(x, y))
            fighters.append(pc)
        for e in sc.enemies:
            x, y = e["at"]
            fighters.append(monster_combatant(e["monster"], e["id"], "enemies", (x, y, bmap.standing_z(x, y)),
                                              e.get("name")))
        fighters.extend(spell_summons.day_fighters(self, bmap, fighters))   # conjured between fights
        self.battle = Battle(bmap, fighters, seed=_mix(self.seed, self.stage), objective=sc.objective,
                             round_limit=sc.round_limit, max_options=self.max_options)
        if "_wards" in self.__dict__:   # glyphs and circles inscribed for this fight (dnd/spell_wards.py)
            spell_wards.lay(self, self.battle)
        if sc.light != "bright":   # a dim or dark fight (dnd/lighting.py)
            lighting.setup(self.battle, sc.light)
        if sc.underwater:   # SRD underwater combat, as the fight played alone (breath: dnd/spell_utility.py)
            self.battle.underwater = True
        spell_utility.day_battle(self, self.battle)   # an unseen servant from between fights
        self.phase = "battle"
        self._after_choice()

    def _end_battle(self) -> None:
        b = self.battle
        self.results.append("win" if b.outcome == "win" else "loss")
        self.event("fight", f"Encounter {self.stage + 1} ({self.current.scenario.name}): "
                            f"{'won' if b.outcome == 'win' else 'lost'}")
        for pc in self.party.values():
            settle(pc)   # an item's borrowed spell numbers go back
            if "raging" in pc.conditions and not pc.dead:   # Frenzy's exhaustion comes due here
                end_rage(b, pc, "the fight is over")
            if "wild_shape_saved" in pc.resources and "wild_shape_day" not in pc.resources and not pc.dead:
                self._end_shape(pc, "a shape taken in a fight lasts that fight")
            _clear_combat_state(pc, keep=("until_short_rest", "all_day"))
        last = self.stage + 1 >= len(self.day.stages)
        if last or (b.outcome != "win" and not self.rested):   # played alone, every fight is played
            self.phase = "over"
            return
        self.stage += 1
        if self.rested:
            self._start_battle()
        else:
            self.phase = "intermission"
            self._menu = None

    def _after_choice(self) -> None:
        if self.phase == "battle" and self.battle.outcome is not None:
            self._end_battle()

    # ------------------------------------------------------------------ the decision stream
    @property
    def decision(self) -> Decision | None:
        if self.phase == "over":
            return None
        if self.phase == "battle":
            return self.battle.decision
        if "_ward_pending" in self.__dict__:   # a ward's point and kind (dnd/spell_wards.py)
            return spell_wards.decision(self)
        return Decision(self.phase, self._actor(), tuple(self._visible()), self._prompt())

    def choose(self, index: int) -> None:
        if self.phase == "over":
            raise RuntimeError("the day is over")
        if self.phase == "battle":
            if self.party_to_decide():
                self.decisions_total += 1
            self.battle.choose(index)
            self._after_choice()
            return
        opts = self._visible()
        if not 0 <= index < len(opts):
            raise IndexError(f"option {index} of {len(opts)}")
        self.decisions_total += 1
        self.intermission_decisions += 1
        opt = opts[index]
        if opt.kind == "group":
            self._group = opt.data[0]
            return
        self._group = None
        self._apply(opt)
        self._menu = None

    def legal_count(self) -> int:
        """The pending decision's legal choices before any split into groups."""
        if self.phase == "battle":
            self.battle.decision   # noqa: B018 (builds the decision, which counts its choices)
            return self.battle.legal_count
        return len(self._options()) if self.phase != "over" else 0

    def _actor(self) -> str:
        up = [c for c in self.party.values() if c.conscious]
        return (up or list(self.party.values()))[0].cid

    def _prompt(self) -> str:
        nxt = self.current.scenario.name
        if self.phase == "rest":
            return f"Short rest before encounter {self.stage + 1} ({nxt}): spend hit dice and recovery, then finish"
        return (f"Between fights: encounter {self.stage + 1} of {len(self.day.stages)} ({nxt}) is next; "
                f"{self.short_rests_left} short rest(s) left")

    def _visible(self) -> list[Opt]:
        opts = self._options()
        if "_ward_pending" in self.__dict__:   # a ward's decision: ranges of at most max_options
            return spell_wards.visible(self, opts)
        if len(opts) <= self.max_options:
            self._group = None
            return opts
        if self._group is not None:   # one member's options (and the way back)
            mine = [o for o in opts if o.data and o.data[0] == self._group]
            return mine + [Opt("Back to the party's options", "back", ())]
        general = [o for o in opts if not o.data or o.data[0] not in self.party]
        members = sorted({o.data[0] for o in opts if o.data and o.data[0] in self.party})
        counts = {m: sum(1 for o in opts if o.data and o.data[0] == m) for m in members}
        return general + [Opt(f"Options for {m} ({counts[m]})", "group", (m,)) for m in members]

    def _options(self) -> list[Opt]:
        if self._menu is not None:
            return self._menu
        if "_ward_pending" in self.__dict__:   # placing a ward: x, then y, then its kind (dnd/spell_wards.py)
            self._menu = spell_wards.pending_options(self)
            return self._menu
        opts: list[Opt] = []
        living = [c for c in self.party.values() if not c.dead]
        up = [c for c in living if c.conscious]
        if self.phase == "intermission":
            nxt = self.current.scenario
            opts.append(Opt(f"Go on to encounter {self.stage + 1}: {nxt.name} ({nxt.family}, "
                            f"{len(nxt.enemies)} enemies)", "continue", ()))
            if self.short_rests_left > 0:
                opts.append(Opt(f"Take a short rest (1 hour; {self.short_rests_left} left)", "short_rest", ()))
        else:   # a short rest in progress
            opts.append(Opt("Finish the short rest (short-rest features refresh; one-hour effects end)",
                            "finish_rest", ()))
            for c in living:
                n = c.resources.get("hit_dice", 0)
                if n > 0 and c.hp < c.max_hp:
                    die = c.resources["hit_die"]
                    opts.append(Opt(f"{c.cid} spends a hit die (1d{die}{c.mod('con'):+d}; {n} left; "
                                    f"{c.hp}/{c.max_hp} HP)", "hit_die", (c.cid,)))
                for feature, name in (("arcane_recovery", "Arcane Recovery"), ("natural_recovery", "Natural Recovery")):
                    for levels in _arcane_choices(c, feature):
                        opts.append(Opt(f"{c.cid} uses {name}: regain "
                                        + " + ".join(f"a level-{lv} slot" for lv in levels), "arcane",
                                        (c.cid, levels, feature)))
        for c in up:   # things a conscious member can do between fights, in or out of a rest
            if c.resources.get("potions", 0) > 0:
                for t in living:
                    if t.hp < t.max_hp:
                        who = "drinks" if t is c else f"gives {t.cid}"
                        opts.append(Opt(f"{c.cid} {who} a potion of healing (2d4+2; {c.resources['potions']} left; "
                                        f"{t.cid} {t.hp}/{t.max_hp} HP)", "potion", (c.cid, t.cid)))
            for key, n in _healing_items(c):
                for t in living:
                    if t.hp < t.max_hp:
                        who = "drinks" if t is c else f"gives {t.cid}"
                        opts.append(Opt(f"{c.cid} {who} a {_item_name(key)} ({_item_dice(key)}; {n} left; "
                                        f"{t.cid} {t.hp}/{t.max_hp} HP)", "item_potion", (c.cid, key, t.cid)))
            if "second_wind" in c.features and c.resources.get("second_wind", 0) > 0 and c.hp < c.max_hp:
                opts.append(Opt(f"{c.cid} uses Second Wind (1d10+{c.level})", "second_wind", (c.cid,)))
            opts.extend(self._spell_options(c, living))
            opts.extend(spell_buffs.day_options(self, c, living))   # revivals, feasts, Lay on Hands, ...
            opts.extend(spell_summons.day_options(self, c, living))   # Animate Dead, Conjure Elemental, ...
            opts.extend(spell_wards.day_options(self, c, living))   # Glyph of Warding, Symbol, Magic Circle
            opts.extend(lighting.day_options(self, c, living))   # Light, Continual Flame, Darkvision before the dark
            opts.extend(spell_utility.day_options(self, c, living))   # Water Walk, Water Breathing, Unseen Servant
            opts.extend(self._wild_shape_options(c))
        self._menu = opts
        return opts

    def _spell_options(self, c, living) -> list[Opt]:
        slots = c.resources.get("slots") or ()
        out = []
        for key in c.spells:
            sp = content.spell(key)
            if sp.level == 0 or sp.casting_time == "reaction":
                continue
            levels = [lv for lv in range(sp.level, len(slots) + 1) if slots[lv - 1] > 0]
            if not levels:
                continue
            if heal_dice(key, sp.level) is not None:
                # between fights everyone is within touch; a party heal takes every living member
                hurt = [t for t in living if t.hp < t.max_hp]
                groups = [tuple(t.cid for t in living)] if key in PARTY_HEALS else [(t.cid,) for t in hurt]
                for lv in levels:
                    for ids in groups if hurt else []:
                        who = "the party" if len(ids) > 1 else f"{ids[0]} ({self.party[ids[0]].hp}/" \
                                                               f"{self.party[ids[0]].max_hp} HP)"
                        out.append(Opt(f"{c.cid} casts {sp.name} (level {lv}, {heal_dice(key, lv)}"
                                       f"{heal_modifier(c, key):+d}) on {who}", "heal", (c.cid, key, lv, ids)))
        return out

    def _wild_shape_options(self, c) -> list[Opt]:
        """A druid's Wild Shape between fights (one use; SRD: it lasts half the druid level in hours,
        so until a short rest, or all day from level 16), or the way back to its own form. Only
        forms with room at the druid's square in the next fight are offered."""
        r = c.resources
        if "wild_shape" not in c.features:
            return []
        if "wild_shape_saved" in r:
            return [Opt(f"{c.cid} returns to its own form (now {c.name}, {c.hp}/{c.max_hp} HP)",
                        "wild_shape_end", (c.cid,))]
        if r.get("wild_shape", 0) <= 0:
            return []
        level = class_level(c, "druid")
        how = DURATION_TEXT[wild_shape_duration(level)]
        uses = "unlimited uses" if r["wild_shape"] >= 99 else f"{r['wild_shape']} use(s) left"
        out = []
        for key, cr in beast_forms(r["wild_shape_cr"], level):
            m = content.monster(key)
            if self._room_for(c.cid, size_squares(m.size)):
                out.append(Opt(f"{c.cid} takes Wild Shape: a {m.name} (CR {cr:g}, {m.hp} HP; {how}; {uses})",
                               "wild_shape", (c.cid, key)))
        return out

    def _room_for(self, cid: str, n: int, squares: dict | None = None) -> bool:
        """Whether a creature of n x n squares fits at cid's square of the coming fight, clear of
        the rest of the party and the enemies there."""
        stage = self.current
        bmap = stage.scenario.battle_map()
        squares = squares or self.day.squares(stage)
        x, y = squares[cid]
        if not bmap.fits(x, y, n):
            return False
        mine = {(x + i, y + j) for i in range(n) for j in range(n)}
        for other, (ox, oy) in squares.items():
            if other != cid and other in self.party and not self.party[other].dead:
                k = self.party[other].squares
                if mine & {(ox + i, oy + j) for i in range(k) for j in range(k)}:
                    return False
        for e in stage.scenario.enemies:
            k = size_squares(content.monster(e["monster"]).size)
            ex, ey = e["at"]
            if mine & {(ex + i, ey + j) for i in range(k) for j in range(k)}:
                return False
        return True

    def _end_shape(self, c, why: str) -> None:
        form = c.name
        revert(None, c)
        self.event("wild_shape", f"{c.cid} returns to its own form from {form} ({why}; {c.hp}/{c.max_hp} HP)")

    # ------------------------------------------------------------------ applying intermission choices
    def event(self, kind: str, text: str) -> None:
        self.log.append({"event": kind, "text": text})

    def _apply(self, opt: Opt) -> None:
        k, d = opt.kind, opt.data
        if k == "back":
            return
        if k == "continue":
            self._start_battle()
        elif k == "short_rest":
            self.short_rests_left -= 1
            self.short_rests_used += 1
            self.phase = "rest"
            self.event("rest", f"The party takes a short rest ({self.short_rests_left} left)")
            for c in self.party.values():
                # the shape's hours pass in the rest; it ends first, so hit dice heal the druid itself
                if c.resources.get("wild_shape_day") == "until_short_rest" and not c.dead:
                    self._end_shape(c, "the short rest outlasts the shape")
        elif k == "finish_rest":
            for cid, die in song_of_rest(self.party.values()):   # a bard's Song of Rest
                self._heal(self.party[cid], self.roller.roll(die, what=f"song of rest {cid}"), "Song of Rest")
            for c in self.party.values():
                if not c.dead:
                    short_rest(c)
                    _clear_combat_state(c, keep=("all_day",))
            self.phase = "intermission"
            self.event("rest", "The short rest ends: short-rest features refresh, one-hour effects end")
        elif k == "hit_die":
            c = self.party[d[0]]
            c.resources["hit_dice"] -= 1
            c.resources["spent_hit_dice"] = 1   # (Song of Rest, at the rest's end)
            # SRD: roll the hit die + Con modifier; at least 0 HP regained
            amount = max(0, self.roller.roll(f"1d{c.resources['hit_die']}", what=f"hit die {c.cid}") + c.mod("con"))
            self._heal(c, amount, "a hit die")
        elif k == "arcane":
            recover = arcane_recovery if d[2] == "arcane_recovery" else natural_recovery
            got = recover(self.party[d[0]], d[1])
            self.event("recover", f"{d[0]} recovers slot levels {list(got)} ({d[2].replace('_', ' ')})")
        elif k == "item_potion":
            giver, key, t = self.party[d[0]], d[1], self.party[d[2]]
            got = use_out_of_combat(giver, key, t, roller=self.roller)
            self.event("heal", f"{t.cid} regains {got} HP from a {_item_name(key)} from {giver.cid} "
                               f"({t.hp}/{t.max_hp})")
        elif k == "potion":
            giver, t = self.party[d[0]], self.party[d[1]]
            giver.resources["potions"] -= 1
            self._heal(t, self.roller.roll("2d4+2", what=f"potion {t.cid}"), f"a potion of healing from {giver.cid}")
        elif k == "wild_shape":
            c = self.party[d[0]]
            take_wild_shape(None, c, d[1])
            c.resources["wild_shape_day"] = wild_shape_duration(class_level(c, "druid"))
            self.event("wild_shape", f"{c.cid} takes the shape of a {content.monster(d[1]).name} "
                                     f"({DURATION_TEXT[c.resources['wild_shape_day']]})")
        elif k == "wild_shape_end":
            self._end_shape(self.party[d[0]], "by choice")
        elif k == "second_wind":
            c = self.party[d[0]]
            c.resources["second_wind"] -= 1
            self._heal(c, self.roller.roll(f"1d10+{c.level}", what=f"second wind {c.cid}"), "Second Wind")
        elif k == "heal":
            c, key, lv = self.party[d[0]], d[1], d[2]
            spend_slot(c, lv)
            amount = self.roller.roll(heal_dice(key, lv), what=f"{key} by {c.cid}") + heal_modifier(c, key)
            for cid in d[3]:   # one roll for every target (the SRD's single healing amount)
                self._heal(self.party[cid], max(0, amount), f"{key} from {c.cid}")
        elif k in spell_buffs.DAY_KINDS:
            spell_buffs.day_apply(self, opt)
        elif k in spell_summons.DAY_KINDS:
            spell_summons.day_apply(self, opt)
        elif k in spell_wards.DAY_KINDS:
            spell_wards.day_apply(self, opt)
        elif k in lighting.DAY_KINDS:
            lighting.day_apply(self, opt)
        elif k in spell_utility.DAY_KINDS:
            spell_utility.day_apply(self, opt)

    def _heal(self, t, amount: int, source: str) -> None:
        before = t.hp
        t.hp = min(t.max_hp, t.hp + amount)
        if before == 0 and t.hp > 0:
            t.stable = False
            t.death_successes = t.death_failures = 0
        self.event("heal", f"{t.cid} regains {t.hp - before} HP from {source} ({t.hp}/{t.max_hp})")

    # ------------------------------------------------------------------ views
    def events(self, last: int = 8) -> list[str]:
        mine = [e["text"] for e in self.log if "event" in e]
        return mine[-last:]

    def stage_table(self) -> list[dict]:
        """The day's sequence: every encounter with its status (part of the observation)."""
        out = []
        for i, st in enumerate(self.day.stages):
            if i < len(self.results):
                status = "won" if self.results[i] == "win" else "lost"
            elif i == self.stage and self.phase == "battle":
                status = "in progress"
            elif i == self.stage and self.phase in ("intermission", "rest"):
                status = "next"
            else:
                status = "ahead"
            sc = st.scenario
            out.append({"index": i, "key": sc.key, "name": sc.name, "family": sc.family,
                        "objective": sc.objective["type"], "enemies": [e["monster"] for e in sc.enemies],
                        "status": status})
        return out


def _mix(seed: int, k: int) -> int:
    """The stage's battle seed: distinct per (day seed, stage), stable across versions."""
    return (seed * 1_000_003 + k * 7919) % (2 ** 31)


def _clear_combat_state(pc, keep: tuple) -> None:
    """After a fight (or a short rest): drop effects that do not outlast it; the dying stabilise."""
    for k in list(pc.conditions):
        v = pc.conditions[k]
        if k in KEPT_CONDITIONS or v.get("day_duration") in keep:
            continue
        del pc.conditions[k]
    if pc.concentration is not None:
        held = any(v.get("spell") == pc.concentration and v.get("by") == pc.cid
                   for v in pc.conditions.values())
        if not held:   # its effects are gone (or were on enemies): concentration ends with them
            pc.concentration = None
    pc.resources.pop("concentration_until", None)
    pc.resources.pop("breath", None)   # the party surfaces: breath counts afresh (dnd/spell_utility.py)
    if pc.concentration is not None:
        pc.resources["concentration_until"] = 10 ** 9
    pc.economy = Economy()
    pc.dodging = False
    if not pc.dead and pc.hp == 0:   # the fight is over: the dying are tended and stable
        pc.stable = True
        pc.death_successes = pc.death_failures = 0
        pc.conditions["prone"] = {}   # as the engine leaves a creature at 0 HP


def _healing_items(c) -> list[tuple[str, int]]:
    """The healing potions a member carries in its item inventory (dnd/items.py)."""
    return [(k, n) for k, n in c.resources.get("items", ()) if n > 0 and (item(k).get("use") or {}).get("kind") == "heal"]


def _item_name(key: str) -> str:
    return item(key)["name"].lower()


def _item_dice(key: str) -> str:
    return item(key)["use"]["dice"]


def _arcane_choices(c, feature: str = "arcane_recovery") -> list[tuple]:
    """The maximal sets of expended slots Arcane Recovery (or Natural Recovery) can restore (one
    option each)."""
    if feature not in c.features or c.resources.get(feature, 0) <= 0:
        return []
    budget = c.resources.get(f"{feature}_levels", (c.level + 1) // 2)
    slots, top = list(c.resources["slots"]), list(c.resources.get("slots_max", c.resources["slots"]))
    expended = {lv: top[lv - 1] - slots[lv - 1] for lv in range(1, min(len(slots), 5) + 1)}
    choices = set()
    for n in range(1, budget + 1):
        for combo in combinations_with_replacement(sorted(lv for lv, k in expended.items() if k > 0), n):
            if sum(combo) <= budget and all(combo.count(lv) <= expended[lv] for lv in set(combo)):
                choices.add(tuple(sorted(combo, reverse=True)))
    maximal = [c1 for c1 in choices
               if not any(c2 != c1 and _contains(c2, c1) for c2 in choices)]
    return sorted(maximal, key=lambda t: (-sum(t), [-v for v in t]))   # most levels, biggest slots first


def _contains(big: tuple, small: tuple) -> bool:
    rest = list(big)
    for v in small:
        if v not in rest:
            return False
        rest.remove(v)
    return True


# ====================================================================== a baseline between fights
