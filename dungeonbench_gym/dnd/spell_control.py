"""Removal, control and teleport spells: the spell table's ``"mech": "control"`` rows.

Each row names a ``kind`` this module runs; the engine reaches it through :mod:`.spellbook`
(options, targets, placements) and a few guarded hooks (``Battle.controls`` is set once a
control effect is in play, so battles without one pay nothing):

* ``remove`` (Banishment, Maze, Plane Shift): the target leaves the map without dying. It is
  kept as a ``dead`` combatant with a ``removed`` condition, so nothing targets it, it takes no
  turns and it holds no space. It comes back to its space (or the nearest free one) when the
  caster's concentration ends; a banished native of another plane (celestial, elemental, fey,
  fiend) stays away when the spell ran its full minute; Plane Shift's target never returns.
  A foe that will return keeps the battle from being won (and a returning party member from a
  wipe). Maze: at each of its turns the creature makes the DC 20 Intelligence check to escape.
* ``escape`` (Teleport, Word of Recall, Etherealness): the caster and the willing allies near it
  leave the battle alive. When no party member is left standing on the map and some escaped,
  the battle ends as ``"escape"``: scored a loss (the objective was not met), not a wipe. A foe
  that escapes counts as gone: the party may win by defeating the rest.
* ``teleport`` (Misty Step, Dimension Door): the engine's teleport destination decision, the row's
  ``reach`` (30 ft, 500 ft).
* ``dominate`` (Dominate Beast / Person / Monster): on a failed Wisdom save (advantage: it is
  being fought) the creature changes sides for the duration and is played by whoever plays the
  caster's side, through the normal decisions on its own turns. Each time it takes damage it
  saves again. For the outcome it still counts on its own side.
* ``confusion``: the SRD d10 table at the start of each affected creature's turn, no reactions,
  a repeat Wisdom save at the end of its turns.
* ``calm`` (Calm Emotions): the caster's side within the sphere stops being charmed or frightened
  (the "indifferent" option needs a DM's ruling: out of scope).
* ``levitate``: the target rises to the battle's ceiling (at most 20 ft) and cannot move; it
  floats down when the spell ends. ``telekinesis``: a contest (spellcasting ability vs Strength),
  then the target is flung up to 30 ft away and restrained until the end of the caster's next turn;
  on later turns the action tries again (no slot) while the caster concentrates.
* ``eyebite``: each turn (the casting, then the action on later turns) a target and one of three
  effects (asleep, panicked, sickened): a hierarchical choice (target, then effect).
* ``wish``: duplicates any spell of 8th level or lower the engine casts: a choice of the spell
  (paid with Wish's 9th-level slot), then that spell's own decisions.
* ``blink``: at the end of each of the caster's turns, 11+ on a d20 and it is gone until the
  start of its next turn. ``time_stop``: 1d4+1 turns in a row; it ends early when the caster
  damages another creature. ``compulsion``: those within 30 ft that fail a Wisdom save move in the
  direction the caster chose at the start of their turns (a repeat save at the end of each).
* ``meld`` (Meld into Stone): a one-square caster steps into a solid square beside it (the first
  one clockwise from north; every map wall counts as stone). It carries ``enclosed`` with
  ``meld`` (total cover from everyone, as in :mod:`.spell_walls`): nothing targets or reaches it;
  its turns offer only stepping out (its movement, back to the square it came from or the
  nearest free one, which ends the spell) or ending the turn. If the square stops being solid
  (Passwall, Stone Shape) it is expelled at its next turn with 6d6 bludgeoning (SRD). It steps
  out when the battle ends. Simplification: damage to the stone itself is not modelled.
* ``stealth_aura`` (Pass without Trace): while the caster concentrates, it and its allies within
  30 ft of it have +10 to the Stealth checks of the Hide action (:func:`stealth_aura`, read by the
  engine's ``_stealth`` once a control spell is in play).
"""

from __future__ import annotations

from . import areas, content
from .areas import DIRECTIONS_8
from .classes import warlock
from .grid import SQUARE_FT, footprint
from .model.options import Opt
from .model.slots import spend_slot
from .rules import hooks, spell_data
from .rules.removal import come_back, leave, mark_controls
from .spell_walls import nearest_free
from .spellbook import area_hits
from .state import SIZES

OTHER_PLANES = ("celestial", "elemental", "fey", "fiend")


def _m(key: str) -> dict:
    return spell_data.mech(key)


def _spell(key: str):
    return content.spell(key)


