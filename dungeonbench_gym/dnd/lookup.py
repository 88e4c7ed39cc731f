"""Simulator-grounded mechanics for a battle in progress: exact odds, expected damage, who an
area would hit, which routes provoke what. For LLM tools and planners; nothing here rolls dice
or changes the battle.

    from dungeonbench_gym.dnd import lookup
    lookup.attack_odds(battle, "rogue", "shortbow", "goblin_2")
    # {'to_hit': 5, 'ac': 17, 'cover': 'half', 'mode': 'disadvantage', 'p_hit': 0.2025, ...}
"""

from __future__ import annotations

from fractions import Fraction

from .dice import distribution, p_d20_success, parse
from .engine import Battle
from .grid import SQUARE_FT


def attack_odds(battle: Battle, attacker: str, attack: str, target: str) -> dict:
    """The exact chance to hit and to crit, and the expected damage of one attack now (after
    resistances; Sneak Attack and on-hit effects not included)."""
    c, t = battle.creatures[attacker], battle.creatures[target]
    a = c.attack(attack)
    how = battle._attack_range(c, a, t)
    melee = how == "melee" if how else a.melee
    adv, dis, reasons = battle.attack_modifiers(c, t, melee, a)
    cover = battle.cover(c, t)
    ac = battle.armour_class(t) + (cover.bonus or 0)
    p_hit = p_d20_success(ac, a.to_hit, adv, dis, attack_roll=True)
    p_crit = p_d20_success(20, 0, adv, dis)       # a natural 20
    auto_crit = melee and not t.conscious and battle.distance(c, t) <= SQUARE_FT
    if auto_crit:
        p_crit = p_hit
    normal = crit = Fraction(0)
    for part in a.damage:   # each part is resisted on its own, rounding down, as the engine does
        e = parse(part.dice)

        def hurt(v, dtype=part.type):
            return battle.modified_damage(t, max(0, v), dtype, a.spell)

        normal += _mean(e, hurt)
        crit += _mean(e.doubled(), hurt)
    expected = (p_hit - p_crit) * normal + p_crit * crit
    return {"attacker": attacker, "attack": attack, "target": target, "in_range": how is not None,
            "melee": melee, "to_hit": a.to_hit, "ac": ac, "cover": cover.name.lower(),
            "mode": "advantage" if adv and not dis else "disadvantage" if dis and not adv else "normal",
            "reasons": reasons, "p_hit": float(p_hit), "p_crit": float(p_crit),
            "expected_damage": float(expected), "damage": a.damage_text()}


def save_odds(battle: Battle, target: str, ability: str, dc: int) -> float:
    """P(target succeeds on a saving throw of this DC), exactly (unconscious: 0 on Str/Dex)."""
    t = battle.creatures[target]
    if not t.conscious and ability in ("str", "dex"):
        return 0.0
    dis = "restrained" in t.conditions and ability == "dex"
    return float(p_d20_success(dc, t.saves[ability], False, dis))


def area_preview(battle: Battle, user: str, use: tuple, where) -> list[str]:
    """Ids of the creatures an area would hit: use = ("spell", key, level) or ("save_action", key);
    where = a compass vector (dx, dy, 0) for cones and lines, a grid point (x, y) for spheres."""
    return [o.cid for o in battle.area_hits(battle.creatures[user], use, where)]


def routes(battle: Battle, mover: str, destination: tuple) -> list[dict]:
    """The routes to a destination that differ in consequences (as the route decision offers)."""
    c = battle.creatures[mover]
    threats = {}
    for o in battle.enemies_of(c):
        if o.conscious and not o.incapacitated and o.economy.reaction and o.melee_reach:
            threats[o.cid] = battle.map.threat_area(o.cells, o.melee_reach, c.size, enemy_z=o.pos[2])
    hostile = [cell for o in battle.enemies_of(c) for cell in o.cells]
    friends = [cell for o in battle.allies_of(c) for cell in o.cells]
    found = battle.map.routes(c.pos, destination, c.size, c.economy.movement or c.speed,
                              threat_cells_by_creature={} if c.economy.disengaged else threats,
                              blocked_by=hostile, pass_through=friends)
    return [{"cost_ft": r.cost_ft, "provokes": list(r.provoked), "hazards": [list(h) for h in r.hazards],
             "path": [list(p) for p in r.path]} for r in found]


def _mean(expr, f) -> Fraction:
    return sum((f(v) * p for v, p in distribution(expr).items()), Fraction(0))
