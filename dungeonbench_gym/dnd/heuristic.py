"""A deterministic planner that plays through the same option lists as any agent.

It is the adversary (it plays every enemy decision) and a baseline for the party. Rules of thumb:
drink a potion or take Second Wind when low; use an area attack when it catches two or more
foes and no friends (one foe for a recharge breath); attack with the best expected damage the
lowest-HP target in reach; otherwise move toward the nearest foe (or the objective), taking the
route that provokes the fewest opportunity attacks; Dash when nothing else is useful; always take
an opportunity attack. Casters: Spirit Guardians when two foes are within 15 ft, Spiritual Weapon
and its bonus-action attack, Misty Step out of melee, Hold Person on a sturdy humanoid, Bless
when three allies are in range, Scorching Ray while level-2 slots last, Sleep only when what it
would catch can all fall asleep, Turn Undead when two undead are within 30 ft; a monster's save
action when it catches a foe (a condition-only one: a foe without the condition yet). Bosses: a legendary heal when low, else a legendary attack.
The objective's object is used as soon as it is in reach; a hold objective sends the party into
its area first and keeps it there (it fights from squares inside). Same state, same choice: ties break by the canonical option order.
"""

from __future__ import annotations

from .engine import Battle, Opt, expected_damage
from .grid import SQUARE_FT, box_distance_ft, footprint
from .state import Combatant


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
        return _action(battle, c, opts)
    if kind == "target":
        use = battle.pending["use"]
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
        return next((i for i, o in enumerate(opts) if o.kind == "legendary" and "attack" in o.label),
                    len(opts) - 1)
    if kind == "destination":
        foes = _foes(battle, c)
        return min(range(len(opts)), key=lambda i: (_position_score(battle, c, opts[i].data[0], foes), i))
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
        return next(i for i, o in enumerate(opts) if o.data[0] is True)
    return 0


def _legendary_save_reaches(battle: Battle, c: Combatant, key: str) -> bool:
    """Whether a legendary save action would catch a foe: an emanation needs one inside its
    radius; a single-target or placed one is offered only with a target in reach."""
    from .engine import _monster_action
    spec = _monster_action(c, key)
    if spec.area is not None and spec.area.shape == "emanation":
        return any(o.conscious and battle.distance(c, o) <= spec.area.size for o in battle.enemies_of(c))
    return True


def _is_support(spell_key: str) -> bool:
    from . import content
    from .engine import BUFFS
    return bool(content.spell(spell_key).heal_at_slot_level) or spell_key in BUFFS


def _support_key(battle: Battle, c: Combatant, o: Opt):
    t = battle.creatures[o.data[0]]
    return (t.conscious, t.hp / t.max_hp, t is not c, t.cid)


def _target_key(battle: Battle, c: Combatant, o: Opt):
    t = battle.creatures[o.data[0]]
    return (not t.conscious, t.hp, battle.distance(c, t), t.cid)


