"""Simulator-grounded mechanics for a battle in progress: exact odds, expected damage, who an
area would hit, which routes provoke what. For LLM tools and planners; nothing here rolls dice
or changes the battle.

    from dungeonbench_gym.dnd import lookup
    lookup.attack_odds(battle, "rogue", "shortbow", "goblin_2")
    # {'to_hit': 5, 'ac': 17, 'cover': 'half', 'mode': 'disadvantage', 'p_hit': 0.2025, ...}
"""

from __future__ import annotations

from fractions import Fraction

from . import content
from .areas import COMPASS
from .dice import distribution, p_d20_success, parse
from .engine import Battle
from .rules.conditions import AUTO_CRIT, AUTO_FAIL
from .state import AttackProfile, DamagePart, monster_action
from .grid import SQUARE_FT


def attack_odds(battle: Battle, attacker: str, attack: str, target: str) -> dict:
    """The exact chance to hit and to crit, and the expected damage of one attack now (after
    resistances; Sneak Attack and on-hit effects not included). `attack` may be an
    attack-roll spell the attacker knows (its damage at the attacker's level)."""
    c, t = battle.creatures[attacker], battle.creatures[target]
    return attack_odds_of(battle, c, attack_profile(c, attack), t)


def hit_chance(to_hit: int, ac: int, adv: bool = False, dis: bool = False, blessed: bool = False,
               baned: bool = False) -> tuple[Fraction, Fraction]:
    """(P(hit), P(natural 20)) of one attack roll: a natural 20 always hits, a natural 1 always
    misses; Bless / Bane add / take 1d4, so the mean over its faces (as make_attack rolls them)."""
    bless = (1, 2, 3, 4) if blessed else (0,)
    bane = (1, 2, 3, 4) if baned else (0,)
    p_hit = sum(p_d20_success(ac, to_hit + b - m, adv, dis, attack_roll=True)
                for b in bless for m in bane) / (len(bless) * len(bane))
    return p_hit, p_d20_success(20, 0, adv, dis)


def attack_odds_of(battle: Battle, c, a: AttackProfile, t) -> dict:
    """:func:`attack_odds` for combatants and an attack profile already in hand (the D&D envs'
    option features ask it for every target option)."""
    how = battle.attack_range(c, a, t)
    melee = how == "melee" if how else a.melee
    adv, dis, reasons = battle.attack_modifiers(c, t, melee, a)
    cover = battle.cover(c, t)
    ac = battle.armour_class(t) + (cover.bonus or 0)
    p_hit, p_crit = hit_chance(a.to_hit, ac, adv, dis, "blessed" in c.conditions, "baned" in c.conditions)
    auto_crit = (not t.conscious or any(k in t.conditions for k in AUTO_CRIT)) \
        and battle.distance(c, t) <= SQUARE_FT   # melee or ranged alike
    if auto_crit:
        p_crit = p_hit
    ward = t.conditions.get("sanctuary")
    if ward and "dc" in ward:    # the attack is lost unless the attacker fails a Wis save
        lost = _p_save(battle, c, "wis", ward["dc"], magic=True)
        p_hit, p_crit = p_hit * (1 - lost), p_crit * (1 - lost)
    normal = crit = Fraction(0)
    for part in a.damage:   # each part is resisted on its own, rounding down, as the engine does
        e = parse(part.dice)

        def hurt(v, dtype=part.type):
            return battle.modified_damage(t, max(0, v), dtype, a.spell)

        normal += _mean(e, hurt)
        crit += _mean(e.doubled(), hurt)
    expected = (p_hit - p_crit) * normal + p_crit * crit
    return {"attacker": c.cid, "attack": a.key, "target": t.cid, "in_range": how is not None,
            "melee": melee, "to_hit": a.to_hit, "ac": ac, "cover": cover.name.lower(),
            "mode": "advantage" if adv and not dis else "disadvantage" if dis and not adv else "normal",
            "reasons": reasons, "p_hit": float(p_hit), "p_crit": float(p_crit),
            "expected_damage": float(expected), "damage": a.damage_text()}


