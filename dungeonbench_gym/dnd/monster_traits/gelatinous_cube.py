"""**Engulf**, **Ooze Cube** (gelatinous cube; Transparent is out of scope: surprise): a Large or
smaller foe beside it saves (Dex DC 12) or takes 3d6 acid and is inside (restrained, total cover
from outside, moving with it, 6d6 acid at the start of the cube's turns; one Large or four Medium or
smaller); a success pushes it 5 ft away. Out with an action and a DC 12 Str check, or pulled out by
a friend beside the cube (DC 12 Str check, 3d6 acid to the puller). Simplification: the cube does
not move as part of Engulf (it moves first, then engulfs)."""

from __future__ import annotations

from ..grid import SQUARE_FT
from ..model.options import Opt
from ..rules import hooks
from .common import SIZE_ORDER, _ms, as_action, ask_target

CUBE = {"dc": 12, "hit": "3d6", "tick": "6d6", "escape_dc": 12, "pull_dc": 12, "pull": "3d6"}


def compile_traits(spec, c, ms, traits) -> None:
    if spec.key == "gelatinous-cube" and any(a.key == "engulf" for a in spec.actions):
        ms.setdefault("actions", []).append("engulf")
        ms["cube"] = dict(CUBE)


TRAIT_RUN = {"ooze-cube": lambda c: "cube" in _ms(c)}


def own_start(b, c, ms) -> None:
    if "cube" in ms:   # acid for everyone inside
        for o in sorted(_inside_cube(b, c), key=lambda o: o.cid):
            b.damage(o, b.roller.roll_damage(ms["cube"]["tick"], what=f"engulf {c.cid}"), "acid", source=c.cid)


def escape_options(b, c, extra: list) -> None:
    """Any creature with its action: out of the cube it is in, or pull a friend out of one beside it."""
    cube = c.conditions.get("swallowed", {}).get("cube")
    if cube:
        extra.append(Opt(f"Escape the cube (Str check DC {CUBE['escape_dc']})", "ms_cube_escape"))
    elif _pull_targets(b, c):
        extra.append(Opt(f"Pull a creature out of the cube (Str check DC {CUBE['pull_dc']}; {CUBE['pull']} acid to you)",
                         "ms_cube_pull"))


def action_options(b, c, ms, acts, extra: list) -> None:
    if "engulf" in acts and _cube_targets(b, c):
        extra.append(Opt(f"Engulf (a Large or smaller foe beside it: Dex DC {CUBE['dc']} or {CUBE['hit']} acid "
                         f"and engulfed, {CUBE['tick']} acid each turn)", "ms_engulf"))


@hooks.OPTION_KINDS.handles("ms_cube_escape")
def _escape(b, c, p, opt) -> None:
    c.economy.actions -= 1
    cube = b.creatures[c.conditions["swallowed"]["by"]]
    if _str_check(b, c, CUBE["escape_dc"], "escape cube"):
        _leave_cube(b, cube, c)
    b.back_to_menu(c)


def _inside_cube(b, c) -> list:
    return [o for o in b.creatures.values() if not o.dead and o.conditions.get("swallowed", {}).get("cube") == c.cid]


def _room_in_cube(b, c, t) -> bool:
    """One Large creature, or up to four Medium or smaller ones."""
    inside = _inside_cube(b, c)
    if SIZE_ORDER.index(t.size) > SIZE_ORDER.index("large"):
        return False
    if t.size == "large":
        return not inside
    return len(inside) < 4 and all(o.size != "large" for o in inside)


def _cube_targets(b, c) -> list:
    return [o for o in sorted(b.enemies_of(c), key=lambda o: o.cid)
            if not o.dead and "swallowed" not in o.conditions and b.distance(c, o) <= SQUARE_FT
            and b.may_target(c, o) and _room_in_cube(b, c, o)]


def _engulf(b, c, t) -> None:
    """Dex save: on a success pushed 5 ft away; on a failure acid and inside the cube (restrained,
    total cover from outside; it moves with the cube)."""
    cube = _ms(c)["cube"]
    b.event("engulf_try", f"{c.cid} rolls over {t.cid}", creature=c.cid, target=t.cid)
    if b.saving_throw(t, "dex", cube["dc"]):
        b.push(c, t, SQUARE_FT)
        return
    b.damage(t, b.roller.roll_damage(cube["hit"], what=f"engulf {c.cid}"), "acid", source=c.cid)
    if t.dead:
        return
    b.release(t)
    t.conditions["swallowed"] = {"by": c.cid, "swallowed": True, "cube": c.cid}
    if "restrained" not in t.condition_immunities:
        t.conditions["restrained"] = {"by": c.cid, "swallowed": True}
    t.pos = tuple(c.pos)
    b.forget_reach()
    b.event("engulf", f"{c.cid} engulfs {t.cid}", creature=c.cid, target=t.cid)


def _leave_cube(b, cube, t) -> None:
    for k in ("swallowed", "restrained"):
        if t.conditions.get(k, {}).get("by") == cube.cid:
            del t.conditions[k]
    spot = b.free_spot_beside(cube, t.squares, exclude=t)
    if spot:
        t.pos = spot
    b.forget_reach()
    b.event("spit_out", f"{t.cid} gets out of {cube.cid}", creature=t.cid, source=cube.cid)


def _pull_targets(b, c) -> list:
    out = []
    for cube in b.creatures.values():
        if "cube" in _ms(cube) and not cube.dead and cube.side != c.side and b.distance(c, cube) <= SQUARE_FT:
            out += [o for o in _inside_cube(b, cube) if o is not c and o.side == c.side]
    return sorted(out, key=lambda o: o.cid)


def _str_check(b, c, dc: int, what: str) -> bool:
    roll = b.check_roll(c, "str", b.athletics(c), f"{what} {c.cid}", c.pc_class == "fighter")
    ok = roll.total >= dc
    b.event("check", f"{c.cid} {'succeeds' if ok else 'fails'} a DC {dc} Strength check ({roll.total})",
            creature=c.cid, success=ok)
    return ok


def _engulf_options(b, c, use) -> list:
    return [Opt(f"Engulf {t.cid} [{t.hp}/{t.max_hp} HP, DEX save {t.saves['dex']:+d}]", "target", (t.cid,))
            for t in _cube_targets(b, c)]


def _pull_options(b, c, use) -> list:
    return [Opt(f"Pull {t.cid} out of {t.conditions['swallowed']['by']}", "target", (t.cid,))
            for t in _pull_targets(b, c)]


def _pull(b, c, use, t) -> None:
    c.economy.actions -= 1
    cube = b.creatures[t.conditions["swallowed"]["by"]]
    ok = _str_check(b, c, CUBE["pull_dc"], "pull from cube")
    b.damage(c, b.roller.roll_damage(CUBE["pull"], what=f"cube acid {c.cid}"), "acid", source=cube.cid)
    if ok:
        _leave_cube(b, cube, t)
    b.back_to_menu(c)


TARGETS = {"engulf": (_engulf_options, as_action(_engulf)), "cube_pull": (_pull_options, _pull)}
hooks.OPTION_KINDS.register("ms_engulf", ask_target)
hooks.OPTION_KINDS.register("ms_cube_pull", ask_target)