def kind(key: str) -> str:
    return _m(key)["kind"]


# ================================================================ what the spellbook asks
def placement(key: str) -> str:
    k = kind(key)
    if k in ("confusion", "calm"):
        return "point"
    if k in ("escape", "blink", "time_stop", "compulsion", "wish", "meld", "stealth_aura"):
        return "self"
    if k == "teleport":
        return "destination"
    return "target"


def reach(key: str) -> int:
    """A teleport spell's distance (the engine's destination decision)."""
    return _m(key).get("reach", 30)


def _range(key: str) -> int:
    m, sp = _m(key), _spell(key)
    return m.get("range") or (SQUARE_FT if sp.range_kind == "touch" else (sp.range_feet or 0))


def _exempt(key: str, t) -> bool:
    m = _m(key)
    if "types" in m and t.creature_type not in m["types"]:
        return True
    if m.get("immune_as") in t.condition_immunities:
        return True
    if m.get("max_size"):
        return SIZES.index(t.size) > SIZES.index(m["max_size"])
    return False


def targets(b, c, key: str) -> list:
    k = kind(key)
    rng = _range(key)
    if k in ("escape", "blink", "time_stop", "compulsion", "wish"):
        return [c]
    pool = [o for o in b.enemies_of(c) if b.may_target(c, o) and not _exempt(key, o)]
    if k == "dominate":
        pool = [o for o in pool if "dominated" not in o.conditions]
    elif k == "levitate":
        pool = [o for o in pool if "levitated" not in o.conditions]
    return [t for t in pool if b.distance(c, t) <= rng and b.line_of_effect(c, t)]


def _calm_pool(b, c) -> list:
    return [o for o in b.creatures.values() if o.side == c.side and not o.dead
            and ("charmed" in o.conditions or "frightened" in o.conditions)
            and b.distance(c, o) <= (_spell("calm-emotions").range_feet or 60) + 20]


def available(b, c, key: str, level: int) -> bool:
    k = kind(key)
    if k == "escape" or k == "blink":
        return k == "escape" or "blink" not in c.conditions
    if k == "time_stop":
        return "time_stop" not in c.resources
    if k == "meld":
        return _stone_beside(b, c) is not None and "enclosed" not in c.conditions
    if k == "stealth_aura":
        return key not in c.conditions
    if k == "teleport":
        return bool(b.teleport_options(c, {"use": ("teleport", key, level)}, first=True))
    if k == "calm":
        return bool(_calm_pool(b, c))
    if k == "confusion":
        return b.point_ok(c, c.pos[0], c.pos[1], _spell(key).range_feet or 0)
    if k == "compulsion":
        return any(b.distance(c, o) <= 30 for o in b.enemies_of(c) if o.conscious)
    if k == "wish":
        return bool(_wishable(b, c))
    return bool(targets(b, c, key))


def summary(c, key: str, level: int) -> str:
    m, sp = _m(key), _spell(key)
    dc = c.resources.get("spell_dc", 10)
    ab = (m.get("save") or sp.save_ability or "").upper()
    text = {
        "remove": (f"DC {dc} {ab}: the target leaves the battle" if ab else "the target leaves the battle")
        + (" (returns when the spell ends)" if sp.concentration else " for good"),
        "escape": "you and willing allies near you leave the battle (an escape, not a victory)",
        "teleport": f"teleport up to {reach(key)} ft",
        "dominate": f"DC {dc} WIS: it fights for your side",
        "confusion": f"DC {dc} WIS, {sp.area.size if sp.area else 10}-ft sphere: confused (d10 each turn)",
        "calm": "your side in a 20-ft sphere stops being charmed or frightened",
        "levitate": f"DC {dc} CON: the target floats up and cannot move",
        "telekinesis": "contest vs Strength: fling it 30 ft, restrained",
        "eyebite": f"DC {dc} WIS: asleep, panicked or sickened",
        "wish": "duplicate a spell of 8th level or lower",
        "blink": "vanish on 11+ at the end of each turn",
        "time_stop": "1d4+1 turns in a row",
        "compulsion": f"DC {dc} WIS, foes within 30 ft move as you direct",
        "meld": "step into the stone beside you: nothing reaches you until you step out",
        "stealth_aura": "+10 Stealth to hide for you and allies within 30 ft",
    }[kind(key)]
    n = m.get("per_level", 0) * (level - sp.level) + 1
    if n > 1:
        text += f", up to {n} targets"
    if sp.concentration:
        text += ", concentration"
    return text


