"""Light and darkness (SRD "Vision and Light"): dark battles, light sources, darkvision, and the
spells Light, Dancing Lights, Continual Flame, Darkvision and Enthrall (Daylight's light too).

Battle lighting
---------------
A battle is bright everywhere unless its encounter says ``light = "dark"`` (or ``"dim"``):
:func:`setup` then gives it ``Battle.lighting = {"ambient": ..., "sources": [...]}`` and one inert
marker zone (``unlit``) in ``Battle.zones``, so the engine's ``if self.zones:`` guards fire and
``spell_zones.sees`` asks :func:`visible`. A bright battle has neither: every hook costs it one
falsy check, and it plays exactly as before.

Light levels (0 darkness, 1 dim light, 2 bright light) of a creature are the brightest that reaches
any square of its space (:func:`level`). Sources:

* a map square whose legend entry has ``light = N`` (a brazier): bright light N ft around that
  square and dim light N ft more;
* what a creature carries: a torch, lamp, hooded lantern or candle in its kit (``items = ["torch"]``,
  ``resources["light"]``; simplification: carried without taking a hand), a condition with a
  ``light`` flag ``[bright, dim]`` (Light, Continual Flame on its gear), a monster's Illumination
  trait (azer, fire elemental, giant fire beetle, nightmare), a Flaming Sphere; carried lights move
  with the creature;
* lights at a point in ``Battle.lighting["sources"]`` (Dancing Lights, Daylight).

A carried or fixed light reaches the squares within its radius by the grid distance (an emanation
from the square(s) it is on), a light at a point those within its radius of the point (a sphere);
walls block light: a square is lit only when the line from the source to it is clear (the
line of effect of :mod:`.areas`). The answers are cached per map, source and square, since lights
move with creatures.

Sight (SRD): a creature in darkness is heavily obscured: a viewer sees it only within the range
of its darkvision, blindsight, truesight or Devil's Sight; dim light is lightly obscured, so a
creature in it is seen (disadvantage on sight-based Perception only). Unlike fog, darkness does
not block sight *through* it: a lit creature beyond a dark gap is seen. A creature the viewer
cannot see is unseen in every way the engine already knows (attack advantage and disadvantage,
no opportunity attack, no "creature you can see" spell, Hide counts it). Darkvision: a monster's
SRD senses, a condition's ``darkvision`` flag (the spell; PC builds are human and have none of
their own). Hide (:func:`perception_penalty`): a hider in dim light (for the viewer: darkvision
sees darkness as dim and dim as bright) or a viewer under Enthrall (against anyone but the
caster) counts the viewer's passive Perception at -5 (disadvantage).

Spells (``spell_mechanics.json`` rows with ``mech: "sight"``; offered only where they can
matter: light spells and Darkvision in a battle that is not bright, Enthrall whenever a foe can
be affected):

* Light (cantrip, touch, 1 hour): the touched creature's gear sheds bright light 20 ft and dim
  light 20 ft more; a foe's gear only on a failed Dex save. One Light per caster: a new casting
  ends the old one.
* Dancing Lights (cantrip, 120 ft, concentration): dim light in a 10-ft radius around a point; a
  bonus action on a later turn moves it up to 60 ft to a point within range (an action-menu
  option, then a destination decision). Simplification: the four lights are one light source.
* Continual Flame (2nd, touch, until dispelled): like Light on an ally's gear, permanent; between
  fights it lasts all day and its 50 gp of ruby dust come from the caster's ``gp`` (as for every
  costly component in this engine, a casting in battle does not count gold).
* Darkvision (2nd, touch, 8 hours): darkvision 60 ft; between fights an all-day buff.
* Enthrall (2nd, 60 ft, 1 minute): each foe the caster sees within range that can hear makes a
  Wis save, with advantage (it is being fought, SRD); a creature that can't be charmed succeeds.
  On a failure: -5 to its passive Perception against hiders other than the caster, while the
  caster can act. Simplification: "creatures of your choice" are all such foes (no choice to make).
* Daylight (a zone row of :mod:`.spell_zones`): besides dispelling magical darkness, a light at
  its point: bright 60 ft and dim 60 ft more, for its hour.

Between fights (the Day track): Light (until a short rest), Continual Flame and Darkvision (all
day) are intermission options when a fight still ahead is dark; :func:`plan` casts them for the
baseline. The heuristic planner's advice (:func:`.advice.lighting.heuristic_choice`) lights the
way when its side cannot see a foe: Light on the front-liner (or on an adjacent unseen foe),
Dancing Lights by the foes and moved to them, Darkvision on the front-liner.

Simplifications: Darkness does not dispel Light or Dancing Lights (its magical darkness hides what
is in it all the same); a foe lit by Light keeps the object (no action to cover it); a light does
not distinguish heights beyond the line of effect; Sunlight Sensitivity stays out of scope (no SRD
light here is sunlight: Daylight's is not).
"""

