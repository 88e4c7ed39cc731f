"""Statistics shared by the side-by-side benchmarks (`balrog_parity_*.py`).

Each compares one agent's success on upstream and on ours: a rate with its
binomial standard error per side, agreement within two standard errors of the
difference, and total-variation distances between two samples of layout
features (0 = the same distribution in both samples).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable


def rate(successes: Iterable[bool]) -> tuple[float, float]:
    """Success rate and its standard error sqrt(p (1 - p) / n)."""
    values = list(successes)
    p = sum(values) / len(values)
    return p, math.sqrt(p * (1 - p) / len(values))


def agree(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether two (rate, SE) pairs differ by at most two SE of the difference
    (exactly equal when both SE are 0, e.g. both rates 0)."""
    se = math.sqrt(a[1] ** 2 + b[1] ** 2)
    return abs(a[0] - b[0]) <= 2 * se if se > 0 else a[0] == b[0]


def total_variation(a: Iterable, b: Iterable) -> float:
    """Total-variation distance between the empirical distributions of two samples."""
    ca, cb = Counter(a), Counter(b)
    na, nb = sum(ca.values()), sum(cb.values())
    return 0.5 * sum(abs(ca[k] / na - cb[k] / nb) for k in set(ca) | set(cb))
