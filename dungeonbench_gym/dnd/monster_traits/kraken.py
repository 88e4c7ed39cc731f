"""The kraken.

* **Fling**: a Large or smaller creature it grapples flies up to 60 ft in a random direction and
  lands prone; a wall or creature stops it (1d6 bludgeoning per 10 ft flown; a creature hit saves,
  Dex DC 18, or takes the same and falls prone).
* **Freedom of Movement**: at the start of its turn magical slowing and restraint fall away and 5 ft
  of movement frees it from a grapple or nonmagical restraint (simplification: the map's difficult
  terrain still costs it).
"""

from __future__ import annotations

from ..areas import DIRECTIONS_8
from ..grid import SQUARE_FT, footprint
from ..model.options import Opt
from ..rules import hooks
from .common import SIZE_ORDER, _ms, as_action, ask_target

FLING = {"ft": 60, "dc": 18, "size_max": "large"}


def compile_fling(spec, c, ms, traits) -> None:
    if spec.key == "kraken" and any(a.key == "fling" for a in spec.actions):
        ms.setdefault("actions", []).append("fling")


def compile_freedom(spec, c, ms, traits) -> None:
    if "freedom-of-movement" in traits:
        ms["free_move"] = True


TRAIT_RUN = {"freedom-of-movement": lambda c: "free_move" in _ms(c)}


def own_start(b, c, ms) -> None:
    if "free_move" in ms:
        _free_move(b, c)


def action_options(b, c, ms, acts, extra: list) -> None:
    if "fling" in acts and _fling_targets(b, c):
        extra.append(Opt(f"Fling (a Large or smaller creature it grapples, up to {FLING['ft']} ft in a random "
                         "direction, prone)", "ms_fling"))


def _fling_targets(b, c) -> list:
    return [o for o in sorted(b.creatures.values(), key=lambda o: o.cid)
            if not o.dead and o.conditions.get("grappled", {}).get("by") == c.cid
            and SIZE_ORDER.index(o.size) <= SIZE_ORDER.index(FLING["size_max"])]


def _fling(b, c, t) -> None:
    """Thrown up to 60 ft in a random direction and knocked prone; a wall (or the map's edge) it hits
    deals 1d6 bludgeoning per 10 ft thrown; a creature it hits saves (Dex DC 18) or takes the same
    and falls prone too (the thrown creature takes it as well)."""
    b.release(t)
    dx, dy = DIRECTIONS_8[b.roller.roll("1d8", what=f"fling direction {t.cid}") - 1][:2]
    others = {cell: o for o in b.creatures.values() if not o.dead and o is not t and o is not c for cell in o.cells}
    x, y, ft, hit, stopped = t.pos[0], t.pos[1], 0, None, False
    while ft < FLING["ft"]:
        nx, ny = x + dx, y + dy
        if not b.map.fits(nx, ny, t.squares) or any(cell in set(c.cells) for cell in footprint(nx, ny, t.squares)):
            stopped = True
            break
        who = next((others[cell] for cell in footprint(nx, ny, t.squares) if cell in others), None)
        if who is not None:
            hit, stopped = who, True
            break
        x, y, ft = nx, ny, ft + SQUARE_FT
    t.pos = (x, y, b.map.standing_z(x, y, t.squares))
    b.forget_reach()
    b.event("fling", f"{c.cid} flings {t.cid} {ft} ft", creature=c.cid, target=t.cid, feet=ft)
    n = ft // 10
    if stopped and n:
        amount = b.roller.roll_damage(f"{n}d6", what=f"fling {t.cid}")
        if hit is not None and not b.saving_throw(hit, "dex", FLING["dc"]):
            b.damage(hit, amount, "bludgeoning", source=c.cid)
            if not hit.dead and "prone" not in hit.condition_immunities:
                hit.conditions["prone"] = {"by": c.cid}
        b.damage(t, amount, "bludgeoning", source=c.cid)
    if not t.dead and "prone" not in t.condition_immunities:
        t.conditions["prone"] = {"by": c.cid}


def _free_move(b, c) -> None:
    """Freedom of Movement at the start of its turn: magical slowing and restraint fall away;
    5 ft of its movement frees it from a nonmagical grapple or restraint."""
    magic = [k for k, v in c.conditions.items() if (v.get("spell") or k == "slowed")
             and (k == "restrained" or k == "slowed" or v.get("speed", 0) < 0 or v.get("speed_half")
                  or v.get("speed_zero"))]
    for k in magic:
        del c.conditions[k]
    held = "grappled" in c.conditions or "restrained" in c.conditions
    if held:
        c.conditions.pop("grappled", None)
        c.conditions.pop("restrained", None)
    if magic or held:
        c.economy.movement = max(0, b.speed(c) - (SQUARE_FT if held else 0))
        b.event("freedom_of_movement", f"{c.cid} slips free", creature=c.cid)


def _fling_options(b, c, use) -> list:
    return [Opt(f"Fling {t.cid} [{t.hp}/{t.max_hp} HP]", "target", (t.cid,)) for t in _fling_targets(b, c)]


TARGETS = {"fling": (_fling_options, as_action(_fling))}
hooks.OPTION_KINDS.register("ms_fling", ask_target)
