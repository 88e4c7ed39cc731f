"""Druid (Circle of the Land, arctic): Wild Shape, the circle spells always prepared, Land's
Stride (the ranger's too), Nature's Sanctuary."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import content
from ..grid import DIFFICULT, OVERGROWN, size_squares
from ..model.factories import build_monster
from ..state import ability_mod
from .common import class_level, done, option, prepare

if TYPE_CHECKING:   # pragma: no cover
    from ..rules.api import BattleAPI
    from ..state import Combatant

# SRD Circle of the Land (arctic) spells, always prepared: (druid level, spells); Commune with Nature
# (9th) has no effect on a battle (out of scope), the others all have a mechanism
CIRCLE_ARCTIC = ((3, ("hold-person", "spike-growth")), (5, ("sleet-storm", "slow")),
                 (7, ("freedom-of-movement", "ice-storm")), (9, ("cone-of-cold",)))
PLANT_SPELLS = ("entangle",)   # plants magically made to impede movement: Land's Stride's advantage
# the stats a beast form replaces (SRD Wild Shape keeps Int, Wis, Cha and the druid's proficiencies)
FORM_FIELDS = ("name", "size", "ac", "max_hp", "hp", "speed", "fly", "attacks", "multiattack", "abilities",
               "saves", "creature_type", "spells", "resist", "immune", "vulnerable")


# ================================================================ builds
def finish_pc(arch: dict, lvls: dict, f: list, spells: list, max_slot: int) -> None:
    dru = lvls.get("druid", 0)
    if dru >= 3 and arch.get("subclass") == "land":
        prepare(spells, CIRCLE_ARCTIC, dru, max_slot)
    if dru >= 14 and arch.get("subclass") == "land":
        f.append("natures_sanctuary")


def finish_lands_stride(arch: dict, lvls: dict, f: list) -> None:
    if lvls.get("ranger", 0) >= 8 or (lvls.get("druid", 0) >= 6 and arch.get("subclass") == "land"):
        f.append("lands_stride")


# ================================================================ Wild Shape
def wild_shape_options(c: Combatant, out: list) -> None:
    f, e, r = c.features, c.economy, c.resources
    if "wild_shape" in f and "wild_shape_saved" not in r and e.actions > 0 and r.get("wild_shape", 0) > 0:
        out.append(option(f"Wild Shape (action: become a beast of CR {r['wild_shape_cr']} or lower; "
                          f"{r['wild_shape']} use(s) left)", "feature", ("wild_shape",)))
    if "wild_shape_saved" in r and e.bonus:
        out.append(option("Revert to your normal form (bonus action)", "feature", ("revert",)))


def _wild_shape(b: BattleAPI, c: Combatant, opt) -> None:
    b.pending = {"kind": "target", "actor": c.cid, "use": ("feature", "wild_shape")}


def _wild_shape_into(b: BattleAPI, c: Combatant, opt) -> None:
    c.economy.actions -= 1
    take_wild_shape(b, c, opt.data[1])
    done(b, c, "wild_shape_into")


def _revert(b: BattleAPI, c: Combatant, opt) -> None:
    c.economy.bonus = False
    revert(b, c, 0)
    done(b, c, "revert")


ACTIONS = {"wild_shape": _wild_shape, "wild_shape_into": _wild_shape_into, "revert": _revert}


def _monster_spec(key: str):
    return content.monster(key)


def form_options(b: BattleAPI, c: Combatant) -> list:
    out = []
    for key, cr in beast_forms(c.resources["wild_shape_cr"], class_level(c, "druid")):
        m = _monster_spec(key)
        if size_squares(m.size) > c.squares and not b.map.fits(c.pos[0], c.pos[1], size_squares(m.size)):
            continue   # a bigger form must fit the map where the druid stands (not into a wall)
        out.append(option(f"Wild Shape into: {m.name} (CR {cr}, {m.hp} HP, AC {m.ac}, speed {m.speed.walk} ft)",
                          "feature", ("wild_shape_into", key)))
    return out


def beast_forms(max_cr: float, druid_level: int) -> list:
    """SRD Wild Shape: beasts up to the CR limit; no fly speed before 8, no swim speed before 4;
    only forms whose attacks the engine runs."""
    out = []
    for key, m in sorted(content.monsters().items()):
        if m.type != "beast" or m.challenge_rating > max_cr:
            continue
        if (m.speed.fly and druid_level < 8) or (m.speed.swim and druid_level < 4) or not m.speed.walk:
            continue
        if not build_monster(key, "x", "party", (0, 0, 0)).attacks:
            continue
        out.append((key, m.challenge_rating))
    out.sort(key=lambda kc: (-kc[1], kc[0]))
    return out


def take_wild_shape(b: BattleAPI | None, c: Combatant, key: str) -> None:
    """Spend a use (an Archdruid's 99 stand for unlimited) and take the beast's form."""
    c.resources["wild_shape"] -= 1 if c.resources["wild_shape"] < 99 else 0
    wild_shape(b, c, key)


def wild_shape(b: BattleAPI | None, c: Combatant, key: str) -> None:
    form = build_monster(key, c.cid, c.side, c.pos)
    c.resources["wild_shape_saved"] = {f: getattr(c, f) for f in FORM_FIELDS}
    abilities = dict(c.abilities, str=form.abilities["str"], dex=form.abilities["dex"],
                     con=form.abilities["con"])
    saves = dict(c.saves)
    for ab in ("str", "dex", "con"):   # its own proficiencies with the beast's scores, or the beast's bonus
        own = ability_mod(abilities[ab]) + (c.saves[ab] - ability_mod(c.abilities[ab]))
        saves[ab] = max(own, form.saves[ab])
    c.name = f"{c.name} (as a {form.name})"
    c.size, c.ac, c.max_hp, c.hp = form.size, form.ac, form.max_hp, form.hp
    c.speed, c.fly, c.attacks, c.multiattack = form.speed, form.fly, form.attacks, form.multiattack
    c.abilities, c.saves, c.creature_type, c.spells = abilities, saves, "beast", ()
    c.resist, c.immune, c.vulnerable = form.resist, form.immune, form.vulnerable
    c.resources["wild_shape_form"] = key
    if b is not None:   # (None: between fights, dnd/day.py)
        b.event("wild_shape", f"{c.cid} takes the shape of a {form.name}", creature=c.cid, form=key)


def revert(b: BattleAPI | None, c: Combatant, excess: int = 0) -> None:
    """Back to the druid's own form; damage left over from the beast's 0 HP carries over."""
    saved = c.resources.pop("wild_shape_saved", None)
    c.resources.pop("wild_shape_form", None)
    c.resources.pop("wild_shape_day", None)   # a shape taken between fights ends here too
    if saved is None:
        return
    for f, v in saved.items():
        setattr(c, f, tuple(v) if f in ("attacks", "multiattack", "spells") else v)
    c.hp = max(0, c.hp - excess)
    if b is not None:
        b.event("wild_shape_end", f"{c.cid} returns to its own form ({c.hp}/{c.max_hp} HP)", creature=c.cid)


def form_drops(b: BattleAPI, t: Combatant, excess: int) -> int:
    """The beast form at 0 HP: back to the druid's own form and hit points, the excess carrying
    over; returns the hit points the druid's own form lost to it."""
    before = t.resources["wild_shape_saved"]["hp"]
    revert(b, t, excess)
    return before - t.hp


# ================================================================ Nature's Sanctuary
def sanctuary_turns(b: BattleAPI, c: Combatant, t: Combatant, a) -> bool:
    """SRD Nature's Sanctuary: a beast or plant attacking the druid makes a Wis save against its
    spell DC; on a failure the attack is lost (as with Sanctuary here: the SRD also lets it choose
    another target). A creature that saves is immune to it for 24 hours: for the rest of the battle
    and the day, noted by its id on the druid."""
    if c.creature_type not in ("beast", "plant"):
        return False
    immune = t.resources.setdefault("natures_sanctuary_immune", [])
    if c.cid in immune:
        return False
    if b.saving_throw(c, "wis", t.resources.get("spell_dc", 10), magic=True):
        immune.append(c.cid)
        return False
    b.event("attack", f"{c.cid}'s attack on {t.cid} is turned aside by Nature's Sanctuary", attacker=c.cid,
            target=t.cid, attack=a.key, hit=False, critical=False, total=0, ac=0)
    return True


# ================================================================ Land's Stride
def stride_map(m):
    """The map as a creature with Land's Stride walks it: the map's own (nonmagical) difficult
    terrain costs nothing extra. Built once per map (kept in the map's cache); the map itself
    when it has no difficult terrain. Spell zones stay difficult (``difficult_extra``). Plant
    Growth's overgrowth is instantaneous, so nonmagical plants: it costs nothing extra either."""
    slow = DIFFICULT | OVERGROWN   # (SRD: "pass through nonmagical plants without being slowed")
    got = m._cache.get("lands-stride")
    if got is not None:
        return got
    if not any(f & slow for f in m._flags):
        got = m
    else:
        got = object.__new__(type(m))
        for k in type(m).__slots__:
            setattr(got, k, getattr(m, k))
        got._flags = type(m._flags)(f & ~slow for f in m._flags)
        flags = np.array(got._flags, dtype=np.int32).reshape(m.height, m.width)
        flags.flags.writeable = False
        got.flags = flags
        got._cache, got._pair_cache = {}, {}
    m._cache["lands-stride"] = got
    return got


def walk_map(b: BattleAPI, c: Combatant):
    """The map c's ground moves are searched on (Land's Stride: without the map's difficult terrain)."""
    return stride_map(b.map) if "lands_stride" in c.features else b.map


def lands_stride_adv(t: Combatant, spell: str | None) -> bool:
    """Land's Stride: advantage on a save against a plant spell that impedes movement (Entangle)."""
    return spell in PLANT_SPELLS and "lands_stride" in t.features
