"""**Fire Form** (fire elemental): melee attackers within 5 ft burn (1d10 fire); it may move through
and stop in foes' spaces (the engine's ``enters_foes``, simplified as for air elementals); the
first time a turn it enters a creature's space, that creature takes 1d10 fire and catches fire. Its
Touch also ignites. A burning creature takes 1d10 fire at the start of each of its turns until it
takes an action to douse the fire. **Water Susceptibility**: 1 cold damage per 5 ft it moves in
water.
"""

from __future__ import annotations

from ..grid import footprint
from ..model.options import Opt
from ..rules import hooks
from .common import _ms


def compile_traits(spec, c, ms, traits) -> None:
    if "fire-form" in traits:
        dice = spec.trait("fire-form").damage[0]
        c.resources["heated_body"] = [(dice.dice, dice.type)]
        c.features += ("enters_foes",) if "enters_foes" not in c.features else ()
        ms["fire_form"] = dice.dice
        ms["ignite"] = {"attack": "touch", "dice": dice.dice}
    if "water-susceptibility" in traits:
        ms["water_cold"] = 1


TRAIT_RUN = {
    "fire-form": lambda c: "fire_form" in _ms(c) and "enters_foes" in c.features,
    "water-susceptibility": lambda c: "water_cold" in _ms(c),
}


def burn(b, c) -> bool:
    """A burning creature's fire at the start of its turn: True when it left the creature
    unconscious (the rest of its turn's start is skipped)."""
    burn = c.conditions.get("burning")
    if burn:
        b.damage(c, b.roller.roll_damage(burn["dice"], what=f"burning {c.cid}"), "fire", magical=True,
                 source=burn.get("by"))
        if not c.conscious:
            return True
    return False


def douse_option(c, extra: list) -> None:
    if "burning" in c.conditions:
        extra.append(Opt("Douse the fire (action)", "ms_douse"))


@hooks.OPTION_KINDS.handles("ms_douse")
def _douse(b, c, p, opt) -> None:
    c.economy.actions -= 1
    c.conditions.pop("burning", None)
    b.event("douse", f"{c.cid} douses the fire", creature=c.cid)
    b.back_to_menu(c)


def after_hit(b, c, t, a, cms) -> None:
    """A hit with its Touch sets the target on fire."""
    ig = cms.get("ignite")
    if ig and ig["attack"] == a.key and not t.dead:
        _ignite(b, c, t, ig["dice"])


def _ignite(b, c, t, dice: str) -> None:
    if "burning" not in t.conditions and "fire" not in {k for k, _ in t.immune}:
        t.conditions["burning"] = {"by": c.cid, "dice": dice}
        b.specials = True   # (a summoned elemental joined after the battle began)
        b.event("condition", f"{t.cid} catches fire", creature=t.cid, condition="burning")


def on_step(b, c, pos) -> None:
    """A move's step: Water Susceptibility; Fire Form entering a creature's space."""
    ms = _ms(c)
    if "water_cold" in ms and any(b.map.is_water(x, y) for x, y in footprint(pos[0], pos[1], c.squares)):
        b.damage(c, ms["water_cold"], "cold", source="water")
    if "fire_form" in ms and c.conscious:
        cells = set(footprint(pos[0], pos[1], c.squares))
        done = ms.setdefault("burned", {})
        for o in sorted(b.creatures.values(), key=lambda o: o.cid):
            if o is c or o.dead or done.get(o.cid) == (b.round, b.turn_index) or not cells & set(o.cells):
                continue
            done[o.cid] = (b.round, b.turn_index)
            b.event("fire_form", f"{c.cid} sweeps through {o.cid}'s space", creature=c.cid, target=o.cid)
            b.damage(o, b.roller.roll_damage(ms["fire_form"], what=f"fire form {c.cid}"), "fire", magical=True,
                     source=c.cid)
            if not o.dead:
                _ignite(b, c, o, ms["fire_form"])
