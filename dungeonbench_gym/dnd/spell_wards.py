"""Wards prepared between fights: Glyph of Warding, Symbol and Magic Circle (the Day track).

DungeonBench's Day track shows the next fight's map and foes during an intermission, so laying
a ward on that map is part of the preparation. These three spells take a minute or an hour to
cast, so they are never offered in a battle (``spellbook.available``); between fights
(:func:`day_options`) a member who knows one, has a slot of its level and carries the gold for
its component casts it on the NEXT fight's map. Rows ``mech: "ward"`` in ``spell_mechanics.json``
hold the SRD facts (``cost_gp``, ``radius``, ...).

Casting is a hierarchical intermission decision, as the battle's points are: the option
"<member> casts Glyph of Warding (level L, ...)" (one per slot level for the Glyph and the Circle,
whose effects grow with the slot; the lowest for Symbol), then ``point_x`` and ``point_y``
(decision kinds of the battle's points: a grid intersection, each ``point_y`` option naming the
squares and who the area would reach from the creatures' starting squares), then the ward's kind
(an ``intermission`` decision). More options than the run's ``max_options`` are split into
ranges (decision kind ``group``), never cut. The slot and the gold are paid when the kind is
chosen; gold comes from the member's ``resources["gp"]`` (the day file's ``gp``).

Placement (simplification of "a surface within your reach when you cast it"): any intersection
with a floor square the party can walk to from its starting squares on the next map (the party
has the time before the fight). A glyph (Glyph of Warding, Symbol) covers the floor squares among
the four around that point that the party can reach: the SRD's "no larger than 10 feet in
diameter" as a 2x2 patch. Its areas are centred on the point at ground height.

In the fight (a list ``Battle.wards`` of plain dicts; the engine's hooks are guarded by
``if self.wards:``, so battles without wards pay one falsy test; the Encounter track never has
any):

* **Glyph of Warding, explosive runes**: triggered when one of the caster's foes (the SRD's
  refined trigger, made for the caster: its own side never triggers it) walks onto a glyph square
  on the ground (a flyer passing above does not touch it; a push, a teleport or a creature that
  starts the fight on it does not trigger it). A 20-ft sphere on the point: each creature in it
  (the party too) makes a Dex save against the caster's spell DC, 5d8 of the chosen type (acid,
  cold, fire, lightning, thunder) plus 1d8 per slot level above 3rd, half on a success (Evasion
  applies); the dice are rolled once; then the glyph is gone. Like Fireball, the sphere needs a
  line of effect from the point (the SRD's "spreads around corners" is not modelled). The *spell
  glyph* option (storing a spell cast into the glyph) is not offered: the stored spell would need
  its caster's whole resolution without the caster acting.
* **Symbol**: the same trigger; it then glows for 10 minutes (the rest of the fight): each
  creature in its 60-ft sphere (line of effect from the point), the party included, is targeted,
  and so is a creature that enters the sphere for the first time on a turn (walking or flying)
  or ends its turn there. Death: Con save, 10d10 necrotic, half on a success (rolled per
  targeting). Discord: Con, 1 minute of disadvantage on attack rolls and ability checks. Fear:
  Wis, frightened for 1 minute (disadvantage on attacks and checks; it never moves closer to the
  glyph; the SRD's "drops what it holds" and "must move 30 ft away" are not forced: the engine
  models no dropped weapons, and as for turned undead it may stay). Hopelessness: Cha, 1 minute:
  it can't attack or target anyone with harmful abilities or spells (area effects it places still
  land). Insanity: Int, 1 minute: incapacitated (no actions or reactions) and at the start of each
  of its turns it staggers its speed in a random direction (1d8; the DM's "erratic movement" as
  Confusion's roll of 1). Pain: Con, incapacitated for 1 minute. Sleep: Wis, unconscious and
  prone for 10 minutes, waking when damaged (shaking a sleeper awake is not an option). Stunning:
  Wis, stunned for 1 minute. None of them has a repeat save; a creature still under this
  Symbol's effect is not targeted again (Death hurts every time).
* **Magic Circle**: a 10-ft-radius, 20-ft-tall cylinder on the point against the chosen types
  (one of celestial, elemental, fey, fiend, undead present among the next fight's foes, or all of
  them: the SRD's "one or more"; types no foe has are not offered, nor the spell when no foe has
  one). Such a creature can't move into it (its squares, up to 20 ft high, block its movement;
  one already inside moves freely), must succeed on a Cha save against the caster's DC to
  teleport into it (on a failure it stays where it is), has disadvantage on attack rolls against
  targets inside, and targets inside can't be charmed, frightened or possessed by it (a ghost's
  Possession and a save action whose only effect is charm or fear skip them; other save actions
  still deal their damage). The reverse circle (keeping a creature in) is not offered. Its hour
  lasts until a short rest (one more rest per slot level above 3rd), but it is fixed on the next
  fight's map, so it ends with that fight. Dominate spells by such creatures are not blocked.

Glyph of Warding and Symbol last until triggered or dispelled; they are on one map, so they
matter only in that fight. Dispel Magic on a ward is not modelled (the enemies' planner never
casts it on objects). The baseline (:func:`plan`) inscribes a Glyph of Warding (the energy the
next foes resist least, fire on ties) on the foes' walking path to the party, beyond the blast's
reach of the party's squares, and raises a Magic Circle around the party's start when the next
fight has foes of its types, the lowest slot for each, only while a slot of 3rd level or higher
is left for the next fight and for each fight after it, and a Revivify diamond when the caster
knows Revivify. It does not cast Symbol (its 60-ft sphere would catch the party).
"""

