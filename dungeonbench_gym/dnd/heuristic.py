"""A deterministic planner that plays through the same option lists as any agent.

It is the adversary (it plays every enemy decision) and a baseline for the party. Rules of thumb:
drink a potion or take Second Wind when low; use an area attack when it catches two or more
foes and no friends (one foe for a recharge breath); attack with the best expected damage the
lowest-HP target in reach; otherwise move toward the nearest foe (or the objective), taking the
route that provokes the fewest opportunity attacks; Dash when nothing else is useful; always take
an opportunity attack. Casters: Spirit Guardians when two foes are within 15 ft, Spiritual Weapon
and its bonus-action attack, Misty Step out of melee (Tree Stride when badly hurt in melee and a tree
leads away; a tree stride or a Transport via Plants link whenever stepping out there beats walking;
Plant Growth ahead of foes closing in across plants: :mod:`.advice.spell_plants`), Hold Person on a sturdy humanoid, Bless
when three allies are in range, Scorching Ray while level-2 slots last, Sleep only when what it
would catch can all fall asleep, Turn Undead when two undead are within 30 ft; a monster's save
action when it catches a foe (a condition-only one: a foe without the condition yet). Bosses: a legendary heal when low, else a legendary attack.
Monsters' own options (Leadership, Divine Eminence, Create Specter, Children of the Night, Consume Life,
a harpy's song, a golem's Haste, ...) and dousing a fire: :func:`.advice.monster_traits.heuristic_choice`.
The objective's object is used as soon as it is in reach (Mage Hand or an Unseen Servant when they
get there before anyone on foot; Water Walk when two allies save 10 ft on the way, Water Breathing
when an ally has under 10 rounds of breath: :mod:`.spell_utility`); a hold objective sends the party into
its area first and keeps it there (it fights from squares inside). Same state, same choice: ties break by the canonical option order.
Party class features (see :func:`_feature_choice`, :func:`_rider_choice`): Rage before the first melee
attack, Reckless Attack while raging or healthy, Lay on Hands on a dying or badly hurt ally, Flurry of
Blows while ki lasts, Patient Defense when low, Stunning Strike on a foe the hit leaves standing,
Divine Smite on a critical hit, to finish a foe, or against undead and fiends (the highest useful
slot), Bardic Inspiration to the next ally to act, Wild Shape (the sturdiest, hardest-hitting form)
when nothing better is on offer, Twinned cantrips, Preserve Life for two badly hurt allies, Empty Body
when low, Armor of Shadows before the foes close, Quivering Palm on a foe of 50+ HP (ended next turn). :data:`PARTY_FEATURES` switched off plays the party without them (to measure them).
"""

from __future__ import annotations

import numpy as np

from . import (
    content,
    fastpaths,
    lighting,
    spellbook,
)
from . import spell_utility   # Mage Hand, Unseen Servant, Water Walk, Water Breathing
from . import advice
from .advice.common import _box_extents, _fight_scorer, _foes, _goal_boxes, _planned_squares, _ranged_minded, _scorer
from .advice.spell_control import worth
from .areas import DIRECTIONS_8
from .builders.monsters import monster_combatant
from .classes import bard, cleric, paladin
from .dice import parse
from .engine import Battle
from .state import Combatant, expected_damage, monster_action
from .grid import SQUARE_FT
from .model.options import Opt
from .rules import spell_data

PARTY_FEATURES = True   # False: the party ignores its class-feature options (the measurement's baseline)


def choose(battle: Battle) -> int:
    """The index of the option this planner picks in the pending decision."""
    d = battle.decision
    c = battle.creatures[d.actor]
    if d.kind == "group":   # pick the best option overall, then the group that holds it
        full = battle.visible_options()
        j = _pick(battle, c, battle.pending["kind"], full)
        base = battle.pending.get("span", (0, 0))[0]
        for i, o in enumerate(d.options):
            if (o.data[0] == "key" and o.data[1] == full[j].group) or \
                    (o.data[0] == "span" and o.data[1] <= base + j < o.data[2]):
                return i
        return 0
    return _pick(battle, c, d.kind, list(d.options))


