"""**Tendril**, **Reel**, **Grasping Tendrils** (roper): its multiattack is four tendrils (reach 50
ft, a hit grapples and restrains, disadvantage on Str saves), Reel (each creature it grapples is
pulled up to 25 ft straight toward it), then its bite; six tendrils at most. Simplification: a
tendril is not a target of attacks; a held creature breaks it with an action and a DC 15 Str check
(with disadvantage), or escapes the grapple as usual."""

from __future__ import annotations

from ..grid import SQUARE_FT, footprint
from ..model.options import Opt
from ..rules import hooks
from ..state import AttackProfile
from .common import _ms, _targets

ROPER = {"tendrils": 6, "reel": 25, "break_dc": 15}


def compile_traits(spec, c, ms, traits) -> None:
    if spec.key == "roper" and any(a.key == "tendril" for a in spec.actions):
        t = spec.action("tendril")
        g = t.on_hit_grapple
        c.attacks = c.attacks + (AttackProfile(t.key, t.name, t.bonus, (), True, t.reach, 0, 0,
                                               on_hit=(("grapple", g.escape_dc, g.size_max, g.restrained),)),)
        c.multiattack = ("tendril",) * 4 + ("bite",)   # then Reel before the bite (see menu)
        ms["roper"] = dict(ROPER)
        ms.setdefault("actions", []).extend(["multiattack", "tendril", "reel"])


TRAIT_RUN = {"grasping-tendrils": lambda c: "roper" in _ms(c)}


def break_option(b, c, extra: list) -> None:
    """A creature a tendril holds, with its action."""
    if _tendrils_on(b, c):
        extra.append(Opt(f"Break the tendril (Str check DC {ROPER['break_dc']}, disadvantage)", "ms_break_tendril"))


@hooks.OPTION_KINDS.handles("ms_break_tendril")
def _break_tendril(b, c, p, opt) -> None:
    c.economy.actions -= 1
    roper = b.creatures[next(o for o in _tendrils_on(b, c))]
    roll = b.roller.roll_d20(False, True, bonus=b.athletics(c), what=f"break tendril {c.cid}")
    ok = roll.total >= ROPER["break_dc"]
    b.event("check", f"{c.cid} {'breaks' if ok else 'fails to break'} {roper.cid}'s tendril ({roll.total})",
            creature=c.cid, success=ok)
    if ok:
        b.release(c)
    b.back_to_menu(c)


def after_hit(c, t, a, cms) -> None:
    if "roper" in cms and a.key == "tendril":   # disadvantage on Str saves while the tendril holds it
        r = t.conditions.get("restrained")
        if r and r.get("by") == c.cid:
            r["save_dis"] = ("str",)


def _grappled_by(b, c) -> list:
    return [o for o in b.creatures.values() if not o.dead and o.conditions.get("grappled", {}).get("by") == c.cid]


def _tendrils_on(b, c) -> list:
    by = c.conditions.get("grappled", {}).get("by")
    o = b.creatures.get(by) if by else None
    return [by] if o is not None and "roper" in _ms(o) else []


def roper_menu(b, c, ms, out: list) -> list:
    """Six tendrils at most; Reel before the multiattack's bite; tendril steps it cannot make are skipped."""
    e = c.economy
    full = len(_grappled_by(b, c)) >= ms["roper"]["tendrils"]
    if full:
        out = [o for o in out if not (o.kind == "attack" and o.data[0] == "tendril")]
    q = e.attack_queue
    if q and q[0] == "tendril" and (full or not _targets(b, c, "tendril")):
        e.attack_queue = tuple(k for k in q if k != "tendril")
        q = e.attack_queue
        a = c.attack("bite")
        if q and b.targets_for_attack(c, a):
            out.insert(0, Opt(f"Multiattack: attack with {a.name} ({a.short()})", "attack", (a.key, "queue")))
    if q and q[0] == "bite" and ms.get("reeled") != (b.round, b.turn_index):
        ms["reeled"] = (b.round, b.turn_index)
        _reel(b, c, ms["roper"]["reel"])
        if not any(o.kind == "attack" and o.data == ("bite", "queue") for o in out):
            a = c.attack("bite")
            if b.targets_for_attack(c, a):
                out.insert(0, Opt(f"Multiattack: attack with {a.name} ({a.short()})", "attack", (a.key, "queue")))
    return out


def _reel(b, c, feet: int) -> None:
    """Each creature it grapples is pulled up to 25 ft straight toward it."""
    for t in sorted(_grappled_by(b, c), key=lambda o: o.cid):
        moved = 0
        while moved < feet and b.distance(c, t) > SQUARE_FT:
            taken = {cell for o in b.creatures.values() if not o.dead and o is not t for cell in o.cells}
            best = None
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    x, y = t.pos[0] + dx, t.pos[1] + dy
                    if (dx or dy) and b.map.fits(x, y, t.squares) and not set(footprint(x, y, t.squares)) & taken:
                        p = (x, y, b.map.standing_z(x, y, t.squares))
                        d = b.distance_from(t, p, c)
                        if d < b.distance(c, t) and (best is None or (d, p) < best[0]):
                            best = ((d, p), p)
            if best is None:
                break
            t.pos, moved = best[1], moved + SQUARE_FT
        if moved:
            b.forget_reach()
            b.event("reel", f"{c.cid} reels {t.cid} in {moved} ft", creature=c.cid, target=t.cid, feet=moved)
