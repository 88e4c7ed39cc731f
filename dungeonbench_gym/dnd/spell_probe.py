"""Probing one spell end to end: a small battle, the spell cast through the engine's own options
(action -> target / point / direction), and a check that the battle changed because of it.

Used by :func:`spellbook.probe` (and the coverage tests): a spell counts as executable only when
this passes. Saves and attack rolls are random, so the probe tries a few fixed seeds and passes
when one of them shows the effect (deterministic for a given engine).
"""

from __future__ import annotations

from . import content, spellbook
from .engine import Battle
from .grid import BattleMap
from .pcs import build_pc
from .state import monster_combatant

ARENA = ["#" * 18] + ["#" + "." * 16 + "#"] * 12 + ["#" * 18]
SEEDS = range(12)
_SUPPORT = ("heal", "temp_hp", "max_hp", "buff", "stabilize", "cure")
_FOES = {"animal-friendship": ("wolf", "wolf", "brown-bear")}   # spells only some foes can suffer


def caster(key: str, level: int = 5, cid: str = "caster", at=(4, 6)):
    """A wizard build with this one spell and four slots of every level 1-9."""
    c = build_pc("wizard", level, cid, (*at, 0))
    c.spells = (key,)
    c.resources["slots"] = (4,) * 9
    return c


def battle(key: str, seed: int = 0, foes=("orc", "orc", "ogre")) -> Battle:
    """The caster at (4, 6) with a wounded fighter beside it and foes: one adjacent (east), others
    10-20 ft east; it is the caster's turn."""
    m = spellbook.mech(key)
    c = caster(key)
    ally = build_pc("fighter", 5, "ally", (4, 7, 0))
    ally.hp = ally.max_hp // 2
    if m.get("mech") == "stabilize":
        ally.hp = 0
        ally.conditions.update(unconscious={}, prone={})
    if m.get("mech") == "cure":
        ally.conditions[m["cures"][0]] = {"by": "nobody"}
        if m.get("exhaustion"):
            ally.conditions["exhaustion"] = {"level": 2}
    spots = [(5, 6), (8, 6), (8, 8)]
    fighters = [c, ally] + [monster_combatant(f, f"{f}_{i}", "enemies", (*spots[i], 0))
                            for i, f in enumerate(foes)]
    if m.get("mech") == "dispel":   # a foe's spell on the ally
        ally.conditions["baned"] = {"by": "orc_0", "spell": "bane"}
    b = Battle(BattleMap.from_dict({"layout": ARENA}), fighters, seed=seed)
    b.order = [c.cid] + [o for o in b.order if o != c.cid]   # the caster's turn, now
    b.round, b.turn_index, b.outcome = 0, -1, None
    b._next_turn()
    if m.get("mech") == "revive":   # the ally died this round
        b._die(ally, "probe")
    return b


def _snapshot(b: Battle) -> tuple:
    return tuple((o.cid, o.hp, o.max_hp, o.temp_hp, tuple(o.pos), o.dead, o.stable, o.exhaustion,
                  tuple(sorted(o.conditions)), bool(o.resources.get("zone")), bool(o.resources.get("spiritual_weapon")))
                 for o in sorted(b.creatures.values(), key=lambda o: o.cid))


def _foe_hits(label: str) -> int:
    hits = label.split("(hits ")[-1] if "(hits " in label else ""
    bad = ("caster" in hits) + ("ally" in hits)
    return sum(hits.count(f) for f in ("orc", "ogre")) * 3 - bad * 2


