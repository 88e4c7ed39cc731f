"""The planner's advice on removal, domination and the other control spells (:mod:`..spell_control`):
a rough value in HP for the baseline heuristic's spell choice (:mod:`..heuristic`)."""

from __future__ import annotations

from ..spell_control import kind, placement, targets


def worth(b, c, key: str, level: int) -> float:
    """A rough value in HP for the planner: the HP taken out of the fight by a removal or a
    domination, half the effect for a save, nothing for escapes and utility."""
    k = kind(key)
    ts = targets(b, c, key) if placement(key) == "target" else []
    if k in ("remove", "dominate") and ts:
        return 0.5 * max(t.hp for t in ts)
    if k in ("levitate", "eyebite") and ts:
        return 6.0
    return 0.0
