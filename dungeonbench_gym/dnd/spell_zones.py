"""Lasting spell areas that change sight, terrain and magic (SRD): Darkness, Fog Cloud, Silence,
Sleet Storm, Spike Growth, Antilife Shell, Antimagic Field, Globe of Invulnerability, Earthquake,
Reverse Gravity, Storm of Vengeance; Daylight's dispelling of magical darkness; Prismatic Spray's
colours (an instant effect with its own resolution).

A spell belongs here when its row in ``spell_mechanics.json`` is a ``zone`` row (a lasting area
with no save of its own) with a ``zones`` entry (our authored facts). :func:`resolve` replaces the
generic area resolution for those rows (one hook in :func:`spellbook.resolve_area`). A cast zone
is a plain dict in ``Battle.zones``:

* ``spell``, ``by`` (the caster's id), ``level``, ``dc``, ``cells`` (the covered ``(x, y)``
  squares, clipped to the map), ``follow`` (an emanation that moves with the caster: its cells
  are recomputed from the caster's position), ``conc`` (it ends with the caster's concentration),
  ``until`` (a round number, for zones without concentration), ``stage`` (Storm of Vengeance);
* the behaviour flags of the row's ``zones`` entry: ``obscure`` ("heavy": fog, sleet, ink;
  "dark": magical darkness), ``silence``, ``difficult``, ``per_5ft`` (damage dice per 5 ft moved
  in it, with ``per_5ft_type``), ``enter_save`` (a save or a condition when a creature enters it
  for the first time on a turn or starts its turn there), ``barrier`` ("living": Antilife Shell),
  ``antimagic``, ``globe`` (the highest spell level it stops, at the spell's own level),
  ``quake`` (Earthquake's saves), ``lift`` (Reverse Gravity), ``storm`` (Storm of Vengeance).

The engine reaches this module through small guarded calls (``if self.zones:``), so a battle
with no zone pays one falsy check per hook: attack modifiers (sight), hiding, spell options
(Silence, Antimagic Field), movement (difficult terrain, barriers, damage per step), the start and
end of turns, thunder damage in Silence, and the spell targets and areas of the spellbook
(Globe of Invulnerability, Antimagic Field).

Sight: a heavily obscured square blocks sight lines (SRD "effectively blinded" for a creature
inside one); :func:`sees` asks the map's sight lines with the zones' squares as extra obscured
cells. An attacker that cannot see its target has disadvantage, a target that cannot see its
attacker grants advantage. Blindsight sees through any zone within its range; truesight and
Devil's Sight (a monster's trait, the warlock's invocation) see through magical darkness within
theirs. A creature that cannot see the mover makes no opportunity attack; a single-target save
spell ("a creature you can see") cannot target an unseen creature; hiding counts zone squares.
Simplification: while some zone lies between two creatures, the map's own walls and obscured
squares are asked too; with none in the way, sight is not checked (as everywhere in the engine).

Monsters: a darkmantle's Darkness Aura and an octopus's Ink Cloud are action options
(:func:`monster_options`, option kind ``monster_zone``) that leave such a zone; Antimagic
Susceptibility (animated objects) and conjured creatures lose a turn they start in an Antimagic
Field. Dispel Magic targets only creatures that carry spells, so that trait's Dispel Magic clause
never arises. The battle's plain-data state lists the live zones in words (:func:`describe`).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from . import areas, content, lighting, spellbook
from .classes import dispatch as class_features
from .grid import fall_damage_dice
from .model.options import Opt
from .rules import hooks, spell_data

_SPELLS = Path(__file__).parent / "content" / "data" / "spells.json"
_UNLIVING = ("undead", "construct")


# ================================================================ data
@functools.cache
def _verbal() -> frozenset:
    """Spells with a verbal component (SRD data)."""
    data = json.loads(_SPELLS.read_text())
    return frozenset(k for k, s in data.items() if (s.get("components") or {}).get("v"))


def spec(key: str) -> dict:
    return spell_data.mech(key).get("zones") or {}


def handles(key: str) -> bool:
    """Whether this module resolves the spell (its mechanics row has a ``zones`` entry)."""
    return bool(spec(key))


# ================================================================ lifetime and cells
def _up(b, z) -> bool:
    by = b.creatures.get(z["by"])
    if z.get("conc") and (by is None or by.dead or by.concentration != z["spell"]):
        return False
    return z.get("until") is None or b.round < z["until"]


def live(b) -> list:
    """The zones still up (the caster alive and concentrating, the duration not over); the others
    are dropped silently (the end of concentration has its own event), so when this is asked
    never changes the event log."""
    out = [z for z in b.zones if _up(b, z)]
    if len(out) != len(b.zones):
        b.zones[:] = out
        b.forget_reach()
    return out


def _clip(b, area) -> frozenset:
    W, H = b.map.width, b.map.height
    return frozenset((x, y) for x, y, _l in area.cubes if 0 <= x < W and 0 <= y < H)


def cells(b, z) -> frozenset:
    """The zone's squares now (an emanation follows its caster)."""
    if z.get("follow"):
        by = b.creatures[z["by"]]
        if z.get("at") != list(by.pos):
            z["at"] = list(by.pos)
            z["cells"] = _clip(b, areas.emanation(by.cells, z["size"], by.pos[2]))
    return z["cells"]