def begin(b, c, key: str, level: int) -> bool:
    """The first decision of the control spells that differ from the spellbook's usual ones (a
    teleport's destination, Compulsion's direction, Wish's choice of spell); False: the usual
    target / point / at-once path applies (:func:`.spellbook.begin`)."""
    if placement(key) == "destination":
        b.pending = {"kind": "destination", "actor": c.cid, "use": ("teleport", key, level)}
    elif kind(key) == "compulsion":
        b.pending = {"kind": "direction", "actor": c.cid, "use": ("spell", key, level)}
    elif kind(key) == "wish":
        b.pending = {"kind": "target", "actor": c.cid, "use": ("control", key, level, "wish")}
    else:
        return False
    return True


def area(b, c, key: str, where, anchor=None):
    """The area for labels and hits: Confusion's and Calm Emotions' spheres; Compulsion: 30 ft
    around the caster whatever the direction."""
    if kind(key) == "compulsion" or where is None:
        return areas.emanation(c.cells, 30, c.pos[2])
    size = _spell(key).area.size if _spell(key).area else 20
    return areas.sphere(where, size, b.map)


def _pay(b, c, key: str, level: int) -> None:
    b.pay_spell(c, key, level)
    for k in [k for k, v in c.conditions.items() if v.get("ends_on_attack")]:   # Invisibility ends
        del c.conditions[k]
    mark_controls(b)


def resolve_area(b, c, use: tuple, where) -> None:
    key, level = use[1], use[2]
    k = kind(key)
    if k in ("confusion", "calm"):
        hits = area_hits(b, c, key, where)
    _pay(b, c, key, level)
    if k == "escape":
        _escape(b, c, key, level)
    elif k == "meld":
        meld(b, c, key)
    elif k == "stealth_aura":
        m = _m(key)
        c.conditions[key] = {"by": c.cid, "spell": key, "stealth": m["bonus"], "aura_ft": m["aura_ft"]}
        b.event("condition", f"{c.cid} radiates {key}", creature=c.cid, condition=key, spell=key)
    elif k == "blink":
        c.conditions["blink"] = {"by": c.cid, "spell": key, "until_round": b.round + 10}
        b.event("condition", f"{c.cid} is blinking ({key})", creature=c.cid, condition="blink", spell=key)
    elif k == "time_stop":
        n = b.roller.roll("1d4+1", what=f"time stop {c.cid}")
        c.resources["time_stop"] = {"left": n - 1, "from": len(b.log)}
        b.event("time_stop", f"{c.cid} stops time: {n} turns in a row", creature=c.cid, turns=n)
    elif k == "compulsion":
        for t in [o for o in b.enemies_of(c) if o.conscious and b.distance(c, o) <= 30]:
            if "charmed" in t.condition_immunities or b.saving_throw(t, "wis", c.resources["spell_dc"], magic=True):
                continue
            t.conditions["compelled"] = {"by": c.cid, "spell": key, "dir": list(where), "repeat": "wis",
                                         "dc": c.resources["spell_dc"], "magic": True}
            b.event("condition", f"{t.cid} is compelled ({key})", creature=t.cid, condition="compelled", spell=key)
    elif k == "confusion":
        for t in hits:
            if t.dead or b.saving_throw(t, "wis", c.resources["spell_dc"], magic=True, big=True, condition="confused"):
                continue
            t.conditions["confused"] = {"by": c.cid, "spell": key, "repeat": "wis", "dc": c.resources["spell_dc"],
                                        "magic": True}
            t.economy.reaction = False
            b.event("condition", f"{t.cid} is confused ({key})", creature=t.cid, condition="confused", spell=key)
    elif k == "calm":
        for t in [o for o in hits + [c] if o.side == c.side and not o.dead]:
            for cond in ("charmed", "frightened"):
                if t.conditions.pop(cond, None) is not None:
                    b.event("condition_end", f"{t.cid} is no longer {cond} ({key})", creature=t.cid, condition=cond)
    b.back_to_menu(c)


