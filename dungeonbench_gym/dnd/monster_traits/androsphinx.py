"""**Roar** (androsphinx, 3 a day): the first (Wis DC 18 or frightened), second (Wis DC 18 or
deafened and frightened, and paralyzed while frightened) and third roar (Con DC 18, 8d10 thunder,
half on a success; a failure knocks a Large or smaller creature prone) in turn, on every other
creature within 500 ft that is not deafened."""

from __future__ import annotations

from ..model.options import Opt
from ..rules import hooks
from .common import _ms

ROAR = {"dc": 18, "range": 500, "damage": "8d10", "rounds": 10}


def compile_traits(spec, c, ms, traits) -> None:
    if spec.key == "androsphinx" and any(a.key == "roar" for a in spec.actions):
        ms.setdefault("actions", []).append("roar")
        ms["roars"] = 0


def runs(out: set) -> None:
    """The stat block's three roars, for coverage."""
    if "roar" in out:
        out |= {"first-roar", "second-roar", "third-roar"}


def end_turn(b) -> None:
    """A second roar's paralysis ends with the fear."""
    for o in b.creatures.values():
        par = o.conditions.get("paralyzed")
        if par and par.get("roar") and o.conditions.get("frightened", {}).get("roar") != par["by"]:
            del o.conditions["paralyzed"]
            b.event("condition_end", f"{o.cid} is no longer paralyzed", creature=o.cid, condition="paralyzed")


def action_options(b, c, ms, acts, extra: list) -> None:
    if "roar" in acts and ms.get("roars", 0) < 3:
        n = ms.get("roars", 0)
        what = ("frightened", "deafened and frightened (paralyzed)", f"{ROAR['damage']} thunder and prone")[n]
        extra.append(Opt(f"Roar #{n + 1} (every creature within {ROAR['range']} ft: DC {ROAR['dc']} "
                         f"{'CON' if n == 2 else 'WIS'} or {what}; {2 - n} left after)", "ms_roar"))


@hooks.OPTION_KINDS.handles("ms_roar")
def _roar_action(b, c, p, opt) -> None:
    _roar(b, c)
    b.back_to_menu(c)


def _roar(b, c) -> None:
    ms = _ms(c)
    n = ms["roars"]
    ms["roars"] = n + 1
    c.economy.actions -= 1
    dc = ROAR["dc"]
    b.event("roar", f"{c.cid} roars ({('first', 'second', 'third')[n]} roar)", creature=c.cid, roar=n + 1)
    rolled = b.roller.roll_damage(ROAR["damage"], what="damage roar thunder") if n == 2 else 0
    dur = (ROAR["rounds"], None, "end_of_turn", False, ())
    for t in sorted(b.creatures.values(), key=lambda o: o.cid):
        if t is c or t.dead or "deafened" in t.conditions or b.distance(c, t) > ROAR["range"]:
            continue
        if n < 2:
            if b.saving_throw(t, "wis", dc, magic=True, big=True, condition="frightened"):
                continue
            if n == 1 and "deafened" not in t.condition_immunities:
                t.conditions["deafened"] = {"by": c.cid, "until_round": b.round + ROAR["rounds"]}
                b.event("condition", f"{t.cid} is deafened by the roar", creature=t.cid, condition="deafened")
            b.save_condition(c, t, "frightened", "wis", dc, dur)
            if "frightened" in t.conditions:
                t.conditions["frightened"]["roar"] = c.cid
                if n == 1 and "paralyzed" not in t.condition_immunities:
                    t.conditions["paralyzed"] = {"by": c.cid, "roar": c.cid, "until_round": b.round + ROAR["rounds"]}
                    # announced: Battle.event ends its concentration and its grapples
                    b.event("condition", f"{t.cid} is paralyzed by the roar", creature=t.cid, condition="paralyzed")
        else:
            ok = b.saving_throw(t, "con", dc, magic=True, big=True, condition="prone")
            b.damage(t, rolled // 2 if ok else rolled, "thunder", magical=True, source=c.cid)
            if not ok and not t.dead and t.squares <= 2 and "prone" not in t.condition_immunities:
                t.conditions["prone"] = {"by": c.cid}
