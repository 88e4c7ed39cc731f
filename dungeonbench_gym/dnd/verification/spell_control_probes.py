"""Probes of :mod:`..spell_control`: each makes one of its rules happen through the engine's
decision options in a small battle, and raises AssertionError when it cannot."""

from __future__ import annotations

from .. import heuristic
from ..spell_control import _m, kind
from .arena import SEEDS, battle, steer

# ================================================================ the probe
_PROBE_FOES = {"dominate-beast": ("wolf", "wolf", "brown-bear")}


def probe(key: str) -> None:
    """Cast the spell through the engine's real options in the spell probe's battle (see
    :mod:`.spell_probe`) and check that its effect happened; AssertionError otherwise."""
    k = kind(key)
    seen = []
    if k == "meld":
        return _probe_meld(key)
    if k == "stealth_aura":
        return _probe_stealth_aura(key)
    for seed in SEEDS:
        b = battle(key, seed, foes=_PROBE_FOES.get(key, ("orc", "orc", "ogre")))
        c = b.creatures["caster"]
        if k == "calm":
            b.creatures["ally"].conditions["frightened"] = {"by": "orc_0"}
        opts = [i for i, o in enumerate(b.decision.options) if o.kind == "spell" and o.data[0] == key]
        if not opts:
            seen.append("not offered")
            continue
        slots = sum(c.resources["slots"])
        n0 = len(b.log)
        b.choose(opts[0])
        if k == "teleport":   # the farthest square on offer
            _far(b)
        elif k == "wish":   # duplicate Hold Monster if offered, else the first spell
            _wish_pick(b)
        elif k == "eyebite":
            _steer_target(b)
            choose(b, lambda o: o.kind == "control" and o.data == ("panicked",))
        elif k == "calm":
            choose(b, lambda o: o.kind == "point_x" and o.data[0] == 4)
            choose(b, lambda o: o.kind == "point_y" and o.data[0] == 8)
        else:
            steer(b, key, False)
        assert sum(c.resources["slots"]) == slots - 1, f"{key}: no slot spent"
        new = b.log[n0:]
        if _effect_seen(b, k, key, new):
            if k in ("blink", "time_stop"):
                _probe_later_turn(b, k)
            return
        seen.append("no effect")
    raise AssertionError(f"{key}: nothing observable happened in {len(SEEDS)} seeds ({sorted(set(seen))})")


def _probe_meld(key: str) -> None:
    """The caster beside the arena's west wall melds into it: the wall square holds it, no foe
    can target it, its turn offers stepping out, and stepping out puts it back on the map."""
    b = battle(key)
    c = b.creatures["caster"]
    c.pos = (1, 6, 0)
    b.creatures["orc_0"].pos = (2, 6, 0)
    b.open_menu(c)
    choose(b, lambda o: o.kind == "spell" and o.data[0] == key)
    assert c.conditions.get("enclosed", {}).get("meld") and b.map.is_wall(c.pos[0], c.pos[1]), f"{key}: not melded"
    orc = b.creatures["orc_0"]
    assert not b.line_of_effect(orc, c), f"{key}: the caster can still be reached"
    kinds = {o.kind for o in b.decision.options}
    assert kinds == {"control", "end_turn"}, f"{key}: the melded caster's menu is {kinds}"
    choose(b, lambda o: o.kind == "control")
    assert "enclosed" not in c.conditions and not b.map.is_wall(c.pos[0], c.pos[1]), f"{key}: no way out"


def _probe_stealth_aura(key: str) -> None:
    """Cast through the menu: the caster's and its nearby ally's Hide checks gain the bonus, a
    far ally's do not, and the bonus ends with concentration."""
    b = battle(key)
    c, ally = b.creatures["caster"], b.creatures["ally"]
    base = (b.stealth(c), b.stealth(ally))
    choose(b, lambda o: o.kind == "spell" and o.data[0] == key)
    bonus = _m(key)["bonus"]
    assert (b.stealth(c), b.stealth(ally)) == (base[0] + bonus, base[1] + bonus), f"{key}: no Stealth bonus"
    ally.pos = (15, 11, 0)
    assert b.stealth(ally) == base[1], f"{key}: the bonus reaches beyond its aura"
    b.end_concentration(c)
    assert b.stealth(c) == base[0], f"{key}: the bonus outlasts concentration"