def _pick(battle: Battle, c: Combatant, kind: str, opts: list[Opt]) -> int:
    if kind == "action":
        i = _action(battle, c, opts)
        if i is None:   # a split menu's span without End turn, and nothing in it worth doing
            i = 0
        # a metamagic or Overchannel variant of the chosen spell when it pays (dnd/advice/class_features.py)
        return advice.class_features.upgrade(battle, c, opts, i) if PARTY_FEATURES and c.is_pc else i
    if kind == "target":
        use = battle.pending["use"]
        if use[:2] == ("feature", "wild_shape") and PARTY_FEATURES:
            return _best_form(opts)
        if use[0] == "feature" and PARTY_FEATURES and any(o.kind == "target" for o in opts):
            return _feature_target(battle, c, use, opts)
        if use[0] == "spell" and use[1] in lighting.SPELLS:   # a light or darkvision: on the front-liner
            i = advice.lighting.heuristic_target(battle, c, use[1], opts)
            if i is not None:
                return i
        if use[0] == "dart":   # finish off what one dart can kill (1d4+1: 2 at least), else the weakest
            return min(range(len(opts)), key=lambda i: (battle.creatures[opts[i].data[0]].hp > 2,
                                                         _target_key(battle, c, opts[i])))
        real = [i for i, o in enumerate(opts) if o.kind == "target"]
        if not real:   # only "No more targets"
            return 0
        if use[0] in ("spell", "more") and _is_support(use[1]):   # heal the worst off, the dying first
            return min(real, key=lambda i: _support_key(battle, c, opts[i]))
        return min(real, key=lambda i: _target_key(battle, c, opts[i]))
    if kind == "legendary":   # heal when low, a save action that reaches a foe, else the first attack, else wait
        for i, o in enumerate(opts):
            if o.kind == "legendary" and "heal" in o.label and c.hp <= 0.4 * c.max_hp:
                return i
        for i, o in enumerate(opts):
            entry = next((x for x in c.legendary if o.kind == "legendary" and x[0] == o.data[0]), None)
            if entry and entry[2] == "save" and _legendary_save_reaches(battle, c, entry[3]):
                return i
            if entry and entry[2] == "ms" and advice.monster_traits.legendary_worth(battle, c, entry[0]):
                return i   # Psychic Drain, Shimmering Shield, Channel Negative Energy (monster_traits/legendary.py)
        return next((i for i, o in enumerate(opts) if o.kind == "legendary" and "attack" in o.label),
                    len(opts) - 1)
    if kind == "destination" and battle.pending.get("use", ("",))[0] == "lights":   # (dnd/lighting.py)
        return advice.lighting.heuristic_destination(battle, c, opts)
    if kind == "destination":
        foes = _foes(battle, c)
        reach = None if battle.pending.get("use") else battle.reach(c)   # (a teleport's squares are its own)
        keys = _score_keys(battle, c, foes, [o.data[0] for o in opts], reach)
        if keys is not None:   # the same choice, worked out for every square at once
            return fastpaths.argmin_keys(keys)
        score = _scorer(battle, c, foes)
        return min(range(len(opts)), key=lambda i: (score(opts[i].data[0]), i))
    if kind == "route":
        routes = battle.pending["routes"]
        return min(range(len(opts)), key=lambda i: (len(routes[opts[i].data[0]].provoked),
                                                    sum(n for _, n in routes[opts[i].data[0]].hazards),
                                                    routes[opts[i].data[0]].cost_ft, i))
    if kind == "point_x":
        want = _best_point(battle, c, battle.pending["use"])[1][0]
        return next((i for i, o in enumerate(opts) if o.data[0] == want), 0)
    if kind == "point_y":
        use, x = battle.pending["use"], battle.pending["x"]
        return max(range(len(opts)), key=lambda i: (_area_value(battle, c, use, (x, opts[i].data[0])), -i))
    if kind == "point_z":
        use, x, y = battle.pending["use"], battle.pending["x"], battle.pending["y"]
        return max(range(len(opts)), key=lambda i: (_area_value(battle, c, use, (x, y, opts[i].data[0])), -i))
    if kind == "direction":
        use = battle.pending["use"]
        return max(range(len(opts)), key=lambda i: (_area_value(battle, c, use, opts[i].data[0]), -i))
    if kind == "reaction":
        if battle.pending.get("reaction") == "rider":
            return _rider_choice(battle, c, opts)
        return next(i for i, o in enumerate(opts) if o.data[0] is True)
    return 0


def _legendary_save_reaches(battle: Battle, c: Combatant, key: str) -> bool:
    """Whether a legendary save action would catch a foe: an emanation needs one inside its
    radius; a single-target or placed one is offered only with a target in reach."""
    spec = monster_action(c, key)
    if spec.area is not None and spec.area.shape == "emanation":
        return any(o.conscious and battle.distance(c, o) <= spec.area.size for o in battle.enemies_of(c))
    return True


def _is_support(spell_key: str) -> bool:
    return bool(content.spell(spell_key).heal_at_slot_level) or \
        (spell_data.mech(spell_key)["mech"] == "buff" and spell_key in OWN_RULES)   # Bless, Shield of Faith...


def _support_key(battle: Battle, c: Combatant, o: Opt):
    t = battle.creatures[o.data[0]]
    return (t.conscious, t.hp / t.max_hp, t is not c, t.cid)


def _target_key(battle: Battle, c: Combatant, o: Opt):
    t = battle.creatures[o.data[0]]
    return (not t.conscious, t.hp, battle.distance(c, t), t.cid)


# ------------------------------------------------------------------ the turn menu
def _action(battle: Battle, c: Combatant, opts: list[Opt]) -> int:
    """The turn menu: the first of the rules of thumb (in this order) that picks an option."""
    by_kind: dict[str, list[int]] = {}
    for i, o in enumerate(opts):
        by_kind.setdefault(o.kind, []).append(i)
    i = _opening_choice(battle, c, opts, by_kind)
    if i is not None:
        return i
    spells = by_kind.get("spell", [])
    if not PARTY_FEATURES:   # the baseline also leaves Quickened Spell alone
        spells = [i for i in spells if len(opts[i].data) < 3]
    i = _support_choice(battle, c, opts, by_kind, spells)
    if i is not None:
        return i
    i = _area_choice(battle, c, opts, by_kind, spells)
    if i is not None:
        return i
    i = _attack_choice(battle, c, opts, by_kind, spells)
    if i is not None:
        return i
    return _closing_choice(battle, c, opts, by_kind)


