"""Legendary actions this package runs, and legendary spells.

* **Legendary actions**: an aboleth's Psychic Drain (3d6 psychic to a creature it has charmed; it
  heals that much); a mummy lord's Channel Negative Energy (no one within 60 ft regains hit points
  until the end of its next turn) and Whirlwind of Sand (a 60-ft move that provokes nothing); a
  unicorn's Shimmering Shield (+2 AC to it or a creature within 60 ft until the end of its next turn).
* **Legendary spells** (a sphinx, a lich: "casts a spell" / "casts a cantrip"): between others'
  turns the monster becomes the active creature for one spell through its spell options (a cantrip,
  or a spell with a slot as normal), then hands play back.
"""

from __future__ import annotations

from ..model.options import Opt
from ..rules import hooks
from ..state import Economy
from .common import _ms

LEGENDARY = {   # monster -> (key, cost, label)
    "aboleth": (("psychic-drain", 2, "3d6 psychic to a creature it has charmed; it regains as much"),),
    "mummy-lord": (("channel-negative-energy", 2, "no healing within 60 ft until the end of its next turn"),),
    "unicorn": (("shimmering-shield", 2, "+2 AC to it or a creature within 60 ft until the end of its next turn"),),
}
WHIRLWIND_FT = 60


def compile_traits(spec, c, ms, traits) -> None:
    key = spec.key
    for lkey, cost, label in LEGENDARY.get(key, ()):
        if any(la.key == lkey for la in spec.legendary_actions):
            c.legendary = c.legendary + ((lkey, cost, "ms", label),)
    for la in spec.legendary_actions:   # "casts a spell" / "casts a cantrip": through its spell options
        if la.kind == "cast_spell" and c.spells:
            top = 0 if la.key == "cantrip" else 9
            c.legendary = c.legendary + ((la.key, la.cost, "ms",
                                          "a cantrip" if top == 0 else "a spell, with a slot as normal"),)
            ms.setdefault("leg_spell", {})[la.key] = top
    if key == "mummy-lord" and any(la.key == "whirlwind-of-sand" for la in spec.legendary_actions):
        c.legendary = c.legendary + (("whirlwind-of-sand", 2, "move", (WHIRLWIND_FT / max(c.speed, 5), False)),)
    if c.legendary and not c.legendary_per_round:
        c.legendary_per_round = spec.legendary_actions_per_round or 3
        c.resources["legendary_left"] = c.legendary_per_round


def own_start(b, c, ms) -> None:
    ms.pop("leg_cast", None)   # a legendary casting cut short


# ================================================================ legendary actions
def legendary_ok(b, c, key: str) -> bool:
    if key in _ms(c).get("leg_spell", {}):
        return bool(_legendary_spells(b, c, _ms(c)["leg_spell"][key]))
    if key == "psychic-drain":
        return bool(_drain_targets(b, c))
    if key == "shimmering-shield":
        return bool(_shield_targets(b, c))
    return key == "channel-negative-energy"


def use_legendary(b, c, key: str) -> None:
    if key in _ms(c).get("leg_spell", {}):
        _start_legendary_cast(b, c, _ms(c)["leg_spell"][key])
        return
    if key in ("psychic-drain", "shimmering-shield"):
        b.pending = {"kind": "target", "actor": c.cid, "use": ("ms", key, "legendary")}
        return
    if key == "channel-negative-energy":
        for o in sorted(b.creatures.values(), key=lambda o: o.cid):
            if o is not c and not o.dead and b.distance(c, o) <= 60:
                o.conditions["negative_energy"] = {"by": c.cid, "until": "end_of_source_next_turn", "turn_of": None,
                                                   "round": b.round}
        b.event("negative_energy", f"{c.cid} unleashes negative energy: no healing within 60 ft", creature=c.cid)
    b.next_turn()


def _drain_targets(b, c) -> list:
    return [o for o in sorted(b.creatures.values(), key=lambda o: o.cid)
            if not o.dead and o.conditions.get("charmed", {}).get("by") == c.cid]


def _shield_targets(b, c) -> list:
    return [o for o in [c, *sorted(b.allies_of(c), key=lambda o: o.cid)]
            if o.conscious and "shimmering_shield" not in o.conditions and b.distance(c, o) <= 60]


def _drain_options(b, c, use) -> list:
    return [Opt(f"Psychic Drain on {t.cid} [{t.hp}/{t.max_hp} HP]", "target", (t.cid,)) for t in _drain_targets(b, c)]


def _drain(b, c, use, t) -> None:
    b.event("psychic_drain", f"{c.cid} drains {t.cid}'s mind", creature=c.cid, target=t.cid)
    taken = b.damage(t, b.roller.roll_damage("3d6", what="damage psychic-drain psychic"), "psychic",
                     magical=True, source=c.cid)
    if taken:
        b.heal(c, taken, "Psychic Drain")
    if not b.check_outcome():
        b.next_turn()


def _shimmer_options(b, c, use) -> list:
    return [Opt(f"Shimmering Shield on {t.cid} [AC {b.armour_class(t)}]", "target", (t.cid,))
            for t in _shield_targets(b, c)]


def _shimmer(b, c, use, t) -> None:
    t.conditions["shimmering_shield"] = {"by": c.cid, "ac": 2, "until": "end_of_source_next_turn",
                                         "turn_of": None, "round": b.round}
    b.event("shimmering_shield", f"{c.cid} shields {t.cid} (+2 AC)", creature=c.cid, target=t.cid)
    if not b.check_outcome():
        b.next_turn()


TARGETS = {"psychic-drain": (_drain_options, _drain), "shimmering-shield": (_shimmer_options, _shimmer)}


# ================================================================ a legendary spell (a sphinx, a lich)
def leg_cast_menu(c, ms, out: list) -> list:
    """A legendary action's spell: only spells, then back to the others' turns."""
    e = c.economy
    top = ms["leg_cast"]["max_level"]
    keep = [o for o in out if o.kind == "spell" and len(o.data) == 2 and o.data[1] <= top
            and e.actions > 0] if e.actions > 0 else []
    return keep + [Opt("End the legendary action", "ms_leg_done")]


@hooks.OPTION_KINDS.handles("ms_leg_done")
def _leg_done(b, c, p, opt) -> None:
    _end_legendary_cast(b, c)


def _cast_economy(c):
    return Economy(actions=1, bonus=False, reaction=c.economy.reaction, movement=0, object_use=False)


def _legendary_spells(b, c, top: int) -> list:
    """The action spells c could cast now as a legendary action (level at most ``top``)."""
    saved = c.economy
    c.economy = _cast_economy(c)
    try:
        return [o for o in b.spell_options(c) if o.data[1] <= top]
    finally:
        c.economy = saved


def _start_legendary_cast(b, c, top: int) -> None:
    """Between others' turns: c becomes the active creature for one spell (its own economy and the
    turn order are kept aside), then :func:`_end_legendary_cast` hands play back."""
    ms = _ms(c)
    ms["leg_cast"] = {"turn_index": b.turn_index, "economy": c.economy, "max_level": top}
    c.economy = _cast_economy(c)
    b.turn_index = b.order.index(c.cid)
    b.pending = {"kind": "action", "actor": c.cid}
    b.forget_options()


def _end_legendary_cast(b, c) -> None:
    st = _ms(c).pop("leg_cast")
    c.economy = st["economy"]
    b.turn_index = st["turn_index"]
    b.pending = {}
    b.forget_options()
    if not b.check_outcome():
        b.next_turn()
