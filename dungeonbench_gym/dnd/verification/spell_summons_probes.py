"""Probes of :mod:`..spell_summons`: each makes one of its rules happen through the engine's
decision options in a small battle, and raises AssertionError when it cannot."""

from __future__ import annotations

from ..spell_buffs import choose_day
from .spell_buffs_probes import day_probe_run


def probe(key: str) -> None:
    """Cast between fights through the Day track's intermission options, then the fight starts:
    the creatures stand with the caster's side."""
    run = day_probe_run(key)
    caster = next(c for c in run.party.values() if key in c.spells)
    slots = sum(caster.resources["slots"])
    ok = choose_day(run, lambda o: o.kind == "prepare_summon" and o.data[1] == key)
    assert ok, f"{key}: not offered between fights"
    assert sum(caster.resources["slots"]) == slots - 1, f"{key}: no slot spent"
    assert choose_day(run, lambda o: o.kind == "continue"), f"{key}: could not go on"
    b = run.battle
    mine = [o for o in b.creatures.values() if o.resources.get("prepared") == key]
    assert mine and all(o.side == caster.side and not o.dead for o in mine), f"{key}: no creature in the fight"
    assert all(o.cid in b.order for o in mine), f"{key}: the creatures take no turns"