def _first(by_kind: dict, kind: str) -> int | None:
    """The index of the first option of this kind, None when there is none."""
    return by_kind.get(kind, [None])[0]


def _opening_choice(battle: Battle, c: Combatant, opts: list[Opt], by_kind: dict) -> int | None:
    """Free and pressing choices first: the objective (by hand, Mage Hand or water magic), a free
    bite or an orc's dash, Reckless Attack with a foe in reach, features for dying allies, a potion or
    Second Wind when low, standing up, monsters' own options, early features, healing spells, light
    in a dark battle."""
    if _first(by_kind, "interact") is not None:   # the objective's lever: always worth the free interaction
        return _first(by_kind, "interact")
    if battle.underwater or battle.objective["type"] == "interact" or spell_utility.has_water(battle.map):
        util = advice.spell_utility.heuristic_choice(battle, c, opts, by_kind)   # the lever through Mage Hand or
        if util is not None:   # the servant, Water Breathing when breath runs short, Water Walk (dnd/spell_utility.py)
            return util
    if _first(by_kind, "rampage") is not None:   # a free bonus bite after a kill
        return _first(by_kind, "rampage")
    if _first(by_kind, "aggressive") is not None and not any(
            battle.distance(c, o) <= c.melee_reach for o in battle.enemies_of(c) if o.conscious):
        return _first(by_kind, "aggressive")   # an orc closes in with its bonus action
    if _first(by_kind, "reckless") is not None and any(o.kind == "attack" and "queue" not in o.data for o in opts) \
            and any(battle.distance(c, o) <= c.melee_reach for o in battle.enemies_of(c) if o.conscious):
        return _first(by_kind, "reckless")   # a foe in reach: advantage is worth being easier to hit
    urgent = _feature_choice(battle, c, opts, "urgent")   # allies dying: before one's own potion
    if urgent is not None:
        return urgent
    low = c.hp <= 0.35 * c.max_hp
    if low and _first(by_kind, "potion") is not None:
        return _first(by_kind, "potion")
    if c.hp <= 0.5 * c.max_hp and _first(by_kind, "second_wind") is not None:
        return _first(by_kind, "second_wind")
    if _first(by_kind, "stand") is not None:
        return _first(by_kind, "stand")
    own = advice.monster_traits.heuristic_choice(battle, c, opts)   # monsters' own options, dousing a fire
    if own is not None:
        return own
    early = _feature_choice(battle, c, opts, "early")
    if early is not None:
        return early
    heal = _healing_choice(battle, c, opts, by_kind.get("spell", []))
    if heal is not None:
        return heal
    if "lighting" in battle.__dict__:   # a dark battle: light up foes the side cannot see (dnd/lighting.py)
        lit = advice.lighting.heuristic_choice(battle, c, opts)
        if lit is not None:
            return lit
    return None


def _support_choice(battle: Battle, c: Combatant, opts: list[Opt], by_kind: dict, spells: list) -> int | None:
    """Spirit Guardians, Spiritual Weapon, Misty Step out of melee, Hold Person, Bless, Shield of
    Faith; then escaping a grapple or a web."""
    near = sum(1 for o in battle.enemies_of(c) if o.conscious and battle.distance(c, o) <= 15)
    for i in spells:   # Spirit Guardians when two foes are close (it replaces Shield of Faith)
        if opts[i].data[0] == "spirit-guardians" and near >= 2 and c.concentration != "spirit-guardians":
            return i
    if _first(by_kind, "spiritual_weapon") is not None:
        return _first(by_kind, "spiritual_weapon")
    for i in spells:
        if opts[i].data[0] == "spiritual-weapon" and _foe_within(battle, c, 60):
            return i
    for i in spells:   # a wizard in melee steps away (bonus action)
        if opts[i].data[0] == "misty-step" and _foe_within(battle, c, 5):
            return i
    if c.concentration is None:
        for i in spells:   # Hold Person on a sturdy humanoid; Bless when three allies are close
            key = opts[i].data[0]
            if key == "hold-person" and any(t.hp >= 20 for t in battle.spell_targets(c, key)):
                return i
            if key == "bless" and len(battle.spell_targets(c, key)) >= 3 and _foe_within(battle, c, 60):
                return i
    for i in by_kind.get("spell", []):   # keep Shield of Faith up on self
        if opts[i].data[0] == "shield-of-faith" and c.concentration is None and \
                "shield_of_faith" not in c.conditions:
            return i
    if _first(by_kind, "escape") is not None and not by_kind.get("attack"):
        return _first(by_kind, "escape")
    if _first(by_kind, "escape_web") is not None:   # restrained by webbing: burst it first
        return _first(by_kind, "escape_web")
    return None


