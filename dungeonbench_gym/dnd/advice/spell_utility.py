"""The planner's advice on Mage Hand, Unseen Servant, Water Walk and Water Breathing
(:mod:`..spell_utility`), asked early by :mod:`..heuristic`: the object through the hand or the
servant at once; Mage Hand or Unseen Servant when they get the object used before anyone on foot
could; Water Breathing when an ally has under :data:`SHORT_BREATH` rounds of breath; Water Walk
when two allies (or all, if fewer) walk 10 ft less to their goal; a potion of water breathing when
its drinker is short of breath."""

from __future__ import annotations

from ..grid import SQUARE_FT, box_distance_ft
from ..spell_utility import (
    POTION,
    SERVANT_MOVE_FT,
    _ft,
    _goal_costs,
    _object,
    _later,
    _servant_spot,
    breath_left,
    has_water,
    hold_rounds,
    kind,
    targets,
)
from ..spellbook import mech

SHORT_BREATH = 10   # rounds: the planner's "would run out before the fight can end"


def _short_of_breath(b, c) -> bool:
    left = breath_left(b, c)
    return left is not None and (left < SHORT_BREATH or "suffocating" in c.conditions)


def heuristic_choice(b, c, opts: list, by_kind: dict):
    """The objective through the hand or the servant first; then this module's spells when they pay
    (the lowest slot: options come by level)."""
    if by_kind.get("hand_use"):
        return by_kind["hand_use"][0]
    cmds = by_kind.get("servant_command", ())
    for i in cmds:
        if opts[i].data[2]:
            return i
    seen = set()
    for i in by_kind.get("spell", ()):
        key, level = opts[i].data[:2]
        if key in seen or mech(key).get("mech") != "utility":
            continue
        seen.add(key)
        if worth(b, c, key, level):
            return i
    if c.is_pc and _short_of_breath(b, c):
        for i in by_kind.get("item", ()):
            if opts[i].data and opts[i].data[0] == POTION:
                return i
    if cmds and not any(b.distance(c, o) <= SQUARE_FT for o in b.enemies_of(c) if o.conscious):
        return cmds[0]   # the servant's next 15 ft (a caster in melee may want its bonus action)
    return None


def worth(b, c, key: str, level: int) -> bool:
    k = kind(key)
    if k == "water_breathing":
        return any(_short_of_breath(b, t) for t in targets(b, c, key))
    if k == "water_walk":
        return _water_saves(b, c, key)
    at = _object(b)
    if at is None:
        return False
    foot = _foot_turns(b, c, at)
    if k == "mage_hand":   # the hand uses it at the caster's next turn
        return foot > 1
    spot = _servant_spot(b, c, at)
    if spot is None:
        return False
    walk = 0 if _ft_pos(spot, at) <= SQUARE_FT else _goal_costs(b, at).get(spot[:2], 10 ** 6)
    commands = max(1, -(-walk // SERVANT_MOVE_FT))
    return commands - (1 if c.economy.bonus else 0) < foot


def _ft_pos(p: tuple, at: tuple) -> int:
    return box_distance_ft(p[0], p[1], 1, p[2], at[0], at[1], 1, at[2])


def _foot_turns(b, c, at) -> int:
    """The caster's turn (0: this one) by which the party could use the object on foot: an ally
    whose speed gets it beside the object within k of its turns acts before the caster's turn k."""
    goal = _goal_costs(b, at)
    servants = b.__dict__.get("_utility", {}).get("servants", {})
    best = 10 ** 6
    for o in b.creatures.values():
        if o.side != c.side or not o.conscious or o.cid in servants or o.squares != 1:
            continue
        need = 0 if _ft(o, at, None) <= SQUARE_FT else goal.get(tuple(o.pos[:2]), 10 ** 6)
        speed = max(SQUARE_FT, b.speed(o))
        if o is c:
            turns = 0 if need <= c.economy.movement else -(-(need - c.economy.movement) // speed)
        else:
            turns = -(-need // speed)
        best = min(best, turns)
    return best


def _water_saves(b, c, key: str) -> bool:
    """Water Walk pays when two allies (or every ally, if fewer) would walk 10 ft less to their goal:
    the objective's squares or object, else the nearest foe."""
    obj = b.objective
    if obj["type"] == "interact":
        goals = [tuple(obj["object"])]
    elif obj["type"] in ("reach", "hold"):
        goals = [tuple(x) for x in obj["cells"]]
    else:
        goals = [tuple(o.pos[:2]) for o in b.enemies_of(c) if o.conscious]
    if not goals:
        return False
    pool = targets(b, c, key)
    gain = 0
    for t in pool:
        hostile, friends = b.movement_cells(t)
        speed = 4 * max(SQUARE_FT, t.speed)
        cost = []
        for swim in (0, 1):
            r = b.map.reachable(t.pos, t.size, speed, swim_speed=swim, blocked_by=hostile, pass_through=friends)
            cost.append(min((cv + SQUARE_FT * max(0, min(max(abs(p[0] - g[0]), abs(p[1] - g[1])) for g in goals) - 1)
                             for p, cv in r.costs.items()), default=10 ** 6))
        gain += cost[0] - cost[1] >= 2 * SQUARE_FT
    return gain >= min(2, len(pool)) and gain > 0


def plan(run, opts: list):
    """The baseline between fights: Water Walk right before a fight on water, Water Breathing (the
    spell, else a potion) before an underwater fight some member could not hold its breath through,
    Unseen Servant before an interact fight."""
    later = _later(run)
    if not later:
        return None
    nxt = later[0]
    for i, o in enumerate(opts):
        if o.kind != "utility_day":
            continue
        key = o.data[1]
        if key == POTION or kind(key) == "water_breathing":
            fight = next(s for s in later if s.underwater)
            if fight is nxt and any(hold_rounds(run.party[t]) < fight.round_limit for t in o.data[3]):
                return i
        elif kind(key) == "water_walk":
            if not nxt.underwater and has_water(nxt.battle_map()):
                return i
        elif kind(key) == "unseen_servant":
            return i
    return None