def _steer(b: Battle, key: str, support: bool) -> None:
    """Answer the caster's follow-up decisions: a target (a foe, or the ally for support), the
    point/direction that hits the most foes, one further target at most, a teleport square."""
    for _ in range(40):
        d = b.decision
        if d is None or d.actor != "caster" or d.kind == "action":
            return
        opts = d.options
        if d.kind == "group":
            pick = 0
        elif d.kind == "target":
            def score(o):
                if o.kind != "target":
                    return -1
                t = b.creatures[o.data[0]]
                return (2 if t.cid == "ally" else 1) if support else (t.side != "party") * 2
            pick = max(range(len(opts)), key=lambda i: (score(opts[i]), -i))
            if b.pending["use"][0] == "more":
                pick = next((i for i, o in enumerate(opts) if o.kind == "stop"), pick)
        elif d.kind == "point_x":
            want = {o.pos[0] for o in b.creatures.values() if o.side == "enemies"}
            pick = next((i for i, o in enumerate(opts) if o.data[0] in want), 0)
            xs = [o.data[0] for o in opts]
            if b.pending["use"][1] and not any(x in want for x in xs):
                pick = len(opts) // 2
        elif d.kind in ("point_y", "point_z", "direction"):
            pick = max(range(len(opts)), key=lambda i: (_foe_hits(opts[i].label), -i))
        else:
            pick = 0
        b.choose(pick)


def run_probe(key: str) -> None:
    m = spellbook.mech(key)
    if not m.get("mech"):
        raise AssertionError(f"{key}: no mechanism ({m})")
    if key == "shield":
        return _probe_shield()
    if key == "counterspell":
        return _probe_counterspell()
    if m.get("barrier"):   # walls the map gains: the wall's own checks (dnd/spell_walls.py)
        from .spell_walls import probe
        return probe(key)
    if m.get("zones"):   # lasting areas: the zone's own checks (dnd/spell_zones.py)
        from .spell_zones import probe
        return probe(key)
    if m["mech"] == "control":   # removal, domination, confusion, teleports, Wish: dnd/spell_control.py
        from .spell_control import probe
        return probe(key)
    if m["mech"] == "plants":   # trees and plants on the map: dnd/spell_plants.py
        from .spell_plants import probe
        return probe(key)
    if m["mech"] == "ward":   # laid between fights on the next map, then that fight (dnd/spell_wards.py)
        from .spell_wards import probe
        return probe(key)
    if m["mech"] == "sight":   # light and darkness in a dark probe battle: dnd/lighting.py
        from .lighting import probe
        return probe(key)
    if m["mech"] == "utility":   # a water arena, an underwater one, an interact objective: dnd/spell_utility.py
        from .spell_utility import probe
        return probe(key)
    if m["mech"] == "prepare":   # a long summoning between fights, then the fight (dnd/spell_summons.py)
        from .spell_summons import probe
        return probe(key)
    if m["mech"] in ("day", "reaction"):   # between fights (the Day track) or a reaction: dnd/spell_buffs.py
        from .spell_buffs import probe
        return probe(key)
    support = m["mech"] in _SUPPORT or key in ("bless", "shield-of-faith", "mage-armor", "sanctuary",
                                                "cure-wounds", "healing-word", "misty-step", "spirit-guardians")
    sp = content.spell(key)
    seen = []
    for seed in SEEDS:
        b = battle(key, seed, _FOES.get(key, ("orc", "orc", "ogre")))
        opts = [i for i, o in enumerate(b.decision.options) if o.kind == "spell" and o.data[0] == key]
        if not opts:
            seen.append("not offered")
            continue
        before = _snapshot(b)
        slots = b.creatures["caster"].resources["slots"]
        b.choose(opts[0])
        _steer(b, key, support)
        after = _snapshot(b)
        if sp.level:
            assert sum(b.creatures["caster"].resources["slots"]) == sum(slots) - 1, f"{key}: no slot spent"
        if after != before:
            return
        seen.append("no change")
    raise AssertionError(f"{key}: nothing observable happened in {len(SEEDS)} seeds ({sorted(set(seen))})")


def orc_first(key: str, seed: int) -> Battle:
    """The probe battle for `key`, but the adjacent orc takes the first turn (for reactions to an attack)."""
    b = battle(key, seed)
    orc = b.creatures["orc_0"]
    b.order = [orc.cid] + [o for o in b.order if o != orc.cid]
    b.round, b.turn_index, b.outcome = 0, -1, None
    b._next_turn()
    return b


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
    b._next_turn()
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.kind == "spell"))
    d = b.decision
    assert d.kind == "reaction" and d.actor == "caster", f"counterspell not offered: {d}"
    b.choose(0)
    assert any(e.get("event") == "countered" for e in b.log), "the spell was not countered"