def _area_choice(battle: Battle, c: Combatant, opts: list[Opt], by_kind: dict, spells: list) -> int | None:
    """Area attacks: Turn Undead, a save action (a breath weapon) that is worth it, an area spell
    that catches two foes."""
    if _first(by_kind, "turn_undead") is not None and len(battle.turnable(c)) >= 2:   # Channel Divinity
        return _first(by_kind, "turn_undead")
    for i in by_kind.get("save_action", []):
        if _save_action_value(battle, c, opts[i].data[0]) >= 1:
            return i
    area_seen: dict = {}
    awake = [o for o in battle.enemies_of(c) if o.conscious]
    for i in spells if len(awake) >= 2 else ():   # an area spell is cast when it catches two foes
        key, level = opts[i].data[:2]
        sp = content.spell(key)
        if sp.area is None or not _two_could_fit(battle, c, awake, sp.area):
            continue
        use = ("spell", key, level)
        if key in area_seen and key != "sleep":   # the placement does not depend on the slot level
            continue
        area_seen[key] = True
        if key == "sleep":   # only worth it when what it would catch can all fall asleep
            value, point = _best_point(battle, c, use)
            pool = 4.5 * (5 + 2 * (level - 1))
            if value >= 2 and sum(o.hp for o in battle.area_hits(c, use, point) if o.side != c.side) <= pool * 0.8:
                return i
            continue
        value = _best_point(battle, c, use)[0] if sp.area.shape == "sphere" else \
            _best_direction_value(battle, c, use)
        if value >= 2:
            return i
    return None


def _attack_choice(battle: Battle, c: Combatant, opts: list[Opt], by_kind: dict, spells: list) -> int | None:
    """Data-driven spells, a plant step that beats walking, attack spells, features before an
    attack, Multiattack, the best attack, then the attack cantrips."""
    generic = _spellbook_choice(battle, c, opts, spells)   # data-driven spells (dnd/spellbook.py)
    if generic is not None:
        return generic
    if "plants" in by_kind:   # Tree Stride, a Transport via Plants link, when it beats walking (dnd/spell_plants.py)
        step = advice.spell_plants.heuristic_choice(battle, c, opts, by_kind["plants"])
        if step is not None:
            return step
    for i in spells:   # Scorching Ray while level-2 slots last, then the attack cantrip beats a dagger
        if opts[i].data[0] == "scorching-ray":
            return i
    late = _feature_choice(battle, c, opts, "before_attack")
    if late is not None:
        return late
    for i in spells:
        if opts[i].data[0] == "fire-bolt":
            return i
    if _first(by_kind, "multiattack") is not None:
        return _first(by_kind, "multiattack")
    attacks = by_kind.get("attack", [])
    if attacks:
        return max(attacks, key=lambda i: (_attack_value(battle, c, opts[i]) + _bonus_attack_value(c, opts[i]), -i))
    for i in spells:
        key, level = opts[i].data[:2]
        if key == "fire-bolt":
            return i
    for i in spells:
        if opts[i].data[0] in ("magic-missile", "sacred-flame"):
            return i
    return None


def _closing_choice(battle: Battle, c: Combatant, opts: list[Opt], by_kind: dict) -> int | None:
    """Nothing to attack with: Action Surge, a bonus-action feature, moving, Dash, else End turn
    (None in a split menu's span without it)."""
    e = c.economy
    if _first(by_kind, "action_surge") is not None and e.actions == 0 and e.attacks_left == 0 and \
            _foe_in_reach(battle, c):
        return _first(by_kind, "action_surge")
    bonus = _feature_choice(battle, c, opts, "bonus")
    if bonus is not None:
        return bonus
    move = _first(by_kind, "move")
    if move is not None and _should_move(battle, c):
        return move
    if e.actions > 0 and _first(by_kind, "dash") is not None and not _foe_in_reach(battle, c) and \
            e.movement < SQUARE_FT:
        return _first(by_kind, "dash")
    return _first(by_kind, "end_turn")


def _two_could_fit(battle: Battle, c: Combatant, awake: list, area) -> bool:
    """Whether two of the awake foes could be inside one such area at all (a cheap necessary
    test before scoring every placement): two spaces inside one sphere are at most its diameter
    apart, and a cone or line starts at the caster and reaches no farther than its length; 10 ft
    of slack covers the grid's rounding. Cubes (some start at the caster, some at a point) are
    always scored."""
    if area.shape in ("sphere", "cylinder"):
        span = 2 * area.size + 10
        return any(battle.distance(a, b) <= span for k, a in enumerate(awake) for b in awake[k + 1:])
    if area.shape in ("cone", "line"):
        return sum(battle.distance(c, o) <= area.size + 10 for o in awake) >= 2
    return True


# the rough worth (in HP of damage) of a failed save's condition on a foe, by how much it takes away
_CONDITION_WORTH = {"paralyzed": 25, "stunned": 22, "unconscious": 20, "petrified": 25, "incapacitated": 15,
                    "restrained": 10, "blinded": 10, "frightened": 8, "charmed": 8, "poisoned": 5, "prone": 3}


# spells the rules of thumb above and below play by name (Fire Bolt, Sacred Flame, Bless...), or leave
# alone (Ray of Frost, Guiding Bolt...): the engine's own spells before they became spellbook rows
# (issue 17), kept out of the expected-value rule so that the baseline plays them as it did
OWN_RULES = frozenset(("fire-bolt", "ray-of-frost", "chill-touch", "shocking-grasp", "guiding-bolt",
                       "inflict-wounds", "sacred-flame", "bane", "hold-person",
                       "bless", "shield-of-faith", "mage-armor", "sanctuary", "scorching-ray", "misty-step",
                       "spirit-guardians", "spiritual-weapon"))