# ------------------------------------------------------------------ the turn menu
def _action(battle: Battle, c: Combatant, opts: list[Opt]) -> int:
    by_kind: dict[str, list[int]] = {}
    for i, o in enumerate(opts):
        by_kind.setdefault(o.kind, []).append(i)
    e = c.economy

    def first(kind):
        return by_kind.get(kind, [None])[0]

    if first("interact") is not None:   # the objective's lever: always worth the free interaction
        return first("interact")
    if first("rampage") is not None:   # a free bonus bite after a kill
        return first("rampage")
    if first("aggressive") is not None and not any(
            battle.distance(c, o) <= c.melee_reach for o in battle.enemies_of(c) if o.conscious):
        return first("aggressive")   # an orc closes in with its bonus action
    if first("reckless") is not None and any(o.kind == "attack" and "queue" not in o.data for o in opts) \
            and any(battle.distance(c, o) <= c.melee_reach for o in battle.enemies_of(c) if o.conscious):
        return first("reckless")   # a foe in reach: advantage is worth being easier to hit
    low = c.hp <= 0.35 * c.max_hp
    if low and first("potion") is not None:
        return first("potion")
    if c.hp <= 0.5 * c.max_hp and first("second_wind") is not None:
        return first("second_wind")
    if first("stand") is not None:
        return first("stand")
    heal = _healing_choice(battle, c, opts, by_kind.get("spell", []))
    if heal is not None:
        return heal
    from . import content
    spells = by_kind.get("spell", [])
    near = sum(1 for o in battle.enemies_of(c) if o.conscious and battle.distance(c, o) <= 15)
    for i in spells:   # Spirit Guardians when two foes are close (it replaces Shield of Faith)
        if opts[i].data[0] == "spirit-guardians" and near >= 2 and c.concentration != "spirit-guardians":
            return i
    if first("spiritual_weapon") is not None:
        return first("spiritual_weapon")
    for i in spells:
        if opts[i].data[0] == "spiritual-weapon" and _foe_within(battle, c, 60):
            return i
    for i in spells:   # a wizard in melee steps away (bonus action)
        if opts[i].data[0] == "misty-step" and _foe_within(battle, c, 5):
            return i
    if c.concentration is None:
        for i in spells:   # Hold Person on a sturdy humanoid; Bless when three allies are close
            key = opts[i].data[0]
            if key == "hold-person" and any(t.hp >= 20 for t in battle._spell_targets(c, key)):
                return i
            if key == "bless" and len(battle._spell_targets(c, key)) >= 3 and _foe_within(battle, c, 60):
                return i
    for i in by_kind.get("spell", []):   # keep Shield of Faith up on self
        if opts[i].data[0] == "shield-of-faith" and c.concentration is None and \
                "shield_of_faith" not in c.conditions:
            return i
    if first("escape") is not None and not by_kind.get("attack"):
        return first("escape")
    if first("escape_web") is not None:   # restrained by webbing: burst it first
        return first("escape_web")
    # area attacks: breath weapons and area spells
    if first("turn_undead") is not None and len(battle._turnable(c)) >= 2:   # Channel Divinity
        return first("turn_undead")
    for i in by_kind.get("save_action", []):
        if _save_action_value(battle, c, opts[i].data[0]) >= 1:
            return i
    area_seen: dict = {}
    for i in spells:
        key, level = opts[i].data
        sp = content.spell(key)
        if sp.area is None:
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
    for i in spells:   # Scorching Ray while level-2 slots last, then the attack cantrip beats a dagger
        if opts[i].data[0] == "scorching-ray":
            return i
    for i in spells:
        if opts[i].data[0] == "fire-bolt":
            return i
    if first("multiattack") is not None:
        return first("multiattack")
    attacks = by_kind.get("attack", [])
    if attacks:
        return max(attacks, key=lambda i: (_attack_value(battle, c, opts[i]), -i))
    for i in spells:
        key, level = opts[i].data
        if key == "fire-bolt":
            return i
    for i in spells:
        if opts[i].data[0] in ("magic-missile", "sacred-flame"):
            return i
    if first("action_surge") is not None and e.actions == 0 and e.attacks_left == 0 and \
            _foe_in_reach(battle, c):
        return first("action_surge")
    move = first("move")
    if move is not None and _should_move(battle, c):
        return move
    if e.actions > 0 and first("dash") is not None and not _foe_in_reach(battle, c) and e.movement < SQUARE_FT:
        return first("dash")
    return first("end_turn")


def _attack_value(battle: Battle, c: Combatant, o: Opt) -> float:
    a = c.attack(o.data[0])
    melee_bonus = 0.5 if a.melee else 0.0   # prefer melee when both reach: no close-range disadvantage
    return expected_damage(a) + melee_bonus


def _foe_within(battle: Battle, c: Combatant, feet: int) -> bool:
    return any(battle.distance(c, o) <= feet for o in battle.enemies_of(c) if o.conscious)


def _foe_in_reach(battle: Battle, c: Combatant) -> bool:
    reach = c.melee_reach
    return any(battle.distance(c, o) <= reach for o in battle.enemies_of(c) if o.conscious)


def _ranged_minded(c: Combatant) -> bool:
    """Casters keep their distance; everyone else closes in."""
    return bool(c.spells)


def _foes(battle: Battle, c: Combatant) -> list:
    """(position, squares) of the foes to close with: the conscious ones, else any left."""
    foes = [o for o in battle.enemies_of(c) if o.conscious] or battle.enemies_of(c)
    return [(o.pos, o.squares) for o in foes]


def _position_score(battle: Battle, c: Combatant, pos: tuple, foes: list | None = None) -> tuple:
    obj = battle.objective
    if obj["type"] in ("reach", "interact") and c.side == battle.party_side:
        cells = [tuple(x) for x in obj["cells"]] if obj["type"] == "reach" else [tuple(obj["object"])]
        d = min(battle.map.distance_ft(footprint(pos[0], pos[1], c.squares), [cell], pos[2], None)
                for cell in cells)
        return (d, 0)
    if obj["type"] == "hold" and c.side == battle.party_side:
        # get into the area first; inside it, fight from the best square that stays inside
        d = min(battle.map.distance_ft(footprint(pos[0], pos[1], c.squares), [tuple(x)], pos[2], None)
                for x in obj["cells"])
        return (d,) + _fight_score(battle, c, pos, foes)
    return _fight_score(battle, c, pos, foes)


