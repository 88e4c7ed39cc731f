"""Walls that appear mid-battle and enclosures: Wall of Force, Wall of Stone, Wall of Ice, Prismatic
Wall, Passwall, an ice devil's Wall of Ice; Forcecage and Resilient Sphere.

Walls
-----
A battle map is immutable and caches its sight lines, cover and routes, so a wall that appears
does not edit it: the battle's map is *replaced* by one derived from the map the battle began with
(:meth:`BattleMap.with_cells`) carrying every live wall's cells, and replaced again whenever a wall
ends or a section of it breaks (:meth:`Battle.replace_map` resets the battle's caches). The record
of live walls is :class:`Barriers`, kept on the battle as ``barriers`` (absent while there is none:
every hook below is a dictionary look-up when no wall was ever raised).

Placement uses the engine's own decisions: the spell option, then the anchor point (``point_x``,
``point_y``), then a direction; the wall is laid in a straight line of 5-ft cells from the anchor
cell in that direction, as long as the spell allows (its 10-ft panels in a row), stopping at the
map's edge or at a cell that is already solid. Diagonal walls leave no gaps (no corner cutting).
Numbers (length, height, AC and hit points of a 10-ft section, damage) are SRD facts in the
``barrier`` entry of the spell's row in ``spell_mechanics.json``; the ice devil's are in
:data:`MONSTER_WALLS` (compiled into the monster's ``resources["monster_wall"]`` by
:func:`.builders.monsters.monster_combatant`).

* A creature in a wall's cells when it appears is pushed to one side of it (SRD: the caster's choice):
  the caster's foes away from the caster, its allies toward it; a creature with no room on either
  side keeps its space and the wall leaves a gap there. Wall of Ice: those it pushed make the Dex
  save against its cold damage. Prismatic Wall fails (slot and action spent) when its line would
  cross a creature, and blinds (Con save, 1 minute) the caster's foes within 20 ft.
* Concentration walls (Force, Stone, Ice) end with the caster's concentration (the engine's
  ``end_concentration`` and a check at every turn's start); Prismatic Wall and Passwall last their
  SRD duration; the ice devil's wall lasts 1 minute or until the devil is incapacitated or dies.
* Sections with hit points (Stone: AC 15, 180 HP per 10-ft section; Ice: AC 12, 30 HP, vulnerable to
  fire; the ice devil's: AC 5, 30 HP) can be attacked in melee: a ``wall_panel`` option on the
  action menu spends the Attack action on the creature's best melee attack (Extra Attack and a
  monster's multiattack count of swings); a section at 0 HP opens its cells. A broken ice section
  leaves frigid air: a hazard of the derived map (Con save, half on a success) on each of its squares
  a creature enters (simplification: per square entered, not once per turn).
* Passwall opens the solid cells of the map within 20 ft of the anchor in the chosen direction
  (the passage); when it ends, creatures in it are moved to the nearest free squares.
* Stone Shape (touch, instantaneous): the anchor is the caster's own square, the direction picks the
  square beside it: a solid square of the first map (every map wall counts as stone) opens for
  good, an empty floor square becomes stone (unbreakable, 10 ft high); a square with a creature or
  a magical wall in it is left alone (the slot is spent).

Simplifications: walls block sight as well as movement and effect (the engine draws sight and
effect along the same lines, so the invisible Wall of Force hides what is behind it); Prismatic
Wall's layers cannot be passed or broken (it stops everyone, the caster's allies included);
area damage does not hurt sections;
Disintegrate does not destroy a Wall of Force.

Enclosures
----------
Forcecage (no save, 1 hour) and Resilient Sphere (Dex save, concentration) put the condition
``enclosed`` on one Large or smaller creature (rows in ``spell_mechanics.json``: the spellbook's
``mark`` and ``save`` mechanisms). :func:`apart` is read by :meth:`Battle.inside_apart`: nothing passes
between an enclosed creature and anyone else (total cover: no attack, spell or area effect in or out).
The cage holds its creature still (speed 0); the sphere rolls at half speed with its creature in it.
No opportunity attack, shove or grapple crosses the barrier, Spirit Guardians do not reach in, and an
enclosed creature is offered no teleport destination (simplification: no Cha save to teleport out of
a Forcecage).
"""

