"""**Swimming**: a creature with a swimming speed whose space is in water moves at its swimming
speed (the larger of it and its other speeds) and pays no extra movement in water; a creature
without one pays 5 ft more per water square (:mod:`..grid`). Simplification: the speed is decided
at the start of the turn by where the creature stands."""

from __future__ import annotations


def compile_traits(spec, c, ms, traits) -> None:
    if spec.speed.swim:
        c.resources["swim"] = spec.speed.swim


def swim_speed(b, c) -> int:
    """A swimmer's speed when its space is in water (0 elsewhere)."""
    sw = c.resources.get("swim") or 0
    if sw is True:   # a PC's swimming (equal to its walking speed)
        sw = c.speed
    return sw if any(b.map.is_water(x, y) for x, y in c.cells) else 0
