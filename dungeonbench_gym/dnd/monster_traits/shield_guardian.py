"""**Bound** and **Shield** (shield guardian): the amulet's wearer is the scenario's
``amulet_wearer`` (a combatant's resources), else the first ally of the guardian by id; within
60 ft, half of the wearer's damage (rounded up) goes to the guardian; Shield (always taken) adds 2
to the wearer's AC against an attack while the guardian is within 5 ft (its reaction)."""

from __future__ import annotations

from ..grid import SQUARE_FT
from .common import _ms


def compile_traits(spec, c, ms, traits) -> None:
    if spec.key == "shield-guardian":
        ms["guardian"] = True


TRAIT_RUN = {"bound": lambda c: "guardian" in _ms(c)}
REACTION_RUN = {"shield": lambda c: "guardian" in _ms(c)}


def setup(b, c, ms) -> None:
    """Battle start: the guardian's amulet wearer."""
    if "guardian" in ms:
        want = c.resources.get("amulet_wearer")
        wearer = b.creatures.get(want) if want else next(
            (o for o in sorted(b.allies_of(c), key=lambda o: o.cid) if "guardian" not in _ms(o)), None)
        if wearer is not None and wearer is not c:
            wearer.resources["amulet_of"] = c.cid
            ms["wearer"] = wearer.cid


def bound_share(b, t, amount: int, dtype: str, source) -> int:
    """Bound: half of the wearer's damage (rounded up) goes to its guardian within 60 ft."""
    g = b.creatures.get(t.resources["amulet_of"])
    if g is None or g.dead or b.distance(g, t) > 60:
        return amount
    share = amount - amount // 2
    b.event("bound", f"{g.cid} takes {share} of the damage to {t.cid} (Bound)", creature=g.cid, target=t.cid)
    b.damage(g, share, dtype, magical=True, source=source)
    return amount - share


def guardian_shield(b, c, t) -> int:
    """Shield: +2 AC for the wearer against this attack while the guardian is within 5 ft."""
    g = b.creatures.get(t.resources["amulet_of"])
    if g is None or g.dead or g.incapacitated or not g.economy.reaction or b.distance(g, t) > SQUARE_FT \
            or g is c:
        return 0
    g.economy.reaction = False
    b.event("guardian_shield", f"{g.cid} shields {t.cid} (+2 AC)", creature=g.cid, target=t.cid)
    return 2