def choose(b, want) -> None:
    d = b.decision
    for _ in range(6):   # through groups, when the decision had to be split
        if d is None:
            break
        i = next((i for i, o in enumerate(d.options) if want(o)), None)
        if i is not None:
            b.choose(i)
            return
        if d.kind != "group":
            break
        b.choose(0)
        d = b.decision
    raise AssertionError(f"option not offered: {[o.label for o in (d.options if d else ())]}")


def _steer_target(b) -> None:
    d = b.decision
    i = next(i for i, o in enumerate(d.options) if o.kind == "target" and b.creatures[o.data[0]].side == "enemies")
    b.choose(i)


def _far(b) -> None:
    c = b.creatures["caster"]
    while b.decision.kind == "group":
        b.choose(len(b.decision.options) - 1)
    d = b.decision
    i = max(range(len(d.options)), key=lambda i: (abs(d.options[i].data[0][0] - c.pos[0]) +
                                                  abs(d.options[i].data[0][1] - c.pos[1]), -i))
    b.choose(i)


def _wish_pick(b) -> None:
    full = b.visible_options()
    j = next((i for i, o in enumerate(full) if o.data[0] == "hold-monster"), 0)
    while b.decision.kind == "group":
        d = b.decision
        b.choose(next(i for i, o in enumerate(d.options) if o.data[0] == "span" and o.data[1] <= j < o.data[2]))
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.data == full[j].data))
    steer(b, full[j].data[0], False)


def _effect_seen(b, k: str, key: str, new: list) -> bool:
    ev = {e.get("event") for e in new}
    conds = {e.get("condition") for e in new if e.get("event") == "condition"}
    if k == "remove":
        return "removed" in ev and any(o.dead and "removed" in o.conditions for o in b.creatures.values())
    if k == "escape":
        return "escape" in ev and (b.creatures["caster"].dead or any(
            e.get("event") == "outcome" and e.get("how") == "escape" for e in new))
    if k == "teleport":
        return "teleport" in ev
    if k == "dominate":
        return any(o.side == "party" and "dominated" in o.conditions for o in b.creatures.values())
    if k == "calm":
        return "frightened" not in b.creatures["ally"].conditions
    if k == "wish":
        return "wish" in ev and any(e.get("event") == "cast" for e in new)
    if k == "levitate":
        return "levitated" in conds and any(o.pos[2] > 0 for o in b.creatures.values())
    if k == "telekinesis":
        return "restrained" in conds
    if k == "eyebite":
        return "frightened" in conds   # announced under the condition it places
    if k in ("blink", "time_stop"):
        return ("blink" in conds) if k == "blink" else "time_stop" in ev
    return bool(conds & {"confused", "compelled"})


def _probe_later_turn(b, k: str) -> None:
    """Blink: the caster blinks away at some turn's end and is back at its next turn; Time Stop:
    the caster's next turn follows at once."""
    c = b.creatures["caster"]
    if k == "time_stop":
        b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == "end_turn"))
        assert b.decision is not None and b.decision.actor == "caster", "time stop: no second turn"
        return
    for _ in range(200):
        if b.outcome is not None:
            break
        d = b.decision
        if d.actor == "caster" and d.kind == "action":
            b.choose(next(i for i, o in enumerate(d.options) if o.kind == "end_turn"))
        else:
            b.choose(heuristic.choose(b))
        if any(e.get("event") == "return" and e.get("creature") == "caster" for e in b.log):
            assert not c.dead
            return
    raise AssertionError("blink: the caster never blinked away and back")