# ================================================================ single targets
def cast_at(b, c, key: str, level: int, t):
    """The first target was chosen (the engine's ``_cast_at``): True when done, None when a
    further decision is pending."""
    k = kind(key)
    m, sp = _m(key), _spell(key)
    _pay(b, c, key, level)
    if k == "remove" and m.get("attack"):   # Plane Shift: a melee spell attack first
        adv, dis, _ = b.attack_modifiers(c, t, True)
        roll = b.roller.roll_d20(adv, dis, bonus=c.resources["spell_attack"], what=f"attack {c.cid}->{t.cid} {key}")
        hit = roll.natural == 20 or (roll.natural != 1 and roll.total >= b.armour_class(t))
        b.event("attack", f"{c.cid}'s {key} {'hits' if hit else 'misses'} {t.cid} ({roll.total})", attacker=c.cid,
                target=t.cid, attack=key, hit=hit, critical=roll.natural == 20, total=roll.total, ac=b.armour_class(t))
        if hit and not b.saving_throw(t, "cha", c.resources["spell_dc"], magic=True, big=True):
            remove(b, c, t, key, level)
    else:
        _one(b, c, key, level, t)
    if k == "eyebite":
        return None   # the effect is the next decision
    left = m.get("per_level", 0) * (level - sp.level)
    if left > 0 and b.outcome is None:
        b.more_targets(c, key, level, left, (t.cid,))
        return None
    return True


def more(b, c, use: tuple, t) -> None:
    _, key, level, left, chosen = use
    _one(b, c, key, level, t)
    b.more_targets(c, key, level, left - 1, chosen + (t.cid,))


def _one(b, c, key: str, level: int, t) -> None:
    k = kind(key)
    dc = c.resources["spell_dc"]
    m = _m(key)
    if k == "remove":
        if m.get("save") and b.saving_throw(t, m["save"], dc, magic=True, big=True):
            return
        remove(b, c, t, key, level)
    elif k == "dominate":
        if b.saving_throw(t, "wis", dc, magic=True, big=True, adv=True, condition="charmed"):
            return
        dominate(b, c, t, key)
    elif k == "levitate":
        if b.saving_throw(t, "con", dc, magic=True, big=True):
            return
        _levitate(b, c, t, key)
    elif k == "telekinesis":
        c.resources["telekinesis"] = {"level": level}
        mine = b.roller.roll_d20(bonus=c.resources.get("spell_mod", 0), what=f"telekinesis {c.cid}").total
        theirs = b.roller.roll_d20(bonus=t.mod("str"), what=f"strength {t.cid}").total
        b.event("contest", f"{key}: {c.cid} {mine} vs {t.cid} {theirs}", creature=t.cid)
        if mine <= theirs:
            return
        moved = b.push(c, t, 30)
        t.conditions["restrained"] = {"by": c.cid, "spell": key, "until": "end_of_source_next_turn",
                                      "turn_of": c.cid, "round": b.round}
        b.event("condition", f"{t.cid} is flung {moved} ft and restrained ({key})", creature=t.cid,
                condition="restrained", spell=key)
    elif k == "eyebite":
        c.resources["eyebite"] = {"level": level}
        b.pending = {"kind": "target", "actor": c.cid, "use": ("control", key, level, "eyebite", t.cid)}
        b.forget_options()


def remove(b, c, t, key: str, level: int) -> None:
    """t leaves the battle (see the module docstring)."""
    m, sp = _m(key), _spell(key)
    leave(b, t)
    t.dead = True
    t.conditions["removed"] = {"by": c.cid, "spell": key, "level": level, "returns": bool(sp.concentration),
                               "native_away": t.creature_type in OTHER_PLANES and m.get("native_away", False),
                               "until_round": b.round + (sp.duration_rounds or 10), "escape_dc": m.get("escape_dc")}
    mark_controls(b)
    b.forget_reach()
    b.event("removed", f"{t.cid} is removed from the battle ({key})", creature=t.cid, spell=key, by=c.cid)


# ================================================================ Meld into Stone
_AROUND = ((0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1))


def _stone_beside(b, c):
    """The first solid square beside a one-square creature (clockwise from north), or None."""
    if c.squares != 1:
        return None
    for dx, dy in _AROUND:
        x, y = c.pos[0] + dx, c.pos[1] + dy
        if b.map.in_bounds(x, y) and b.map.is_wall(x, y):
            return (x, y)
    return None


def meld(b, c, key: str) -> None:
    cell = _stone_beside(b, c)
    if cell is None:   # (the map changed since the option was offered)
        b.event("spell", f"{c.cid} finds no stone to meld into", creature=c.cid)
        return
    b.release(c)
    b.release_grapples_by(c)
    c.conditions["enclosed"] = {"by": c.cid, "spell": key, "meld": True, "from": list(c.pos), "cell": list(cell)}
    c.pos = (cell[0], cell[1], c.pos[2])
    b.forget_reach()
    b.event("meld", f"{c.cid} melds into the stone at ({cell[0]}, {cell[1]})", creature=c.cid, spell=key)


