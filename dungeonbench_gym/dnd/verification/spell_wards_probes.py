"""Probes of :mod:`..spell_wards`: each makes one of its rules happen through the engine's
decision options in a small battle, and raises AssertionError when it cannot."""

from __future__ import annotations

from ..advice.spell_wards import _circle_point
from ..day import DayRun, parse_day
from ..spell_buffs import choose_day
from ..spell_wards import _circle_cells, _mech, _next, pending_options


def probe_run(key: str, scenario: str = "skeleton_crypt"):
    """A small day at its first intermission (its first fight stands for the one just played);
    the cleric knows the ward, has four slots of every level and the gold; the next fight is
    ``scenario``."""
    day = parse_day({"name": "Ward Probe", "short_rests": 1,
                     "party": [{"id": "fighter", "archetype": "fighter", "level": 5},
                               {"id": "cleric", "archetype": "cleric", "level": 5, "gp": 5000}],
                     "encounters": [{"scenario": "gate_lever"}, {"scenario": scenario},
                                    {"scenario": "watchtower_hold"}]})
    run = DayRun(day, 0)
    run.results, run.stage, run.phase, run._menu, run._group = ["win"], 1, "intermission", None, None
    cleric = run.party["cleric"]
    cleric.spells = tuple(cleric.spells) + ((key,) if key not in cleric.spells else ())
    cleric.resources["slots"] = (4,) * 9
    return run


def cast(run, key: str, point, kind, level: int | None = None) -> None:
    """Through the intermission's options: cast, x, y, kind (opening ranges as needed)."""
    assert choose_day(run, lambda o: o.kind == "ward_cast" and o.data[1] == key
                      and (level is None or o.data[2] == level)), f"{key}: not offered between fights"
    for want in ((point[0],), (point[1],), (kind,)):
        for _ in range(4):
            opts = run.decision.options
            i = next((i for i, o in enumerate(opts) if o.kind != "ward_span" and o.data == want), None)
            if i is not None:
                run.choose(i)
                break
            full = pending_options(run)
            j = next(j for j, o in enumerate(full) if o.data == want)
            run.choose(next(i for i, o in enumerate(opts) if o.data[0] <= j < o.data[1]))
        else:
            raise AssertionError(f"{key}: {want} not offered")


def go_on(run) -> None:
    assert choose_day(run, lambda o: o.kind == "continue")


def move_onto(b, c, cells) -> bool:
    """c's turn now: it moves (through its own options) onto one of these squares."""
    b.order = [c.cid] + [o for o in b.order if o != c.cid]
    b.round, b.turn_index, b.outcome = max(b.round, 1), -1, None
    b.next_turn()
    opts = b.decision.options
    i = next((i for i, o in enumerate(opts) if o.kind == "move"), None)
    if i is None:
        return False
    b.choose(i)
    for _ in range(3):
        d = b.decision
        j = next((j for j, o in enumerate(d.options) if o.kind == "destination" and tuple(o.data[0][:2]) in cells),
                 None)
        if j is not None:
            b.choose(j)
            while b.decision is not None and b.decision.kind in ("route", "reaction"):
                b.choose(0)
            return True
        if d.kind != "group":
            return False
        rows = {f"row y={y}" for _, y in cells}
        b.choose(next((j for j, o in enumerate(d.options) if o.data[0] == "key" and o.data[1] in rows), 0))
    return False


def probe(key: str) -> None:
    """Cast between fights through the intermission's options, placed beside a skeleton's way in,
    then the next fight: a skeleton that walks onto the glyph is hurt (Glyph of Warding) or falls
    under the symbol (Symbol of pain); a Magic Circle against undead takes squares out of a
    skeleton's destinations."""
    run = probe_run(key)
    cleric = run.party["cleric"]
    gp, slots = cleric.resources["gp"], sum(cleric.resources["slots"])
    sc, bmap, squares = _next(run)
    skel = next(e for e in sc.enemies)
    x, y = skel["at"]
    if key == "magic-circle":
        cast(run, key, _circle_point(run), ("undead",))
    else:
        cast(run, key, (x - 1, y + 1), "fire" if key == "glyph-of-warding" else "pain")
    assert cleric.resources["gp"] == gp - _mech(key)["cost_gp"] and sum(cleric.resources["slots"]) == slots - 1, \
        f"{key}: the slot or the gold was not spent"
    go_on(run)
    b = run.battle
    assert b is not None and b.wards, f"{key}: no ward in the next fight"
    s = b.creatures[skel["id"]]
    if key == "magic-circle":
        w = b.wards[0]
        inside = _circle_cells(b, w)
        s.pos = (3, 4, 0)   # beside the circle
        b.forget_reach()
        dests = {tuple(p[:2]) for p in b.reach(s).destinations}
        assert not dests & inside and len(dests) > 1, f"{key}: the skeleton may still walk in"
        b.wards = []
        b.forget_reach()
        assert {tuple(p[:2]) for p in b.reach(s).destinations} & inside, f"{key}: the circle changed nothing"
        return
    s.pos = (x, y, 0)
    hp = s.hp
    cells = set(b.wards[0]["cells"])
    assert move_onto(b, s, cells), f"{key}: the skeleton could not walk onto the glyph"
    assert any(e.get("event") == "ward" and "sets off" in e.get("text", "") for e in b.log), f"{key}: not triggered"
    if key == "glyph-of-warding":
        assert s.hp < hp or s.dead, f"{key}: the skeleton was not hurt"
        assert not b.wards, f"{key}: the glyph is still there"
    else:
        assert b.wards[0]["state"] == "active" and any(
            e.get("event") == "condition" and e.get("spell") == "symbol" for e in b.log), f"{key}: nobody in pain"