from __future__ import annotations

import functools

from . import areas, content, spell_buffs
from .grid import SQUARE_FT, Cover
from .model.durations import DURATION_TEXT, effect_duration
from .model.options import Opt
from .model.slots import spend_slot
from .rules import hooks, spell_data

DARK, DIM, BRIGHT = 0, 1, 2
AMBIENTS = {"bright": BRIGHT, "dim": DIM, "dark": DARK}
SPELLS = ("light", "dancing-lights", "continual-flame", "darkvision", "enthrall")
DAY_KINDS = ("day_light",)
#: monsters whose Illumination trait sheds light: (bright ft, dim ft more), SRD
ILLUMINATION = {"azer": (10, 10), "fire-elemental": (30, 30), "giant-fire-beetle": (10, 10), "nightmare": (10, 10)}
#: authored spell creatures that shed light (dnd/spell_summons.py): a Flaming Sphere, SRD 20 + 20
CREATURE_LIGHT = {"flaming-sphere": (20, 20)}
MARKER = "unlit"


def _m(key: str) -> dict:
    return spell_data.mech(key)


def _spell(key: str):
    return content.spell(key)


# ================================================================ battle lighting
def setup(b, ambient: str) -> None:
    """Give battle b its lighting (``ambient``: "bright", "dim" or "dark"); bright: nothing."""
    if ambient not in AMBIENTS:
        raise ValueError(f"unknown light {ambient!r}: expected one of {sorted(AMBIENTS)}")
    if ambient == "bright":
        return
    b.lighting = {"ambient": ambient, "sources": []}
    if not any(z.get("spell") == MARKER for z in b.zones):   # the engine's zone guards now fire
        b.zones.append({"spell": MARKER, "by": "", "level": 0, "dc": 0, "cells": frozenset(), "unlit": True})
    b.forget_reach()
    b.forget_options()


def active(b) -> dict | None:
    return b.__dict__.get("lighting")


def dark(b) -> bool:
    """A battle that is not bright everywhere (light spells can matter)."""
    return "lighting" in b.__dict__


@functools.lru_cache(maxsize=256)
def map_lights(bmap) -> tuple:
    """The map's fixed lights: ((x, y), bright ft, dim ft) for each square whose legend has ``light``."""
    out = []
    for y, row in enumerate(bmap.layout):
        for x, ch in enumerate(row):
            n = bmap.legend.get(ch, {}).get("light")
            if n:
                out.append(((x, y), int(n), int(n)))
    return tuple(out)


def _up(b, s: dict) -> bool:
    """A point light still shining: its caster concentrating (Dancing Lights, within its 120 ft),
    its duration not over (Daylight)."""
    by = b.creatures.get(s["by"])
    if s.get("conc") and (by is None or by.dead or by.concentration != s["spell"]):
        return False
    if s.get("range") and by is not None and _point_ft(by, s["at"]) > s["range"]:
        return False   # "a light winks out if it exceeds the spell's range"
    return s.get("until") is None or b.round < s["until"]


def _point_ft(c, at) -> int:
    """Grid distance from c's space to the square at intersection ``at`` (the square south-east)."""
    x, y = at[0], at[1]
    dx = max(0, c.pos[0] - x, x - (c.pos[0] + c.squares - 1))
    dy = max(0, c.pos[1] - y, y - (c.pos[1] + c.squares - 1))
    return SQUARE_FT * max(dx, dy)