def stealth_aura(b, c) -> int:
    """Hook of the engine's Stealth bonus: Pass without Trace from c or an ally near it."""
    best = 0
    for o in b.creatures.values():
        v = o.conditions.get("pass-without-trace")
        if v and not o.dead and o.side == c.side and (o is c or b.distance(o, c) <= v["aura_ft"]):
            best = max(best, v["stealth"])
    return best


def meld_menu(b, c) -> list:
    """Hook of the action menu: a melded creature may step out or end its turn."""
    return [Opt("Step out of the stone (movement; ends meld-into-stone)", "control", ("meld_out",)),
            Opt("End turn", "end_turn")]


def step_out(b, c, why: str) -> None:
    """Leave the stone: back to the square it came from, or the nearest free one."""
    v = c.conditions.pop("enclosed")
    x, y, z = v["from"]
    taken = {cell for o in b.creatures.values() if not o.dead and o is not c for cell in o.cells}
    if (x, y) in taken or not b.map.fits(x, y, 1):
        c.pos = (x, y, z)
        spot = nearest_free(b, c)
        x, y, z = spot if spot is not None else (x, y, z)
    c.pos = (x, y, z)
    b.forget_reach()
    b.event("meld_end", f"{c.cid} steps out of the stone to ({x}, {y}) ({why})", creature=c.cid)


def dominate(b, c, t, key: str) -> None:
    t.conditions["dominated"] = {"by": c.cid, "spell": key, "side": t.side, "dc": c.resources["spell_dc"]}
    t.side = c.side
    b.end_concentration(t)
    mark_controls(b)
    b.forget_reach()
    b.event("condition", f"{t.cid} is dominated by {c.cid} ({key})", creature=t.cid, condition="dominated", spell=key)


def _levitate(b, c, t, key: str) -> None:
    ground = b.map.standing_z(t.pos[0], t.pos[1], t.squares)
    up = min(20, b.max_altitude_ft) // SQUARE_FT * SQUARE_FT
    t.conditions["levitated"] = {"by": c.cid, "spell": key, "speed_zero": True, "hover_was": t.hover}
    t.hover = True
    t.pos = (t.pos[0], t.pos[1], ground + up)
    mark_controls(b)
    b.forget_reach()
    b.event("condition", f"{t.cid} floats {up} ft up ({key})", creature=t.cid, condition="levitated", spell=key)


def _land(b, t, v: dict) -> None:
    t.hover = v.get("hover_was", False)
    t.pos = (t.pos[0], t.pos[1], b.map.standing_z(t.pos[0], t.pos[1], t.squares))
    b.event("condition_end", f"{t.cid} floats down", creature=t.cid, condition="levitated")


EYEBITE = ("asleep", "panicked", "sickened")


def target_options(b, c, use: tuple) -> list:
    """The module's own choices inside a target decision: Eyebite's effect, Wish's spell."""
    if use[3] == "eyebite":
        t = b.creatures[use[4]]
        return [Opt(f"Eyebite {t.cid}: {e}", "control", (e,)) for e in EYEBITE]
    return [Opt(f"Wish: duplicate {_spell(k).name} (level {lv})", "control", (k, lv)) for k, lv in _wishable(b, c)]


def apply(b, c, p: dict, opt) -> None:
    """An option of this module was chosen: Eyebite's later-turn action (in the menu), an
    Eyebite effect, or the spell Wish duplicates (in a target decision)."""
    if opt.data and opt.data[0] == "meld_out":   # Meld into Stone: step out (movement)
        c.economy.movement = max(0, c.economy.movement - SQUARE_FT)
        step_out(b, c, "meld-into-stone ends")
        b.back_to_menu(c)
        return
    if p["kind"] == "action" and opt.data[0] == "telekinesis":   # a later turn's grip: the action
        c.economy.actions -= 1
        _one(b, c, "telekinesis", 0, b.creatures[opt.data[1]])
        b.back_to_menu(c)
        return
    if p["kind"] == "action":   # Eyebite on a later turn: the action, then the effect
        c.economy.actions -= 1
        b.pending = {"kind": "target", "actor": c.cid, "use": ("control", "eyebite", 0, "eyebite", opt.data[1])}
        b.forget_options()
        return
    use = p["use"]
    if use[3] == "eyebite":
        _eyebite(b, c, use[1], b.creatures[use[4]], opt.data[0])
        b.back_to_menu(c)
        return
    key, lv = opt.data
    spend_slot(c, 9)   # Wish's 9th-level slot pays for the duplicate, cast from a slot of its own level
    slots = list(c.resources["slots"])
    slots[lv - 1] += 1
    c.resources["slots"] = tuple(slots)
    b.event("wish", f"{c.cid} casts wish to duplicate {key}", creature=c.cid, spell="wish", duplicate=key)
    mark_controls(b)
    b.begin_spell(c, key, lv)
    b.forget_options()