from __future__ import annotations

from . import areas, content, spell_buffs
from .areas import DIRECTIONS_8, ground_z_at_point
from .classes import dispatch as class_features
from .grid import SQUARE_FT, box_distance_ft, footprint, size_squares
from .model.options import Decision, Opt
from .model.slots import spend_slot
from .rules import hooks, spell_data
from .state import INCAPACITATING

WARDS = ("glyph-of-warding", "symbol", "magic-circle")
DAY_KINDS = ("ward_cast", "point_x", "point_y", "ward_kind", "ward_span")   # intermission option kinds
ENERGY = ("acid", "cold", "fire", "lightning", "thunder")
CIRCLE_TYPES = ("celestial", "elemental", "fey", "fiend", "undead")
# Symbol's effects: (save, condition, rounds, extra flags on the condition); death deals damage
SYMBOLS = {
    "death": ("con", None, 0, {}),
    "discord": ("con", "discordant", 10, {"attack_dis": True, "check_dis": True}),
    "fear": ("wis", "frightened", 10, {"attack_dis": True, "check_dis": True}),
    "hopelessness": ("cha", "hopeless", 10, {}),
    "insanity": ("int", "incapacitated", 10, {"insane": True}),
    "pain": ("con", "incapacitated", 10, {}),
    "sleep": ("wis", "unconscious", 100, {"asleep": True}),
    "stunning": ("wis", "stunned", 10, {}),
}
SYMBOL_TEXT = {
    "death": "DC {dc} CON: 10d10 necrotic, half on a success",
    "discord": "DC {dc} CON or disadvantage on attack rolls and checks for 1 minute",
    "fear": "DC {dc} WIS or frightened for 1 minute, never closer to the glyph",
    "hopelessness": "DC {dc} CHA or it can't attack or target anyone with harm for 1 minute",
    "insanity": "DC {dc} INT or incapacitated, staggering at random, for 1 minute",
    "pain": "DC {dc} CON or incapacitated for 1 minute",
    "sleep": "DC {dc} WIS or unconscious for 10 minutes, until hurt",
    "stunning": "DC {dc} WIS or stunned for 1 minute",
}