def inside(b, z, o) -> bool:
    cs = cells(b, z)
    return any(cell in cs for cell in o.cells)


def _aloft(b, o) -> bool:
    return o.pos[2] > b.map.standing_z(o.pos[0], o.pos[1], o.squares)


# ================================================================ casting
def resolve(b, c, use: tuple, where) -> None:
    """The spell lands (replaces the generic area resolution for ``zones`` rows)."""
    key, level = use[1], use[2]
    s = spec(key)
    sp = spell_data.spell(key)
    b.pay_spell(c, key, level)
    spell_data.reveal(c)
    a = spellbook.area(b, c, key, where)
    if s.get("prismatic"):
        _prismatic(b, c, key, level, a)
        b.back_to_menu(c)
        return
    if s.get("dispels"):   # Daylight: magical darkness of a low enough level ends where it overlaps
        cover = _clip(b, a)
        for z in live(b):
            if z.get("obscure") == s["dispels"] and z["level"] <= s["max_level"] and cells(b, z) & cover:
                _end_zone(b, z, f"dispelled by {c.cid}'s {key}")
        lighting.add_daylight(b, c, key, where)   # and its light, in a battle that is not bright
        b.back_to_menu(c)
        return
    if sp.concentration:   # a new concentration spell ended the caster's older zones
        b.zones[:] = [z for z in b.zones if not (z["by"] == c.cid and z.get("conc"))]
    z = {k: v for k, v in s.items()}
    z.update(spell=key, by=c.cid, level=level, dc=c.resources.get("spell_dc", 10), conc=sp.concentration,
             cells=_clip(b, a), size=spell_data.shape(key)[1])
    if z.get("globe") is not None:   # one more level stopped per slot level above the spell's
        z["globe"] += level - sp.level
    if not sp.concentration:
        z["until"] = b.round + (sp.duration_rounds or 10)
    if where is None and s.get("follow"):
        z["at"] = list(c.pos)
    elif where is not None:   # the point it was placed on (the whirlpool's centre)
        z["at"] = list(where)
    add(b, z)
    b.event("zone", f"{c.cid}'s {key} fills {len(z['cells'])} squares", creature=c.cid, spell=key)
    hits = [o for o in b.creatures.values() if not o.dead and inside(b, z, o)]
    if z.get("quake"):
        _quake(b, z, hits)
    if z.get("lift"):
        _lift(b, c, z, hits)
    if z.get("storm"):
        z["stage"] = 1
        _storm(b, c, z)
    b.back_to_menu(c)


def add(b, z: dict) -> None:
    """Record a zone (the movement cache depends on zones)."""
    b.zones.append(z)
    b.forget_reach()
    b.forget_options()


def _end_zone(b, z, why: str) -> None:
    b.zones[:] = [o for o in b.zones if o is not z]
    b.forget_reach()
    by = b.creatures.get(z["by"])
    if z.get("conc") and by is not None and by.concentration == z["spell"]:
        b.end_concentration(by)
    b.event("zone_end", f"{z['by']}'s {z['spell']} ends ({why})", creature=z["by"], spell=z["spell"])


