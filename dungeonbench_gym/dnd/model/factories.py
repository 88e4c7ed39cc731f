"""Builders the mechanics call without importing them.

A spell that conjures beasts, Wild Shape, a familiar, a Day-track look at the next fight's foes:
each needs a monster compiled from its stat block, which is the builders' work
(:mod:`..builders.monsters`, a layer above the mechanics). The builder registers itself here
when it is imported (the engine, the scenario and the Day track import it), and the mechanics
call :func:`build_monster`.
"""

from __future__ import annotations

_monster_builder = None


def register_monster_builder(build) -> None:
    """Set the function :func:`build_monster` calls (``builders.monsters.monster_combatant``)."""
    global _monster_builder
    _monster_builder = build


def build_monster(key: str, cid: str, side: str, pos: tuple, name: str | None = None):
    """The combatant of the SRD monster ``key`` (see ``builders.monsters.monster_combatant``)."""
    if _monster_builder is None:
        raise RuntimeError("no monster builder registered: import dungeonbench_gym.dnd.builders.monsters "
                           "(the engine does) before building monsters")
    return _monster_builder(key, cid, side, pos, name)
