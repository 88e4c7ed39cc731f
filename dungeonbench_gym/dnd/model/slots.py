"""Spell slots as a combatant holds them: a tuple of slots left per level (1st first)."""

from __future__ import annotations


def spend_slot(c, level: int) -> None:
    """Spend one slot of ``level``; ValueError when none is left (an option never offers that)."""
    slots = list(c.resources["slots"])
    if slots[level - 1] <= 0:
        raise ValueError(f"{c.cid} has no level-{level} slot left")
    slots[level - 1] -= 1
    c.resources["slots"] = tuple(slots)