def carried(c) -> tuple:
    """(bright, dim) of the light c sheds or carries, (0, 0) for none."""
    best = tuple(c.resources.get("light", (0, 0)))   # a torch or a lantern in its kit (dnd/items.py)
    if c.conditions:
        for v in c.conditions.values():
            lt = v.get("light")
            if lt and tuple(lt) > best:
                best = tuple(lt)
    if c.monster in ILLUMINATION or "creature" in c.resources:
        shed = ILLUMINATION.get(c.monster) or CREATURE_LIGHT.get(c.resources.get("creature"))
        if shed and not c.dead and shed > best:
            best = shed
    return best


def sources(b) -> list:
    """Every light now: (kind, where, bright ft, dim ft more); kind "box" (x, y, n, z) for a
    square or a creature's space, "point" (x, y) for an intersection."""
    out = []
    for (x, y), br, dm in map_lights(b.map):
        out.append(("box", (x, y, 1, b.map.elevation_at(x, y)), br, dm))
    L = active(b)
    for s in (L["sources"] if L else ()):
        if _up(b, s):
            out.append(("point", tuple(s["at"]), s["bright"], s["dim"]))
    for o in b.creatures.values():
        if "swallowed" in o.conditions or "removed" in o.conditions:
            continue   # inside a monster, or away: its light is hidden
        br, dm = carried(o)
        if br or dm:
            out.append(("box", (o.pos[0], o.pos[1], o.squares, o.pos[2]), br, dm))
    return out


_HITS: dict = {}


def _area(bmap, kind: str, where: tuple, radius: int):
    if kind == "point":
        return areas.sphere(where, radius, bmap)
    x, y, n, z = where
    return areas.emanation([(x + i, y + j) for j in range(n) for i in range(n)], radius, z)


def _reaches(bmap, kind: str, where: tuple, radius: int, box: tuple) -> bool:
    """Does a light of this radius reach some cube of the space box (x, y, n, z)? Walls block it."""
    key = (bmap, kind, where, radius, box)
    hit = _HITS.get(key)
    if hit is None:
        if len(_HITS) > 100_000:
            _HITS.clear()
        x, y, n, z = box
        hit = _HITS[key] = areas.affects(_area(bmap, kind, where, radius), bmap,
                                         [(x + i, y + j) for j in range(n) for i in range(n)], z)
    return hit


def level_at(b, box: tuple) -> int:
    """The light level of a space (x, y, n, z): 2 bright, 1 dim, 0 darkness."""
    L = active(b)
    if L is None:
        return BRIGHT
    best = AMBIENTS[L["ambient"]]
    for kind, where, br, dm in sources(b):
        if br and _reaches(b.map, kind, where, br, box):
            return BRIGHT
        if best < DIM and _reaches(b.map, kind, where, br + dm, box):
            best = DIM
    return best


def level(b, t) -> int:
    """The light level where creature t is."""
    return level_at(b, (t.pos[0], t.pos[1], t.squares, t.pos[2]))


def _form(c) -> str | None:
    """A wild-shaped druid's beast (SRD Wild Shape: the beast's statistics replace its own, its
    senses included; it keeps no special sense the beast lacks)."""
    return c.resources.get("wild_shape_form") if c.is_pc else None


@functools.cache
def _monster_darkvision(monster: str | None) -> int:
    if not monster:
        return 0
    return content.monster(monster).senses.get("darkvision", 0)


def darkvision(c) -> int:
    """c's darkvision range in feet: its SRD senses, the Darkvision spell's flag."""
    best = _monster_darkvision(c.monster or _form(c))
    for v in c.conditions.values():
        if v.get("darkvision", 0) > best:
            best = v["darkvision"]
    return best


@functools.cache
def _senses(monster: str | None) -> tuple:
    """(blindsight, truesight, devil's sight) ranges in feet for a monster key (0: none)."""
    if not monster:
        return (0, 0, 0)
    m = content.monster(monster)
    devil = 120 if any(t.key == "devils-sight" for t in m.traits) else 0
    return (m.senses.get("blindsight", 0), m.senses.get("truesight", 0), devil)


def senses(c) -> tuple:
    """(blindsight, truesight, devil's sight) of a creature (a spell's flag may add truesight)."""
    b, t, d = _senses(c.monster or _form(c))
    if c.is_pc and "devils_sight" in c.features:   # the invocation (dnd/classes/warlock.py)
        d = 120
    for v in c.conditions.values():
        if v.get("truesight"):
            t = max(t, v["truesight"])
    return b, t, d