def available(b, c, key: str) -> bool:
    """Daylight is worth casting only while some magical darkness it could end is up, or in a dark
    battle for its light (dnd/lighting.py)."""
    s = spec(key)
    if s.get("dispels"):
        return any(z.get("obscure") == s["dispels"] and z["level"] <= s["max_level"] for z in live(b)) \
            or (bool(s.get("light")) and lighting.dark(b))   # its light in a dark battle (dnd/lighting.py)
    if s.get("whirlpool"):   # Control Water's whirlpool needs deep water: an underwater battle
        return bool(getattr(b, "underwater", False))
    return True


# ================================================================ sight
def _obscuring(b, v, t) -> set:
    """The zone squares that block v's sight of t (blindsight within range sees through all,
    truesight and Devil's Sight through magical darkness)."""
    out = set()
    d = None
    for z in live(b):
        kind = z.get("obscure")
        if not kind:
            continue
        blind, true, devil = lighting.senses(v)
        if blind or (kind == "dark" and (true or devil)):
            d = b.distance(v, t) if d is None else d
            if blind >= d or (kind == "dark" and max(true, devil) >= d):
                continue
        out |= cells(b, z)
    return out


def sees(b, v, t) -> bool:
    """Whether v can see t through the zones (walls and the map's own obscurement included when
    some zone is in the way); in a dark battle, first whether the light lets v see t (dnd/lighting.py)."""
    if "lighting" in b.__dict__ and not lighting.visible(b, v, t):   # natural darkness (dnd/lighting.py)
        return False
    obs = _obscuring(b, v, t)
    if not obs:
        return True
    x0 = min(v.pos[0], t.pos[0])
    y0 = min(v.pos[1], t.pos[1])
    x1 = max(v.pos[0] + v.squares, t.pos[0] + t.squares)
    y1 = max(v.pos[1] + v.squares, t.pos[1] + t.squares)
    if not any(x0 <= x < x1 and y0 <= y < y1 for x, y in obs):
        return True   # no sight line can cross a zone square: cheap answer
    return b.map.can_see(v.cells, t.cells, viewer_z=v.pos[2], target_z=t.pos[2], extra_obscured=obs)


def sight_modifiers(b, c, t, adv: list, dis: list) -> None:
    """SRD unseen attackers and targets: disadvantage when c cannot see t, advantage when t
    cannot see c."""
    if not live(b):
        return
    if not sees(b, c, t):
        dis.append("target unseen (obscured)")
    if not sees(b, t, c):
        adv.append("attacker unseen (obscured)")


# ================================================================ magic
def blocks_casting(b, c, key: str) -> bool:
    """Silence: no spell with a verbal component from inside; Antimagic Field: no spell at all."""
    # SRD Archdruid: a 20th-level druid ignores its druid spells' verbal components (its spells are
    # all druid spells here), so Silence does not stop them
    verbal = key in _verbal() and "archdruid" not in c.features
    for z in live(b):
        if (z.get("antimagic") or (z.get("silence") and verbal)) and inside(b, z, c):
            return True
    return False


def silenced(b, t) -> bool:
    """Inside Silence: immune to thunder damage."""
    return any(z.get("silence") and inside(b, z, t) for z in live(b))


def shielded(b, c, key: str, t, level: int | None = None) -> bool:
    """A spell from c cannot affect t: t is in an Antimagic Field, or inside a Globe of
    Invulnerability that c is outside of and that stops spells of this level."""
    for z in live(b):
        if z.get("antimagic") and inside(b, z, t) and t is not c:
            return True
        if z.get("globe") is not None and inside(b, z, t) and not inside(b, z, c):
            lv = level if level is not None else spell_data.spell(key).level
            if lv <= z["globe"]:
                return True
    return False


def screen(b, c, key: str, pool: list, level: int | None = None) -> list:
    """The creatures of pool a spell from c can still affect: not shielded (Globe, Antimagic
    Field) and, for a single-target save spell ("a creature you can see"), seen through the
    obscuring zones."""
    if not live(b):
        return pool
    seeing = spell_data.mech(key).get("mech") in ("save", "word")
    return [t for t in pool if not shielded(b, c, key, t, level) and (not seeing or t is c or sees(b, c, t))]


