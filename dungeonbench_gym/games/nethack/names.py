"""What each NetHack glyph is called, computed once from NLE's game tables.

The text observation names the things in view from their glyphs, not from
NLE's `screen_descriptions`: asking NLE for those descriptions makes NetHack
look at each cell the way the `;` command does, which can draw random numbers
and so change the game. Text mode must play the very game tensor mode plays.

Objects are named by their appearance ("pink potion", "scroll labeled NR 9"),
as an unidentified item looks, never by what it really is.
"""

from __future__ import annotations

from functools import lru_cache

from nle import nethack as nh

_APPEARANCE = {  # object class -> how its appearance reads
    nh.POTION_CLASS: "{} potion", nh.SCROLL_CLASS: "scroll labeled {}", nh.WAND_CLASS: "{} wand",
    nh.RING_CLASS: "{} ring", nh.AMULET_CLASS: "{} amulet", nh.SPBOOK_CLASS: "{} spellbook",
    nh.GEM_CLASS: "{} gem",
}
# map symbols that are scenery, not worth a line of text (the map shows them)
BACKGROUND_CMAP = frozenset([0, *range(1, 12), 19, 20, 21, 22])


def _object_name(index: int) -> str:
    descr = nh.objdescr.from_idx(index)
    klass = ord(nh.objclass(index).oc_class)   # NLE gives the class as a character
    if descr.oc_descr:
        return _APPEARANCE.get(klass, "{}").format(descr.oc_descr)
    return descr.oc_name or "strange object"


def _monster_name(glyph: int) -> str:
    return nh.permonst(nh.glyph_to_mon(glyph)).mname


@lru_cache(maxsize=None)
def glyph_name(glyph: int) -> str | None:
    """The name of a glyph, or None for scenery (walls, floor, corridors, dark)."""
    if nh.glyph_is_cmap(glyph):
        index = nh.glyph_to_cmap(glyph)
        return None if index in BACKGROUND_CMAP else nh.symdef.from_idx(index).explanation
    if nh.glyph_is_pet(glyph):
        return f"tame {_monster_name(glyph)}"
    if nh.glyph_is_monster(glyph):   # normal, detected or ridden
        return _monster_name(glyph)
    if nh.glyph_is_body(glyph):
        return f"{nh.permonst(glyph - nh.GLYPH_BODY_OFF).mname} corpse"
    if nh.glyph_is_statue(glyph):
        return f"statue of a {nh.permonst(glyph - nh.GLYPH_STATUE_OFF).mname}"
    if nh.glyph_is_object(glyph):
        return _object_name(nh.glyph_to_obj(glyph))
    if nh.glyph_is_invisible(glyph):
        return "remembered, unseen creature"
    if nh.glyph_is_warning(glyph):
        return f"warning of a monster (level {nh.glyph_to_warning(glyph)})"
    if nh.glyph_is_swallow(glyph):
        return "inside of a monster"
    return None   # zaps, explosions: gone by the next turn