def _dark_sight(c) -> int:
    """How far c sees in darkness: darkvision, blindsight, truesight, Devil's Sight."""
    return max(darkvision(c), *senses(c))


def visible(b, v, t) -> bool:
    """Whether the light lets v see t (SRD: darkness is heavily obscured; dim light is not)."""
    if v is t:
        return True
    reach = _dark_sight(v)
    if reach and b.distance(v, t) <= reach:
        return True
    return level(b, t) > DARK


def perception_penalty(b, o, hider) -> int:
    """What o's passive Perception loses against a hider: 5 (disadvantage) when o is enthralled
    by someone else (Enthrall), or when the hider is in dim light for o's eyes."""
    e = o.conditions.get("enthralled")
    if e and e.get("by") != hider.cid:
        by = b.creatures.get(e.get("by"))
        if by is not None and by.conscious and not by.incapacitated:
            return 5
    if active(b) is None:
        return 0
    lv = level(b, hider)
    if lv < BRIGHT and darkvision(o) >= b.distance(o, hider):   # darkness as dim, dim as bright
        lv += 1
    return 5 if lv == DIM else 0


def describe(b) -> dict:
    """The lighting in plain data for the state dict: the ambient light, the lit squares by
    level, and each light source in words."""
    L = active(b)
    W, H = b.map.width, b.map.height
    lit = {}
    for kind, where, br, dm in sources(b):
        for radius, lv in ((br + dm, DIM), (br, BRIGHT)):
            if not radius:
                continue
            for cell in _lit_cells(b.map, kind, where, radius):
                if lit.get(cell, 0) < lv:
                    lit[cell] = lv
    words = []
    for (x, y), br, dm in map_lights(b.map):
        words.append(f"a fixed light at ({x}, {y}): bright {br} ft, dim {dm} ft more")
    for s in L["sources"]:
        if _up(b, s):
            words.append(f"{s['by']}'s {s['spell']} at ({s['at'][0]}, {s['at'][1]}): "
                         + (f"bright {s['bright']} ft, " if s["bright"] else "") + f"dim {s['dim']} ft more")
    for o in sorted(b.creatures.values(), key=lambda o: o.cid):
        br, dm = carried(o)
        if br or dm:
            words.append(f"{o.cid} carries a light: bright {br} ft, dim {dm} ft more")
    base = AMBIENTS[L["ambient"]]
    return {"ambient": L["ambient"], "sources": words,
            "lit": sorted([x, y, lv] for (x, y), lv in lit.items() if lv > base and 0 <= x < W and 0 <= y < H)}


@functools.lru_cache(maxsize=4096)
def _lit_cells(bmap, kind: str, where: tuple, radius: int) -> tuple:
    return areas.affected_cells(_area(bmap, kind, where, radius), bmap)


# ================================================================ the spells (dnd/spellbook.py calls these)
def placement(key: str) -> str:
    return {"dancing-lights": "point", "enthrall": "self"}.get(key, "target")


def _touch(b, c, t) -> bool:
    return t is c or (b.distance(c, t) <= SQUARE_FT and b.line_of_effect(c, t))


def _lit_by(b, c) -> list:
    """The creatures carrying c's Light now."""
    return [o for o in b.creatures.values() if o.conditions.get("lit", {}).get("by") == c.cid]


def targets(b, c, key: str) -> list:
    """Creatures the spell may touch now: Light: self, allies and foes (not one already carrying
    c's Light); Continual Flame: self and allies without one; Darkvision: those of its side
    seeing less than 60 ft in the dark."""
    pool = [o for o in b.creatures.values() if not o.dead and _touch(b, c, o)]
    if key == "light":
        mine = {o.cid for o in _lit_by(b, c)}
        return [o for o in pool if o.cid not in mine and (o.side == c.side or b.may_target(c, o))]
    pool = [o for o in pool if o.side == c.side]
    if key == "continual-flame":
        return [o for o in pool if "continual_flame" not in o.conditions]
    if key == "darkvision":
        return [o for o in pool if darkvision(o) < _m(key)["darkvision"]]
    return []