def _wishable(b, c) -> list:
    """(spell, level) pairs Wish may duplicate now: spells the engine casts, of levels 1-8, cast
    with an action, that the engine would offer now (its own option rules), at their own level."""
    slots = c.resources.get("slots", ())
    if len(slots) < 9 or not slots[8] or c.economy.actions <= 0:
        return []
    keys = []
    for key, m in sorted(spell_data.table().items()):
        if "mech" not in m or key == "wish" or m["mech"] == "counter":
            continue
        sp = _spell(key)
        if 1 <= sp.level <= 8 and sp.casting_time == "action":
            keys.append(key)
    held = c.spells
    c.spells = tuple(keys)
    try:
        opts = b.spell_options(c)
    finally:
        c.spells = held
    seen = dict.fromkeys(o.data[0] for o in opts if o.kind == "spell")
    return [(k, _spell(k).level) for k in seen]


def _eyebite(b, c, key: str, t, effect: str) -> None:
    dc = c.resources["spell_dc"]
    b.event("eyebite", f"{c.cid} turns its eyes on {t.cid}: {effect}", creature=t.cid, effect=effect)
    if t.dead or b.saving_throw(t, "wis", dc, magic=True, big=True):
        return
    if effect == "asleep":
        if "unconscious" in t.condition_immunities:
            return
        cond = "unconscious"
        t.conditions[cond] = {"by": c.cid, "spell": key, "asleep": True}
        t.conditions.setdefault("prone", {})
    elif effect == "panicked":
        if "frightened" in t.condition_immunities:
            return
        cond = "frightened"
        t.conditions[cond] = {"by": c.cid, "spell": key, "panicked": True}
    else:
        cond = "sickened"
        t.conditions[cond] = {"by": c.cid, "spell": key, "attack_dis": True, "repeat": "wis", "dc": dc,
                              "magic": True}
    # announced under the condition placed (unconscious, not "asleep"): Battle.event's rules hang on
    # it (an incapacitated creature loses concentration and lets go; a wild-shaped druid reverts)
    b.event("condition", f"{t.cid} is {effect} ({key})", creature=t.cid, condition=cond, spell=key, effect=effect)


def later_options(b, c) -> list:
    """Later turns of a spell the caster concentrates on: Eyebite's and Telekinesis's action
    on another creature (no slot)."""
    key = c.concentration
    if key not in ("eyebite", "telekinesis") or c.economy.actions <= 0 or key not in c.resources:
        return []
    return [Opt(f"{_spell(key).name} on {t.cid} (action, no slot)", "control", (key, t.cid))
            for t in targets(b, c, key)]


# ================================================================ leaving the battle
def _escape(b, c, key: str, level: int) -> None:
    m = _m(key)
    near = sorted([o for o in b.allies_of(c) if o.conscious and b.distance(c, o) <= m.get("with_ft", 10)],
                  key=lambda o: (b.distance(c, o), o.cid))[:m.get("with", 8) + m.get("with_per_level", 0) *
                                                             (level - _spell(key).level)]
    for t in [c] + near:
        leave(b, t)
        t.dead = True
        t.conditions["removed"] = {"by": c.cid, "spell": key, "returns": False, "escaped": True}
        b.event("escape", f"{t.cid} leaves the battle ({key})", creature=t.cid, spell=key, by=c.cid)
    mark_controls(b)
    b.forget_reach()