def _fight_score(battle: Battle, c: Combatant, pos: tuple, foes: list | None = None) -> tuple:
    if foes is None:
        foes = _foes(battle, c)
    if not foes:
        return (0, 0)
    n = c.squares
    d = min(box_distance_ft(pos[0], pos[1], n, pos[2], fp[0], fp[1], fn, fp[2]) for fp, fn in foes)
    if _ranged_minded(c):
        return (0 if 10 <= d <= 60 else abs(d - 30), -d)
    reach = c.melee_reach or SQUARE_FT
    return (max(0, d - reach), d)


def _should_move(battle: Battle, c: Combatant) -> bool:
    foes = _foes(battle, c)
    here = _position_score(battle, c, c.pos, foes)
    hold = battle.objective["type"] == "hold" and c.side == battle.party_side
    goal = battle.objective["type"] in ("reach", "interact") and c.side == battle.party_side
    if here[0] == 0 and not goal and (not hold or here[1] == 0):
        return False
    r = battle._reach(c)
    return any(_position_score(battle, c, p, foes) < here for p in r.destinations)


# ------------------------------------------------------------------ areas
def _area_value(battle: Battle, c: Combatant, use: tuple, where) -> int:
    hits = battle.area_hits(c, use, where)
    foes = sum(1 for o in hits if o.side != c.side and o.conscious)
    friends = sum(1 for o in hits if o.side == c.side)
    return foes - 3 * friends


def _save_action_value(battle: Battle, c: Combatant, key: str) -> int:
    """Foes a monster's save action would catch (for a condition-only one: those without it yet)."""
    from .engine import _monster_action
    spec = _monster_action(c, key)
    use = ("save_action", key)
    if spec.area is None:
        hits = battle._save_targets(c, spec)
    elif spec.area.shape in ("emanation", "own_space"):
        hits = [o for o in battle.area_hits(c, use, None) if not battle._save_exempt(c, spec, o)]
        if spec.chosen_creatures:
            hits = [o for o in hits if o.side != c.side]
    elif spec.area.shape in ("sphere", "cylinder"):
        return _best_point(battle, c, use)[0]
    else:
        return _best_direction_value(battle, c, use)
    if not spec.save.damage:
        hits = [o for o in hits if not all(k in o.conditions for k in spec.save.conditions)]
    return sum(1 if o.side != c.side else -3 for o in hits if o.conscious)


def _best_direction_value(battle: Battle, c: Combatant, use: tuple) -> int:
    from .areas import DIRECTIONS_8
    return max(_area_value(battle, c, use, d) for d in DIRECTIONS_8)


_POINT_MEMO: dict = {}


def _best_point(battle: Battle, c: Combatant, use: tuple):
    """(value, point) of the best placement; only points near foes are worth scoring. Memoised
    while nobody moves or drops (a turn's menus ask the same question again and again)."""
    key = (id(battle), battle.map.name, use[1], c.cid, tuple((o.cid, o.pos, o.conscious) for o in battle.creatures.values()))
    hit = _POINT_MEMO.get(key)
    if hit is None:
        if len(_POINT_MEMO) > 64:
            _POINT_MEMO.clear()
        hit = _POINT_MEMO[key] = _best_point_uncached(battle, c, use)
    return hit


def _best_point_uncached(battle: Battle, c: Combatant, use: tuple):
    from . import content
    from .engine import _monster_action
    rng = content.spell(use[1]).range_feet or 0 if use[0] == "spell" else \
        min(_monster_action(c, use[1]).range or 30, 5 * (battle.map.width + battle.map.height))
    foes = [o for o in battle.enemies_of(c) if o.conscious]
    near = sorted({(o.pos[0] + dx, o.pos[1] + dy) for o in foes for dx in range(-2, 3) for dy in range(-2, 3)},
                  key=lambda p: (p[1], p[0]))   # the engine's point order: y, then x
    near = [p for p in near if battle.point_ok(c, p[0], p[1], rng)]
    best = (-99, near[0] if near else c.pos[:2])
    for p in near:
        v = _area_value(battle, c, use, p)
        if v > best[0]:
            best = (v, p)
    return best


def _healing_choice(battle: Battle, c: Combatant, opts: list[Opt], spells: list[int]):
    """A healing spell when an ally (or self) is dying or below a third of its HP: the lowest
    slot, a bonus-action one first (it leaves the action free)."""
    from . import content
    from .engine import BUFFS
    hurt = [o for o in battle.creatures.values()
            if o.side == c.side and not o.dead and (o.hp == 0 or o.hp <= o.max_hp / 3)]
    if not hurt:
        return None
    best = None
    for i in spells:
        key, level = opts[i].data
        sp = content.spell(key)
        if not sp.heal_at_slot_level or key in BUFFS:
            continue
        targets = {t.cid for t in battle._spell_targets(c, key)}
        if not any(o.cid in targets for o in hurt):
            continue
        rank = (sp.casting_time != "bonus_action", level, i)
        if best is None or rank < best[0]:
            best = (rank, i)
    return None if best is None else best[1]