# ================================================================ movement
def difficult_cells(b, c) -> tuple:
    """Squares that are difficult terrain for c this turn (Spike Growth, Sleet Storm, Earthquake,
    the late rounds of Storm of Vengeance)."""
    out = set()
    for z in live(b):
        if z.get("difficult") or (z.get("storm") and z.get("stage", 0) >= 5):
            out |= cells(b, z)
    return tuple(sorted(out))


def barrier_cells(b, c) -> list:
    """Squares c may not enter: an Antilife Shell keeps out creatures other than undead and
    constructs (those already inside move freely; the caster moves with it)."""
    if c.creature_type in _UNLIVING:
        return []
    out = []
    for z in live(b):
        if z.get("barrier") == "living" and z["by"] != c.cid and not inside(b, z, c):
            out.extend(cells(b, z))
    return out


def reach_through(b, c, t) -> bool:
    """A living creature can't reach through an Antilife Shell (melee across its edge)."""
    if c.creature_type in _UNLIVING:
        return True
    for z in live(b):
        if z.get("barrier") == "living" and z["by"] != c.cid and inside(b, z, t) != inside(b, z, c):
            return False
    return True


def on_step(b, c) -> None:
    """c has just moved 5 ft onto its new position: Spike Growth's thorns, Sleet Storm's save on
    entering; an Antilife Shell pressed onto a living creature by its caster's move ends."""
    for z in live(b):
        if z.get("barrier") == "living" and z["by"] == c.cid:
            old = z["cells"]
            now = cells(b, z)
            if any(o is not c and not o.dead and o.creature_type not in _UNLIVING
                   and any(x in now for x in o.cells) and not any(x in old for x in o.cells)
                   for o in b.creatures.values()):
                _end_zone(b, z, f"{c.cid} pressed it onto a creature")
    if _aloft(b, c) or not c.conscious:
        return
    for z in live(b):
        if not inside(b, z, c):
            continue
        if z.get("per_5ft"):
            amount = b.roller.roll_damage(z["per_5ft"], what=f"{z['spell']} {c.cid}")
            b.event("zone", f"{c.cid} moves through {z['by']}'s {z['spell']}", creature=c.cid, source=z["by"])
            b.damage(c, amount, z["per_5ft_type"], magical=True, source=z["by"])
        if z.get("enter_save"):
            _enter_save(b, z, c)
        if c.dead or not c.conscious:
            return


def _enter_save(b, z, c) -> None:
    """Once per turn, on entering or starting a turn in the zone (Sleet Storm: a Dex save or
    prone; a concentrating creature also saves to keep its concentration)."""
    tag = (c.cid, "zone:" + z["spell"] + ":" + z["by"])
    if tag in b.zone_hits or c.dead:
        return
    b.zone_hits.add(tag)
    ab, cond = z["enter_save"]
    if not b.saving_throw(c, ab, z["dc"], magic=True) and cond not in c.condition_immunities \
            and cond not in c.conditions:
        c.conditions[cond] = {}
        b.event("condition", f"{c.cid} is {cond} ({z['spell']})", creature=c.cid, condition=cond, spell=z["spell"])
    if c.concentration and not b.saving_throw(c, "con", z["dc"], magic=True):
        b.event("zone", f"{c.cid} loses concentration in {z['spell']}", creature=c.cid)
        b.end_concentration(c)


# ================================================================ turns
def start_of_turn(b, c) -> None:
    """Sleet Storm's save for a creature that starts its turn inside; Storm of Vengeance's next
    round on its caster's turn; Antimagic Susceptibility (an animated object starting its turn in
    an Antimagic Field is incapacitated until its next turn); a conjured creature starting its turn
    in one loses that turn (simplified winking out: it can still be targeted)."""
    for z in live(b):
        if z.get("storm") and z["by"] == c.cid:
            z["stage"] += 1
            _storm(b, c, z)
        elif z.get("whirlpool") and not c.dead:
            _whirl(b, z, c)
        elif z.get("enter_save") and not c.dead and not _aloft(b, c) and inside(b, z, c):
            _enter_save(b, z, c)
        elif z.get("antimagic") and (susceptible(c) or c.resources.get("summoned_by")) and not c.dead \
                and inside(b, z, c) and "incapacitated" not in c.conditions:   # a conjured one winks out
            c.conditions["incapacitated"] = {"by": z["by"], "until_round": b.round + 1}
            b.event("condition", f"{c.cid} is incapacitated ({z['spell']})", creature=c.cid, condition="incapacitated")