def _spellbook_choice(battle: Battle, c: Combatant, opts: list[Opt], spells: list[int]):
    """The best data-driven spell (a spellbook mechanics row) by a rough expected value in HP:
    damage dice x the chance a foe is hurt x targets, a condition's worth x the chance it lands,
    a weapon rider's dice over three hits, conjured creatures' HP; the lowest slot of each. It is
    cast when it beats the best weapon attack of the action (a bonus-action spell: any value),
    a levelled one by 3 HP per slot level; never when it would drop the caster's concentration."""

    def avg(expr):
        return parse(expr).average if expr else 0.0

    foes = [o for o in battle.enemies_of(c) if o.conscious]
    if not foes:
        return None
    for i, o in enumerate(opts):   # Call Lightning again: free with the action when it catches a foe
        if o.kind == "recall" and _best_point(battle, c, ("spell", *o.data))[0] >= 1:
            return i
        if o.kind == "reheat":   # Heat Metal again: a bonus action, no slot
            return i
    weapon = max([_attack_value(battle, c, o) for o in opts if o.kind == "attack"] or [0.0])
    best, seen = None, set()
    for i in spells:
        key, level = opts[i].data[:2]
        m = spell_data.mech(key)
        kind = m.get("mech")
        if key in seen or not spell_data.handles(key) or kind in ("heal", "stabilize", "area", "pool") or \
                key in OWN_RULES:
            continue   # healing has its own rule; areas are placed by the rule above
        seen.add(key)
        sp = content.spell(key)
        if sp.concentration and c.concentration is not None:
            continue
        targets = spellbook.targets(battle, c, key) if spellbook.placement(key) == "target" else []
        n = min(len(targets), 1 + spell_data.extra_targets(key, level))
        cond = _CONDITION_WORTH.get(m.get("condition"), 6 if m.get("condition") else 0)
        hit_dice = m.get("flags", {}).get("hit_dice") or m.get("flags", {}).get("marked_dice")
        dmg = avg(spell_data.dice(c, key, level)) if kind in ("attack", "save", "word") else 0.0
        if kind == "attack":
            value = 0.6 * dmg * spell_data.beams(key, c.level) if targets else 0.0
        elif kind == "save":
            kept = 1.0 if m.get("damage_always") else (0.25 if sp.save_success == "half" else 0.0)
            value = n * (0.5 * dmg + kept * dmg * 0.5 + 0.5 * cond)
        elif kind == "word":
            value = sum(t.hp if m.get("kill") else cond for t in targets if t.hp <= m["hp_max"])
        elif kind == "summon":
            value = 8.0 * m["count"] * m.get("upcast", {}).get(str(level), 1)
        elif kind == "tiers":
            value = 10.0 * len(targets)
        elif hit_dice and c.attacks and any(battle.distance(c, o) <= 30 for o in foes):
            hits = 1 if m["flags"].get("once") else 3   # Branding Smite: the next hit only
            value = hits * avg(spell_data.dice(c, key, level) if hit_dice == "spell" else hit_dice)
        elif kind == "mark":
            value = 0.5 * cond if targets else 0.0
        elif kind == "heat":   # Heat Metal: this turn's fire and a later bonus action's, a hindered foe
            value = (2.0 * avg(spell_data.dice(c, key, level)) + 3.0) if targets else 0.0
        elif m.get("flags", {}).get("check_die"):   # Guidance: one die on a rare check, not worth an action
            continue
        elif kind in ("buff", "max_hp", "temp_hp") and targets and any(battle.distance(c, o) <= 30 for o in foes):
            value = 6.0 * n
        elif kind in ("revive", "cure", "dispel") and targets:
            value = 15.0
        elif kind == "control":   # removal, domination (dnd/spell_control.py)
            value = worth(battle, c, key, level)
        elif kind == "plants":   # Plant Growth ahead of closing foes, Tree Stride out of trouble
            value = advice.spell_plants.worth(battle, c, key, level)
        else:
            continue
        bonus = sp.casting_time == "bonus_action"
        bar = 0.0 if bonus else weapon + 3 * sp.level
        if value > bar and (best is None or value - bar > best[0]):
            best = (value - bar, i)
    return None if best is None else best[1]


def _attack_value(battle: Battle, c: Combatant, o: Opt) -> float:
    a = c.attack(o.data[0])
    melee_bonus = 0.5 if a.melee else 0.0   # prefer melee when both reach: no close-range disadvantage
    return expected_damage(a) + melee_bonus


def _foe_within(battle: Battle, c: Combatant, feet: int) -> bool:
    return any(battle.distance(c, o) <= feet for o in battle.enemies_of(c) if o.conscious)


def _foe_in_reach(battle: Battle, c: Combatant) -> bool:
    reach = c.melee_reach
    return any(battle.distance(c, o) <= reach for o in battle.enemies_of(c) if o.conscious)


def _position_score(battle: Battle, c: Combatant, pos: tuple, foes: list | None = None) -> tuple:
    return _scorer(battle, c, foes)(pos)


def _fight_score(battle: Battle, c: Combatant, pos: tuple, foes: list | None = None) -> tuple:
    return _fight_scorer(battle, c, foes)(pos)