def _hearers(b, c) -> list:
    """Enthrall's subjects: foes within 60 ft the caster sees that can hear it and are not under it yet."""
    out = []
    for o in b.enemies_of(c):
        if not o.conscious or "enthralled" in o.conditions or "deafened" in o.conditions:
            continue
        if b.distance(c, o) > _spell("enthrall").range_feet or not b.may_target(c, o):
            continue
        if b.zones and (not b.sees(c, o) or b.silenced(o)):
            continue
        if b.cover(c, o) == Cover.TOTAL:
            continue
        out.append(o)
    return out


def available(b, c, key: str, level: int) -> bool:
    """Whether casting can matter now (the engine lists the option only then)."""
    if key == "enthrall":
        return bool(_hearers(b, c))
    if not dark(b):
        return False
    if key == "dancing-lights":
        return b.point_ok(c, c.pos[0], c.pos[1], _spell(key).range_feet or 0)
    return bool(targets(b, c, key))


def summary(c, key: str, level: int) -> str:
    m, dc = _m(key), c.resources.get("spell_dc", 10)
    if key == "light":
        br, dm = m["light"]
        return (f"bright light {br} ft and dim light {dm} ft more from a touched creature's gear (a foe: DC {dc} "
                "DEX save); a new casting ends the old one")
    if key == "continual-flame":
        br, dm = m["light"]
        return f"bright light {br} ft and dim light {dm} ft more from an ally's gear until dispelled " \
               f"({m['cost_gp']} gp of ruby dust, counted between fights)"
    if key == "dancing-lights":
        return f"dim light in a {m['light'][1]}-ft radius at a point; a bonus action moves it {m['move_ft']} ft; " \
               "concentration"
    if key == "darkvision":
        return f"darkvision {m['darkvision']} ft for a touched creature (8 hours)"
    return (f"DC {dc} WIS (with advantage), each foe within {_spell(key).range_feet} ft that hears: -5 passive "
            "Perception against anyone but the caster for 1 minute")


def cast_at(b, c, key: str, level: int, t) -> bool:
    """The touched creature was chosen: pay, then the light or the darkvision lands."""
    b.pay_spell(c, key, level)
    spell_data.reveal(c)
    m = _m(key)
    if key == "light":
        _end_light(b.creatures.values(), c, b)
        if t.side != c.side and b.saving_throw(t, "dex", c.resources.get("spell_dc", 10), magic=True, origin=c):
            b.event("spell", f"{t.cid} keeps its gear out of {c.cid}'s light", creature=t.cid, spell=key)
            return True
        _give(b, t, "lit", {"by": c.cid, "spell": key, "light": list(m["light"]),
                            "until_round": b.round + (_spell(key).duration_rounds or 600)})
    elif key == "continual-flame":
        _give(b, t, "continual_flame", {"by": c.cid, "spell": key, "level": level, "light": list(m["light"])})
    elif key == "darkvision":
        _give(b, t, "darkvision", {"by": c.cid, "spell": key, "level": level, "darkvision": m["darkvision"],
                                   "until_round": b.round + (_spell(key).duration_rounds or 4800)})
    return True


def _give(b, t, cond: str, entry: dict) -> None:
    t.conditions[cond] = entry
    what = f"sheds light ({entry['spell']})" if "light" in entry else f"sees in the dark ({entry['spell']})"
    b.event("condition", f"{t.cid} {what}", creature=t.cid, condition=cond, spell=entry["spell"])


def _end_light(creatures, c, b=None) -> None:
    """Light: "the spell ends if you cast it again"."""
    for o in creatures:
        if o.conditions.get("lit", {}).get("by") == c.cid:
            del o.conditions["lit"]
            if b is not None:
                b.event("condition_end", f"{o.cid}'s light from {c.cid} goes out", creature=o.cid, condition="lit")