def concentration_ends(b, c) -> None:
    """Hook: c's concentration on a spell ends: those it removed come back (unless native to
    another plane after the full minute), those it dominated return to their side, the
    levitated float down."""
    key = c.concentration
    for o in sorted(b.creatures.values(), key=lambda o: o.cid):
        v = o.conditions.get("removed")
        if v and v.get("by") == c.cid and v.get("spell") == key and v.get("returns"):
            if v.get("native_away") and b.round >= v["until_round"]:
                v["returns"] = False
                b.event("banished", f"{o.cid} stays on its home plane ({key})", creature=o.cid)
            else:
                come_back(b, o, f"{key} ends")
        d = o.conditions.get("dominated")
        if d and d.get("by") == c.cid and d.get("spell") == key:
            _free(b, o)
        lv = o.conditions.get("levitated")
        if lv and lv.get("by") == c.cid and lv.get("spell") == key:
            del o.conditions["levitated"]
            _land(b, o, lv)


def _free(b, t) -> None:
    d = t.conditions.pop("dominated")
    t.side = d["side"]
    b.forget_reach()
    b.event("condition_end", f"{t.cid} is no longer dominated", creature=t.cid, condition="dominated")


def hurt(b, t) -> None:
    """Hook: a dominated creature took damage: a new Wisdom save."""
    d = t.conditions.get("dominated")
    if d and not t.dead and b.saving_throw(t, "wis", d["dc"], magic=True, condition="charmed"):
        _free(b, t)
        by = b.creatures.get(d["by"])
        if by is not None and by.concentration == d["spell"]:
            by.concentration = None


def removed_turn(b, c) -> bool:
    """Hook: the turn of a creature that is not on the map. Maze: the Intelligence check to
    escape; Blink: back from the Ethereal Plane for this turn. True when c takes this turn."""
    v = c.conditions.get("removed")
    if not v:
        return False
    if v.get("hurl"):   # Hurl Through Hell (dnd/classes/warlock.py): back now if its warlock is down
        warlock.removed_turn(b, c)
        return not c.dead
    if v.get("blink"):
        come_back(b, c, "blink")
        return True
    if v.get("escape_dc"):
        roll = b.roller.roll_d20(bonus=c.mod("int"), what=f"maze {c.cid}")
        if roll.total >= v["escape_dc"]:
            come_back(b, c, "escapes the maze")
            by = b.creatures.get(v["by"])
            if by is not None and by.concentration == v["spell"]:
                by.concentration = None
    return False


def start_of_turn(b, c) -> None:
    """Hook at the start of each turn: Confusion's d10, Compulsion's move; a melded creature
    whose stone was opened is expelled (6d6 bludgeoning)."""
    mv = c.conditions.get("enclosed")
    if mv and mv.get("meld") and not b.map.is_wall(*mv["cell"]):
        step_out(b, c, "its stone was opened")
        b.damage(c, b.roller.roll_damage("6d6", what="damage meld-into-stone bludgeoning"), "bludgeoning",
                 magical=True, source=c.cid)
    if "confused" in c.conditions and c.conscious:
        _confused(b, c)
    v = c.conditions.get("compelled")
    if v and c.conscious:
        n = _drift(b, c, tuple(v["dir"]), b.speed(c))
        c.economy.movement = 0
        b.event("compelled", f"{c.cid} is compelled to move {n} ft", creature=c.cid)


def _confused(b, c) -> None:
    e = c.economy
    e.reaction = False
    roll = b.roller.roll("1d10", what=f"confusion {c.cid}")
    b.event("confusion", f"{c.cid} is confused: {roll} on the d10", creature=c.cid, roll=roll)
    if roll >= 9:
        return   # it acts and moves normally
    if roll == 1:
        d = DIRECTIONS_8[b.roller.roll("1d8", what=f"confusion direction {c.cid}") - 1]
        _drift(b, c, d, b.speed(c))
    elif roll >= 7:
        foes = [o for o in b.creatures.values() if not o.dead and o is not c]
        attacks = [a for a in c.attacks if a.melee]
        reach = [o for o in sorted(foes, key=lambda o: o.cid)
                 if attacks and b.distance(c, o) <= max(a.reach for a in attacks)]
        if reach:
            t = reach[b.roller.roll(f"1d{len(reach)}", what=f"confusion target {c.cid}") - 1]
            a = max((a for a in attacks if b.distance(c, t) <= a.reach), key=lambda a: a.to_hit)
            held = t.economy.reaction   # simplification: the flailing blow allows no reaction
            t.economy.reaction = False
            b.make_attack(c, a, t, melee=True, then="none")
            t.economy.reaction = held
    e.actions, e.bonus, e.movement, e.attacks_left, e.attack_queue = 0, False, 0, 0, ()