def _should_move(battle: Battle, c: Combatant) -> bool:
    foes = _foes(battle, c)
    score = _scorer(battle, c, foes)
    here = score(c.pos)
    hold = battle.objective["type"] == "hold" and c.side == battle.party_side
    goal = battle.objective["type"] in ("reach", "interact") and c.side == battle.party_side
    if here[0] == 0 and not goal and (not hold or here[1] == 0):
        return False
    r = battle.reach(c)
    keys = _score_keys(battle, c, foes, r.destinations, r)
    if keys is not None:
        return fastpaths.any_below(keys, here)
    return any(score(p) < here for p in r.destinations)


def _score_keys(battle: Battle, c: Combatant, foes: list, positions, reach=None) -> list | None:
    """What :func:`_scorer` (battle, c, foes) gives each of the positions, for all of them at once
    (:mod:`.fastpaths`); None when the plain loop is the better way (few positions, odd ones).
    ``reach``: the grid's answer the positions come from (all or some of its destinations): its
    distances, kept per box, are shared with the other questions asked of it."""
    if len(positions) < fastpaths.SMALL:
        return None
    nearest = _reach_distances(reach, positions)
    if nearest is None:
        P = fastpaths.positions_array(positions)
        if P is None:
            return None
        n = _planned_squares(c)

        def nearest(boxes):
            return fastpaths.nearest_ft(P, n, boxes)
    if not foes:
        fight = ("none", (), 0)
    else:
        boxes = [_box_extents(fp[0], fp[1], fn, fp[2]) for fp, fn in foes]
        fight = ("ranged", boxes, 0) if _ranged_minded(c) else ("melee", boxes, c.melee_reach or SQUARE_FT)
    obj = battle.objective
    if c.side == battle.party_side and obj["type"] in ("reach", "interact", "hold"):
        cells = [tuple(obj["object"])] if obj["type"] == "interact" else [tuple(x) for x in obj["cells"]]
        goal = _goal_boxes(battle.map, cells)
        if not goal:
            return None
        g = nearest(goal)
        if obj["type"] != "hold":
            return [g, 0 * g]
        return [g] + fastpaths.fight_keys(nearest, len(positions), *fight)
    return fastpaths.fight_keys(nearest, len(positions), *fight)


def _reach_distances(reach, positions):
    """boxes -> the distance from each of the positions to the nearest box, out of the reach's
    per-box distances; None when the positions are not the reach's or its heights are odd."""
    if reach is None or reach.array() is None:
        return None
    if positions is reach.destinations:
        idx = None
    else:
        index = reach.index()
        try:
            idx = np.fromiter((index[p] for p in positions), dtype=np.int64, count=len(positions))
        except (KeyError, TypeError):
            return None

    def nearest(boxes):
        d = reach.box_ft(boxes[0])
        for b in boxes[1:]:
            d = np.minimum(d, reach.box_ft(b))
        return d if idx is None else d[idx]
    return nearest


# ------------------------------------------------------------------ areas
def _area_value(battle: Battle, c: Combatant, use: tuple, where) -> int:
    hits = battle.area_hits(c, use, where)
    foes = sum(1 for o in hits if o.side != c.side and o.conscious)
    friends = sum(1 for o in hits if o.side == c.side)
    return foes - 3 * friends


def _save_action_value(battle: Battle, c: Combatant, key: str) -> int:
    """Foes a monster's save action would catch (for a condition-only one: those without it yet)."""
    spec = monster_action(c, key)
    use = ("save_action", key)
    if spec.area is None:
        hits = battle.save_targets(c, spec)
    elif spec.area.shape in ("emanation", "own_space"):
        hits = [o for o in battle.area_hits(c, use, None) if not battle.save_exempt(c, spec, o)]
        if spec.chosen_creatures:
            hits = [o for o in hits if o.side != c.side]
    elif spec.area.shape in ("sphere", "cylinder"):
        return _best_point(battle, c, use)[0]
    else:
        return _best_direction_value(battle, c, use)
    if not spec.save.damage:
        hits = [o for o in hits if not all(k in o.conditions for k in spec.save.conditions)]
    return sum(1 if o.side != c.side else -3 for o in hits if o.conscious)


_POINT_MEMO: dict = {}


def _area_memo_key(battle: Battle, c: Combatant, what) -> tuple:
    """What an area's best placement depends on: the battle, its map, the area, the caster, and
    every creature's place, side, consciousness and conditions (a Forcecage shields, a Dominate
    turns a foe)."""
    return (id(battle), battle.map, what, c.cid,
            tuple((o.cid, o.pos, o.side, o.conscious, tuple(o.conditions)) for o in battle.creatures.values()))


def _memo(key: tuple, compute):
    hit = _POINT_MEMO.get(key)
    if hit is None:
        if len(_POINT_MEMO) > 64:
            _POINT_MEMO.clear()
        hit = _POINT_MEMO[key] = compute()
    return hit


def _best_direction_value(battle: Battle, c: Combatant, use: tuple) -> int:
    """The best of the 8 directions for a cone or line; memoised like :func:`_best_point`."""
    return _memo(_area_memo_key(battle, c, ("direction", *use)),
                 lambda: max(_area_value(battle, c, use, d) for d in DIRECTIONS_8))