def resolve_area(b, c, use: tuple, where) -> None:
    """Dancing Lights at its point; Enthrall on the foes that hear."""
    key, level = use[1], use[2]
    if key == "enthrall":
        hits = _hearers(b, c)
        b.pay_spell(c, key, level)
        spell_data.reveal(c)
        dc = c.resources.get("spell_dc", 10)
        for o in sorted(hits, key=lambda o: o.cid):
            if "charmed" in o.condition_immunities or (o.conditions and _warded(o)):
                b.event("save", f"{o.cid} can't be charmed: it succeeds on the save", creature=o.cid, success=True)
                continue
            if not b.saving_throw(o, "wis", dc, magic=True, big=True, adv=True):   # being fought: advantage
                o.conditions["enthralled"] = {"by": c.cid, "spell": key, "until_round": b.round + 10}
                b.event("condition", f"{o.cid} is enthralled ({key})", creature=o.cid, condition="enthralled",
                        spell=key)
        b.back_to_menu(c)
        return
    m = _m(key)
    b.pay_spell(c, key, level)   # Dancing Lights: concentration (a new casting ended the old lights)
    spell_data.reveal(c)
    L = active(b)
    if L is not None:
        L["sources"][:] = [s for s in L["sources"] if not (s["by"] == c.cid and s["spell"] == key)]
        L["sources"].append({"spell": key, "by": c.cid, "at": list(where[:2]), "bright": m["light"][0],
                             "dim": m["light"][1], "conc": True, "range": _spell(key).range_feet})
    b.event("spell", f"{c.cid}'s dancing lights shine at ({where[0]}, {where[1]})", creature=c.cid, spell=key)
    b.back_to_menu(c)


def _warded(o) -> bool:
    return spell_buffs.wards(o, "charmed")


def add_daylight(b, c, key: str, where) -> None:
    """Daylight's sphere of light at its point for its hour (dnd/spell_zones.py calls this)."""
    L = active(b)
    lt = _light_of(key)
    if L is None or where is None or not lt:
        return
    L["sources"].append({"spell": key, "by": c.cid, "at": list(where[:2]), "bright": lt[0], "dim": lt[1],
                         "until": b.round + (_spell(key).duration_rounds or 600)})
    b.event("spell", f"{c.cid}'s {key} lights ({where[0]}, {where[1]})", creature=c.cid, spell=key)


# ================================================================ moving the dancing lights
def _my_lights(b, c) -> dict | None:
    L = active(b)
    if L is None:
        return None
    return next((s for s in L["sources"] if s["by"] == c.cid and s["spell"] == "dancing-lights" and _up(b, s)), None)


def later_options(b, c) -> list:
    """A bonus action on a later turn of the concentration: move the lights (a destination decision)."""
    s = _my_lights(b, c)
    if s is None or not c.economy.bonus or not _spots(b, c, s, first=True):
        return []
    return [Opt(f"Move the dancing lights (bonus action, up to {_m('dancing-lights')['move_ft']} ft)",
                "lights", ("move",))]


def _spots(b, c, s, first: bool = False) -> list:
    """Intersections the lights can move to: within the move of their point, in the spell's range
    of the caster with a line of effect."""
    k = _m("dancing-lights")["move_ft"] // SQUARE_FT
    x0, y0 = s["at"]
    rng = _spell("dancing-lights").range_feet
    out = []
    for y in range(max(0, y0 - k), min(b.map.height, y0 + k) + 1):
        for x in range(max(0, x0 - k), min(b.map.width, x0 + k) + 1):
            if (x, y) != (x0, y0) and b.point_ok(c, x, y, rng):
                out.append((x, y))
                if first:
                    return out
    return out


def move_options(b, c, p: dict) -> list:
    """The destination decision: each point, naming who the lights would reach there."""
    s = _my_lights(b, c)
    if s is None:
        return []
    dm = s["dim"]
    out = []
    for x, y in _spots(b, c, s):
        names = [o.cid for o in sorted(b.creatures.values(), key=lambda o: o.cid) if not o.dead
                 and _reaches(b.map, "point", (x, y), dm, (o.pos[0], o.pos[1], o.squares, o.pos[2]))]
        out.append(Opt(f"Move the dancing lights to ({x}, {y}) (lights {', '.join(names) or 'no one'})",
                       "destination", ((x, y, areas.ground_z_at_point(b.map, x, y)),), group=f"row y={y}"))
    return out


