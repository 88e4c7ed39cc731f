"""Vectorised twins of the baseline planner's hot questions (self-play speed).

The planner (:mod:`.heuristic`) scores squares one at a time: "how far is the nearest foe from
here, and how good is that". When it asks that of every square a creature can reach (which
destination to take, is any square better than this one), the same numbers come out of a few
numpy operations over all the squares at once. Every function here returns exactly what the
one-at-a-time code returns (``tests/test_dnd_speed_invariants.py`` checks them against each
other); below :data:`SMALL` positions the plain loop is cheaper and is used instead.

Score keys are tuples compared lexicographically (lower is better); here they are a list of
integer arrays, most significant first, one entry per position.
"""

from __future__ import annotations

import numpy as np

SQUARE_FT = 5
SMALL = 24   # fewer positions than this: the planner's own loop is faster than numpy's set-up


def positions_array(positions) -> np.ndarray | None:
    """(N, 3) int64 array of (x, y, z) positions; None when any is not a plain 3-number tuple."""
    try:
        P = np.array(positions)
    except (TypeError, ValueError):
        return None
    if P.ndim != 2 or P.shape[1] != 3 or P.dtype.kind != "i":
        return None
    return P.astype(np.int64, copy=False)


def nearest_ft(P: np.ndarray, n: int, boxes: list) -> np.ndarray:
    """For every position in P, of an n x n space: the distance in feet to the nearest of boxes
    (inclusive extents x0, y0, x1, y1 and layers l0, l1), as advice.common._nearest_ft."""
    x0 = P[:, 0]
    y0 = P[:, 1]
    l0 = P[:, 2] // SQUARE_FT
    x1, y1, l1 = x0 + (n - 1), y0 + (n - 1), l0 + (n - 1)
    best = None
    for bx0, by0, bx1, by1, bl0, bl1 in boxes:
        g = np.maximum(np.maximum(np.maximum(bx0 - x1, x0 - bx1), np.maximum(by0 - y1, y0 - by1)),
                       np.maximum(np.maximum(bl0 - l1, l0 - bl1), 0))
        best = g if best is None else np.minimum(best, g)
    return SQUARE_FT * best


def fight_keys(nearest, count: int, kind: str, boxes: list, reach: int) -> list:
    """Keys of advice.common._fight_scorer for ``count`` positions: kind "none" (no foes), "ranged" or
    "melee"; ``nearest(boxes)`` gives the positions' distances to the nearest box (:func:`nearest_ft`)."""
    if kind == "none":
        z = np.zeros(count, dtype=np.int64)
        return [z, z]
    d = nearest(boxes)
    if kind == "ranged":
        return [np.where((d >= 10) & (d <= 60), 0, np.abs(d - 30)), -d]
    return [np.maximum(0, d - reach), d]


def argmin_keys(keys: list) -> int:
    """Index of the lexicographically smallest key (the first one on a tie)."""
    return int(np.lexsort(tuple(reversed(keys)))[0])


def any_below(keys: list, here: tuple) -> bool:
    """Whether some position's key is lexicographically below ``here``."""
    lt = np.zeros(len(keys[0]), dtype=bool)
    eq = np.ones(len(keys[0]), dtype=bool)
    for k, h in zip(keys, here):
        lt |= eq & (k < h)
        eq &= k == h
    return bool(lt.any())
