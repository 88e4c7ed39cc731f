"""Probes of :mod:`..spell_utility`: each makes one of its rules happen through the engine's
decision options in a small battle, and raises AssertionError when it cannot."""

from __future__ import annotations

from ..advice.spell_utility import _short_of_breath
from ..builders.monsters import monster_combatant
from ..builders.pcs import build_pc
from ..engine import Battle
from ..grid import BattleMap
from ..spell_utility import breath_left, hold_rounds, kind
from .arena import caster, choose  # choose: through the groups of a split decision


# ================================================================ probes
def probe(key: str) -> None:
    """Cast through the engine's own options in a small battle made for it and check the change."""
    k = kind(key)
    {"water_walk": _probe_water_walk, "water_breathing": _probe_water_breathing, "mage_hand": _probe_hand,
     "unseen_servant": _probe_servant}[k](key)


def _battle(layout, fighters, objective=None, underwater=False, first="caster"):
    b = Battle(BattleMap.from_dict({"layout": layout}), fighters, seed=0, objective=objective)
    b.underwater = underwater
    b.order = [first] + [o for o in b.order if o != first]
    b.round, b.turn_index, b.outcome = 0, -1, None
    b.next_turn()
    return b


def _cast(b, key: str) -> None:
    choose(b, lambda o: o.kind == "spell" and o.data[0] == key, key)


POOL = ["##########", "#........#", "#..~~~~..#", "#..~~~~..#", "#........#", "##########"]


LEVER = ["############", "#..........#", "#..........#", "############"]   # the lever: the wall at (11, 1)


def _probe_water_walk(key: str) -> None:
    c = caster(key, cid="caster", at=(1, 2))
    ally = build_pc("fighter", 5, "ally", (2, 3, 0))
    foe = monster_combatant("orc", "orc", "enemies", (8, 4, 0))
    b = _battle(POOL, [c, ally, foe])
    before = b.map.reachable(ally.pos, ally.size, 30).costs.get((3, 3, 0))
    _cast(b, key)
    choose(b, lambda o: o.kind == "target" and o.data == ("ally",), "the ally as a target")
    if b.decision.kind == "target":
        choose(b, lambda o: o.kind == "stop", "no more targets")
    assert "water_walk" in ally.conditions, "the ally does not walk on water"
    b.order = ["ally"] + [o for o in b.order if o != "ally"]
    b.round, b.turn_index = 0, -1
    b.next_turn()
    after = b.reach(ally).costs.get((3, 3, 0))
    assert (before, after) == (10, 5), f"a water square costs {before} ft, then {after} ft"


def _probe_water_breathing(key: str) -> None:
    c = caster(key, cid="caster", at=(1, 2))
    ally = build_pc("fighter", 5, "ally", (1, 3, 0))
    foe = monster_combatant("sahuagin", "sahuagin", "enemies", (8, 4, 0))
    b = _battle(POOL, [c, ally, foe], underwater=True)
    b.__dict__.setdefault("_breath", {})["ally"] = b.round - hold_rounds(ally) + 3   # 3 rounds of breath left
    assert _short_of_breath(b, ally)
    _cast(b, key)
    choose(b, lambda o: o.kind == "target" and o.data == ("ally",), "the ally as a target")
    while b.decision.kind == "target":
        choose(b, lambda o: o.kind in ("target", "stop"), "a further target")
    assert "water_breathing" in ally.conditions and breath_left(b, ally) is None, "the ally still holds its breath"


def _probe_hand(key: str) -> None:
    c = caster(key, cid="caster", at=(5, 1))
    ally = build_pc("fighter", 5, "ally", (1, 2, 0))
    obj = {"type": "interact", "object": [11, 1], "name": "lever"}
    b = _battle(LEVER, [c, ally], objective=obj)
    assert not any(o.kind == "interact" for o in b.decision.options)   # 30 ft away: no hand on it yet
    _cast(b, key)
    b.order = ["caster"] + [o for o in b.order if o != "caster"]
    b.round, b.turn_index = 0, -1
    b.next_turn()
    choose(b, lambda o: o.kind == "hand_use", "the lever through the hand")
    assert b.outcome == "win" and b.objective.get("done"), "the lever was not used"


def _probe_servant(key: str) -> None:
    c = caster(key, cid="caster", at=(1, 1))
    ally = build_pc("fighter", 5, "ally", (1, 2, 0))
    obj = {"type": "interact", "object": [11, 1], "name": "lever"}
    b = _battle(LEVER, [c, ally], objective=obj)
    _cast(b, key)
    servants = [o for o in b.creatures.values() if o.resources.get("servant_of") == "caster"]
    assert servants and "invisible" in servants[0].conditions, "no unseen servant"
    for _ in range(6):
        if b.outcome is not None:
            break
        choose(b, lambda o: o.kind == "servant_command", "a command to the servant")
        if b.outcome is None:
            b.order = ["caster"] + [o for o in b.order if o != "caster"]
            b.round, b.turn_index = b.round, -1
            b.next_turn()
    assert b.outcome == "win" and b.objective.get("done"), "the servant never used the lever"


def probe_monster_spell(key: str, spell: str) -> None:
    """A monster casts Water Breathing on an ally short of breath in an underwater fight (the
    monster coverage probe)."""
    m = monster_combatant(key, "m", "enemies", (1, 1, 0))
    ally = monster_combatant("orc", "ally", "enemies", (1 + m.squares, 1, 0))
    foe = build_pc("fighter", 5, "foe", (8, 4, 0))
    layout = ["#" * 14] + ["#" + "~" * 12 + "#"] * 8 + ["#" * 14]
    b = _battle(layout, [m, ally, foe], underwater=True, first="m")
    b.__dict__.setdefault("_breath", {})["ally"] = b.round - hold_rounds(ally) + 2
    _cast(b, spell)
    while b.decision is not None and b.decision.actor == "m" and b.decision.kind == "target":
        choose(b, lambda o: (o.kind == "target" and o.data == ("ally",)) or o.kind == "stop", "the ally")
    assert any(e.get("event") == "cast" and e.get("spell") == spell and e.get("creature") == "m" for e in b.log), \
        f"{key}: {spell} was not cast"
    assert "water_breathing" in ally.conditions, f"{key}: the ally does not breathe water"