from __future__ import annotations

from . import content, spellbook
from .areas import DIRECTIONS_8, Area, ground_z_at_point
from .classes import dispatch as class_features
from .grid import BLOCKS, SQUARE_FT, BattleMap, footprint
from .model.options import Opt
from .rules import hooks, spell_data
from .state import expected_damage

#: the option kinds this module adds to an action menu (the engine hands them to :func:`apply`)
KINDS = ("wall_panel", "monster_wall")

#: a monster's wall-making action (SRD stat block facts), compiled into ``resources["monster_wall"]``
MONSTER_WALLS = {
    "ice-devil": {"action": "wall-of-ice", "name": "Wall of Ice", "kind": "ice", "length": 30, "top": 10,
                  "section": 2, "ac": 5, "hp": 30, "vulnerable": ["fire"],
                  "immune": ["acid", "cold", "necrotic", "poison", "psychic"], "save": "dex", "dc": 17,
                  "dice": "10d6", "type": "cold", "air": "5d6", "range": 60, "rounds": 10, "recharge": 6},
}


class Barriers:
    """The live walls of one battle and the map it began with (what every derived map starts from)."""

    def __init__(self, base):
        self.base = base
        self.walls: list[dict] = []
        self.serial = 0

    def __getstate__(self):   # the map travels as its data, like the battle's own
        return {"base": self.base.to_dict(), "walls": self.walls, "serial": self.serial}

    def __setstate__(self, state):
        self.base = BattleMap.from_dict(state["base"])
        self.walls = state["walls"]
        self.serial = state["serial"]


# ================================================================ facts
def _row(key: str) -> dict:
    return spell_data.mech(key)


def facts(c, key: str) -> dict:
    """The wall's numbers: a monster's own action (an ice devil's Wall of Ice) or the spell's row."""
    mw = c.resources.get("monster_wall")
    if mw is not None and mw["action"] == key and key not in c.spells:
        return mw
    return _row(key)["barrier"]


def point_range(c, use: tuple) -> int | None:
    """The range of a point placement when it is not the spell's (the ice devil: 60 ft)."""
    mw = c.resources.get("monster_wall")
    if mw is not None and use[1] == mw["action"] and use[1] not in c.spells:
        return mw["range"]
    return None


# ================================================================ geometry
def _anchor_cell(b, point) -> tuple[int, int]:
    return (min(int(point[0]), b.map.width - 1), min(int(point[1]), b.map.height - 1))