def _best_point(battle: Battle, c: Combatant, use: tuple):
    """(value, point) of the best placement; only points near foes are worth scoring. Memoised
    while nobody moves or drops (a turn's menus ask the same question again and again)."""
    return _memo(_area_memo_key(battle, c, use[1]), lambda: _best_point_uncached(battle, c, use))


def _best_point_uncached(battle: Battle, c: Combatant, use: tuple):
    rng = content.spell(use[1]).range_feet or 0 if use[0] == "spell" else \
        min(monster_action(c, use[1]).range or 30, 5 * (battle.map.width + battle.map.height))
    foes = [o for o in battle.enemies_of(c) if o.conscious]
    near = sorted({(o.pos[0] + dx, o.pos[1] + dy) for o in foes for dx in range(-2, 3) for dy in range(-2, 3)},
                  key=lambda p: (p[1], p[0]))   # the engine's point order: y, then x
    best = None
    for p in near:
        if not battle.point_ok(c, p[0], p[1], rng):
            continue
        if best is None:
            best = (-99, p)
        v = _area_value(battle, c, use, p)
        if v > best[0]:
            best = (v, p)
            if v >= len(foes):
                break   # it catches every conscious foe and no friend: no later point does better
    return best if best is not None else (-99, c.pos[:2])


def _healing_choice(battle: Battle, c: Combatant, opts: list[Opt], spells: list[int]):
    """A healing spell when an ally (or self) is dying or below a third of its HP: the lowest
    slot, a bonus-action one first (it leaves the action free)."""
    hurt = [o for o in battle.creatures.values()
            if o.side == c.side and not o.dead and (o.hp == 0 or o.hp <= o.max_hp / 3)]
    if not hurt:
        return None
    best = None
    for i in spells:
        key, level = opts[i].data[:2]
        sp = content.spell(key)
        if not sp.heal_at_slot_level:
            continue
        targets = {t.cid for t in battle.spell_targets(c, key)}
        if not any(o.cid in targets for o in hurt):
            continue
        rank = (sp.casting_time != "bonus_action", level, i)
        if best is None or rank < best[0]:
            best = (rank, i)
    return None if best is None else best[1]


# ------------------------------------------------------------------ party class features
def _hit_average(a, crit: bool) -> float:
    """The average damage of a hit with this attack (the dice twice on a critical)."""
    total = 0.0
    for p in a.damage:
        d = parse(p.dice)
        total += d.average + (sum(n * (s + 1) / 2 for n, s in d.dice) if crit else 0)
    return total


def _badly_hurt(o: Combatant) -> bool:
    return not o.dead and (o.hp == 0 or o.hp <= o.max_hp / 3)


def _feature_choice(battle: Battle, c: Combatant, opts: list[Opt], phase: str):
    """A class-feature option worth taking now, or None. ``phase``: "early" (before healing and
    spells: Rage, Reckless Attack, Lay on Hands, self-healing), "before_attack" (an action that
    beats a plain attack: Wild Shape, a Twinned cantrip, Holy Nimbus) or "bonus" (the action spent:
    Bardic Inspiration, Patient Defense)."""
    if not PARTY_FEATURES or not c.is_pc:
        return None
    more = advice.class_features.heuristic_choice(battle, c, opts, phase)   # Step of the Wind, Fiendish Vigor, ...
    if more is not None:
        return more
    feats: dict = {}
    for i, o in enumerate(opts):
        if o.kind == "feature":
            feats.setdefault(o.data[0], i)
    if not feats:
        return None
    e = c.economy
    foes = [o for o in battle.enemies_of(c) if o.conscious]
    if phase == "urgent":
        if "preserve_life" in feats and sum(1 for o in cleric.preserve_targets(battle, c) if _badly_hurt(o)) >= 2:
            return feats["preserve_life"]
        if "lay_on_hands" in feats and any(o.hp == 0 for o in paladin.lay_targets(battle, c)):
            return feats["lay_on_hands"]
        return None
    if phase == "early":
        if "stillness" in feats:
            return feats["stillness"]
        if "lay_on_hands" in feats and any(_badly_hurt(o) for o in paladin.lay_targets(battle, c)):
            return feats["lay_on_hands"]
        if "wholeness" in feats and c.hp <= 0.35 * c.max_hp:
            return feats["wholeness"]
        if "empty_body" in feats and c.hp <= 0.5 * c.max_hp and _foe_within(battle, c, 30):
            return feats["empty_body"]
        if "armor_of_shadows" in feats and not _foe_within(battle, c, 30):
            return feats["armor_of_shadows"]
        reach = c.melee_reach or 5
        if "rage" in feats and any(a.melee for a in c.attacks) and _foe_within(battle, c, e.movement + reach):
            return feats["rage"]   # plain Rage: Frenzy's exhaustion is not worth it in a fight of a few rounds
        if "reckless" in feats and _foe_in_reach(battle, c) and \
                ("raging" in c.conditions or c.hp > 0.5 * c.max_hp):
            return feats["reckless"]
        return None
    if phase == "before_attack":
        if "palm_end" in feats:   # the vibrations are set: end them
            return feats["palm_end"]
        if "holy_nimbus" in feats and sum(1 for o in foes if battle.distance(c, o) <= 30) >= 2:
            return feats["holy_nimbus"]
        for i, o in enumerate(opts):   # a cantrip at two foes for one sorcery point
            if o.kind == "feature" and o.data[0] == "twin" and o.data[2] == 0:
                return i
        if "wild_shape" in feats and _foe_within(battle, c, 60) and not any(
                o.kind == "spell" and o.data[0] in ("fire-bolt", "sacred-flame") for o in opts):
            return feats["wild_shape"]
        return None
    if "inspire" in feats and _next_ally(battle, c) is not None:
        return feats["inspire"]
    if "patient_defense" in feats and c.hp <= 0.5 * c.max_hp and _foe_in_reach(battle, c):
        return feats["patient_defense"]
    return None


