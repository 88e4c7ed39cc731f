"""Probes of :mod:`..spell_walls`: each makes one of its rules happen through the engine's
decision options in a small battle, and raises AssertionError when it cannot."""

from __future__ import annotations

from .arena import battle


def probe(key: str) -> None:
    """Cast the wall through the engine's real options (spell, point_x, point_y, direction) in the
    probe arena and check that the map changed and blocks as it should; AssertionError otherwise."""
    b = battle(key)
    c = b.creatures["caster"]
    if key == "stone-shape":   # touch: open the north wall beside the caster, then seal a square
        c.pos = (4, 1, 0)
        b.open_menu(c)
        _cast(b, key, (4, 1), (0, -1, 0))
        assert not b.map.is_wall(4, 0), "stone-shape: the wall beside the caster is still solid"
        assert b.map.fits(4, 0, 1), "stone-shape: the opened square cannot be entered"
        c.economy.actions += 1
        b.open_menu(c)
        _cast(b, key, (4, 1), (1, 0, 0))
        assert b.map.is_wall(5, 1), "stone-shape: no stone raised on the empty square"
        return
    if key == "passwall":   # the arena's north wall: stand beside it and open it northward
        c.pos = (4, 1, 0)
        b.open_menu(c)
        point, d = (4, 1), (0, -1, 0)
    else:   # a wall north-south through the adjacent orc's square, toward the south
        point, d = (7, 2), (0, 1, 0)
    _cast(b, key, point, d)
    if key == "passwall":
        assert not b.map.is_wall(4, 0), "passwall: the wall is still solid"
        return
    assert b.map.is_wall(7, 6) and b.map.is_wall(7, 9), f"{key}: no wall on the map"
    assert not b.map.line_of_effect(c.cells, b.creatures["orc_1"].cells), f"{key}: the wall does not block"


def _cast(b, key: str, point, d) -> None:
    def pick(kind, want):
        opts = b.decision.options
        i = next((i for i, o in enumerate(opts) if o.kind == kind and o.data[0] == want), None)
        assert i is not None, f"{key}: {kind} {want} not offered: {[o.label for o in opts][:12]}"
        b.choose(i)
    pick("spell", key)
    pick("point_x", point[0])
    pick("point_y", point[1])
    pick("direction", d)
