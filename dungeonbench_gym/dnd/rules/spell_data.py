"""The spell data every spell rule reads: each SRD spell's row of ``content/data/spell_mechanics.json``
(its mechanism and what the SRD data lacks), its SRD record, its damage dice at a slot level, its
targets and beams, its area's shape, and three small rules every mechanism shares (casting ends
Invisibility, See Invisibility's sight, where summoned creatures appear).

Kept below the spellbook and the mechanisms that extend it (dnd/spell_*.py, lighting, the class
features), so that they read a spell without importing each other. The spellbook
(:mod:`..spellbook`) documents the row's fields.

Rows ``"mech": "engine"`` are the spells the engine's casting code (dnd/battle/casting.py) still runs
itself (Magic Missile, Shield, Misty Step, Spirit Guardians, Spiritual Weapon);
their rows carry what that code, the menu and the planner read:

* ``targets`` and ``per_level``: targets at the spell's level and more per slot level above, each
  its own target decision (:func:`extra_targets`; on an ``attack`` row they are rays: Scorching Ray);
* ``radius``: an emanation's reach in feet (Spirit Guardians).

Any row may carry ``summary``: the menu's note, a format string over :data:`SUMMARY_FIELDS`
(:func:`summary`), used instead of the mechanism's own (Bane's -1d4, Sleep's pool). ``dice`` and
``pool_per_level`` are an HP pool and its growth per slot level (the ``pool`` mechanism: Sleep,
Color Spray; :func:`pool_dice`).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from .. import content
from ..grid import footprint
from .hooks import SPELL_MECHANISMS

_DATA = Path(__file__).parent.parent / "content" / "data" / "spell_mechanics.json"
# the summoning spells' authored creatures, forms, choices and long castings (dnd/spell_summons.py)
_CREATURES = Path(__file__).parent.parent / "content" / "data" / "spell_creatures.json"

# The mechanisms this module runs itself. Others are registered by their own modules in
# rules/hooks.py's SPELL_MECHANISMS (the engine imports them all): "utility" (water and objects:
# dnd/spell_utility.py), "sight" (light, darkvision, Enthrall: dnd/lighting.py), "plants"
# (dnd/spell_plants.py), "control" (removal, domination, confusion, teleports, Wish:
# dnd/spell_control.py), "shape" and "weapon" (the Polymorph family, Flame Blade, Alter Self:
# dnd/spell_summons.py), "heat" (Heat Metal: dnd/spell_heat.py), "zone" (lasting areas that change
# sight, terrain or magic: dnd/spell_zones.py), "wall" (walls the map gains, Passwall: dnd/spell_walls.py).
GENERIC = ("attack", "save", "word", "area", "pool", "heal", "temp_hp", "max_hp", "stabilize", "cure", "buff",
           "dispel", "summon", "revive", "tiers", "mark", "day", "reaction", "prepare", "pool_heal", "ward")
# "ward": Glyph of Warding, Symbol, Magic Circle laid between fights on the next map (dnd/spell_wards.py)
# "prepare": a long summoning cast between fights (Animate Dead, Conjure Elemental...): dnd/spell_summons.py
# "day": cast only between fights (dnd/spell_buffs.py, the Day track); "reaction": offered as a reaction
OUT_REASONS = {
    "illusion": "its value depends on what creatures believe (illusion)",
    "ruling": "open-ended effect that needs a DM's ruling (commands, emotions, bargains)",
    "utility": "no effect on a battle (exploration, information, travel, rituals or long castings)",
    "no_effect": "no effect on combat in this engine (it models no sound or small tricks)",
}


@functools.cache
def table() -> dict:
    return json.loads(_DATA.read_text())


@functools.cache
def spell_creatures() -> dict:
    return json.loads(_CREATURES.read_text())


def prepared_summons(key: str) -> dict:
    """A long summoning's row (Animate Dead, Conjure Elemental, Find Familiar...): what it
    conjures at each slot level, its cost, how long the creatures last."""
    return spell_creatures()["prepared"][key]


def mech(key: str) -> dict:
    return table().get(key, {})


def handles(key: str) -> bool:
    """Whether this module (not bespoke engine code) runs the spell: one of its generic
    mechanisms, or one a mechanics module registered (rules/hooks.py SPELL_MECHANISMS)."""
    kind = mech(key).get("mech")
    return kind in GENERIC or kind in SPELL_MECHANISMS


def spell(key: str):
    return content.spell(key)


def dice(c, key: str, level: int) -> str | None:
    """Damage dice at this slot level: the SRD table, its highest entry at or below the level
    when the table stops short (no scaling), plus the authored per-level dice (Disintegrate)."""
    sp, m = spell(key), mech(key)
    if sp.damage_at_character_level or not sp.damage_at_slot_level:
        return sp.damage_for(slot_level=level or None, character_level=c.level)
    table_ = sp.damage_at_slot_level
    base = table_[max(k for k in table_ if k <= max(level, sp.level))]
    if m.get("upcast_dice") and level > max(table_):
        n, die = m["upcast_dice"].split("d")
        base = f"{base}+{int(n) * (level - max(table_))}d{die}"
    return base


def extra_targets(key: str, level: int) -> int:
    """Targets beyond the first at this slot level."""
    m, sp = mech(key), spell(key)
    return m.get("targets", 1) - 1 + m.get("per_level", 0) * (level - sp.level if sp.level else 0)


def pool_dice(key: str, level: int) -> str:
    """An HP pool's dice at this slot level: the row's ``dice`` and ``pool_per_level`` (Sleep, Color Spray)."""
    m, sp = mech(key), spell(key)
    n, die = m["dice"].split("d")
    extra = int(m["pool_per_level"].split("d")[0]) * (level - sp.level)
    return f"{int(n) + extra}d{die}"


@functools.cache
def on_hit(key: str) -> tuple:
    """The riders of a spell attack that hits (its row's ``on_hit``: Ray of Frost's slowing, Guiding
    Bolt's mark, Chill Touch's, Shocking Grasp's), as AttackProfile.on_hit entries."""
    return tuple(tuple(e) for e in mech(key).get("on_hit", ()))


# what a row's "summary" may name: (caster, spell, slot level) -> the value
SUMMARY_FIELDS = {
    "level": lambda c, key, level: level,
    "dc": lambda c, key, level: c.resources["spell_dc"],
    "attack": lambda c, key, level: c.resources["spell_attack"],
    "mod": lambda c, key, level: c.resources["spell_mod"],
    "targets": lambda c, key, level: 1 + extra_targets(key, level),
    "dice": lambda c, key, level: dice(c, key, level),
    "pool": lambda c, key, level: pool_dice(key, level),
    "radius": lambda c, key, level: mech(key)["radius"],
    "size": lambda c, key, level: shape(key)[1],
    "shape": lambda c, key, level: shape(key)[0],
}


class _Fields(dict):
    """The summary's fields, each worked out only if the text names it."""

    def __init__(self, c, key: str, level: int) -> None:
        super().__init__()
        self.args = (c, key, level)

    def __missing__(self, name: str):
        return SUMMARY_FIELDS[name](*self.args)


def summary(c, key: str, level: int) -> str | None:
    """The menu's note authored in the spell's row (``summary``), or None."""
    text = mech(key).get("summary")
    return None if text is None else text.format_map(_Fields(c, key, level))


def beams(key: str, character_level: int) -> int:
    table_ = mech(key).get("beams")
    if not table_:
        return 1
    return table_[max((k for k in table_ if int(k) <= max(1, character_level)), key=int)]


def shape(key: str) -> tuple:
    m, sp = mech(key), spell(key)
    if "shape" in m:
        return m["shape"], m["size"]
    return sp.area.shape, sp.area.size


def sees_invisible(c, feet: int | None = None) -> bool:
    """Whether c perceives an invisible creature ``feet`` away (SRD Invisible: only magic or a special
    sense does): See Invisibility, True Seeing, or a stat block's blindsight or truesight reaching that
    far. Seen, the invisible creature has no advantage against c and c no disadvantage against it."""
    if feet is not None and c.monster and feet <= _special_sense(c.monster):
        return True
    return any(v.get("sees_invisible") for v in c.conditions.values())


@functools.cache
def _special_sense(monster: str) -> int:
    """The range of a monster's blindsight or truesight (the larger; 0 without either)."""
    senses = content.monster(monster).senses
    return max(senses.get("blindsight", 0), senses.get("truesight", 0))


def reveal(c) -> None:
    """Casting ends invisibility that ends on an attack or a spell (Invisibility)."""
    for k in [k for k, v in c.conditions.items() if v.get("ends_on_attack")]:
        del c.conditions[k]


def turn_invisible(b, c) -> None:
    """A monster's innate Invisibility (an imp's, a duergar's): as the spell on itself, with
    concentration for up to an hour; it ends when the creature attacks or casts (:func:`reveal`)."""
    b.end_concentration(c)
    c.concentration = "invisibility"
    c.resources["concentration_until"] = b.round + 600
    c.conditions["invisible"] = {"by": c.cid, "spell": "invisibility", "ends_on_attack": True}
    b.event("invisibility", f"{c.cid} turns invisible", creature=c.cid)


def free_squares(b, c, n: int, squares: int = 1) -> list:
    """Up to n spaces (of squares x squares) for new creatures, nearest the caster first: on the
    map, unoccupied, within 60 ft."""
    taken = {cell for o in b.creatures.values() if not o.dead for cell in o.cells}
    out = []
    for r in range(1, 13):
        for y in range(c.pos[1] - r, c.pos[1] + c.squares + r):
            for x in range(c.pos[0] - r, c.pos[0] + c.squares + r):
                if max(abs(x - c.pos[0]), abs(y - c.pos[1])) != r or not b.map.fits(x, y, squares):
                    continue
                cells = footprint(x, y, squares)
                if any(cell in taken for cell in cells):
                    continue
                taken.update(cells)
                out.append((x, y))
                if len(out) == n:
                    return out
    return out