def wall_cells(b, f: dict, anchor, d) -> list:
    """The cells of a wall laid from the anchor cell in direction d: its length in 5-ft cells,
    stopping at the map's edge or at a cell that is already solid."""
    out = []
    x, y = anchor
    for k in range(max(1, f["length"] // SQUARE_FT)):
        cx, cy = x + d[0] * k, y + d[1] * k
        if not b.map.in_bounds(cx, cy) or b.map.flags_at(cx, cy) & BLOCKS:
            break
        out.append((cx, cy))
    return out


def passage_cells(b, f: dict, anchor, d) -> list:
    """Passwall: the solid cells of the map the battle began with (not magical walls) within the
    passage's depth beyond the anchor cell."""
    base = _base(b)
    out = []
    x, y = anchor
    for k in range(1, f["length"] // SQUARE_FT + 1):
        cx, cy = x + d[0] * k, y + d[1] * k
        if not b.map.in_bounds(cx, cy):
            break
        if base.flags_at(cx, cy) & BLOCKS and not _magic_cell(b, (cx, cy)):
            out.append((cx, cy))
    return out


def shape_cells(b, anchor, d) -> list:
    """Stone Shape: the square next to the anchor in direction d (when it is on the map)."""
    x, y = anchor[0] + d[0], anchor[1] + d[1]
    return [(x, y)] if b.map.in_bounds(x, y) else []


def _shape_mode(b, cell) -> str | None:
    """What Stone Shape does to a square: "open" a solid square of the first map (not a magical
    wall), "raise" stone on an empty floor square, or None (nothing to shape)."""
    if _base(b).flags_at(*cell) & BLOCKS and b.map.flags_at(*cell) & BLOCKS and not _magic_cell(b, cell):
        return "open"
    if b.map.flags_at(*cell) & BLOCKS or any(not o.dead and cell in o.cells for o in b.creatures.values()):
        return None
    return "raise"


def _cells_for(b, c, key: str, where, anchor) -> tuple[list, tuple]:
    f = facts(c, key)
    if where not in DIRECTIONS_8:   # a point alone (the planner's look-ahead): face east from it
        anchor, where = where[:2], (1, 0, 0)
    if anchor is None:   # a direction alone: from the square beside the caster
        anchor = (c.pos[0] + where[0] * c.squares if where[0] > 0 else c.pos[0] + where[0],
                  c.pos[1] + where[1] * c.squares if where[1] > 0 else c.pos[1] + where[1])
    anchor = _anchor_cell(b, anchor)
    if f["kind"] == "passage":
        return passage_cells(b, f, anchor, where), anchor
    if f["kind"] == "shape":   # Stone Shape: the one square beside the anchor
        return shape_cells(b, anchor, where), anchor
    return wall_cells(b, f, anchor, where), anchor


def area(b, c, key: str, where, anchor=None) -> Area:
    """The area the engine's labels and the planner read: the wall's cells (Prismatic Wall: and
    every square within its blinding reach), as an :class:`areas.Area` at the anchor's ground."""
    cells, anc = _cells_for(b, c, key, where, anchor)
    f = facts(c, key)
    if f["kind"] == "passage" or (f["kind"] == "shape" and (not cells or _shape_mode(b, cells[0]) != "raise")):
        cells = []
    if f.get("blind_ft") and _crosses(b, cells):   # Prismatic Wall across a creature: it fails, hits no one
        cells = []
    if f.get("blind_ft") and cells:
        r = f["blind_ft"] // SQUARE_FT
        cells = sorted({(x + i, y + j) for x, y in cells for i in range(-r, r + 1) for j in range(-r, r + 1)})
    layer = int(ground_z_at_point(b.map, *anc) // SQUARE_FT)
    offs = tuple((x - anc[0], y - anc[1], 0) for x, y in cells)
    a = Area("wall", (2 * anc[0] + 1, 2 * anc[1] + 1, 2 * layer + 1), offs)
    return a


def _crosses(b, cells) -> bool:
    s = set(cells)
    return any(not o.dead and s.intersection(o.cells) for o in b.creatures.values())


def summary(c, key: str, level: int) -> str:
    """The spell option's description."""
    f = facts(c, key)
    if f["kind"] == "passage":
        return f"opens a {f['length']}-ft passage through solid walls, 1 hour"
    if f["kind"] == "shape":
        return "opens the stone square beside the caster, or raises one on an empty square (direction)"
    bits = [f"a {f['length']}-ft wall, point then direction"]
    if f.get("hp"):
        bits.append(f"AC {f['ac']}, {f['hp']} HP per 10-ft section")
    else:
        bits.append("unbreakable")
    if f.get("save") == "dex":
        bits.append(f"DC {_dc(c, f)} DEX for {_dice(c, key, level, f)} cold to those it pushes")
    if f.get("blind_ft"):
        bits.append(f"DC {_dc(c, f)} CON or blinded within {f['blind_ft']} ft; fails if it crosses a creature")
    if key in content.spells() and content.spell(key).concentration and "action" not in f:
        bits.append("concentration")
    return ", ".join(bits)


def _dc(c, f: dict) -> int:
    return f.get("dc") or c.resources.get("spell_dc", 10)


def _dice(c, key: str, level: int, f: dict) -> str:
    if f.get("dice"):
        return f["dice"]
    return spell_data.dice(c, key, level) or "0"


# ================================================================ the battle's map
def _state(b) -> Barriers:
    st = b.__dict__.get("barriers")
    if st is None:
        st = b.__dict__["barriers"] = Barriers(b.map)
    return st


def _base(b):
    st = b.__dict__.get("barriers")
    return st.base if st is not None else b.map


def _magic_cell(b, cell) -> bool:
    st = b.__dict__.get("barriers")
    return st is not None and any(cell in w["cells"] for w in st.walls if w["kind"] != "passage")


def _spec(w: dict) -> dict:
    if w["kind"] == "passage":
        return {"name": "passage"}
    return {"wall": True, "top": w["top"], "name": w["name"].lower()}


def _rebuild(b) -> None:
    """Derive the battle's map from its first map and the live walls; swap it in."""
    st = b.__dict__.get("barriers")
    if st is None:
        return
    changes: dict = {}
    for w in st.walls:   # passages first: a magical wall raised in a passage closes it again
        if w["kind"] == "passage":
            for cell in w["cells"]:
                changes[tuple(cell)] = _spec(w)
    for w in st.walls:
        if w["kind"] != "passage":
            for p in w["panels"]:
                if p["hp"] is None or p["hp"] > 0:
                    for cell in p["cells"]:
                        changes[tuple(cell)] = _spec(w)
                elif w.get("air"):   # a broken ice section: frigid air over the floor that was there
                    for x, y in p["cells"]:
                        floor = dict(st.base.legend[st.base.layout[y][x]])
                        changes[(x, y)] = dict(floor, name="frigid air", hazard=dict(w["air"]))
    new = st.base.with_cells(changes) if changes else st.base
    if not st.walls:
        del b.__dict__["barriers"]
    b.replace_map(new)


def live(b) -> list:
    st = b.__dict__.get("barriers")
    return list(st.walls) if st is not None else []


# ================================================================ raising a wall
def raise_wall(b, c, key: str, level: int, anchor, d) -> None:
    """The direction was chosen: pay, push creatures out of the cells, put the wall on the map."""
    f = facts(c, key)
    mw = c.resources.get("monster_wall")
    monster = mw is not None and f is mw
    if monster:
        c.economy.actions -= 1
        mw["ready"] = False
        b.event("save_action", f"{c.cid} uses {f['name']}", creature=c.cid, action=key)
    else:
        b.pay_spell(c, key, level)   # (a new concentration spell ends the old one and its wall first)
    anchor = _anchor_cell(b, anchor if anchor is not None else c.pos[:2])
    if d not in DIRECTIONS_8:
        d = (1, 0, 0)
    if f["kind"] == "shape":
        _shape(b, c, key, f, anchor, d)
        b.back_to_menu(c)
        return
    if f["kind"] == "passage":
        cells = passage_cells(b, f, anchor, d)
        _add(b, c, key, f, cells, monster, d, level)
        b.event("wall", f"{c.cid}'s {key} opens {len(cells)} squares of wall", creature=c.cid, spell=key,
                cells=[list(x) for x in cells])
        b.back_to_menu(c)
        return
    cells = wall_cells(b, f, anchor, d)
    cellset = set(cells)
    inside = [o for o in sorted(b.creatures.values(), key=lambda o: o.cid)
              if not o.dead and cellset.intersection(o.cells) and o.pos[2] < b.map.standing_z(
                  o.pos[0], o.pos[1], o.squares) + f["top"]]
    if f.get("blind_ft") and inside:   # Prismatic Wall: it may not cross a creature's space
        b.event("wall_fails", f"{c.cid}'s {key} fails: {', '.join(o.cid for o in inside)} in the way",
                creature=c.cid, spell=key)
        b.back_to_menu(c)
        return
    pushed = []
    for o in inside:
        spot = _push_spot(b, c, o, cellset, d, anchor)
        if spot is None:   # nowhere to go: the wall leaves a gap around it
            cellset.difference_update(o.cells)
            continue
        o.pos = spot
        pushed.append(o)
        b.event("push", f"{o.cid} is pushed out of the wall to ({spot[0]}, {spot[1]})", creature=o.cid)
    cells = [x for x in cells if x in cellset]
    _add(b, c, key, f, cells, monster, d, level)
    b.event("wall", f"{c.cid}'s {f.get('name', key)} rises over {len(cells)} squares", creature=c.cid, spell=key,
            cells=[list(x) for x in cells])
    if f.get("save") == "dex" and pushed:   # Wall of Ice: the cold on those it pushed
        dtype = f.get("type", "cold")
        amount = b.roller.roll_damage(_dice(c, key, level, f), what=f"damage {key} {dtype}")
        for o in pushed:
            if o.dead:
                continue
            ok = b.saving_throw(o, "dex", _dc(c, f), magic=True, big=True)
            dealt = class_features.area_damage(o, "dex", ok, True, amount)   # (Evasion)
            if dealt:
                b.damage(o, dealt, dtype, magical=True, source=c.cid)
    if f.get("blind_ft"):
        _blind(b, c, key, f, cells)
    b.back_to_menu(c)


def _shape(b, c, key: str, f: dict, anchor, d) -> None:
    """Stone Shape (instantaneous, so the change stays): open the square or raise stone on it."""
    cells = shape_cells(b, anchor, d)
    mode = _shape_mode(b, cells[0]) if cells else None
    if mode is None:
        b.event("wall_fails", f"{c.cid}'s {key} finds no stone to shape there", creature=c.cid, spell=key)
        return
    kind = "passage" if mode == "open" else f.get("raises", "stone")
    _add(b, c, key, dict(f, kind=kind, name="Shaped stone"), cells, False, d)
    what = "opens" if mode == "open" else "raises stone on"
    b.event("wall", f"{c.cid}'s {key} {what} ({cells[0][0]}, {cells[0][1]})", creature=c.cid, spell=key,
            cells=[list(x) for x in cells])


def _add(b, c, key, f, cells, monster, d, level=0) -> None:
    st = _state(b)
    st.serial += 1
    sec = f.get("section") or max(1, len(cells))
    panels = [{"cells": [list(x) for x in cells[i:i + sec]], "hp": f.get("hp")} for i in range(0, len(cells), sec)]
    sp = content.spell(key) if not monster else None
    rounds = f.get("rounds") or (sp.duration_rounds if sp is not None and not sp.concentration else None)
    st.walls.append({
        "id": st.serial, "spell": key, "by": c.cid, "kind": f["kind"], "name": f.get("name") or (sp.name if sp else key),
        "cells": [list(x) for x in cells], "panels": panels, "ac": f.get("ac"), "top": f.get("top", 10),
        "vulnerable": list(f.get("vulnerable", ())), "immune": list(f.get("immune", ())),
        "concentration": bool(sp is not None and sp.concentration), "until": b.round + rounds if rounds else None,
        "monster": monster, "dir": list(d)})
    if f.get("air"):   # Wall of Ice: the frigid air a broken section leaves (5d6, +1d6 a slot level above 6th)
        n, die = f["air"].split("d")
        extra = max(0, level - 6) if not monster else 0
        st.walls[-1]["air"] = {"kind": "frigid air", "damage": f"{int(n) + extra}d{die}", "damage_type": "cold",
                               "save": "con", "dc": _dc(c, f)}
    _rebuild(b)


def _push_spot(b, c, o, cellset: set, d, anchor):
    """Where o goes: the nearest place beside the wall on the chosen side (the caster's foes away
    from the caster, its allies toward it), else the other side; None when neither has room."""
    px, py = -d[1], d[0]
    cx, cy = c.pos[0] - anchor[0], c.pos[1] - anchor[1]
    toward = 1 if cx * px + cy * py >= 0 else -1
    sides = (-toward, toward) if o.side != c.side else (toward, -toward)
    taken = {cell for q in b.creatures.values() if not q.dead and q is not o for cell in q.cells}
    n = o.squares
    for s in sides:
        for k in range(1, n + 2):
            x, y = o.pos[0] + s * px * k, o.pos[1] + s * py * k
            if not b.map.fits(x, y, n):
                continue
            cells = footprint(x, y, n)
            if any(cell in cellset or cell in taken for cell in cells):
                continue
            return (x, y, b.map.standing_z(x, y, n))
    return None


def _blind(b, c, key, f, cells) -> None:
    """Prismatic Wall: the caster's foes within reach of the wall make a Con save or are blinded
    for 1 minute (the caster and its allies are the creatures it designates)."""
    reach = f["blind_ft"]
    for o in sorted(b.creatures.values(), key=lambda o: o.cid):
        if o.dead or o.side == c.side or "blinded" in o.conditions or "blinded" in o.condition_immunities:
            continue
        if not any(b.map.distance_ft(o.cells, [tuple(x)], o.pos[2], None) <= reach for x in cells):
            continue
        if not b.saving_throw(o, "con", _dc(c, f), magic=True, big=True):
            o.conditions["blinded"] = {"by": c.cid, "spell": key, "until_round": b.round + 10}
            b.event("condition", f"{o.cid} is blinded ({key})", creature=o.cid, condition="blinded", spell=key)


# ================================================================ ending
def _remove(b, w: dict, why: str) -> None:
    st = b.__dict__.get("barriers")
    if st is None or w not in st.walls:
        return
    st.walls.remove(w)
    b.event("wall_end", f"{w['by']}'s {w['name']} ends ({why})", creature=w["by"], spell=w["spell"])
    _rebuild(b)
    if w["kind"] == "passage":   # SRD: those still in the passage are ejected to the nearest free squares
        for o in sorted(b.creatures.values(), key=lambda o: o.cid):
            if not o.dead and not b.map.fits(o.pos[0], o.pos[1], o.squares):
                spot = nearest_free(b, o)
                if spot is not None:
                    o.pos = spot
                    b.event("push", f"{o.cid} is ejected from the passage to ({spot[0]}, {spot[1]})", creature=o.cid)


def nearest_free(b, o):
    taken = {cell for q in b.creatures.values() if not q.dead and q is not o for cell in q.cells}
    n = o.squares
    for r in range(1, max(b.map.width, b.map.height)):
        for y in range(o.pos[1] - r, o.pos[1] + r + 1):
            for x in range(o.pos[0] - r, o.pos[0] + r + 1):
                if max(abs(x - o.pos[0]), abs(y - o.pos[1])) == r and b.map.fits(x, y, n) and \
                        not any(cell in taken for cell in footprint(x, y, n)):
                    return (x, y, b.map.standing_z(x, y, n))
    return None


def concentration_ended(b, c, spell) -> None:
    """The engine's end_concentration: c's concentration wall (if any) goes with it."""
    for w in live(b):
        if w["concentration"] and w["by"] == c.cid and w["spell"] == spell:
            _remove(b, w, "concentration ends")


def start_of_turn(b, c) -> None:
    """At every turn's start: walls whose maker lost concentration, died or (a monster's) is
    incapacitated, or whose duration ran out at its maker's turn, end; a monster's wall recharges."""
    mw = c.resources.get("monster_wall")
    if mw is not None and not mw["ready"] and mw.get("recharge"):
        roll = b.roller.roll("1d6", what=f"recharge {c.cid} {mw['action']}")
        if roll >= mw["recharge"]:
            mw["ready"] = True
            b.event("recharge", f"{c.cid}'s {mw['action']} recharges ({roll})", creature=c.cid)
    for w in live(b):
        by = b.creatures.get(w["by"])
        if (by is None or by.dead) and (w["concentration"] or w["monster"]):
            _remove(b, w, "its maker is gone")
        elif by is None or by.dead:   # Prismatic Wall, Passwall: they outlast their caster
            continue
        elif w["concentration"] and by.concentration != w["spell"]:
            _remove(b, w, "concentration ends")
        elif w["monster"] and by.incapacitated:
            _remove(b, w, "its maker is incapacitated")
        elif w["until"] is not None and by is c and b.round >= w["until"]:
            _remove(b, w, "its duration ends")


# ================================================================ options
def action_options(b, c) -> list:
    """A monster's wall action (when ready), and attacks on breakable wall sections in reach."""
    out = []
    e = c.economy
    if e.actions <= 0 or e.attacks_left:
        return out
    mw = c.resources.get("monster_wall")
    if mw is not None and mw["ready"] and b.point_ok(c, c.pos[0], c.pos[1], mw["range"]):
        out.append(Opt(f"{mw['name']} (a {mw['length']}-ft wall within {mw['range']} ft; DC {mw['dc']} DEX, "
                       f"{mw['dice']} {mw['type']} to those it pushes)", "monster_wall", (mw["action"],)))
    walls = live(b)
    melee = [a for a in c.attacks if a.melee]
    if not walls or not melee:
        return out
    reach = max(a.reach for a in melee)
    seen = 0
    for w in walls:
        for i, p in enumerate(w["panels"]):
            if p["hp"] is None or p["hp"] <= 0:
                continue
            if any(b.map.distance_ft(c.cells, [tuple(x)], c.pos[2], None) <= reach for x in p["cells"]):
                x, y = p["cells"][0]
                out.append(Opt(f"Attack the {w['name']} section at ({x}, {y}) [AC {w['ac']}, "
                               f"{p['hp']}/{_hp_max(b, w)} HP]", "wall_panel", (w["id"], i)))
                seen += 1
                if seen >= 4:
                    return out
    return out


def _hp_max(b, w) -> int:
    by = b.creatures.get(w["by"])
    if w["monster"] and by is not None and by.resources.get("monster_wall"):
        return by.resources["monster_wall"]["hp"]
    return _row(w["spell"])["barrier"]["hp"]


def apply(b, c, opt) -> None:
    """An option of :data:`KINDS` was chosen."""
    if opt.kind == "monster_wall":
        b.pending = {"kind": "point_x", "actor": c.cid, "use": ("spell", opt.data[0], 0)}
        b.forget_options()
        return
    wid, i = opt.data
    w = next((w for w in live(b) if w["id"] == wid), None)
    if w is None or w["panels"][i]["hp"] is None or w["panels"][i]["hp"] <= 0:
        b.back_to_menu(c)
        return
    attack_section(b, c, w, i)
    b.back_to_menu(c)


def attack_section(b, c, w: dict, i: int) -> None:
    """The Attack action against a wall section: the best melee attack, as many swings as the
    creature's Attack action or multiattack has, each against the section's AC."""
    c.economy.actions -= 1
    a = max((a for a in c.attacks if a.melee), key=lambda a: (expected_damage(a), a.key))
    swings = len(c.multiattack) if c.multiattack else \
        1 + (c.resources.get("extra_attacks", 1) if "extra_attack" in c.features else 0)
    p = w["panels"][i]
    for _ in range(max(1, swings)):
        if p["hp"] <= 0:
            break
        roll = b.roller.roll_d20(bonus=a.to_hit, what=f"attack {c.cid}->{w['name']}")
        hit = roll.natural != 1 and (roll.natural == 20 or roll.total >= w["ac"])
        dealt = 0
        if hit:
            for part in a.damage:
                amount = b.roller.roll_damage(part.dice, critical=roll.natural == 20, what=f"damage {a.key} {part.type}")
                if part.type in w["immune"]:
                    continue
                dealt += amount * (2 if part.type in w["vulnerable"] else 1)
        p["hp"] = max(0, p["hp"] - dealt)
        left = f": {dealt} damage, {p['hp']} HP left" if hit else ""
        b.event("wall_damage", f"{c.cid}'s {a.key} {'hits' if hit else 'misses'} the {w['name']} "
                f"({roll.total} vs AC {w['ac']}){left}", creature=c.cid, wall=w["id"], hit=hit, damage=dealt)
    if p["hp"] <= 0:
        b.event("wall_breach", f"a section of {w['by']}'s {w['name']} breaks", creature=c.cid, wall=w["id"],
                cells=p["cells"])
        _rebuild(b)


# ================================================================ enclosures
def apart(a, o) -> bool:
    """Forcecage, Resilient Sphere: an enclosed creature and anyone else have total cover from
    each other (nothing passes the barrier, in or out)."""
    return a is not o


# ================================================================ probes
PROBED = ("wall-of-force", "wall-of-stone", "wall-of-ice", "prismatic-wall", "passwall", "stone-shape")


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
@hooks.OPTION_KINDS.handles(*KINDS)   # a wall section attacked, a monster's wall raised
def _choose_wall(b, c, p, opt) -> None:
    apply(b, c, opt)


def _placement(key: str) -> str:
    return "point"   # an anchor point, then a direction


def _resolve_area(b, c, use: tuple, where) -> None:
    """The anchor point is chosen (then ask the direction), or the direction: the wall rises."""
    if len(use) == 3:
        spellbook.ask_direction(b, c, use, where)
        return
    raise_wall(b, c, use[1], use[2], use[3], where)


hooks.SPELL_MECHANISMS.register("wall", hooks.SpellMechanism(
    placement=_placement,
    area=area, summary=summary, resolve_area=_resolve_area))


@hooks.LATER_OPTIONS.step(60)
def _later_options(b, c) -> list:
    if "barriers" in b.__dict__ or "monster_wall" in c.resources:   # break a wall section; raise a wall
        return action_options(b, c)
    return []