def apply(b, c, p: dict, opt) -> None:
    """The menu's "Move the dancing lights" (then where to), or the chosen point."""
    if p["kind"] == "action":
        b.pending = {"kind": "destination", "actor": c.cid, "use": ("lights", "dancing-lights")}
        b.forget_options()
        return
    s = _my_lights(b, c)
    x, y = opt.data[0][:2]
    c.economy.bonus = False
    if s is not None:
        s["at"] = [x, y]
        b.event("spell", f"{c.cid} moves the dancing lights to ({x}, {y})", creature=c.cid, spell="dancing-lights")
    b.back_to_menu(c)


# ================================================================ between fights (the Day track)
def _dark_ahead(run, next_only: bool = False) -> bool:
    stages = run.day.stages[run.stage:run.stage + 1] if next_only else run.day.stages[run.stage:]
    return any(getattr(st.scenario, "light", "bright") != "bright" for st in stages)


def day_options(run, c, living) -> list:
    """Light (until a short rest), Continual Flame and Darkvision (all day) on a member, while a
    fight still ahead is dark."""
    if not any(k in c.spells for k in ("light", "continual-flame", "darkvision")) or not _dark_ahead(run):
        return []
    out = []
    slots = c.resources.get("slots") or ()
    for key in ("light", "continual-flame", "darkvision"):
        if key not in c.spells:
            continue
        sp, m = _spell(key), _m(key)
        levels = [0] if sp.level == 0 else [lv for lv in range(sp.level, len(slots) + 1) if slots[lv - 1] > 0]
        if not levels or c.resources.get("gp", 0) < m.get("cost_gp", 0):
            continue
        lv = levels[0]
        how = DURATION_TEXT[effect_duration(key)]
        cost = f", consumes {m['cost_gp']} gp of ruby dust" if m.get("cost_gp") else ""
        for t in living:
            if (key == "light" and t.conditions.get("lit", {}).get("by") == c.cid) or \
                    (key == "continual-flame" and "continual_flame" in t.conditions) or \
                    (key == "darkvision" and darkvision(t) >= m["darkvision"]):
                continue
            at = f"level {lv}{cost}, " if lv else ""
            out.append(Opt(f"{c.cid} casts {sp.name} on {t.cid} ({at}{how})", "day_light", (c.cid, key, lv, (t.cid,))))
    return out


def day_apply(run, opt) -> None:
    cid, key, lv, ids = opt.data
    c, t, m = run.party[cid], run.party[ids[0]], _m(key)
    if lv:
        spend_slot(c, lv)
    if m.get("cost_gp"):
        c.resources["gp"] -= m["cost_gp"]
    entry = {"by": c.cid, "spell": key, "level": lv, "day_duration": effect_duration(key)}
    if key == "light":
        _end_light(run.party.values(), c)
        t.conditions["lit"] = {**entry, "light": list(m["light"])}
    elif key == "continual-flame":
        t.conditions["continual_flame"] = {**entry, "light": list(m["light"])}
    else:
        t.conditions["darkvision"] = {**entry, "darkvision": m["darkvision"]}
    run.event("cast", f"{c.cid} casts {key} on {t.cid} ({effect_duration(key).replace('_', ' ')})")
    run._menu = None


# ================================================================ dark battles for probes and tests
def darken(b, ambient: str = "dark") -> None:
    """Make a (probe or test) battle dark."""
    setup(b, ambient)


def needs_dark(spell: str) -> bool:
    """Spells offered only in a battle that is not bright (for probes of scrolls and monsters)."""
    return (_m(spell).get("mech") == "sight" and spell != "enthrall") or bool(_light_of(spell))


def _light_of(key: str):
    """A spell row's light [bright, dim]: its own, or its zone's (Daylight)."""
    m = _m(key)
    return m.get("light") or (m.get("zones") or {}).get("light")


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
hooks.OPTION_KINDS.register("lights", apply)   # move the dancing lights: where to
hooks.DESTINATION_USES.register("lights", apply)   # ... and their new point
hooks.SPELL_MECHANISMS.register("sight", hooks.SpellMechanism(   # Light, Dancing Lights, Darkvision, Enthrall
    placement=placement, targets=targets, available=available, summary=summary, cast_at=cast_at,
    resolve_area=resolve_area))


@hooks.LATER_OPTIONS.step(50)
def _later_options(b, c) -> list:
    return later_options(b, c) if c.concentration == "dancing-lights" else []   # a bonus action moves the lights
