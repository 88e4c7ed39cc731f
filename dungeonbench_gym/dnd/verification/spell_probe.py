"""Probing one spell end to end: a small battle, the spell cast through the engine's own options
(action -> target / point / direction), and a check that the battle changed because of it.

:func:`run_probe` is the spells table's probe (:mod:`.coverage`): a spell counts as executable only
when this passes; the battle it plays in is :func:`.arena.battle`. Saves and attack rolls are random, so the probe tries a few fixed seeds and passes
when one of them shows the effect (deterministic for a given engine).
"""

from __future__ import annotations

from .. import content
from . import (
    lighting_probes,
    spell_buffs_probes,
    spell_control_probes,
    spell_plants_probes,
    spell_summons_probes,
    spell_utility_probes,
    spell_walls_probes,
    spell_wards_probes,
    spell_zones_probes,
)
from .arena import SEEDS, battle, caster, orc_first, snapshot, steer
from ..rules import spell_data

_SUPPORT = ("heal", "temp_hp", "max_hp", "buff", "stabilize", "cure")
_FOES = {"animal-friendship": ("wolf", "wolf", "brown-bear")}   # spells only some foes can suffer


def run_probe(key: str) -> None:
    m = spell_data.mech(key)
    if not m.get("mech"):
        raise AssertionError(f"{key}: no mechanism ({m})")
    if key == "shield":
        return _probe_shield()
    if key == "counterspell":
        return _probe_counterspell()
    if m.get("barrier"):   # walls the map gains: the wall's own checks (dnd/spell_walls.py)
        return spell_walls_probes.probe(key)
    if m.get("zones"):   # lasting areas: the zone's own checks (dnd/spell_zones.py)
        return spell_zones_probes.probe(key)
    if m["mech"] == "control":   # removal, domination, confusion, teleports, Wish: dnd/spell_control.py
        return spell_control_probes.probe(key)
    if m["mech"] == "plants":   # trees and plants on the map: dnd/spell_plants.py
        return spell_plants_probes.probe(key)
    if m["mech"] == "ward":   # laid between fights on the next map, then that fight (dnd/spell_wards.py)
        return spell_wards_probes.probe(key)
    if m["mech"] == "sight":   # light and darkness in a dark probe battle: dnd/lighting.py
        return lighting_probes.probe(key)
    if m["mech"] == "utility":   # a water arena, an underwater one, an interact objective: dnd/spell_utility.py
        return spell_utility_probes.probe(key)
    if m["mech"] == "prepare":   # a long summoning between fights, then the fight (dnd/spell_summons.py)
        return spell_summons_probes.probe(key)
    if m["mech"] in ("day", "reaction"):   # between fights (the Day track) or a reaction: dnd/spell_buffs.py
        return spell_buffs_probes.probe(key)
    support = m["mech"] in _SUPPORT or key in ("cure-wounds", "healing-word", "spirit-guardians")
    sp = content.spell(key)
    seen = []
    for seed in SEEDS:
        b = battle(key, seed, _FOES.get(key, ("orc", "orc", "ogre")))
        opts = [i for i, o in enumerate(b.decision.options) if o.kind == "spell" and o.data[0] == key]
        if not opts:
            seen.append("not offered")
            continue
        before = snapshot(b)
        slots = b.creatures["caster"].resources["slots"]
        b.choose(opts[0])
        steer(b, key, support)
        after = snapshot(b)
        if sp.level:
            assert sum(b.creatures["caster"].resources["slots"]) == sum(slots) - 1, f"{key}: no slot spent"
        if after != before:
            return
        seen.append("no change")
    raise AssertionError(f"{key}: nothing observable happened in {len(SEEDS)} seeds ({sorted(set(seen))})")


def _probe_shield() -> None:
    """Shield is a reaction: an orc attacks the caster and the caster is offered Shield."""
    for seed in SEEDS:
        b = orc_first("shield", seed)
        for i, o in enumerate(b.decision.options):
            if o.kind == "attack" and o.data[0] == "greataxe":
                b.choose(i)
                break
        else:
            continue
        b.choose(next(i for i, o in enumerate(b.decision.options) if o.data == ("caster",)))
        d = b.decision
        if d is not None and d.kind == "reaction" and "Shield" in d.options[0].label:
            b.choose(0)
            if "shield" in b.creatures["caster"].conditions:
                return
    raise AssertionError("shield: never offered as a reaction")


def _probe_counterspell() -> None:
    """A hostile wizard casts Fire Bolt within 60 ft: the caster is offered Counterspell and stops it."""
    b = battle("counterspell")
    foe = caster("fire-bolt", cid="foe_mage", at=(9, 6))
    foe.side = "enemies"
    b.creatures[foe.cid] = foe
    b.order = [foe.cid] + [o for o in b.order if o != foe.cid]
    b.round, b.turn_index, b.outcome = 0, -1, None
    b.next_turn()
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == "spell"))
    d = b.decision
    assert d.kind == "reaction" and d.actor == "caster", f"counterspell not offered: {d}"
    b.choose(0)
    assert any(e.get("event") == "countered" for e in b.log), "the spell was not countered"
