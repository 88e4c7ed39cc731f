"""A **guardian naga**'s Spit Poison: a ranged attack whose hit calls for a Con save (10d8 poison,
half on a success); the engine's attacks run it once it is compiled."""

from __future__ import annotations

from ..state import AttackProfile, DamagePart


def compile_traits(spec, c, ms, traits) -> None:
    if spec.key == "guardian-naga":
        a = spec.action("spit-poison")
        s = a.on_hit_saves[0]
        c.attacks = c.attacks + (AttackProfile(
            a.key, a.name, a.bonus, (), False, 0, a.range_normal, a.range_long,
            on_hit=(("save", s.ability, s.dc, (), tuple(DamagePart(d.dice, d.type) for d in s.damage),
                     s.half_on_success, None),)),)