def _mech(key: str) -> dict:
    return spell_data.mech(key)


def _spell(key: str):
    return content.spell(key)


# ================================================================ the next fight's map
def _next(run):
    """(scenario, map, party squares by id) of the fight the intermission leads to."""
    stage = run.current
    return stage.scenario, stage.scenario.battle_map(), run.day.squares(stage)


def places(run) -> tuple:
    """(floor squares the party can walk to, {point: glyph squares}) on the next fight's map,
    kept per stage (the map and the starting squares do not change)."""
    key = (run.stage, tuple(cid for cid in sorted(run.party) if not run.party[cid].dead))
    got = run.__dict__.get("_ward_places")
    if got is not None and got[0] == key:
        return got[1], got[2]
    sc, bmap, squares = _next(run)
    far = SQUARE_FT * 4 * bmap.width * bmap.height   # no movement limit: the party has the time
    floor = set()
    for cid, (x, y) in sorted(squares.items()):
        if run.party[cid].dead or (x, y) in floor:
            continue
        floor.update((p[0], p[1]) for p in bmap.reachable((x, y), 1, far).destinations)
    points = {}
    for px in range(bmap.width + 1):
        for py in range(bmap.height + 1):
            cells = tuple(c for c in ((px - 1, py - 1), (px, py - 1), (px - 1, py), (px, py)) if c in floor)
            if cells:
                points[(px, py)] = cells
    run.__dict__["_ward_places"] = (key, floor, points)
    return floor, points


def _spots(run) -> list:
    """The next fight's creatures where they start: (id, side, x, y, squares, z)."""
    sc, bmap, squares = _next(run)
    out = [(cid, "party", x, y, 1, bmap.standing_z(x, y)) for cid, (x, y) in sorted(squares.items())
           if not run.party[cid].dead]
    for e in sc.enemies:
        n = size_squares(content.monster(e["monster"]).size)
        x, y = e["at"]
        out.append((e["id"], "enemies", x, y, n, bmap.standing_z(x, y, n)))
    return out


def _foe_types(run) -> list:
    sc = run.current.scenario
    have = {content.monster(e["monster"]).type for e in sc.enemies}
    return [t for t in CIRCLE_TYPES if t in have]


def _area(spell: str, point, bmap):
    m = _mech(spell)
    if spell == "magic-circle":
        return areas.cylinder(point, m["radius"], m["height"], bmap)
    return areas.sphere(point, m["radius"], bmap)


def _reached(run, spell: str, point) -> tuple:
    """Who the ward's area would reach if it went off with everyone on their starting squares."""
    _, bmap, _ = _next(run)
    a = _area(spell, point, bmap)
    party, foes = [], []
    for cid, side, x, y, n, z in _spots(run):
        if areas.affects(a, bmap, footprint(x, y, n), z, line_of_effect=spell != "magic-circle"):
            (party if side == "party" else foes).append(cid)
    return party, foes


# ================================================================ intermission options
def _levels(c, key: str) -> list:
    slots = c.resources.get("slots") or ()
    return [lv for lv in range(_spell(key).level, len(slots) + 1) if slots[lv - 1] > 0]


def glyph_dice(level: int) -> str:
    m = _mech("glyph-of-warding")
    n, die = m["dice"].split("d")
    return f"{int(n) + (level - _spell('glyph-of-warding').level)}d{die}"