def attack_profile(c, key: str):
    """A weapon or natural attack of `c`, or one of its attack-roll spells (Fire Bolt) as the
    engine builds it when cast (``Battle.cast_at``)."""

    if key in c.spells:
        sp = content.spell(key)
        if sp.attack_type is None:
            raise KeyError(f"{key} makes no attack roll; see save_odds or area_effect")
        dice = sp.damage_for(character_level=c.level)
        return AttackProfile(key, sp.name, c.resources["spell_attack"], (DamagePart(dice, sp.damage_type),),
                             sp.attack_type == "melee", 5, sp.range_feet or 0, sp.range_feet or 0, spell=True)
    return c.attack(key)


def save_odds(battle: Battle, target: str, ability: str, dc: int, magic: bool = False) -> float:
    """P(target succeeds on a saving throw of this DC), exactly, as ``Battle.saving_throw``
    rolls it: automatic failures on Str/Dex, restrained, exhaustion, Bless/Bane, Magic
    Resistance (against magic)."""
    return float(_p_save(battle, battle.creatures[target], ability, dc, magic))


def _p_save(battle: Battle, t, ability: str, dc: int, magic: bool = False, cover: int = 0) -> Fraction:

    if ability in ("str", "dex") and (not t.conscious or any(k in t.conditions for k in AUTO_FAIL)):
        return Fraction(0)
    exhaustion = getattr(t, "exhaustion", 0)
    adv = magic and "magic_resistance" in t.features
    dis = ("restrained" in t.conditions and ability == "dex") or exhaustion >= 3
    bless = (1, 2, 3, 4) if "blessed" in t.conditions else (0,)
    bane = (1, 2, 3, 4) if "baned" in t.conditions else (0,)
    total = sum(p_d20_success(dc, t.saves[ability] + cover + b - m, adv, dis) for b in bless for m in bane)
    return total / (len(bless) * len(bane))


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


# ---------------------------------------------------------------- areas, creatures, rules text
# (what the LLM tools read; like the functions above, nothing here rolls or changes the battle)

