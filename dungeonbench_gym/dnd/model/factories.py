"""Builders the mechanics call without importing them.

A spell that conjures beasts, Wild Shape, a familiar, a Day-track look at the next fight's foes:
each needs a monster compiled from its stat block, which is the builders' work
(:mod:`..builders.monsters`, a layer above the mechanics); Simulacrum needs a PC built again
(:mod:`..builders.pcs`). Each builder registers itself here when it is imported (the engine, the
scenario and the Day track import both), and the mechanics call :func:`build_monster` and
:func:`build_pc`.
"""

from __future__ import annotations

_monster_builder = None
_pc_builder = None


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


def register_pc_builder(build) -> None:
    """Set the function :func:`build_pc` calls (``builders.pcs.build_pc``)."""
    global _pc_builder
    _pc_builder = build


def build_pc(archetype: str, level: int, cid: str, pos: tuple, name: str | None = None, **loadout):
    """A PC of an archetype at a level (see ``builders.pcs.build_pc``)."""
    if _pc_builder is None:
        raise RuntimeError("no PC builder registered: import dungeonbench_gym.dnd.builders.pcs "
                           "(the engine does) before building PCs")
    return _pc_builder(archetype, level, cid, pos, name, **loadout)