def _next_ally(battle: Battle, c: Combatant):
    """The next ally in the turn order this planner would inspire: conscious, not inspired yet,
    within 60 ft, with a foe in its reach or a ranged attack (it is about to attack)."""
    pool = {o.cid for o in bard.inspire_targets(battle, c)}
    n = len(battle.order)
    start = battle.order.index(c.cid) if c.cid in battle.order else 0
    for k in range(1, n + 1):
        cid = battle.order[(start + k) % n]
        if cid not in pool:
            continue
        o = battle.creatures[cid]
        if any(not a.melee for a in o.attacks) or _foe_within(battle, o, (o.melee_reach or 5) + battle.speed(o)):
            return o
    return None


def _feature_target(battle: Battle, c: Combatant, use: tuple, opts: list[Opt]) -> int:
    real = [i for i, o in enumerate(opts) if o.kind == "target"]
    if use[1] == "lay_on_hands":
        return min(real, key=lambda i: _support_key(battle, c, opts[i]))
    if use[1] == "inspire":
        ally = _next_ally(battle, c)
        for i in real:
            if ally is not None and opts[i].data[0] == ally.cid:
                return i
        return real[0]
    if use[1] == "intimidate":   # the strongest foe
        return max(real, key=lambda i: (battle.creatures[opts[i].data[0]].hp, -i))
    return min(real, key=lambda i: _target_key(battle, c, opts[i]))


def _best_form(opts: list[Opt]) -> int:
    """Wild Shape: the beast with the most hit points plus three rounds of its best attack (or
    its multiattack's attacks), AC as a tie-break."""

    def value(i):
        m = monster_combatant(opts[i].data[1], "x", "party", (0, 0, 0))
        best = max((expected_damage(a) for a in m.attacks), default=0.0)
        multi = sum(expected_damage(m.attack(k)) for k in m.multiattack if any(a.key == k for a in m.attacks))
        return (m.max_hp + 3 * max(best, multi), m.ac, -i)
    return max((i for i, o in enumerate(opts) if o.data and o.data[0] == "wild_shape_into"), key=value, default=0)


def _bonus_attack_value(c: Combatant, o: Opt) -> float:
    """Flurry of Blows (two strikes) while ki is left over for a Stunning Strike; none when the
    features are off."""
    if len(o.data) < 2 or o.data[1] != "flurry" or not PARTY_FEATURES:
        return 0.0 if len(o.data) < 2 or o.data[1] != "flurry" else -1.0
    reserve = 1 if "stunning_strike" in c.features else 0
    return 1.0 if c.resources.get("ki", 0) > reserve or c.economy.extra.get("flurry_left") else -1.0


def _rider_choice(battle: Battle, c: Combatant, opts: list[Opt]) -> int:
    """After a melee hit: Divine Smite, Stunning Strike or an Open Hand effect, or nothing."""
    none = next((i for i, o in enumerate(opts) if o.data[0] is False), len(opts) - 1)
    if not PARTY_FEATURES:
        return none
    st = battle.attack_state
    t = battle.creatures[st["target"]]
    crit = st["crit"]
    hit = _hit_average(st["attack"], crit)
    if t.hp <= hit:   # it drops anyway: keep the resources
        return none
    smites = {o.data[1][1]: i for i, o in enumerate(opts) if o.data[0] is True and o.data[1][0] == "smite"}
    if smites:
        per_die = 4.5 * (2 if crit else 1)
        for lv in sorted(smites):   # the lowest slot that finishes it
            if hit + per_die * paladin.smite_dice(lv, t) >= t.hp:
                return smites[lv]
        if crit or t.creature_type in ("undead", "fiend"):   # the highest slot that still adds a die
            useful = [lv for lv in smites if paladin.smite_dice(lv, t) > paladin.smite_dice(lv - 1, t) or lv == 1]
            return smites[max(useful)]
        if t.hp >= 2 * hit and sum(c.resources.get("slots", ())) > 1:   # a sturdy foe: the lowest slot
            return smites[min(smites)]
    for i, o in enumerate(opts):   # Quivering Palm on a foe too big to beat down quickly
        if o.data[0] is True and o.data[1][0] == "palm" and t.hp >= 50:
            return i
    for i, o in enumerate(opts):
        if o.data[0] is True and o.data[1][0] == "stun" and not t.incapacitated:
            return i
    for i, o in enumerate(opts):
        if o.data[0] is True and o.data[1][0] == "prone" and "prone" not in t.conditions:
            return i
    return none
