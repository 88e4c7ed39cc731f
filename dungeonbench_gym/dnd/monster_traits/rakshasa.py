"""**Limited Magic Immunity** (rakshasa): foes' spells of 6th level or lower (the slot level where
the engine knows it, else the spell's own) cannot target it or catch it in their areas (lasting
zones included; Spiritual Weapon's attacks too); advantage on saves against other magic."""

from __future__ import annotations

from .. import content
from ..rules import hooks
from .common import _ms


def compile_traits(spec, c, ms, traits) -> None:
    if "limited-magic-immunity" in traits:   # spells of 6th level or lower; advantage against other magic
        ms["magic_immunity"] = 6
        c.features += ("magic_resistance",) if "magic_resistance" not in c.features else ()


TRAIT_RUN = {
    "limited-magic-immunity": lambda c: "magic_immunity" in _ms(c) and "magic_resistance" in c.features,
}


def spell_screen(b, c, key: str, pool: list, level: int | None = None) -> list:
    """The creatures of pool a spell from c can affect: a foe with Limited Magic Immunity is left
    out of spells of 6th level or lower (the slot level when known, else the spell's own level);
    it lets its friends' spells in."""
    if not any("magic_immunity" in _ms(o) for o in pool):
        return pool
    lv = level if level is not None else content.spell(key).level
    return [o for o in pool if not ("magic_immunity" in _ms(o) and o.side != c.side
                                    and lv <= _ms(o)["magic_immunity"])]


@hooks.SPELL_SCREENS.step(20)
def _screen_spell(b, c, key: str, pool: list, level: int | None) -> list:
    return spell_screen(b, c, key, pool, level) if b.specials else pool