def _drift(b, c, d, feet: int) -> int:
    """Forced steps in direction d while the space is free (no opportunity attacks)."""
    moved = 0
    for _ in range(feet // SQUARE_FT):
        x, y = c.pos[0] + d[0], c.pos[1] + d[1]
        taken = {cell for o in b.creatures.values() if not o.dead and o is not c for cell in o.cells}
        if not b.map.fits(x, y, c.squares) or any(cell in taken for cell in footprint(x, y, c.squares)):
            break
        c.pos = (x, y, b.map.standing_z(x, y, c.squares))
        moved += SQUARE_FT
        b.release(c)
        b.enter_hazards(c, c.pos)
        if c.dead:
            break
    b.forget_reach()
    return moved


def end_of_turn(b, c) -> None:
    """Hook at the end of each turn: Blink's d20, Time Stop's next turn."""
    if "hurl_through_hell" in c.features:   # those it hurled come back (dnd/classes/warlock.py)
        warlock.end_of_turn(b, c)
    if "blink" in c.conditions and not c.dead and c.conscious:
        roll = b.roller.roll("1d20", what=f"blink {c.cid}")
        if roll >= 11:
            c.dead = True
            c.conditions["removed"] = {"by": c.cid, "spell": "blink", "returns": True, "blink": True}
            b.forget_reach()
            b.event("removed", f"{c.cid} blinks away ({roll})", creature=c.cid, spell="blink")
    ts = c.resources.get("time_stop")
    if ts and not c.dead:
        struck = any(e.get("event") == "damage" and e.get("source") == c.cid and e.get("creature") != c.cid
                     for e in b.log[ts["from"]:])
        if ts["left"] <= 0 or struck:
            del c.resources["time_stop"]
            b.event("time_stop_end", f"time flows again around {c.cid}", creature=c.cid)
        else:
            ts["left"] -= 1
            b.turn_index -= 1   # the next turn is c's again
            b.event("time_stop_turn", f"{c.cid} takes another turn in stopped time", creature=c.cid)


# ================================================================ the outcome
class _Away:
    """Stands in for a removed creature that will come back: it still counts for its side."""

    conscious = True
    cells = ()

    def __init__(self, c):
        self.side = c.side


def outcome_sides(b, party: list, foes: list) -> tuple:
    """Hook of the outcome check: dominated creatures count on their own side; a removed one
    that will return counts as standing (the fight is not over)."""
    everyone = [*party, *foes]
    p = [o for o in everyone if o.conditions.get("dominated", {}).get("side", o.side) == b.party_side]
    f = [o for o in everyone if o.conditions.get("dominated", {}).get("side", o.side) != b.party_side]
    for o in everyone:
        v = o.conditions.get("removed")
        if o.dead and v and v.get("returns"):
            (p if o.side == b.party_side else f).append(_Away(o))
    return p, f


def escaped(b, party: list) -> bool:
    """The party has left: no one of it stands on the map and some escaped alive."""
    return not any(o.conscious for o in party) and any(
        o.conditions.get("removed", {}).get("escaped") for o in party if hasattr(o, "cid") and o.dead)


def at_finish(b) -> None:
    """The battle is over: those away but alive (escaped, banished to return, blinking) are
    back in the roster as living creatures, standing where they left."""
    for o in b.creatures.values():
        v = o.conditions.get("removed")
        if o.dead and v and (v.get("returns") or v.get("escaped")):
            o.conditions.pop("removed")
            o.dead = False
        if "dominated" in o.conditions:
            o.side = o.conditions.pop("dominated")["side"]
        if "levitated" in o.conditions:
            _land(b, o, o.conditions.pop("levitated"))
        if o.conditions.get("enclosed", {}).get("meld"):
            step_out(b, o, "the battle ends")


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
hooks.OPTION_KINDS.register("control", apply)   # Eyebite, Wish
hooks.TARGET_USES.register("control", hooks.TargetUse(target_options))   # Eyebite's effect, the spell Wish duplicates
hooks.SPELL_MECHANISMS.register("control", hooks.SpellMechanism(
    placement=placement, area=area, targets=targets, available=available, begin=begin, summary=summary,
    cast_at=cast_at, more=more, resolve_area=resolve_area))


@hooks.LATER_OPTIONS.step(40)
def _later_options(b, c) -> list:
    return later_options(b, c) if c.concentration in ("eyebite", "telekinesis") else []   # their later actions


@hooks.TURN_ENDS.step(30)
def _turn_ends(b, c) -> None:
    if b.controls:   # Blink's d20, Time Stop's next turn
        end_of_turn(b, c)