def day_options(run, c, living) -> list:
    """Conscious member c's ward castings on the next fight's map."""
    out = []
    if run.__dict__.get("_ward_pending") or not any(k in WARDS for k in c.spells):
        return out
    for key in WARDS:
        if key not in c.spells:
            continue
        m, sp = _mech(key), _spell(key)
        levels = _levels(c, key)
        if not levels or c.resources.get("gp", 0) < m["cost_gp"]:
            continue
        if key == "magic-circle" and not _foe_types(run):
            continue   # no foe of a type it wards against: no effect in that fight
        if key == "symbol":
            levels = levels[:1]   # a higher slot changes nothing
        for lv in levels:
            if key == "glyph-of-warding":
                what = f"explosive runes: {glyph_dice(lv)} in a 20-ft sphere when a foe steps on it, DEX half"
            elif key == "symbol":
                what = "a 60-ft sphere of its effect on everyone, the party too, once a foe steps on it"
            else:
                what = (f"a 10-ft-radius cylinder against {'/'.join(_foe_types(run))}: they can't enter it "
                        "and attack those inside at disadvantage")
            out.append(Opt(f"{c.cid} casts {sp.name} (level {lv}, consumes {m['cost_gp']} gp of components) on the "
                           f"next fight's map: {what}", "ward_cast", (c.cid, key, lv)))
    return out


def pending(run) -> dict | None:
    return run.__dict__.get("_ward_pending")


def pending_options(run) -> list:
    """The options of the ward decision under way: x, then y given x, then the kind."""
    p = pending(run)
    _, points = places(run)
    if p["step"] == "x":
        return [Opt(f"x = {x}", "point_x", (x,)) for x in sorted({pt[0] for pt in points})]
    if p["step"] == "y":
        out = []
        for y in sorted(pt[1] for pt in points if pt[0] == p["x"]):
            out.append(Opt(_point_label(run, p["spell"], (p["x"], y), points[(p["x"], y)]), "point_y", (y,)))
        return out
    c = run.party[p["by"]]
    dc = c.resources.get("spell_dc", 10)
    if p["spell"] == "glyph-of-warding":
        dice = glyph_dice(p["level"])
        return [Opt(f"Explosive runes: {dice} {e} (DC {dc} DEX, half on a success)", "ward_kind", (e,))
                for e in ENERGY]
    if p["spell"] == "symbol":
        return [Opt(f"Symbol of {k} ({SYMBOL_TEXT[k].format(dc=dc)}; everyone in 60 ft)", "ward_kind", (k,))
                for k in SYMBOLS]
    types = _foe_types(run)
    out = [Opt(f"Against {t}", "ward_kind", ((t,),)) for t in types]
    if len(types) > 1:
        out.append(Opt(f"Against {', '.join(types)}", "ward_kind", (tuple(types),)))
    return out


def _point_label(run, spell: str, point, cells) -> str:
    party, foes = _reached(run, spell, point)
    squares = ", ".join(f"({x}, {y})" for x, y in cells)
    who = f"party {', '.join(party) or 'none'}; foes {', '.join(foes) or 'none'}"
    if spell == "magic-circle":
        return f"Point ({point[0]}, {point[1]}): circle of 10 ft radius; inside at the start: {who}"
    r = _mech(spell)["radius"]
    return f"Point ({point[0]}, {point[1]}): glyph on {squares}; its {r}-ft sphere reaches at the start: {who}"