@functools.cache
def _susceptible(monster: str | None) -> bool:
    if not monster:
        return False
    return any(t.key == "antimagic-susceptibility" for t in content.monster(monster).traits)


def susceptible(c) -> bool:
    """Antimagic Susceptibility (animated armour, flying sword, rug of smothering)."""
    return _susceptible(c.monster)


def _whirl(b, z, c) -> None:
    """Control Water's whirlpool, at the start of a creature's turn: within 25 ft of the vortex
    (a 25-ft radius around the point) it is pulled 10 ft toward it; in the vortex, a Str save or
    2d8 bludgeoning and caught (speed 0; a Str save at the end of each of its turns frees it),
    half damage and free on a success. Simplification: the check on entering waits for its turn."""
    cx, cy = z["at"][0], z["at"][1]
    n = c.squares
    dist = max(abs(c.pos[0] + n / 2 - cx), abs(c.pos[1] + n / 2 - cy)) * 5 - n * 2.5
    if not inside(b, z, c) and dist <= z["size"] + 25 and "whirled" not in c.conditions:
        for _ in range(2):
            px, py = c.pos[0] + n / 2, c.pos[1] + n / 2
            x, y = c.pos[0] + (cx > px) - (cx < px), c.pos[1] + (cy > py) - (cy < py)
            taken = {cell for o in b.creatures.values() if not o.dead and o is not c for cell in o.cells}
            if (x, y) == tuple(c.pos[:2]) or not b.map.fits(x, y, n) or any(q in taken for q in _foot(x, y, n)):
                break
            c.pos = (x, y, b.map.standing_z(x, y, n))
            b.release(c)
        b.event("zone", f"{c.cid} is pulled toward {z['by']}'s whirlpool", creature=c.cid, source=z["by"])
        b.forget_reach()
    if inside(b, z, c) and "whirled" not in c.conditions:
        ok = b.saving_throw(c, "str", z["dc"], magic=True)
        amount = b.roller.roll_damage("2d8", what=f"whirlpool {c.cid}")
        b.damage(c, amount // 2 if ok else amount, "bludgeoning", magical=True, source=z["by"])
        if not ok and not c.dead:
            c.conditions["whirled"] = {"by": z["by"], "spell": z["spell"], "speed_zero": True, "repeat": "str",
                                       "dc": z["dc"], "magic": True}
            b.event("condition", f"{c.cid} is caught in the whirlpool", creature=c.cid, condition="whirled")
            c.economy.movement = 0


def _foot(x: int, y: int, n: int):
    return [(x + i, y + j) for j in range(n) for i in range(n)]


def end_of_turn(b, c) -> None:
    """Earthquake: at the end of each of its caster's turns, the creatures on the ground in the
    area save again."""
    for z in live(b):
        if z.get("quake") and z["by"] == c.cid:
            _quake(b, z, [o for o in b.creatures.values() if not o.dead and inside(b, z, o)])


def _quake(b, z, hits) -> None:
    """Each creature on the ground in the area: a Dex save or prone; a concentrating one: a Con
    save or its concentration ends. (No fissures or collapsing structures.)"""
    for o in sorted(hits, key=lambda o: o.cid):
        if o.dead or _aloft(b, o):
            continue
        if "prone" not in o.conditions and "prone" not in o.condition_immunities and \
                not b.saving_throw(o, "dex", z["dc"], magic=True):
            o.conditions["prone"] = {}
            b.event("condition", f"{o.cid} is prone ({z['spell']})", creature=o.cid, condition="prone")
        if o.concentration and not b.saving_throw(o, "con", z["dc"], magic=True):
            b.event("zone", f"{o.cid} loses concentration ({z['spell']})", creature=o.cid)
            b.end_concentration(o)


def _lift(b, c, z, hits) -> None:
    """Reverse Gravity: each creature in the area makes a Dex save (to hold on to something
    fixed); on a failure it falls up to the top of the area, the battle's ceiling
    (``max_altitude_ft``) below 100 ft, taking falling damage when it hits that ceiling; it hangs
    there (no walking: speed 0 unless it can fly) until the spell ends and it falls back down."""
    top = min(100, b.max_altitude_ft)
    for o in sorted(hits, key=lambda o: o.cid):
        if o.dead or b.saving_throw(o, "dex", z["dc"], magic=True):
            continue
        ground = b.map.standing_z(o.pos[0], o.pos[1], o.squares)
        height = ground + top - o.pos[2]
        o.pos = (o.pos[0], o.pos[1], ground + top)
        o.conditions["reversed"] = {"by": c.cid, "spell": z["spell"], "speed_zero": not o.fly}
        o.conditions.pop("prone", None)
        b.event("fall", f"{o.cid} falls upward {height} ft ({z['spell']})", creature=o.cid, height=height)
        n = fall_damage_dice(height) if b.max_altitude_ft < 100 else 0
        if n:
            b.damage(o, b.roller.roll_damage(f"{n}d6", what=f"fall {o.cid}"), "bludgeoning", source="fall")
        b.release_grapples_by(o)
    b.forget_reach()


def aloft(c) -> bool:
    """Held up by Reverse Gravity (the engine's falls leave it there)."""
    return "reversed" in c.conditions


_STORM = {   # stage: (dice, type, save, half, deafened)
    1: ("2d6", "thunder", "con", False, True),
    2: ("1d6", "acid", None, False, False),
    3: ("10d6", "lightning", "dex", True, False),
    4: ("2d6", "bludgeoning", None, False, False),
}


def _storm(b, c, z) -> None:
    """Storm of Vengeance, one round of it on the caster's turn: thunder (a Con save or 2d6 and
    deafened), acid rain (1d6), six lightning bolts at foes of the caster's choice (nearest first,
    Dex save for half of 10d6), hail (2d6), then difficult terrain, heavy obscurement and 1d6 cold
    each round until the tenth."""
    stage = z["stage"]
    if stage > 10:
        _end_zone(b, z, "its last round")
        return
    if stage >= 5:
        z["obscure"] = "heavy"
        b.forget_reach()
    dice_, dtype, save, half, deaf = _STORM.get(stage, ("1d6", "cold", None, False, False))
    hits = [o for o in b.creatures.values() if not o.dead and inside(b, z, o)]
    if stage == 3:
        hits = sorted([o for o in hits if o.side != c.side], key=lambda o: (b.distance(c, o), o.cid))[:6]
    b.event("zone", f"{c.cid}'s storm of vengeance, round {stage}", creature=c.cid, spell=z["spell"])
    for o in sorted(hits, key=lambda o: o.cid):
        if o.dead:
            continue
        amount = b.roller.roll_damage(dice_, what=f"storm of vengeance {o.cid}")
        ok = bool(save) and b.saving_throw(o, save, z["dc"], magic=True, big=True)
        dealt = class_features.area_damage(o, save, ok, half, amount)   # (Evasion)
        if dealt:
            b.damage(o, dealt, dtype, magical=True, source=c.cid)
        if deaf and not ok and not o.dead and "deafened" not in o.condition_immunities:
            o.conditions["deafened"] = {"by": c.cid, "until_round": b.round + 50}


_COLOURS = ((1, "red", "fire"), (2, "orange", "acid"), (3, "yellow", "lightning"), (4, "green", "poison"),
            (5, "blue", "cold"), (6, "indigo", None), (7, "violet", None))


def _prismatic(b, c, key: str, level: int, a) -> None:
    """Prismatic Spray: a d8 for each creature in the cone picks its ray. 1-5: a Dex save,
    10d6 of the ray's type (half on a success); 6 (indigo): a failed save restrains it, and a
    Con save at the end of each of its turns ends that, a failure petrifies it (simplified from
    three successes or failures); 7 (violet): a failed save blinds it, a Wis save at the end of
    its turns ends it (the banishment to another plane is not modelled); 8: two rays (rolled
    again, 8s rerolled)."""
    dc = c.resources.get("spell_dc", 10)
    hits = [o for o in b.creatures.values() if not o.dead and o is not c and areas.affects(a, b.map, o.cells, o.pos[2])
            and not (b.zones and shielded(b, c, key, o, level))]
    for o in sorted(hits, key=lambda o: o.cid):
        roll = b.roller.roll("1d8", what=f"prismatic spray {o.cid}")
        rays = [roll]
        if roll == 8:
            rays = []
            while len(rays) < 2:
                r = b.roller.roll("1d8", what=f"prismatic spray {o.cid}")
                if r != 8:
                    rays.append(r)
        for r in rays:
            if o.dead:
                break
            _, colour, dtype = _COLOURS[r - 1]
            b.event("spell", f"{o.cid} is struck by the {colour} ray", creature=o.cid, spell=key)
            ok = b.saving_throw(o, "dex", dc, magic=True, big=True, origin=c)   # a cone from the caster
            if dtype:
                amount = b.roller.roll_damage("10d6", what=f"damage {key} {dtype}")
                b.damage(o, class_features.area_damage(o, "dex", ok, True, amount), dtype, magical=True,
                         source=c.cid)   # (Evasion)
            elif not ok and colour == "indigo" and "restrained" not in o.condition_immunities:
                o.conditions["restrained"] = {"by": c.cid, "petrify": True, "round": b.round, "dc": dc}
                b.event("condition", f"{o.cid} is restrained ({key})", creature=o.cid, condition="restrained")
            elif not ok and colour == "violet" and "blinded" not in o.condition_immunities:
                o.conditions["blinded"] = {"by": c.cid, "repeat": "wis", "dc": dc, "magic": True}
                b.event("condition", f"{o.cid} is blinded ({key})", creature=o.cid, condition="blinded")


_WHAT = (("obscure", lambda v, z: "magical darkness" if v == "dark" else "heavily obscured"),
         ("silence", lambda v, z: "no verbal spells, thunder immunity inside"),
         ("difficult", lambda v, z: "difficult terrain"),
         ("per_5ft", lambda v, z: f"{v} {z['per_5ft_type']} per 5 ft moved"),
         ("enter_save", lambda v, z: f"{v[0].upper()} save or {v[1]} on entering"),
         ("barrier", lambda v, z: "keeps out the living"),
         ("antimagic", lambda v, z: "no spells or magic inside"),
         ("globe", lambda v, z: f"spells of level {v} or lower from outside can't get in"),
         ("quake", lambda v, z: "DEX save or prone each turn, difficult terrain"),
         ("lift", lambda v, z: "DEX save or fall upward"),
         ("storm", lambda v, z: "a storm: thunder, acid, lightning, hail, then sleet"),
         ("dispels", lambda v, z: f"ends magical darkness of level {z['max_level']} or lower"),
         ("light", lambda v, z: f"bright light {v[0]} ft and dim light {v[1]} ft more"),
         ("whirlpool", lambda v, z: "a whirlpool: pulls 10 ft, STR save or 2d8 bludgeoning and caught"),
         ("prismatic", lambda v, z: "a random ray each: 10d6 (DEX half), restrained or blinded"))


def summary(c, key: str, level: int) -> str:
    """The option label's summary of a zone spell."""
    return _summary(key, level, c.resources.get("spell_dc", 10))


@functools.lru_cache(maxsize=1024)
def _summary(key: str, level: int, dc: int) -> str:
    s, sp = spec(key), spell_data.spell(key)
    shape, size = spell_data.shape(key)
    bits = [f(s[k] + level - sp.level if k == "globe" else s[k], s) for k, f in _WHAT if s.get(k) not in (None, False)]
    bits.append(f"{size}-ft {shape}")
    if s.get("quake") or s.get("lift") or s.get("enter_save") or s.get("storm") or s.get("prismatic") \
            or s.get("whirlpool"):
        bits.insert(0, f"DC {dc}")
    if sp.concentration:
        bits.append("concentration")
    return ", ".join(bits)


# ================================================================ monsters' obscuring areas
#: monster -> (action key, radius ft, kind, SRD facts): a darkmantle's Darkness Aura (magical
#: darkness that moves with it, for its concentration, once a day), an octopus's Ink Cloud (heavy
#: obscurement around it for 1 minute, underwater only, once per rest; then Dash as a bonus action)
MONSTER_ZONES = {
    "darkmantle": ("darkness-aura", 15, {"obscure": "dark", "follow": True, "conc": True}),
    "octopus": ("ink-cloud", 5, {"obscure": "heavy", "underwater": True, "rounds": 10, "dash": True}),
    "giant-octopus": ("ink-cloud", 20, {"obscure": "heavy", "underwater": True, "rounds": 10, "dash": True}),
}


def monster_runs(c) -> set:
    """The action keys of c's stat block this module runs (for dnd/verification/coverage.py)."""
    m = MONSTER_ZONES.get(c.monster)
    return {m[0]} if m else set()


def monster_options(b, c) -> list:
    """A darkmantle's Darkness Aura, an octopus's Ink Cloud: an action, once per battle."""
    key, radius, f = MONSTER_ZONES[c.monster]
    if c.economy.actions <= 0 or key in c.resources.get("zone_actions_used", ()) or \
            (f.get("underwater") and not getattr(b, "underwater", False)):
        return []
    what = "magical darkness around it, moving with it" if f["obscure"] == "dark" else "heavily obscured around it"
    return [Opt(f"{key.replace('-', ' ').title()} ({radius}-ft radius, {what})", "monster_zone", (key,))]


def monster_zone(b, c, key: str) -> None:
    """The chosen Darkness Aura / Ink Cloud: the zone on c's space; the action spent."""
    _key, radius, f = MONSTER_ZONES[c.monster]
    c.economy.actions -= 1
    c.resources["zone_actions_used"] = tuple(c.resources.get("zone_actions_used", ())) + (key,)
    z = {"spell": key, "by": c.cid, "level": 99, "dc": 10, "conc": bool(f.get("conc")), "obscure": f["obscure"],
         "size": radius, "cells": _clip(b, areas.emanation(c.cells, radius, c.pos[2]))}
    if f.get("follow"):
        z.update(follow=True, at=list(c.pos))
    if f.get("conc"):   # "as if concentrating on a spell"
        b.end_concentration(c)
        c.concentration = key
        c.resources["concentration_until"] = b.round + 100
    if f.get("rounds"):
        z["until"] = b.round + f["rounds"]
    add(b, z)
    b.event("zone", f"{c.cid} uses {key} ({radius}-ft radius)", creature=c.cid, action=key)
    if f.get("dash"):   # then Dash as a bonus action, this turn
        c.conditions["ink_dash"] = {"bonus_dash": True, "until": "end_of_target_next_turn", "turn_of": None,
                                    "round": b.round}
    b.back_to_menu(c)


def describe(b) -> list:
    """The live zones in words, for the battle's plain-data state (what an LLM reads)."""
    out = []
    for z in b.zones:
        cs = cells(b, z) if _up(b, z) else ()
        if not cs:
            continue
        xs, ys = [x for x, _ in cs], [y for _, y in cs]
        s = spec(z["spell"]) if z["spell"] in spell_data.table() else z
        what = [f(s[k] + z["level"] - spell_data.spell(z["spell"]).level if k == "globe" else s[k], s)
                for k, f in _WHAT if s.get(k) not in (None, False) and k not in ("dispels", "prismatic")]
        if z.get("storm") and z.get("stage", 0) >= 5:
            what += ["heavily obscured", "difficult terrain"]
        out.append(f"{z['spell']} of {z['by']} over x {min(xs)}-{max(xs)}, y {min(ys)}-{max(ys)} "
                   f"({len(cs)} squares): " + ", ".join(what or ["an area"]))
    return out


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
@hooks.OPTION_KINDS.handles("monster_zone")   # Darkness Aura, Ink Cloud
def _choose_monster_zone(b, c, p, opt) -> None:
    monster_zone(b, c, opt.data[0])


@hooks.SPELL_SCREENS.step(10)
def _screen_spell(b, c, key: str, pool: list, level: int | None) -> list:
    """A Globe of Invulnerability or an Antimagic Field keeps the spell from those inside;
    obscuring zones from a save spell's unseen targets."""
    return screen(b, c, key, pool, level) if b.zones else pool


def _available(b, c, key: str, level: int) -> bool:
    return available(b, c, key) and spellbook.placed_available(b, c, key)


hooks.SPELL_MECHANISMS.register("zone", hooks.SpellMechanism(
    available=_available, summary=summary, resolve_area=resolve))


@hooks.LATER_OPTIONS.step(30)
def _later_options(b, c) -> list:
    return monster_options(b, c) if c.monster in MONSTER_ZONES else []   # Darkness Aura, Ink Cloud


@hooks.TURN_ENDS.step(20)
def _turn_ends(b, c) -> None:
    if b.zones:   # Earthquake's shaking
        end_of_turn(b, c)
