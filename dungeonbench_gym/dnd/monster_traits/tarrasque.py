"""**Reflective Carapace** (tarrasque): a spell's ranged attack roll, a Magic Missile dart or an
instant line spell (Lightning Bolt, Sunbeam...) aimed at or catching it rolls a d6: 1-5 it is
unaffected, 6 the caster becomes the target (the caster's own numbers; a line catches only the
caster). Lasting walls are not reflected."""

from __future__ import annotations

from .. import content
from .common import _ms


def compile_traits(spec, c, ms, traits) -> None:
    if "reflective-carapace" in traits:
        ms["carapace"] = True


TRAIT_RUN = {"reflective-carapace": lambda c: "carapace" in _ms(c)}


def _is_spell(key: str) -> bool:
    return key in content.spells()


def _carapace_roll(b, c, key: str, t) -> bool:
    """The d6: True on a 6 (the effect turns back at the caster); it is unaffected either way."""
    roll = b.roller.roll("1d6", what=f"reflective carapace {t.cid}")
    back = roll == 6
    b.event("carapace", f"{t.cid}'s carapace {'reflects' if back else 'turns aside'} {c.cid}'s {key} ({roll})",
            creature=t.cid, source=c.cid, spell=key, reflected=back)
    return back


def carapace_attack(b, c, a, t, then: str):
    """A spell's ranged attack roll against it: (handled, the attack's result)."""
    if "carapace" not in _ms(t) or not _is_spell(a.key) or c is t:
        return False, None
    if not _carapace_roll(b, c, a.key, t):
        return True, False
    return True, b.make_attack(c, a, c, melee=False, then=then)   # the caster is the target now


def carapace_target(b, c, key: str, t):
    """Magic Missile's dart at it: None (unaffected) or the caster (reflected)."""
    if "carapace" not in _ms(t) or c is t:
        return t
    return c if _carapace_roll(b, c, key, t) else None


def carapace_hits(b, c, key: str, hits: list) -> list:
    """A line spell's creatures: the tarrasque is unaffected; on a 6 the caster is caught instead."""
    if not any("carapace" in _ms(o) for o in hits) or not _is_spell(key):
        return hits
    area = content.spell(key).area
    if area is None or area.shape != "line":
        return hits
    out = [o for o in hits if "carapace" not in _ms(o)]
    for o in hits:
        if "carapace" in _ms(o) and _carapace_roll(b, c, key, o) and c not in out and not c.dead:
            out.append(c)
    return out
