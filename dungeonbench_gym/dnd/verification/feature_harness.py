"""The class-feature probes' harness: PCs and monsters on open ground, with scripted dice.

:func:`battle` sets creatures on a 14x10 open field (the first one to act given), and
:func:`script_dice` makes the battle's dice hand out given values in order; :func:`pick` and
:func:`attack` choose options by kind and label text, as a player would.
"""

from __future__ import annotations

from ..builders.monsters import monster_combatant
from ..builders.pcs import build_pc
from ..engine import Battle
from ..grid import BattleMap
from ..state import ability_mod

LAYOUT = ["#" * 16] + ["#" + "." * 14 + "#"] * 10 + ["#" * 16]


class FixedDice:
    """Dice that hand out the given values in order, then ``rest`` (clipped to the die)."""

    def __init__(self, values, rest):
        self.values, self.rest = list(values), rest

    def __call__(self, lo, hi, size=None):
        if size is not None:
            return _DiceArray([self(lo, hi) for _ in range(size)])
        v = self.values.pop(0) if self.values else self.rest
        return min(max(v, lo), hi - 1)


class _DiceArray(list):
    def tolist(self):
        return list(self)


def battle(*cs, first: str | None = None) -> Battle:
    b = Battle(BattleMap.from_dict({"layout": LAYOUT}), list(cs), seed=0, max_options=10 ** 6)
    if first is not None:
        b.order = [first] + [o for o in b.order if o != first]
        b.round, b.turn_index, b.outcome = 0, -1, None
        b.next_turn()
    return b


def script_dice(b: Battle, *values, rest: int = 10) -> None:
    b.roller._int = FixedDice(values, rest)


def pc(arch: str, level: int, cid: str = "p", at=(2, 2), side: str = "party"):
    return build_pc(arch, level, cid, (*at, 0), side=side)


def mon(key: str, at, cid: str = "m"):
    return monster_combatant(key, cid, "enemies", (*at, 0))


def pick(b: Battle, kind: str, text: str = "") -> None:
    for i, o in enumerate(b.decision.options):
        if o.kind == kind and text in o.label:
            b.choose(i)
            return
    raise AssertionError(f"no {kind!r} option {text!r}: {[o.label for o in b.decision.options]}")


def has(b: Battle, kind: str, text: str = "") -> bool:
    return any(o.kind == kind and text in o.label for o in b.decision.options)


def mod(c, ab):
    return ability_mod(c.abilities[ab])


def attack(b: Battle, text: str, *dice, rest: int = 10) -> None:
    script_dice(b, *dice, rest=rest)
    pick(b, "attack", text)
    pick(b, "target")


def again(b: Battle, cid: str) -> None:
    """Give cid a fresh turn (the probe's next round)."""
    b.order = [cid] + [o for o in b.order if o != cid]
    b.round, b.turn_index, b.outcome = 0, -1, None
    b.next_turn()
