"""Probes of :mod:`..spell_plants`: each makes one of its rules happen through the engine's
decision options in a small battle, and raises AssertionError when it cannot."""

from __future__ import annotations

from ..grid import OVERGROWN, SQUARE_FT, BattleMap
from ..spell_plants import STRIDE_FT, TRANSPORT_FT, _links_from, _tree_ft
from .arena import battle, choose

# ================================================================ the probe
_PROBE_MAP = ["#" * 18,
              "#................#",
              "#.............T..#",
              "#................#",
              "#........;;;;;...#",
              "#........;;;;;...#",
              "#..T.....;;;;;...#",
              "#........;;;;;...#",
              "#........;;;;;...#",
              "#................#",
              "#..............T.#",
              "#................#",
              "#................#",
              "#" * 18]


def probe(key: str) -> None:
    """Cast through the engine's real options in the spell probe's battle on a map with trees
    (at (3, 6), (14, 2), (15, 10)) and undergrowth (x 9-13, y 4-8), and check the effect:
    Tree Stride moves the caster beside a far tree for 10 ft of movement, once a round; a
    Transport via Plants link takes it beside the linked tree for 5 ft; Plant Growth makes the
    undergrowth cost 20 ft a square."""
    b = battle(key)
    b.replace_map(BattleMap.from_dict({"name": "grove", "layout": _PROBE_MAP}))
    b.open_menu(b.creatures["caster"])
    c = b.creatures["caster"]
    slots = sum(c.resources["slots"])
    _pick(b, lambda o: o.kind == "spell" and o.data[0] == key)
    if key == "tree-stride":
        assert c.concentration == key, "tree-stride: no concentration"
        _pick(b, lambda o: o.kind == "plants" and o.data == ("stride",))
        left = c.economy.movement
        _farthest(b, c)
        assert _tree_ft(c.pos, (15, 10)) <= SQUARE_FT or _tree_ft(c.pos, (14, 2)) <= SQUARE_FT, \
            f"tree-stride: {c.pos} is beside no far tree"
        assert c.economy.movement == left - STRIDE_FT, "tree-stride: not 10 ft of movement"
        assert not any(o.kind == "plants" for o in b.decision.options), "tree-stride: twice in a round"
    elif key == "transport-via-plants":
        _farthest(b, c)   # the tree at (15, 10)
        assert _links_from(b, c), "transport-via-plants: no link to step through"
        left = c.economy.movement
        _pick(b, lambda o: o.kind == "plants" and o.data[0] == "transport")
        _farthest(b, c)
        assert _tree_ft(c.pos, (15, 10)) <= SQUARE_FT and c.economy.movement == left - TRANSPORT_FT, \
            f"transport-via-plants: at {c.pos} with {c.economy.movement} ft left"
    else:
        _pick(b, lambda o: o.kind == "point_x" and o.data[0] == 11)
        _pick(b, lambda o: o.kind == "point_y" and o.data[0] == 6)
        assert b.map.flags_at(11, 6) & OVERGROWN, "plant-growth: the undergrowth did not grow"
        assert b.map.reachable((8, 6), 1, 30).cost((9, 6)) == 4 * SQUARE_FT, "plant-growth: not 20 ft a square"
    assert sum(c.resources["slots"]) == slots - 1, f"{key}: no slot spent"


def _pick(b, want) -> None:
    choose(b, want, "the option")   # through the groups of a split decision


def _farthest(b, c) -> None:
    """The destination farthest from c (through the groups of a split decision)."""
    while b.decision.kind == "group":
        b.choose(len(b.decision.options) - 1)
    d = b.decision
    assert d.kind == "destination", d
    b.choose(max(range(len(d.options)), key=lambda i: (_tree_ft(d.options[i].data[0], c.pos), -i)))
