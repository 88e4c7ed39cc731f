"""The planner's advice on monsters' own options (:mod:`..monster_traits`): which of them the
baseline heuristic (:mod:`..heuristic`) takes, and when it spends legendary points on one of that
package's legendary actions."""

from __future__ import annotations

from ..monster_traits.androsphinx import ROAR
from ..monster_traits.common import _ms
from ..monster_traits.corrosion import _antennae_targets
from ..monster_traits.legendary import _shield_targets


def heuristic_choice(b, c, opts: list):
    """The heuristic's pick among a monster's own options (and dousing a fire), or None to let the
    general rules decide. Rules of thumb: Consume Life and Create Specter whenever offered; Children
    of the Night when no foe is in its reach; Leadership with two allies within 30 ft and a foe in
    sight; Divine Eminence before melee attacks (the lowest slot); the forced Gibbering attack;
    Death Glare and Draining Kiss whenever offered; Luring Song when it catches a foe and its bonus
    action to keep it up; Haste when no foe is in reach yet, its bonus slam always; Roar when it
    catches more foes than allies; Enlarge with a foe within 30 ft, Invisibility while the foes are
    farther; Phantasms with a foe within 60 ft; Antennae on a foe in metal armour; douse a fire when
    half hurt or when there is nothing to attack; a gelatinous cube engulfs whenever it can; out of a
    cube as soon as possible, and pull a friend out while above half hit points."""
    idx: dict = {}
    for i, o in enumerate(opts):
        idx.setdefault(o.kind, i)
    if not idx.keys() & _HEUR_KINDS:
        return None
    if "ms_leg_done" in idx:   # a legendary spell: the highest-level one offered, else hand play back
        spells = [i for i, o in enumerate(opts) if o.kind == "spell"]
        return max(spells, key=lambda i: (opts[i].data[1], -i)) if spells else idx["ms_leg_done"]
    foes = [o for o in b.enemies_of(c) if o.conscious]
    in_reach = any(b.distance(c, o) <= c.melee_reach for o in foes)
    nearest = min((b.distance(c, o) for o in foes), default=10 ** 6)
    for kind in ("ms_gibber_attack", "consume_life", "create_specter", "ms_glare", "ms_kiss", "ms_sing",
                 "ms_haste_slam", "ms_cube_escape", "ms_engulf"):
        if kind in idx:
            return idx[kind]
    if "ms_cube_pull" in idx and c.hp > c.max_hp // 2:
        return idx["ms_cube_pull"]
    if "ms_douse" in idx and (c.hp <= c.max_hp // 2 or not any(o.kind in ("attack", "multiattack", "spell")
                                                                 for o in opts)):
        return idx["ms_douse"]
    if "children_of_the_night" in idx and foes and not in_reach:
        return idx["children_of_the_night"]
    if "leadership" in idx and foes and nearest <= 60 and \
            sum(b.distance(c, o) <= 30 for o in b.allies_of(c) if o.conscious) >= 2:
        return idx["leadership"]
    if "divine_eminence" in idx and in_reach and c.economy.actions > 0:
        return idx["divine_eminence"]
    if "ms_song" in idx and foes:
        return idx["ms_song"]
    if "ms_roar" in idx:
        hit = [o for o in b.creatures.values() if o is not c and not o.dead and "deafened" not in o.conditions
               and b.distance(c, o) <= ROAR["range"]]
        mine = sum(o.side == c.side for o in hit)
        if len(hit) - mine > mine and (_ms(c).get("roars") == 2 or any("frightened" not in o.conditions
                                                                        for o in hit if o.side != c.side)):
            return idx["ms_roar"]
    if "ms_haste" in idx and foes and not in_reach and nearest <= 60:
        return idx["ms_haste"]
    if "ms_enlarge" in idx and nearest <= 30:
        return idx["ms_enlarge"]
    if "ms_invisibility" in idx and nearest > 30 and foes:
        return idx["ms_invisibility"]
    if "ms_phantasms" in idx and nearest <= 60 and c.concentration is None:
        return idx["ms_phantasms"]
    if "ms_antennae" in idx and any(t.metal_armor for t in _antennae_targets(b, c)):
        return idx["ms_antennae"]
    return None


_HEUR_KINDS = frozenset({"ms_gibber_attack", "consume_life", "create_specter", "ms_glare", "ms_kiss", "ms_sing",
                         "ms_haste_slam", "ms_douse", "children_of_the_night", "leadership", "divine_eminence",
                         "ms_song", "ms_roar", "ms_haste", "ms_enlarge", "ms_invisibility", "ms_phantasms",
                         "ms_antennae", "ms_cube_escape", "ms_engulf", "ms_cube_pull", "ms_leg_done"})


def legendary_worth(b, c, key: str) -> bool:
    """Whether the heuristic spends legendary points on this module's legendary action now."""
    if key in _ms(c).get("leg_spell", {}):   # a spell when a foe is within 60 ft
        return any(o.conscious and b.distance(c, o) <= 60 for o in b.enemies_of(c))
    if key == "psychic-drain":
        return True
    if key == "shimmering-shield":   # when a foe is next to it or an ally
        return any(b.distance(o, t) <= 10 for t in _shield_targets(b, c) for o in b.enemies_of(c) if o.conscious)
    if key == "channel-negative-energy":   # a hurt foe nearby would want healing
        return any(o.conscious and o.hp <= o.max_hp // 2 and b.distance(c, o) <= 60 for o in b.enemies_of(c))
    return False
