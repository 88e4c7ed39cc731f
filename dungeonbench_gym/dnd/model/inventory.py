"""A PC's carried items: how many of each (potions, scrolls, ammunition aside) and the charges
of charged items, kept in ``resources`` as sorted tuples so that a combatant stays hashable and
pickles the same way. Used by the item rules (dnd/items.py) and by the Day track's spells that
hand an item out (dnd/spell_utility.py), so it sits below both.
"""

from __future__ import annotations

from ..state import Combatant


def add(pc: Combatant, key: str, n: int) -> None:
    inv = dict(pc.resources.get("items", ()))
    inv[key] = inv.get(key, 0) + n
    pc.resources["items"] = tuple(sorted((k, v) for k, v in inv.items() if v > 0))


def count(pc: Combatant, key: str) -> int:
    return dict(pc.resources.get("items", ())).get(key, 0)


def spend(c: Combatant, key: str, charges: int = 0) -> None:
    """Use up one of the item, or ``charges`` of its charges."""
    if charges:
        ch = dict(c.resources.get("charges", {}))
        ch[key] -= charges
        c.resources["charges"] = ch
        return
    add(c, key, -1)
