"""Probes of :mod:`..lighting`: each makes one of its rules happen through the engine's
decision options in a small battle, and raises AssertionError when it cannot."""

from __future__ import annotations

from .. import spell_zones
from ..lighting import _my_lights, _spell, darken, needs_dark, perception_penalty
from .arena import SEEDS, battle, choose, duel, play_out, steer


def probe(key: str) -> None:
    """The spell cast through the engine's options in a dark probe battle (dnd/verification/spell_probe.py):
    it must change what someone sees (a light, darkvision) or a foe's Perception (Enthrall)."""
    seen = []
    for seed in SEEDS:
        b = battle(key, seed)
        if needs_dark(key):
            darken(b)
        caster, ally = b.creatures["caster"], b.creatures["ally"]
        caster.resources["gp"] = 100
        opts = [i for i, o in enumerate(b.decision.options) if o.kind == "spell" and o.data[0] == key]
        if not opts:
            seen.append("not offered")
            continue
        foes = [o for o in b.creatures.values() if o.side == "enemies"]

        def seen():
            return {(v.cid, f.cid) for v in (caster, ally) for f in foes if spell_zones.sees(b, v, f)}
        before = seen()
        slots = sum(caster.resources["slots"])
        b.choose(opts[0])
        d = b.decision
        if d is not None and d.kind == "target":   # the ally: the light (or darkvision) goes with it
            b.choose(next(i for i, o in enumerate(d.options) if o.data == ("ally",)))
        else:
            steer(b, key, False)
        if _spell(key).level:
            assert sum(caster.resources["slots"]) == slots - 1, f"{key}: no slot spent"
        if key == "enthrall":
            if any(perception_penalty(b, o, ally) == 5 for o in b.enemies_of(caster)):
                return
            seen.append("no foe enthralled")
            continue
        if seen() > before:
            if key == "dancing-lights":   # a later turn's bonus action moves the lights
                _probe_move(b)
            return
        seen.append("nothing newly seen")
    raise AssertionError(f"{key}: nothing observable in {len(SEEDS)} seeds ({sorted(set(seen))})")


def _probe_move(b) -> None:
    caster = b.creatures["caster"]
    b.order = ["caster"] + [o for o in b.order if o != "caster"]   # the caster's next turn, now
    b.turn_index, b.outcome = -1, None
    b.round -= 1
    b.next_turn()
    i = next((i for i, o in enumerate(b.decision.options) if o.kind == "lights"), None)
    assert i is not None, "dancing-lights: no bonus action to move the lights"
    b.choose(i)
    d = b.decision
    while d.kind == "group":
        b.choose(len(d.options) - 1)
        d = b.decision
    s = _my_lights(b, caster)
    was = list(s["at"])
    b.choose(0)
    assert s["at"] != was and not caster.economy.bonus, "dancing-lights: the lights did not move"


def probe_monster_spell(monster: str, spell: str) -> None:
    """A monster's light spell (dnd/verification/coverage.py): offered and cast in a dark duel."""
    b, m = duel(monster, "m")
    m.conditions.pop("invisible", None)
    if needs_dark(spell):
        darken(b)
    b.open_menu(m)
    choose(b, lambda o: o.kind == "spell" and o.data[0] == spell, f"{monster}: {spell}")   # a long menu: its groups
    play_out(b, "m")
    assert any(e.get("event") == "cast" and e.get("spell") == spell and e.get("creature") == "m" for e in b.log), \
        f"{monster}: spell {spell} was not cast"
