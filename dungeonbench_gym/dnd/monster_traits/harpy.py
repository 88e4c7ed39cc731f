"""**Luring Song** (harpy): hostile humanoids and giants within 300 ft save (Wis DC 11) or are
charmed and incapacitated; on their turns they walk straight toward the harpy (simplification: no
opportunity attacks on the way); a save at the end of each of their turns ends it; the harpy keeps
singing with a bonus action on each later turn, and the song ends when it does not or when it is
incapacitated."""

from __future__ import annotations

from ..grid import SQUARE_FT
from ..model.options import Opt
from ..rules import hooks
from .common import _ms

SONG = {"dc": 11, "range": 300, "types": ("humanoid", "giant")}


def compile_traits(spec, c, ms, traits) -> None:
    if spec.key == "harpy" and any(a.key == "luring-song" for a in spec.actions):
        ms.setdefault("actions", []).append("luring-song")


def own_start(b, c, ms) -> None:
    if ms.get("singing") and c.incapacitated:
        _song_ends(b, c)


def aura(b, harpy, c, hms) -> None:
    """The start of a listener's turn: a charmed one walks toward the singing harpy."""
    if hms.get("singing") and c.conditions.get("charmed", {}).get("song") == harpy.cid:
        _lured_walk(b, harpy, c)


def after_auras(c) -> None:
    """A song's victims whose incapacitation ended (a repeat save) are no longer charmed by it."""
    ch = c.conditions.get("charmed")
    if ch and ch.get("song") and c.conditions.get("incapacitated", {}).get("song") != ch["song"]:
        del c.conditions["charmed"]


def end_turn(b, c, ms) -> None:
    """A song that was not kept up this turn ends."""
    if ms.get("singing") and ms.get("sung") != b.round and ms.get("song_round") != b.round:
        _song_ends(b, c)


def action_options(b, c, ms, acts, extra: list) -> None:
    if "luring-song" in acts and not ms.get("singing") and _song_targets(b, c):
        extra.append(Opt(f"Luring Song (humanoids and giants within {SONG['range']} ft: Wis DC {SONG['dc']} "
                         "or charmed and incapacitated)", "ms_song"))


def bonus_options(b, c, ms, extra: list) -> None:
    if ms.get("singing") and ms.get("song_round") != b.round and ms.get("sung") != b.round:
        extra.append(Opt("Keep up the Luring Song (bonus action)", "ms_sing"))


@hooks.OPTION_KINDS.handles("ms_song")
def _song(b, c, p, opt) -> None:
    _start_song(b, c)
    b.back_to_menu(c)


@hooks.OPTION_KINDS.handles("ms_sing")
def _sing(b, c, p, opt) -> None:
    c.economy.bonus = False
    _ms(c)["sung"] = b.round
    b.event("luring_song", f"{c.cid} keeps singing", creature=c.cid)
    b.back_to_menu(c)


def _song_targets(b, c) -> list:
    tag = f"{c.cid}:song"
    return [o for o in sorted(b.enemies_of(c), key=lambda o: o.cid)
            if o.conscious and o.creature_type in SONG["types"] and b.distance(c, o) <= SONG["range"]
            and "deafened" not in o.conditions and tag not in o.resources.get("immune_to", ())
            and "song" not in o.conditions.get("charmed", {})]


def _start_song(b, c) -> None:
    ms = _ms(c)
    c.economy.actions -= 1
    ms["singing"], ms["song_round"] = True, b.round
    b.event("luring_song", f"{c.cid} sings a luring song", creature=c.cid)
    tag = f"{c.cid}:song"
    for t in _song_targets(b, c):
        if b.saving_throw(t, "wis", SONG["dc"], magic=True, condition="charmed"):
            t.resources["immune_to"] = tuple(t.resources.get("immune_to", ())) + (tag,)
            continue
        if "charmed" in t.condition_immunities:
            continue
        t.conditions["charmed"] = {"by": c.cid, "song": c.cid}
        t.conditions["incapacitated"] = {"by": c.cid, "song": c.cid, "repeat": "wis", "dc": SONG["dc"], "magic": True}
        b.end_concentration(t)
        b.event("condition", f"{t.cid} is charmed by {c.cid}'s song", creature=t.cid, condition="charmed")


def _song_ends(b, c) -> None:
    ms = _ms(c)
    ms["singing"] = False
    for o in b.creatures.values():
        for k in ("charmed", "incapacitated"):
            if o.conditions.get(k, {}).get("song") == c.cid:
                del o.conditions[k]
    b.event("luring_song_end", f"{c.cid}'s song ends", creature=c.cid)


def _lured_walk(b, harpy, c) -> None:
    """A charmed listener walks toward the harpy by the most direct route (no opportunity attacks)."""
    if b.distance(c, harpy) <= SQUARE_FT or c.economy.movement < SQUARE_FT:
        return
    r = b.reach(c)
    best = min(r.destinations, key=lambda p: (b.distance_from(c, p, harpy), r.costs[p], p))
    if b.distance_from(c, best, harpy) >= b.distance(c, harpy):
        return
    c.economy.movement -= r.costs[best]
    c.pos = tuple(best)
    b.forget_reach()
    b.event("move", f"{c.cid} walks toward {harpy.cid} ({best[0]}, {best[1]})", creature=c.cid, pos=list(best))