def visible(run, opts: list) -> list:
    """At most max_options at once: ranges of the list (as the engine's groups), never cut."""
    p = pending(run)
    lo, hi = p.get("span") or (0, len(opts))
    part, cap = opts[lo:hi], max(2, run.max_options)
    if len(part) <= cap:
        return part
    step = cap
    while -(-len(part) // step) > cap:
        step *= cap
    return [Opt(f"options {lo + i + 1}-{lo + min(len(part), i + step)}: {part[i].label} ... "
                f"{part[min(len(part), i + step) - 1].label}", "ward_span", (lo + i, lo + min(len(part), i + step)))
            for i in range(0, len(part), step)]


def decision(run):
    """The pending ward decision as the day's Decision (point_x, point_y, then the kind)."""
    p = pending(run)
    shown = run._visible()
    name = _spell(p["spell"]).name
    if shown and shown[0].kind == "ward_span":
        kind = "group"
    else:
        kind = {"x": "point_x", "y": "point_y", "kind": "intermission"}[p["step"]]
    prompt = {"x": f"{p['by']}: choose the x coordinate of the point for {name} on the next fight's map",
              "y": f"{p['by']}: choose the y coordinate of the point for {name} (x = {p.get('x')})",
              "kind": f"{p['by']}: choose what the {name} does"}[p["step"]]
    return Decision(kind, p["by"], tuple(shown), prompt)


def day_apply(run, opt) -> None:
    """An option of the ward decision was chosen."""
    k, d = opt.kind, opt.data
    p = pending(run)
    if k == "ward_cast":
        run.__dict__["_ward_pending"] = {"by": d[0], "spell": d[1], "level": d[2], "step": "x"}
        return
    if k == "ward_span":
        p["span"] = (d[0], d[1])
        return
    p.pop("span", None)
    if k == "point_x":
        p.update(step="y", x=d[0])
    elif k == "point_y":
        p.update(step="kind", y=d[0])
    else:
        _inscribe(run, p, d[0])


def _inscribe(run, p: dict, kind) -> None:
    c, key, lv = run.party[p["by"]], p["spell"], p["level"]
    spend_slot(c, lv)
    c.resources["gp"] -= _mech(key)["cost_gp"]
    _, points = places(run)
    point = (p["x"], p["y"])
    wards = run.__dict__.setdefault("_wards", [])
    wards.append({"id": f"{key}:{c.cid}:{len(wards) + 1}", "spell": key, "by": c.cid, "side": c.side, "level": lv,
                  "dc": c.resources.get("spell_dc", 10), "kind": list(kind) if isinstance(kind, tuple) else kind,
                  "point": list(point), "cells": [list(x) for x in points[point]], "stage": run.stage,
                  "rests": run.short_rests_used, "state": "set"})
    del run.__dict__["_ward_pending"]
    what = "/".join(kind) if isinstance(kind, tuple) else kind
    run.event("cast", f"{c.cid} casts {key} at level {lv} ({what}) at ({point[0]}, {point[1]}) of the next "
                      f"fight's map ({_mech(key)['cost_gp']} gp)")


def lay(run, b) -> None:
    """The fight starts: the wards inscribed for it are on its map; a Magic Circle a short rest
    outlasted is gone (1 hour, one more per slot level above 3rd). Wards never outlast the fight."""
    wards = run.__dict__.pop("_wards", [])
    keep = []
    for w in wards:
        if w["stage"] != run.stage:
            continue
        if w["spell"] == "magic-circle" and run.short_rests_used - w["rests"] > w["level"] - 3:
            run.event("ward", f"{w['by']}'s magic circle faded during the short rest")
            continue
        w = dict(w, cells=[tuple(x) for x in w["cells"]], point=tuple(w["point"]))
        keep.append(w)
    if not keep:
        return
    b.wards = keep
    b.forget_reach()
    b.forget_options()
    for w in keep:
        b.event("ward", f"{w['by']}'s {w['spell']} ({_kind_text(w)}) is on the map at ({w['point'][0]}, "
                        f"{w['point'][1]})", creature=w["by"], spell=w["spell"])


def inscribe(b, spell: str, by, point, kind, level: int | None = None) -> dict:
    """Lay a ward straight onto a battle's map (tests, probes): creature ``by``'s, on intersection
    ``point``; a glyph covers the floor squares around it."""
    px, py = point
    cells = [c for c in ((px - 1, py - 1), (px, py - 1), (px - 1, py), (px, py))
             if b.map.in_bounds(*c) and b.map.fits(*c)]
    w = {"id": f"{spell}:{by.cid}:{len(b.wards) + 1}", "spell": spell, "by": by.cid, "side": by.side,
         "level": level or _spell(spell).level, "dc": by.resources.get("spell_dc", 10),
         "kind": list(kind) if isinstance(kind, tuple) else kind, "point": (px, py), "cells": cells, "state": "set"}
    b.wards = list(b.wards) + [w]
    b.forget_reach()
    b.forget_options()
    return w


def _kind_text(w) -> str:
    return "/".join(w["kind"]) if isinstance(w["kind"], (list, tuple)) else w["kind"]


def describe(b) -> list:
    """The wards in words (the battle's state dict lists them with the lasting areas)."""
    out = []
    for w in b.wards:
        at = f"({w['point'][0]}, {w['point'][1]})"
        if w["spell"] == "magic-circle":
            out.append(f"{w['by']}'s magic circle against {_kind_text(w)} around {at} (10-ft radius)")
        elif w["state"] == "active":
            out.append(f"{w['by']}'s symbol of {w['kind']} glows at {at} (60-ft sphere, until round {w['until']})")
        else:
            out.append(f"{w['by']}'s {w['spell'].replace('-', ' ')} ({_kind_text(w)}) at {at}")
    return out


# ================================================================ the baseline


# ================================================================ in the fight
def _foe(w, c) -> bool:
    return c.side != w["side"]


def _on_glyph(b, w, c) -> bool:
    if c.pos[2] > b.map.standing_z(c.pos[0], c.pos[1], c.squares):
        return False   # flying above it: not touching it
    return any(cell in w["cells"] for cell in c.cells)


def _sheltered(o) -> bool:
    """Total cover from everything outside: swallowed, enclosed."""
    return "swallowed" in o.conditions or "enclosed" in o.conditions


def _in_area(b, w, o) -> bool:
    return not o.dead and not _sheltered(o) and areas.affects(_area(w["spell"], w["point"], b.map), b.map, o.cells,
                                                              o.pos[2])


def _turn_key(b) -> list:
    return [b.round, b.turn_index]


def on_step(b, c) -> None:
    """c has just moved 5 ft: a foe on a glyph sets it off; a glowing Symbol targets whoever
    enters its sphere for the first time on a turn."""
    for w in list(b.wards):
        if c.dead or w not in b.wards:
            continue
        if w["state"] == "set" and w["spell"] != "magic-circle" and _foe(w, c) and _on_glyph(b, w, c):
            _trigger(b, w, c)
        elif w["state"] == "active":
            if _expired(b, w):
                continue
            now, was = _in_area(b, w, c), c.cid in w["inside"]
            if now and not was:
                w["inside"].append(c.cid)
                if w["entered"].get(c.cid) != _turn_key(b) and not _affected(w, c):
                    w["entered"][c.cid] = _turn_key(b)
                    b.event("ward", f"{c.cid} enters the glow of {w['by']}'s symbol", creature=c.cid, spell="symbol")
                    _symbol_effect(b, w, [c])
            elif was and not now:
                w["inside"].remove(c.cid)


def end_of_turn(b, c) -> None:
    """A creature that ends its turn in a glowing Symbol's sphere is targeted."""
    for w in list(b.wards):
        if w["state"] == "active" and not _expired(b, w) and not c.dead and _in_area(b, w, c):
            if c.cid not in w["inside"]:
                w["inside"].append(c.cid)
            if not _affected(w, c):
                b.event("ward", f"{c.cid} ends its turn in the glow of {w['by']}'s symbol", creature=c.cid,
                        spell="symbol")
                _symbol_effect(b, w, [c])


def start_of_turn(b, c) -> None:
    """Symbol's insanity: the creature staggers its speed in a random direction (it takes no actions)."""
    v = c.conditions.get("incapacitated")
    if v and v.get("insane") and c.conscious:
        d = DIRECTIONS_8[b.roller.roll("1d8", what=f"insanity direction {c.cid}") - 1]
        moved = _stagger(b, c, d, b.speed(c))
        c.economy.movement = 0
        b.event("insane", f"{c.cid} staggers {moved} ft in its madness", creature=c.cid)


def _stagger(b, c, d, feet: int) -> int:
    moved = 0
    kept_out = {tuple(x[:2]) for x in barrier_cells(b, c)}   # a Magic Circle against its type
    for _ in range(feet // SQUARE_FT):
        x, y = c.pos[0] + d[0], c.pos[1] + d[1]
        taken = {cell for o in b.creatures.values() if not o.dead and o is not c for cell in o.cells}
        if not b.map.fits(x, y, c.squares) or any(cell in taken or cell in kept_out
                                                  for cell in footprint(x, y, c.squares)):
            break
        c.pos = (x, y, b.map.standing_z(x, y, c.squares))
        moved += SQUARE_FT
        b.release(c)
        b.enter_hazards(c, c.pos)
        on_step(b, c)
        if not c.conscious:
            break
    b.forget_reach()
    return moved


def _expired(b, w) -> bool:
    if b.round >= w["until"]:
        b.wards.remove(w)
        b.event("ward_end", f"{w['by']}'s symbol fades", creature=w["by"], spell="symbol")
        return True
    return False


def _trigger(b, w, c) -> None:
    b.event("ward", f"{c.cid} sets off {w['by']}'s {w['spell'].replace('-', ' ')}", creature=c.cid, spell=w["spell"])
    hits = [o for o in sorted(b.creatures.values(), key=lambda o: o.cid) if _in_area(b, w, o)]
    if w["spell"] == "glyph-of-warding":
        b.wards.remove(w)
        _explode(b, w, hits)
        return
    w.update(state="active", until=b.round + 100, inside=[o.cid for o in hits],
             entered={o.cid: _turn_key(b) for o in hits})   # 10 minutes: the rest of the fight
    _symbol_effect(b, w, hits)


def _explode(b, w, hits) -> None:
    amount = b.roller.roll_damage(glyph_dice(w["level"]), what=f"damage glyph-of-warding {w['kind']}")
    centre = _area(w["spell"], w["point"], b.map).origin_ft   # the sphere's centre: a Dex save's cover
    for t in hits:
        if t.dead:
            continue
        ok = b.saving_throw(t, "dex", w["dc"], magic=True, big=True, origin=centre)
        dealt = class_features.area_damage(t, "dex", ok, True, amount)   # (Evasion)
        if dealt:
            b.damage(t, dealt, w["kind"], magical=True, source=w["by"])


def _affected(w, t) -> bool:
    """Still under this Symbol's effect (its condition, put there by this ward)."""
    cond = SYMBOLS[w["kind"]][1]
    return cond is not None and t.conditions.get(cond, {}).get("by") == w["id"]


def _symbol_effect(b, w, targets) -> None:
    ability, cond, rounds, flags = SYMBOLS[w["kind"]]
    amount = b.roller.roll_damage("10d10", what="damage symbol necrotic") if cond is None else 0
    for t in targets:
        if t.dead or _sheltered(t):
            continue
        if _affected(w, t):
            continue   # still under this symbol's effect
        ok = b.saving_throw(t, ability, w["dc"], magic=True, big=True, condition=cond)
        if cond is None:
            b.damage(t, amount // 2 if ok else amount, "necrotic", magical=True, source=w["by"])
        elif not ok:
            entry = {"by": w["id"], "spell": "symbol", "round": b.round, "until_round": b.round + rounds, **flags}
            if w["kind"] == "fear":
                entry["away_from"] = list(w["point"])
            _put(b, t, cond, entry, w["kind"])


def _put(b, t, cond: str, entry: dict, what: str) -> None:
    if t.dead or cond in t.condition_immunities or cond in t.conditions:
        return
    if class_features.blocks_condition(b, t, cond) or (t.conditions and spell_buffs.wards(t, cond)):
        return
    t.conditions[cond] = entry
    if cond == "unconscious" and "prone" not in t.condition_immunities:
        t.conditions.setdefault("prone", {})
    if cond in INCAPACITATING:
        b.end_concentration(t)
        b.release_grapples_by(t)
    b.event("condition", f"{t.cid} is {cond} (symbol of {what})",
            creature=t.cid, condition=cond, spell="symbol")


def hopeless(c) -> bool:
    """Symbol's hopelessness: it can't attack or target anyone with harmful abilities."""
    return "hopeless" in c.conditions


def away_test(c, fear: dict):
    """Symbol's fear: a test of destinations, true for those no closer to the glyph than the
    creature is now."""
    px, py = fear["away_from"]

    def dist(x, y, z):
        return box_distance_ft(x, y, c.squares, z, px - 1, py - 1, 2, z)
    here = dist(*c.pos)
    return lambda pos: dist(pos[0], pos[1], c.pos[2]) >= here


# ---------------------------------------------------------------- Magic Circle
def _circles(b, c) -> list:
    return [w for w in b.wards if w["spell"] == "magic-circle" and c.creature_type in w["kind"]]


def _circle_cells(b, w) -> frozenset:
    got = w.get("_cells")
    if got is None:
        got = frozenset(areas.affected_cells(_area("magic-circle", w["point"], b.map), b.map, line_of_effect=False))
        w["_cells"] = got
    return got


def _inside(b, w, o) -> bool:
    cells = _circle_cells(b, w)
    low = ground_z_at_point(b.map, *w["point"])
    return any(x in cells for x in o.cells) and o.pos[2] < low + _mech("magic-circle")["height"]


def barrier_cells(b, c) -> list:
    """The squares of the circles c's type may not enter (up to 20 ft high for a flyer); one
    already inside moves freely."""
    out = []
    for w in _circles(b, c):
        if _inside(b, w, c):
            continue
        if b.flying(c):
            low = ground_z_at_point(b.map, *w["point"])
            out.extend((x, y, z) for x, y in sorted(_circle_cells(b, w))
                       for z in range(low, low + _mech("magic-circle")["height"], SQUARE_FT))
        else:
            out.extend(sorted(_circle_cells(b, w)))
    return out


def attack_modifiers(b, c, t, dis: list) -> None:
    """Disadvantage on c's attack rolls against a target inside a circle against its type."""
    if any(_inside(b, w, t) for w in _circles(b, c)):
        dis.append("target in a magic circle")


def shields(b, c, t, cond: str) -> bool:
    """A target inside a circle can't be charmed or frightened by a creature of its type."""
    if cond not in ("charmed", "frightened") or c is None or not hasattr(c, "creature_type"):
        return False
    if any(_inside(b, w, t) for w in _circles(b, c)):
        b.event("ward", f"{t.cid} is not {cond}: it stands in a magic circle", creature=t.cid)
        return True
    return False


def exempt(b, c, spec, t) -> bool:
    """A save action the circle makes pointless against a target inside: Possession, or one whose
    only effect is charm or fear."""
    sv = spec.save
    only_mind = not sv.damage and sv.conditions and all(k in ("charmed", "frightened") for k in sv.conditions)
    if spec.key != "possession" and not only_mind:
        return False
    return any(_inside(b, w, t) for w in _circles(b, c))


def teleport_dest(b, c, dest: tuple) -> tuple:
    """A creature of a circle's type teleporting into it must first succeed on a Cha save."""
    cells = footprint(dest[0], dest[1], c.squares)
    for w in _circles(b, c):
        if _inside(b, w, c) or not any(x in _circle_cells(b, w) for x in cells):
            continue
        if not b.saving_throw(c, "cha", w["dc"], magic=True):
            b.event("ward", f"{c.cid} can't teleport into {w['by']}'s magic circle", creature=c.cid)
            return tuple(c.pos)
    return dest


@hooks.TURN_ENDS.step(40)
def _turn_ends(b, c) -> None:
    if b.wards:   # ending a turn in a glowing Symbol
        end_of_turn(b, c)
