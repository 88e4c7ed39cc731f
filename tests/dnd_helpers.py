"""Shared helpers of the D&D rules tests: small arenas, scripted dice, and moving the turn.

Dice are scripted: every d20 and damage die the engine draws comes, in order, from the
values given to ``script`` (a value outside the die's range fails the test at once).
"""

import numpy as np

from dungeonbench_gym.dnd.builders.monsters import monster_combatant
from dungeonbench_gym.dnd.builders.pcs import build_pc
from dungeonbench_gym.dnd.engine import Battle
from dungeonbench_gym.dnd.grid import BattleMap

OPEN = ["##########", "#........#", "#........#", "#........#", "#........#", "#........#",
        "#........#", "##########"]
WIDE = ["#" * 16] + ["#" + "." * 14 + "#"] * 10 + ["#" * 16]


class Script:
    """A stand-in for Generator.integers that hands out the given values in order."""

    def __init__(self, values):
        self.values = list(values)

    def __call__(self, lo, hi, size=None):
        if size is not None:
            return np.array([self(lo, hi) for _ in range(size)])
        v = self.values.pop(0)
        assert lo <= v < hi, f"scripted {v} outside [{lo}, {hi})"
        return v


def script(b: Battle, *values):
    b.roller._int = Script(values)


def arena(*fighters, layout=OPEN, first=None, **kw):
    b = Battle(BattleMap.from_dict({"layout": layout}), list(fighters), seed=0, **kw)
    if first is not None:
        turn(b, first)
    return b


def turn(b: Battle, cid: str):
    """Make it cid's turn now (a fresh round order with cid first)."""
    b.order = [cid] + [o for o in b.order if o != cid]
    b.round, b.turn_index, b.outcome = 0, -1, None
    b.next_turn()


def pick(b: Battle, kind: str | None = None, text: str = "") -> None:
    """Choose the first option of that kind whose label contains text."""
    for i, o in enumerate(b.decision.options):
        if (kind is None or o.kind == kind) and text in o.label:
            b.choose(i)
            return
    raise AssertionError(f"no option {kind!r} {text!r} in {[o.label for o in b.decision.options]}")


def labels(b: Battle, kind: str | None = None) -> list[str]:
    return [o.label for o in b.decision.options if kind is None or o.kind == kind]


def kinds(b: Battle) -> list[str]:
    return [o.kind for o in b.decision.options]


def events(b: Battle, kind: str) -> list[dict]:
    return [e for e in b.log if e.get("event") == kind]


def pc(arch, level, at, cid=None):
    return build_pc(arch, level, cid or arch, (*at, 0))


def fighter(level=1, at=(2, 2), cid="fighter", arch="fighter"):
    return build_pc(arch, level, cid, (*at, 0))


def rogue(level=1, at=(2, 2), cid="rogue"):
    return build_pc("rogue", level, cid, (*at, 0))


def mon(key, at, cid=None):
    return monster_combatant(key, cid or key, "enemies", (*at, 0))


# ---------------------------------------------------------------- one spell under test
def spell_setup(key, *foes, at=(3, 5), level=5, allies=()):
    """A battle on the WIDE map: dnd/spell_probe's wizard holding the one spell `key` (four slots of
    every level), its allies and foes; the caster acts first."""
    from dungeonbench_gym.dnd.verification.arena import caster
    c = caster(key, level, "caster", at)
    return arena(c, *allies, *foes, layout=WIDE, first="caster"), c


def cast(b: Battle, key: str, level: int | None = None) -> None:
    """Choose the spell `key` (at that slot level, else the first offered)."""
    for i, o in enumerate(b.decision.options):
        if o.kind == "spell" and o.data[0] == key and (level is None or o.data[1] == level):
            b.choose(i)
            return
    raise AssertionError(f"{key} at {level} not offered: {labels(b)}")


def target(b: Battle, cid: str) -> None:
    """Choose the creature `cid` in a target decision."""
    for i, o in enumerate(b.decision.options):
        if o.kind == "target" and o.data == (cid,):
            b.choose(i)
            return
    raise AssertionError(f"{cid} is not a target: {labels(b)}")
