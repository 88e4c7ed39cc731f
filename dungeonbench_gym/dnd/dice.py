"""Dice for the D&D engine: SRD dice expressions, seeded rolls recorded in an event log, and
exact probabilities (used by the tests and by planners that want expectations, not samples).

Expressions are written as the SRD writes them: "2d6+3", "1d8", "3d4 - 1", "10", "2d10+1d6".
Every roll goes through a :class:`Roller`, which draws from the env's ``numpy.random.Generator``
and appends one plain dict per roll to its log, so an episode replays from its seed and choices.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import numpy as np

__all__ = [
    "D20Roll",
    "DiceError",
    "DiceExpr",
    "Roller",
    "d20_single_probability",
    "distribution",
    "p_at_least",
    "p_d20_success",
    "parse",
]


class DiceError(ValueError):
    """A dice expression that cannot be parsed."""


_TERM = re.compile(r"\s*([+-])?\s*(?:(\d*)\s*[dD]\s*(\d+)|(\d+))\s*")


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """A parsed dice expression: a sum of dice groups plus a constant."""

    text: str
    dice: tuple[tuple[int, int], ...]  # (count, sides), one per group as written
    bonus: int

    @property
    def min(self) -> int:
        return sum(c for c, _ in self.dice) + self.bonus

    @property
    def max(self) -> int:
        return sum(c * s for c, s in self.dice) + self.bonus

    @property
    def average(self) -> float:
        return sum(c * (s + 1) / 2 for c, s in self.dice) + self.bonus

    @property
    def n_dice(self) -> int:
        return sum(c for c, _ in self.dice)

    def doubled(self) -> DiceExpr:
        """The critical-hit form: twice the dice, the same constant."""
        return DiceExpr(_format(tuple((2 * c, s) for c, s in self.dice), self.bonus),
                        tuple((2 * c, s) for c, s in self.dice), self.bonus)

    def __str__(self) -> str:
        return self.text


def _format(dice: tuple[tuple[int, int], ...], bonus: int) -> str:
    text = "+".join(f"{c}d{s}" for c, s in dice)
    if not text:
        return str(bonus)
    return f"{text}{bonus:+d}" if bonus else text


@functools.lru_cache(maxsize=4096)
def parse(expr: str | int) -> DiceExpr:
    """Parse a dice expression once; later calls with the same text hit the cache."""
    if isinstance(expr, bool) or not isinstance(expr, (str, int)):
        raise DiceError(f"dice expression must be a string or int, got {type(expr).__name__}")
    if isinstance(expr, int):
        return DiceExpr(str(expr), (), expr)
    text = expr.strip()
    if not text:
        raise DiceError("empty dice expression; expected e.g. '2d6+3', '1d8' or '10'")
    pos, dice, bonus, first = 0, [], 0, True
    while pos < len(text):
        m = _TERM.match(text, pos)
        if not m or m.end() == pos or (not first and m.group(1) is None):
            raise DiceError(f"bad dice expression {expr!r} near {text[pos:]!r}: expected terms like "
                            "'NdM' or an integer joined by '+' or '-' (e.g. '2d6+3')")
        sign, count, sides, const = m.groups()
        if sides is not None:
            n, s = int(count) if count else 1, int(sides)
            if sign == "-":
                raise DiceError(f"bad dice expression {expr!r}: subtracting dice is not supported")
            if n < 1 or s < 1:
                raise DiceError(f"bad dice expression {expr!r}: dice need count >= 1 and sides >= 1")
            dice.append((n, s))
        else:
            bonus += -int(const) if sign == "-" else int(const)
        pos, first = m.end(), False
    dice_t = tuple(dice)
    return DiceExpr(_format(dice_t, bonus), dice_t, bonus)


class D20Roll(NamedTuple):
    total: int
    natural: int          # the kept die
    rolls: tuple[int, ...]  # one die, or two under advantage/disadvantage
    kept: int             # index into rolls of the kept die
    advantage: str        # "advantage", "disadvantage" or "none"

    @property
    def nat20(self) -> bool:
        return self.natural == 20

    @property
    def nat1(self) -> bool:
        return self.natural == 1


def _adv_state(advantage: bool, disadvantage: bool) -> str:
    # SRD: any number of sources of each cancel to a straight roll.
    if advantage and not disadvantage:
        return "advantage"
    if disadvantage and not advantage:
        return "disadvantage"
    return "none"


class Roller:
    """Draws dice from a generator and records each roll as a plain dict in ``log``.

    ``rng`` is the env's ``numpy.random.Generator`` (or a seed). With ``record=False`` nothing is
    logged (for look-ahead simulations that must not pollute the episode log).
    """

    __slots__ = ("_int", "log", "mods", "record", "rng")

    def __init__(self, rng: np.random.Generator | int | None = None,
                 log: list | None = None, record: bool = True):
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self.log = [] if log is None else log
        self.record = record
        self._int = self.rng.integers
        self.mods: dict = {}   # a casting's changes to its next roll, by "what" prefix (dnd/classes/dispatch.py before_spell)

    def _dice(self, count: int, sides: int) -> list[int]:
        # Scalar draws are ~5x cheaper than a size= call for the few dice a roll usually has.
        if count <= 4:
            draw = self._int
            return [int(draw(1, sides + 1)) for _ in range(count)]
        return self._int(1, sides + 1, size=count).tolist()

    def die(self, sides: int, what: str = "die") -> int:
        value = int(self._int(1, sides + 1))
        if self.record:
            self.log.append({"what": what, "expr": f"1d{sides}", "rolls": [value], "total": value})
        return value

    def roll(self, expr: str | int | DiceExpr, what: str = "roll", critical: bool = False) -> int:
        """Roll an expression; with ``critical`` the dice (not the constant) are doubled."""
        if self.mods:   # Overchannel, Empowered Evocation, Supreme Healing, ... (dnd/classes/)
            for prefix in self.mods:
                if what.startswith(prefix):
                    change = self.mods[prefix] if self.mods[prefix].get("max") else self.mods.pop(prefix)
                    return self.changed_roll(expr, critical, what, change)
        e = expr if isinstance(expr, DiceExpr) else parse(expr)
        rolls: list[int] = []
        for count, sides in e.dice:
            rolls.extend(self._dice(2 * count if critical else count, sides))
        total = sum(rolls) + e.bonus
        if self.record:
            event = {"what": what, "expr": e.text, "rolls": rolls, "bonus": e.bonus, "total": total}
            if critical:
                event["critical"] = True
            self.log.append(event)
        return total

    def changed_roll(self, expr: str | int | DiceExpr, critical: bool, what: str, change: dict) -> int:
        """A damage (or healing) roll with a casting's changes (``mods``, set by the features that
        make them): every die at its maximum (Overchannel, Supreme Healing), up to n dice below
        their half rerolled once (Empowered Spell), a flat bonus (Empowered Evocation, Elemental
        Affinity; only on the ancestry's type, the third word of ``what``)."""
        e = expr if isinstance(expr, DiceExpr) else parse(expr)
        rolls: list[int] = []
        reroll = change.get("reroll", 0)
        for count, sides in e.dice:
            n = 2 * count if critical else count
            got = [sides] * n if change.get("max") else self._dice(n, sides)
            for i in sorted(range(len(got)), key=lambda j: got[j]):
                if reroll and got[i] <= sides // 2:
                    got[i] = self._dice(1, sides)[0]
                    reroll -= 1
            rolls += got
        words = what.split(" ")
        add = change.get("add", 0) if change.get("type") in (None, words[2] if len(words) > 2 else None) else 0
        change["add"] = 0   # one damage roll only (a kept Overchannel entry maximises the later darts or rays)
        total = sum(rolls) + e.bonus + add
        if self.record:
            self.log.append({"what": what + " (" + ", ".join(sorted(change)) + ")", "expr": e.text,
                             "rolls": rolls, "bonus": e.bonus + add, "total": total})
        return total

    def roll_damage(self, expr: str | int | DiceExpr, critical: bool = False,
                    what: str = "damage") -> int:
        # Damage never drops below 0 from a negative modifier.
        return max(0, self.roll(expr, what=what, critical=critical))

    def roll_d20(self, advantage: bool = False, disadvantage: bool = False, bonus: int = 0,
                 what: str = "d20") -> D20Roll:
        state = _adv_state(advantage, disadvantage)
        draw = self._int
        a = int(draw(1, 21))
        if state == "none":
            rolls, kept = (a,), 0
        else:
            b = int(draw(1, 21))
            rolls = (a, b)
            kept = (0 if a >= b else 1) if state == "advantage" else (0 if a <= b else 1)
        natural = rolls[kept]
        result = D20Roll(natural + bonus, natural, rolls, kept, state)
        if self.record:
            self.log.append({"what": what, "expr": f"1d20{bonus:+d}" if bonus else "1d20",
                             "rolls": list(rolls), "kept": kept, "natural": natural,
                             "bonus": bonus, "total": result.total, "advantage": state})
        return result


# ---------------------------------------------------------------- exact probabilities

@functools.lru_cache(maxsize=1024)
def _counts(expr: DiceExpr) -> tuple[int, tuple[int, ...]]:
    """Ways to reach each sum (offset by the minimum), by convolution of uniform dice."""
    counts = [1]  # Python ints: exact for any number of dice
    for count, sides in expr.dice:
        for _ in range(count):
            nxt = [0] * (len(counts) + sides - 1)
            for i, c in enumerate(counts):
                for j in range(i, i + sides):
                    nxt[j] += c
            counts = nxt
    return expr.min, tuple(counts)


def distribution(expr: str | int | DiceExpr) -> dict[int, Fraction]:
    """Exact distribution of a dice expression: value -> probability."""
    e = expr if isinstance(expr, DiceExpr) else parse(expr)
    lo, counts = _counts(e)
    total = sum(counts)
    return {lo + i: Fraction(c, total) for i, c in enumerate(counts)}


def p_at_least(expr: str | int | DiceExpr, target: int) -> Fraction:
    """P(roll of ``expr`` >= target), exactly."""
    return sum((p for v, p in distribution(expr).items() if v >= target), Fraction(0))


def d20_single_probability(target: int, bonus: int = 0, attack_roll: bool = False,
                           crit_min: int = 20) -> Fraction:
    """P(1d20 + bonus >= target) for one die. For attack rolls a natural 1 always misses and a
    natural ``crit_min``..20 always hits (a critical hit is a hit)."""
    wins = 0
    for natural in range(1, 21):
        if attack_roll and natural == 1:
            continue
        if (attack_roll and natural >= crit_min) or natural + bonus >= target:
            wins += 1
    return Fraction(wins, 20)


def p_d20_success(target: int, bonus: int = 0, advantage: bool = False,
                  disadvantage: bool = False, attack_roll: bool = False,
                  crit_min: int = 20) -> Fraction:
    """P(d20 test + bonus >= target), exactly, with advantage/disadvantage (which cancel)."""
    p = d20_single_probability(target, bonus, attack_roll, crit_min)
    state = _adv_state(advantage, disadvantage)
    if state == "advantage":
        return 1 - (1 - p) ** 2
    if state == "disadvantage":
        return p * p
    return p