def area_effect(battle: Battle, user: str, what: str, where, level: int | None = None) -> dict:
    """Who an area spell or a monster's save action (a breath) placed at `where` would hit, and
    per creature hit: its chance to save and the expected damage, as ``Battle._resolve_area``
    resolves it (damage rolled once, half or nothing on a save, then resistances; a Dex save
    with the cover between the area's point of origin and the creature).
    where: a grid point (x, y) for spheres, a compass name ("NE") or vector for cones and lines."""

    c = battle.creatures[user]
    if what in c.spells:
        sp = content.spell(what)
        if sp.area is None:
            raise ValueError(f"{what} is not an area spell; use attack_odds or save_odds")
        level = sp.level if level is None else int(level)
        if sp.level and level < sp.level:
            raise ValueError(f"{what} is a level {sp.level} spell; it cannot be cast at level {level}")
        use: tuple = ("spell", what, level)
        ability, dc, half = sp.save_ability, c.resources.get("spell_dc"), sp.save_success == "half"
        dice = sp.damage_for(slot_level=level or None, character_level=c.level)
        parts = [(dice, sp.damage_type)] if dice else []
        shape = sp.area.shape
    elif what in c.save_actions:

        spec = monster_action(c, what)
        if spec.area is None:
            raise ValueError(f"{what} is a single-target save action; use save_odds")
        use = ("save_action", what)
        ability, dc, half = spec.save.ability, spec.save.dc, spec.save.half_on_success
        parts = [(d.dice, d.type) for d in spec.save.damage]
        shape = spec.area.shape
    else:
        raise ValueError(f"{user} has no area spell or save action {what!r}; it has "
                         f"{sorted([*(s for s in c.spells if content.spell(s).area), *c.save_actions])}")
    if shape in ("sphere", "cylinder"):
        if isinstance(where, str) or len(where) not in (2, 3):
            raise ValueError(f"{what} is a sphere: give a grid point x, y (and a height z in ft)")
        where = tuple(int(v) for v in where)
    elif shape in ("emanation", "own_space"):
        where = None   # centred on the user
    else:
        if isinstance(where, str):
            if where.upper() not in COMPASS:
                raise ValueError(f"direction {where!r}: use one of {', '.join(COMPASS)}")
            where = COMPASS[where.upper()]
        where = (int(where[0]), int(where[1]), 0)
    hits = []
    origin = battle.area_origin(c, use, where) if ability == "dex" else None
    for t in battle.area_hits(c, use, where):
        cover = battle.save_cover(origin, t).save_bonus if origin is not None else 0   # SRD Cover
        p_save = _p_save(battle, t, ability, dc, magic=use[0] == "spell", cover=cover)
        expected = Fraction(0)
        for dice, dtype in parts:
            e = parse(dice)
            full = _mean(e, lambda v, d=dtype, t=t: battle.modified_damage(t, v, d, True))
            saved = _mean(e, lambda v, d=dtype, t=t: battle.modified_damage(t, v // 2, d, True)) if half else 0
            expected += (1 - p_save) * full + p_save * saved
        hits.append({"id": t.cid, "side": t.side, "hp": t.hp, "p_save": float(p_save),
                     "expected_damage": float(expected)})
    return {"user": user, "what": what, "shape": shape, "where": list(where) if where is not None else None,
            "save": {"ability": ability, "dc": dc, "half_on_success": half},
            "damage": " + ".join(f"{d} {t}" for d, t in parts), "hits": hits,
            "allies_hit": [h["id"] for h in hits if h["side"] == c.side]}


def creature(battle: Battle, cid: str, viewer: str | None = None) -> dict:
    """What a player can know about a combatant: HP, AC now (spells included), conditions,
    speeds, resistances, attacks, spells, features, resources, position (and distance from
    `viewer` when given)."""

    c = battle.creatures[cid]
    d = c.to_dict()
    speeds = {"walk": c.speed}
    if c.monster:
        s = content.monster(c.monster).speed
        speeds = {k: v for k, v in (("walk", s.walk), ("fly", s.fly), ("swim", s.swim),
                                    ("climb", s.climb), ("burrow", s.burrow)) if v} or speeds
    out = {k: d[k] for k in ("id", "name", "side", "kind", "monster", "class", "level", "size", "hp",
                             "max_hp", "temp_hp", "pos", "conditions", "attacks", "spells", "features",
                             "resources", "dead", "death_saves", "concentration", "economy")}
    out.update({"ac": battle.armour_class(c), "base_ac": c.ac, "conscious": c.conscious,
                "speeds": speeds, "speed_now": battle.speed(c),   # the engine's rule (conditions)
                "saves": dict(c.saves), "dodging": c.dodging,
                "resistances": [_mod_text(m) for m in c.resist],
                "immunities": [_mod_text(m) for m in c.immune],
                "vulnerabilities": [_mod_text(m) for m in c.vulnerable],
                "condition_immunities": list(c.condition_immunities),
                "save_actions": list(c.save_actions), "multiattack": list(c.multiattack),
                "recharge_ready": dict(c.recharge),
                "exhaustion": getattr(c, "exhaustion", 0)})   # read with a default: newer engines
    if viewer is not None:
        out["distance_ft"] = battle.distance(battle.creatures[viewer], c)
    return out


def _mod_text(m: tuple) -> str:
    kind, nonmagical_only = m
    return f"{kind} (nonmagical)" if nonmagical_only else kind


def spell(key: str, character_level: int = 1) -> dict:
    """A spell's rules as the engine plays them: level, casting time, range, save or attack,
    damage or healing per slot level, area, concentration."""

    sp = content.spell(key)
    out = {"key": sp.key, "name": sp.name, "level": sp.level, "school": sp.school,
           "casting_time": sp.casting_time, "range": sp.range_feet if sp.range_kind == "feet" else sp.range_kind,
           "concentration": sp.concentration, "attack": sp.attack_type,
           "save": {"ability": sp.save_ability, "on_success": sp.save_success} if sp.save_ability else None,
           "damage_type": sp.damage_type,
           "area": None if sp.area is None else {"shape": sp.area.shape, "size_ft": sp.area.size}}
    if sp.damage_at_character_level:
        out["damage"] = sp.damage_for(character_level=character_level)
    elif sp.damage_at_slot_level:
        out["damage_by_slot_level"] = {str(k): v for k, v in sorted(sp.damage_at_slot_level.items())}
    if sp.heal_at_slot_level:
        out["heal_by_slot_level"] = {str(k): v for k, v in sorted(sp.heal_at_slot_level.items())}
        out["heal_adds_modifier"] = sp.heal_adds_modifier
    return out


# The rules effects of each condition: the SRD's (the engine follows the SRD), plus the
# engine's own markers for spells and actions that last a while (Help, Shield, Dodge...).
CONDITION_RULES: dict[str, list[str]] = {
    "blinded": ["Can't see: fails any check that needs sight.",
                "Attack rolls against it have advantage; its own attack rolls have disadvantage."],
    "charmed": ["Can't attack the charmer or target it with harmful abilities or spells.",
                "The charmer has advantage on social checks against it."],
    "deafened": ["Can't hear: fails any check that needs hearing."],
    "exhaustion": [("Levels are cumulative: 1 disadvantage on ability checks; 2 speed halved; "
                   "3 disadvantage on attack rolls and saves; 4 HP maximum halved; 5 speed 0; 6 death.")],
    "frightened": [("Disadvantage on ability checks and attack rolls while the source of its fear "
                   "is in sight."), "Can't willingly move closer to the source of its fear."],
    "grappled": ["Speed 0.", ("Ends when the grappler is incapacitated, or when it escapes (an action: "
                 "Athletics or Acrobatics against the escape DC), or is moved out of reach.")],
    "incapacitated": ["Can't take actions or reactions (its turn passes)."],
    "invisible": ["Can't be seen without magic or a special sense.",
                  "Attack rolls against it have disadvantage; its own attack rolls have advantage."],
    "paralyzed": ["Incapacitated; can't move or speak.", "Automatically fails Strength and Dexterity saves.",
                  "Attack rolls against it have advantage; a hit from within 5 ft is a critical hit."],
    "petrified": ["Turned to stone: incapacitated, can't move or speak, unaware of its surroundings.",
                  ("Attack rolls against it have advantage; automatically fails Strength and Dexterity "
                  "saves; resistance to all damage; immune to poison and disease.")],
    "poisoned": ["Disadvantage on attack rolls and ability checks."],
    "prone": ["Its only movement option is to crawl, unless it stands up (half its speed).",
              "Its own attack rolls have disadvantage.",
              "Attack rolls against it have advantage within 5 ft, disadvantage from farther."],
    "restrained": ["Speed 0.", "Attack rolls against it have advantage; its own have disadvantage.",
                   "Disadvantage on Dexterity saves."],
    "stunned": ["Incapacitated, can't move, can speak only falteringly.",
                "Automatically fails Strength and Dexterity saves; attack rolls against it have advantage."],
    "unconscious": [("Incapacitated, can't move or speak, unaware of its surroundings; drops what it "
                    "holds and falls prone."), "Automatically fails Strength and Dexterity saves.",
                    "Attack rolls against it have advantage; a hit from within 5 ft is a critical hit.",
                    "A PC at 0 HP makes death saves; damage at 0 HP is a failed death save."],
    # the engine's markers
    "helped": [("The next attack roll against it by an ally of the helper has advantage "
               "(until the start of the helper's next turn).")],
    "shield": ["+5 AC until the start of its next turn (the Shield spell, a reaction)."],
    "shield_of_faith": ["+2 AC while the caster concentrates."],
    "dodging": [("Attack rolls against it have disadvantage until the start of its next turn "
                "(unless incapacitated).")],
    "squeezing": [("It stands where its whole space does not fit, in the space of a creature one size "
                   "smaller (SRD Squeezing into a Smaller Space): each foot it moves costs 1 extra foot."),
                  ("Its attack rolls and Dexterity saves have disadvantage; attack rolls against it have "
                   "advantage. It stops squeezing where its whole space fits again.")],
}


def condition(name: str) -> dict:
    """The rules effects of a condition (case, spaces and hyphens tolerated)."""
    key = name.strip().lower().replace(" ", "_").replace("-", "_")
    if key in CONDITION_RULES:
        return {"condition": key, "effects": CONDITION_RULES[key]}
    raise KeyError(f"no condition {name!r}; known: {', '.join(sorted(CONDITION_RULES))}")


def attack_profile_ok(spell_key: str) -> bool:
    """Whether a spell is cast with an attack roll (so attack_odds can price it)."""

    return content.spell(spell_key).attack_type is not None
