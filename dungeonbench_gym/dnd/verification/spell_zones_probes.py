"""Probes of :mod:`..spell_zones`: each makes one of its rules happen through the engine's
decision options in a small battle, and raises AssertionError when it cannot."""

from __future__ import annotations

from .. import areas
from ..builders.monsters import monster_combatant
from ..builders.pcs import build_pc
from ..engine import Battle
from ..grid import BattleMap
from ..spell_zones import MONSTER_ZONES, _clip, add, inside, spec
from .arena import SEEDS, battle, snapshot, steer
from ..rules import spell_data


# ================================================================ probe
def probe(key: str) -> None:
    """The spell cast through the engine's options in the probe battle (dnd/verification/spell_probe.py) must
    leave a zone over some creature or change the battle (Prismatic Spray); Daylight must end a
    foe's Darkness. AssertionError otherwise."""
    s = spec(key)
    seen = []
    for seed in SEEDS:
        b = battle(key, seed)
        dark = None
        if s.get("dispels"):   # a foe's Darkness (2nd level) over the foes
            orc = b.creatures["orc_0"]
            orc.concentration = "darkness"
            dark = {"spell": "darkness", "by": orc.cid, "level": 2, "dc": 10, "conc": True, "obscure": "dark",
                    "cells": _clip(b, areas.sphere((8, 7), 15, b.map)), "size": 15}
            add(b, dark)
        if s.get("whirlpool"):   # deep water: an underwater battle
            b.underwater = True
            b.forget_options()
        opts = [i for i, o in enumerate(b.decision.options) if o.kind == "spell" and o.data[0] == key]
        if not opts:
            seen.append("not offered")
            continue
        before, slots = snapshot(b), sum(b.creatures["caster"].resources["slots"])
        b.choose(opts[0])
        steer(b, key, False)
        assert sum(b.creatures["caster"].resources["slots"]) == slots - 1, f"{key}: no slot spent"
        if dark is not None:
            if dark not in b.zones and b.creatures["orc_0"].concentration is None:
                return
            seen.append("darkness still up")
            continue
        mine = [z for z in b.zones if z["spell"] == key and z["by"] == "caster"]
        if s.get("whirlpool"):   # its effect comes at the start of the others' turns
            n = len(b.log)
            for _ in range(6):
                d = b.decision
                if d is None or d.actor not in ("caster", "ally"):
                    break
                b.choose(next(i for i, o in enumerate(d.options) if o.kind == "end_turn"))
            if any(e.get("event") == "zone" and e.get("source") == "caster" for e in b.log[n:]) or \
                    any(e.get("event") == "damage" and e.get("source") == "caster" for e in b.log[n:]):
                return
            seen.append("no pull or damage")
            continue
        if any(inside(b, z, o) for z in mine for o in b.creatures.values() if not o.dead):
            return
        if not spell_data.mech(key)["zones"].get("storm") and snapshot(b) != before and not mine:
            return   # an instant effect (Prismatic Spray)
        seen.append("no zone over anyone" if mine else "no change")
    raise AssertionError(f"{key}: nothing observable in {len(SEEDS)} seeds ({sorted(set(seen))})")


def probe_monster(monster: str, key: str) -> None:
    """The monster's obscuring action is offered (underwater for an octopus) and leaves a zone
    over it that its foe cannot see into."""
    m = monster_combatant(monster, "m", "enemies", (2, 2, 0))
    foe = build_pc("fighter", 5, "a", (2 + m.squares + 3, 2, 0))
    b = Battle(BattleMap.from_dict({"layout": ["#" * 16] + ["#" + "." * 14 + "#"] * 10 + ["#" * 16]}), [foe, m],
               seed=0)
    b.underwater = MONSTER_ZONES[monster][2].get("underwater", False)
    b.order = ["m", "a"]
    b.round, b.turn_index, b.outcome = 0, -1, None
    b.next_turn()
    opts = [i for i, o in enumerate(b.decision.options) if o.kind == "monster_zone" and o.data == (key,)]
    assert opts, f"{monster}: {key} not offered"
    b.choose(opts[0])
    z = [z for z in b.zones if z["by"] == "m" and z["spell"] == key]
    assert z and inside(b, z[0], m), f"{monster}: {key} left no zone over it"
    assert "target unseen (obscured)" in b.attack_modifiers(foe, m, melee=False)[2], f"{monster}: {key} hides nothing"
