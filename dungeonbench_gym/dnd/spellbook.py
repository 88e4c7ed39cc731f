"""Data-driven spells: the interpreter the engine calls for every spell without bespoke code.

What each SRD spell does in a battle is one row of ``content/data/spell_mechanics.json`` (our own
authored facts, one entry per SRD spell). Dice, save ability, half-on-success, area, range,
casting time, concentration and duration come from the SRD data (:func:`content.spell`); the
table adds what the data lacks: the mechanism, the condition a failed save imposes, how many
targets (and how many more per slot level), who is exempt, a zone's behaviour. A row is either

* ``{"mech": ...}``: a mechanism this module runs (``engine``: the engine's own casting code, dnd/battle/casting.py, reading the row's facts: rules/spell_data.py),
* ``{"not_yet": why}``: combat-relevant, but its mechanism is not built,
* ``{"out": reason}``: out of scope (see :data:`.rules.spell_data.OUT_REASONS`).

Mechanisms: ``attack`` (spell attack rolls, Eldritch Blast beams, Vampiric Touch's healing; ``on_hit``:
riders of a hit, as the attack profile's ``on_hit`` entries: Ray of Frost's ``["mark", "slowed"]``),
``save`` (one or more targets, damage half/none and/or a condition with a repeat save), ``word``
(no save under an HP threshold), ``area`` (the SRD shape placed by a point or a direction, damage
and/or a condition, ``push``: feet a failed save pushes a creature away, Thunderwave; ``zone``: it
stays, hurting those who start a turn in it, and may drift away from the caster), ``pool`` (an HP
pool of the row's ``dice`` + ``pool_per_level`` takes creatures lowest HP first: Color Spray, Sleep;
its exemptions are the row's ``not_types``, ``immune_as``), ``heal``, ``temp_hp``, ``max_hp``,
``stabilize``, ``cure``, ``revive``, ``buff`` and ``mark`` (a condition with flags the engine reads:
``ac``, ``ac_min``, ``speed``, ``speed_double``, ``speed_half``, ``speed_zero``, ``attacked_adv``,
``attacked_adv_by_caster``, ``attacked_dis``, ``attacked_dis_types``, ``attack_dis``, ``resist``,
``resist_nonmagical``, ``save``, ``ends_on_attack``, ``ends_on_damage``, ``temp_each_turn``; weapon
riders ``hit_dice`` (``once``, ``reveals``), ``marked_dice`` (``marked_any``: any attack), ``weapon_plus``;
``fly``, ``save_die``, ``save_adv``/``save_dis`` (``save_adv_vs``: against a condition), ``sees_invisible``,
``death_ward``, ``images`` (Mirror Image), ``retort`` (Fire Shield), ``bonus_dash``, ``no_spells``;
a row's ``unarmored``: only on a creature without armour, Mage Armor),
``dispel`` (Dispel Magic), ``summon`` (Conjure Animals: new combatants on the caster's side),
``tiers`` (Divine Word). A row's ``summary`` replaces the mechanism's menu note
(:func:`.rules.spell_data.summary`). Walls (``wall``: Wall of Fire) are placed by a point, then a direction;
the mechanism ``wall`` (a ``barrier`` entry: Wall of Force, Stone, Ice, Prismatic Wall, Passwall)
changes the battle's map (:mod:`.spell_walls`).
``repeat_damage``: the repeat save hurts on a failure (Phantasmal Killer). ``no_cover``: the target
gains no benefit from cover on its save (Sacred Flame). ``recall``: later turns
may spend the action on the same effect again without a slot (Call Lightning). Counterspell (``counter``)
lives in :mod:`.spell_counter`; removal, domination, confusion, long teleports, escapes and Wish
(``control``) in :mod:`.spell_control`; Tree Stride, Transport via Plants and Plant Growth, which use
the map's trees and plants (``plants``), in :mod:`.spell_plants`.

The engine reaches this module through :func:`.rules.spell_data.handles`; the row data and the
helpers every mechanism reads are in :mod:`.rules.spell_data`. Options and decisions stay the
engine's (action -> slot level -> target(s) / point_x, point_y / direction).
"""

from __future__ import annotations

# spell_summons: the "summon" mechanism's creatures; spell_wards: Magic Circle's guard against charm and
# fear; monster_traits: a tarrasque's Reflective Carapace
from . import areas, content, spell_buffs, spell_summons, spell_wards
from .classes import dispatch
from .grid import SIZE_SQUARES, SQUARE_FT
from .model.factories import build_monster
from .model.options import Opt
from .model.weapons import has_metal
from .monster_traits import dispatch as monster_traits
from .rules import hooks
from .rules.hooks import SPELL_MECHANISMS, SPELL_SCREENS
from .rules.spell_data import OUT_REASONS, beams, dice, extra_targets
from .rules.spell_data import free_squares as _free_squares
from .rules.spell_data import mech, on_hit, pool_dice
from .rules.spell_data import reveal as _reveal
from .rules.spell_data import shape as _shape
from .rules.spell_data import spell as _spell
from .rules.spell_data import summary as spell_summary
from .rules.spell_data import table
from .state import AttackProfile, DamagePart

# conditions that stop a creature's concentration and its grapples
_HELPLESS = ("incapacitated", "paralyzed", "stunned", "unconscious", "petrified")


def _mechanism(kind: str):
    """The registered mechanism ``kind`` (None: the spellbook's own)."""
    if not SPELL_MECHANISMS.frozen:
        raise RuntimeError("the spell mechanisms are not registered yet: import dungeonbench_gym.dnd.engine")
    return SPELL_MECHANISMS.entries.get(kind)


def _dc(c) -> int:
    return c.resources["spell_dc"]


# ================================================================ who and where
def placement(key: str) -> str:
    """How the spell is aimed: "target", "point", "direction" or "self"."""
    m, sp = mech(key), _spell(key)
    if m.get("place"):   # Storm of Vengeance: centred over the caster (its area covers any map)
        return m["place"]
    if m["mech"] in ("summon", "tiers", "pool_heal"):
        return "self"
    own = _mechanism(m["mech"])   # a mechanism of its own module (polymorph, control, light, ...)
    if own is not None and own.placement is not None:
        return own.placement(key)
    if m["mech"] not in ("area", "zone", "pool"):   # zone: a lasting area without a save (dnd/spell_zones.py)
        return "target"
    shape = m.get("shape") or sp.area.shape
    if sp.range_kind == "self":
        return "self" if shape in ("sphere", "cylinder", "emanation") else "direction"
    return "point"


def area(b, c, key: str, where, anchor=None) -> areas.Area:
    """The area a placement covers: a sphere/cylinder (as a sphere of its radius) on a point, a
    placed cube from a point (its corner), a cone/line/cube from the caster in a direction, a wall
    (a line) from its anchor point in a direction."""
    own = _mechanism(mech(key)["mech"])   # a control spell's own shape, a wall the map gains
    if own is not None and own.area is not None:
        return own.area(b, c, key, where, anchor)
    shape, size = _shape(key)
    if where is None:
        return areas.emanation(c.cells, size, c.pos[2])
    if mech(key).get("wall"):
        if where not in areas.DIRECTIONS_8:   # a point (the planner's look-ahead): face east from it
            anchor, where = where[:2], (1, 0, 0)
        cells = [tuple(anchor[:2])] if anchor is not None else c.cells
        z = areas.ground_z_at_point(b.map, *cells[0]) if anchor is not None else c.pos[2]
        return areas.line(cells, size, where, 5, z)
    if placement(key) == "direction":
        if shape == "cone":
            return areas.cone(c.cells, size, where, c.pos[2])
        if shape == "line":
            return areas.line(c.cells, size, where, 5, c.pos[2])
        if shape == "cube":
            return areas.cube_from(c.cells, size, where, c.pos[2])
        return areas.cone(c.cells, size, where, c.pos[2])   # Color Spray's cone
    if shape == "cube":
        z = where[2] if len(where) > 2 else areas.ground_z_at_point(b.map, where[0], where[1])
        return areas.cube_at((where[0], where[1]), size, z)
    return areas.sphere(where, size, b.map)


def _exempt(key: str, t) -> bool:
    m = mech(key)
    if t.creature_type in m.get("not_types", ()) or ("types" in m and t.creature_type not in m["types"]):
        return True
    if m.get("needs_metal") and not has_metal(t):   # Heat Metal
        return True
    if not m.get("min_int", 0) <= t.abilities.get("int", 10) < m.get("max_int", 99):   # Animal Friendship: Int < 4
        return True
    if m.get("immune_as") in t.condition_immunities:   # Irresistible Dance: not those immune to charm
        return True
    if t.squares > m.get("max_squares", 8):   # Forcecage, Resilient Sphere: Large or smaller
        return True
    cond = m.get("condition")
    return bool(cond and cond in t.condition_immunities and not m.get("flags"))


def targets(b, c, key: str, first: bool = False, level: int | None = None) -> list:
    """Creatures the spell may target now (in range, not behind total cover, not exempt);
    ``first``: at most the first of them (is there anyone?); ``level``: the slot level when it is
    chosen (Limited Magic Immunity and a Globe of Invulnerability stop spells by it)."""
    m, sp = mech(key), _spell(key)
    kind = m["mech"]
    own = _mechanism(kind)   # Polymorph's allies or foes, Water Walk's willing creatures, Light's touch
    if own is not None and own.targets is not None:
        return own.targets(b, c, key)
    rng = m.get("range") or (SQUARE_FT if sp.range_kind == "touch" else (sp.range_feet or 0))
    rng = dispatch.spell_range(c, key, rng)   # Eldritch Spear, Distant Spell
    if kind == "revive":   # Revivify: a PC ally dead for at most a minute (10 rounds)
        pool = [o for o in b.creatures.values() if o.side == c.side and o.dead and o.is_pc
                and o.creature_type not in ("undead", "construct") and b.round - _died_round(b, o) <= 10]
    elif kind in ("heal", "temp_hp", "max_hp", "buff", "stabilize", "cure"):
        pool = [o for o in b.creatures.values() if o.side == c.side and not o.dead]
        if kind == "heal":
            pool = [o for o in pool if o.hp < o.max_hp and "no_heal" not in o.conditions]
        elif kind == "stabilize":
            pool = [o for o in pool if o.hp == 0 and not o.stable
                    and "suffocating" not in o.conditions]   # (SRD Suffocating: not until it breathes)
        elif kind == "cure":
            pool = [o for o in pool if any(k in o.conditions for k in m["cures"]) or
                    (m.get("exhaustion") and o.exhaustion)]
        elif kind in ("buff", "max_hp"):
            tag = m.get("condition", key)
            pool = [o for o in pool if tag not in o.conditions and key not in o.conditions]
            if m.get("self") or (sp.range_kind == "self" and not m.get("range")):   # Holy Aura: 30 ft
                pool = [o for o in pool if o is c]
            if m.get("unarmored"):   # Mage Armor: a creature not wearing armour
                pool = [o for o in pool if not o.armored]
        elif kind == "temp_hp" and sp.range_kind == "self":
            pool = [c]
    elif kind == "dispel":   # a creature carrying a spell from the other side (or this side's foes' buffs)
        pool = [o for o in b.creatures.values() if not o.dead and _spells_on(b, o, c)]
    else:
        pool = [o for o in b.enemies_of(c) if b.may_target(c, o) and not _exempt(key, o)]
        if m.get("condition") and not sp.damage_at_slot_level and not sp.damage_at_character_level:
            pool = [o for o in pool if m["condition"] not in o.conditions]   # a pure debuff: not twice
    for screen in SPELL_SCREENS:   # an Antimagic Field, a Globe, Limited Magic Immunity (rules/hooks.py)
        pool = screen(b, c, key, pool, level)
    ok = (t for t in pool if (t is c or b.distance(c, t) <= rng) and b.line_of_effect(c, t))
    if first:
        t = next(ok, None)
        return [] if t is None else [t]
    return list(ok)


def _died_round(b, t) -> int:
    """The round t died in (from the event log); far in the past when unknown."""
    rnd, out = 0, -10 ** 6
    for e in b.log:
        if e.get("event") == "round":
            rnd = e["round"]
        elif e.get("event") == "death" and e.get("creature") == t.cid:
            out = rnd
    return out


def _spells_on(b, t, c) -> list:
    """The spell effects on t worth dispelling for c: those kept up by c's foes."""
    out = []
    for k, v in sorted(t.conditions.items()):
        by = b.creatures.get(v.get("by"))
        if v.get("spell") and by is not None and by.side != c.side:
            out.append(k)
    return out


def available(b, c, key: str, level: int) -> bool:
    """Whether the spell can be cast usefully now (someone to target, somewhere to place it)."""
    if _spell(key).casting_time not in ("action", "bonus_action"):   # a minute or more: not in a battle
        return False
    if mech(key)["mech"] in ("day", "reaction"):   # not an action in a battle (dnd/spell_buffs.py)
        return False
    if mech(key)["mech"] == "pool_heal":   # Mass Heal: someone of the caster's side to heal
        return bool(spell_buffs.pool_heal_targets(b, c, key))
    own = _mechanism(mech(key)["mech"])   # water to cross, trees on the map, a battle not bright, ...
    if own is not None and own.available is not None:
        return own.available(b, c, key, level)
    if mech(key)["mech"] == "summon":
        return bool(_free_squares(b, c, 1, 2))
    if mech(key)["mech"] == "tiers":
        return bool(targets(b, c, key, first=True))
    return placed_available(b, c, key)


def placed_available(b, c, key: str) -> bool:
    """Whether the spell has somewhere to go: a target now, a point in range, or itself."""
    where = placement(key)
    if where == "target":
        return bool(targets(b, c, key, first=True))
    if where == "point":
        return b.point_ok(c, c.pos[0], c.pos[1], _spell(key).range_feet or 0)
    return True


def begin(b, c, key: str, level: int) -> None:
    """The cast option was chosen: ask for the target or the placement, or resolve at once."""
    use = ("spell", key, level)
    own = _mechanism(mech(key)["mech"])
    if own is not None and own.begin is not None and own.begin(b, c, key, level):
        return   # the mechanism asks its own questions (Banishment's plane, Tree Stride's trees)
    where = placement(key)
    if where == "target":
        b.pending = {"kind": "target", "actor": c.cid, "use": use}
    elif where == "point":
        b.pending = {"kind": "point_x", "actor": c.cid, "use": use}
    elif where == "direction":
        b.pending = {"kind": "direction", "actor": c.cid, "use": use}
    else:
        resolve_area(b, c, use, None)


def summary(c, key: str, level: int) -> str:
    m, sp = mech(key), _spell(key)
    if "creature" in m or "choice" in m:   # an authored summons (dnd/spell_summons.py)
        return spell_summons.summary(c, key, level)
    own = _mechanism(m["mech"])
    if own is not None and own.summary is not None:
        return own.summary(c, key, level)
    note = spell_summary(c, key, level)   # the row's own note (Bless's +1d4, Sleep's pool)
    if note is not None:
        return note
    bits = []
    dmg = dice(c, key, level)
    if m["mech"] == "attack":
        bits.append(f"{c.resources['spell_attack']:+d}, {dmg} {sp.damage_type}")
        if "beams" in m:
            bits.append(f"{beams(key, c.level)} beams")
    elif m["mech"] in ("save", "area"):
        ability = m.get("save") or sp.save_ability
        bits.append(f"DC {_dc(c)} {ability.upper()}")
        if dmg:
            bits.append(f"{dmg} {sp.damage_type}" + (" (half on a save)" if sp.save_success == "half" else ""))
        if m.get("condition"):
            bits.append(m["condition"])
        if m.get("push"):   # Thunderwave, Gust of Wind
            bits.append(f"pushed {m['push']} ft on a failure")
        if m["mech"] == "area":
            shape, size = _shape(key)
            bits.append(f"{size}-ft {shape}")
    elif m["mech"] == "word":
        bits.append(f"{'dies' if m.get('kill') else m['condition']} at {m['hp_max']} HP or fewer, no save")
    elif m["mech"] == "pool":
        bits.append(f"{pool_dice(key, level)} HP of creatures {m['condition']}")
    elif m["mech"] in ("heal", "temp_hp", "max_hp"):
        what = {"heal": "heal", "temp_hp": "temporary HP", "max_hp": "+max HP"}[m["mech"]]
        add = f"{c.resources['spell_mod']:+d}" if sp.heal_adds_modifier else ""
        bits.append(f"{what} {sp.heal_for(level)}{add}")
    elif m["mech"] == "buff":
        bits.append(m["condition"])
    elif m["mech"] == "cure":
        bits.append("ends " + "/".join(m["cures"]))
    elif m["mech"] == "dispel":
        bits.append(f"ends spells of level {level} or lower on a creature, a check for higher ones")
    elif m["mech"] == "summon":
        count = m["count"] * m.get("upcast", {}).get(str(level), 1)
        bits.append(f"conjures {count} {m['monster']}")
    elif m["mech"] == "mark":
        bits.append(f"{m['condition']} (no save)")
    elif m["mech"] == "tiers":
        bits.append(f"DC {_dc(c)} {sp.save_ability.upper()}, each foe within {sp.range_feet} ft: by its HP, "
                    + "; ".join(f"<={hp} {'/'.join(cs)}" for hp, cs, _ in m["tiers"]))
    elif m["mech"] == "revive":
        bits.append("a creature dead for at most a minute returns with 1 HP")
    elif m["mech"] == "pool_heal":
        bits.append(f"{m['pool']} HP shared out to allies within {m['range']} ft, the most hurt first")
    else:
        bits.append("stabilize a dying creature")
    n = extra_targets(key, level)
    if n > 0 and placement(key) == "target":
        bits.append(f"up to {n + 1} targets")
    if sp.concentration:
        bits.append("concentration")
    return ", ".join(bits)


# ================================================================ riders the engine reads
def hit_parts(b, c, t, a) -> list:
    """Extra damage of spells on a weapon hit by c on t: c's own (Divine Favor; Branding Smite,
    which then ends and makes t visible) and t's mark from c (Hunter's Mark, of the weapon's type).
    Returned before the roll, so a critical hit doubles these dice like the weapon's."""
    if not a.damage:
        return []
    out = []
    for k, v in sorted(t.conditions.items()):   # Bestow Curse: any attack of the caster's
        if v.get("marked_any") and v.get("by") == c.cid:
            out.append(DamagePart(v["marked_dice"], v["marked_type"]))
    if a.key in table():   # a spell attack, not a weapon attack: the rest are weapon riders
        return out
    for k, v in sorted(c.conditions.items()):
        if v.get("hit_dice"):
            out.append(DamagePart(v["hit_dice"], v.get("hit_type") or a.damage[0].type))
            b.event("spell_rider", f"{c.cid}'s {v.get('spell', k)} adds {v['hit_dice']}", creature=c.cid)
            if v.get("once"):
                del c.conditions[k]
                if c.concentration == v.get("spell"):
                    c.concentration = None
            if v.get("reveals"):
                t.conditions.pop("invisible", None)
    for k, v in sorted(t.conditions.items()):
        if v.get("marked_dice") and v.get("by") == c.cid and not v.get("marked_any"):
            out.append(DamagePart(v["marked_dice"], a.damage[0].type))
    plus = attack_bonus(c, a)
    if plus:   # Magic Weapon: the bonus to damage as well
        out.append(DamagePart(str(plus), a.damage[0].type))
    return out


def retort(b, c, t) -> None:
    """Fire Shield: a creature within 5 ft that hits t with a melee attack takes the shield's damage."""
    for v in [v for v in t.conditions.values() if v.get("retort")]:
        if not c.dead and b.distance(c, t) <= SQUARE_FT:
            dice_, dtype = v["retort"]
            b.damage(c, b.roller.roll_damage(dice_, what=f"fire shield {t.cid}"), dtype, magical=True, source=t.cid)


def bonus_dash(c) -> bool:
    """Expeditious Retreat: Dash as a bonus action on each turn while it lasts."""
    return any(v.get("bonus_dash") for v in c.conditions.values())


def weapon_form(c, a):
    """Shillelagh: a club or quarterstaff attacks with the spellcasting ability (the spell attack
    bonus), deals 1d8 + that modifier and counts as magical."""
    if a.key in ("club", "quarterstaff") and any(v.get("shillelagh") for v in c.conditions.values()):
        mod = c.resources.get("spell_mod", 0)
        return a._replace(to_hit=c.resources.get("spell_attack", a.to_hit), spell=True,
                          damage=(DamagePart(f"1d8{mod:+d}" if mod else "1d8", a.damage[0].type),) + a.damage[1:])
    return a


def attack_bonus(c, a) -> int:
    """Magic Weapon's bonus to a weapon attack's roll (and damage)."""
    if a.key in table():
        return 0
    return max([0] + [v["weapon_plus"] for v in c.conditions.values() if v.get("weapon_plus")])


def save_mode(t, ability: str, flag: str, against=()) -> bool:
    """Holy Aura (advantage on every save), Irresistible Dance (disadvantage on Dex saves),
    Protection from Poison (advantage against being poisoned: ``flag`` + "_vs")."""
    return any(ability in v.get(flag, ()) or "all" in v.get(flag, ()) or any(x in v.get(flag + "_vs", ()) for x in against)
               for v in t.conditions.values())


def save_bonus(b, t) -> int:
    """A die added to t's save by a spell on it (Resistance: 1d4 once, then the spell ends)."""
    total = 0
    for k, v in sorted(t.conditions.items()):
        if v.get("save_die"):
            total += b.roller.roll(v["save_die"], what=f"{v.get('spell', k)} {t.cid}")
            del t.conditions[k]
            by = b.creatures.get(v.get("by"))
            if by is not None and by.concentration == v.get("spell"):
                by.concentration = None
    return total


def ward_from_death(b, t) -> bool:
    """Death Ward: the first drop to 0 HP from damage leaves t at 1 HP instead, and the spell ends."""
    for k, v in sorted(t.conditions.items()):
        if v.get("death_ward"):
            del t.conditions[k]
            b.event("death_ward", f"{t.cid} drops to 1 HP instead of 0 (death ward)", creature=t.cid)
            return True
    return False


def images_take(b, c, t, a) -> bool:
    """Mirror Image: a d20 decides whether c's attack on t targets a duplicate instead (6+ with
    three left, 8+ with two, 11+ with one); a duplicate has AC 10 + t's Dex modifier and a hit
    destroys it. True when a duplicate took the attack (t is not hit)."""
    v = next((v for v in t.conditions.values() if v.get("images")), None)
    if v is None or "blinded" in c.conditions:
        return False
    if v.get("uniform"):   # a cloaker's Phantasms: one of it and its duplicates at random, each with its AC
        if b.roller.roll(f"1d{v['images'] + 1}", what=f"phantasms {t.cid}") == 1:
            return False
    elif b.roller.roll_d20(what=f"mirror image {t.cid}").total < {3: 6, 2: 8, 1: 11}[v["images"]]:
        return False
    dup_ac = v.get("ac", 10 + t.dex_mod)
    roll = b.roller.roll_d20(bonus=a.to_hit, what=f"attack {c.cid}->{t.cid} duplicate")
    hit = roll.natural != 1 and (roll.natural == 20 or roll.total >= dup_ac)
    b.event("attack", f"{c.cid}'s {a.key} targets a duplicate of {t.cid} and {'destroys' if hit else 'misses'} "
            f"it ({roll.total} vs AC {dup_ac})", attacker=c.cid, target=t.cid, attack=a.key, hit=False,
            critical=False, total=roll.total, ac=dup_ac)
    if hit:
        v["images"] -= 1
        if not v["images"]:
            t.conditions.pop(next(k for k, w in t.conditions.items() if w is v))
    return True


def no_spells(c) -> bool:
    """Feeblemind: the creature cannot cast spells."""
    return any(v.get("no_spells") for v in c.conditions.values())


def fly_speed(c) -> int:
    """The fly speed a spell grants (Fly: 60 ft), else the creature's own."""
    return max([c.fly] + [v["fly"] for v in c.conditions.values() if v.get("fly")])


# ================================================================ resolving


def cast_at(b, c, key: str, level: int, t):
    """The first target was chosen: pay, resolve, and ask for further targets if any. Returns
    like the engine's ``_cast_at``: True when done, None when a further decision is pending."""
    own = _mechanism(mech(key)["mech"])   # Polymorph's form is the next decision; Light, Darkvision
    if own is not None and own.cast_at is not None:
        return own.cast_at(b, c, key, level, t)
    b.pay_spell(c, key, level)
    _reveal(c)
    m = mech(key)
    left = extra_targets(key, level) + (beams(key, c.level) - 1 if m["mech"] == "attack" else 0)   # Scorching Ray's rays
    hit = effect(b, c, key, level, t)
    if hit is None:
        return None   # a reaction (Shield) interrupts; further beams are lost
    if left > 0 and b.outcome is None:
        b.more_targets(c, key, level, left, () if m["mech"] == "attack" else (t.cid,))
        return None
    return True


def more(b, c, use: tuple, t) -> None:
    """A further target (the engine's "more" decision)."""
    _, key, level, left, chosen = use
    own = _mechanism(mech(key)["mech"])
    if own is not None and own.more is not None:
        own.more(b, c, use, t)
        return
    if effect(b, c, key, level, t) is None:
        return
    chosen = chosen if mech(key)["mech"] == "attack" else chosen + (t.cid,)
    b.more_targets(c, key, level, left - 1, chosen)


def effect(b, c, key: str, level: int, t):
    """One target's share of the spell; None when the engine waits on a reaction."""
    m, sp = mech(key), _spell(key)
    kind = m["mech"]
    dmg = dice(c, key, level)
    if kind == "attack":
        rng = dispatch.spell_range(c, key, m.get("range") or sp.range_feet or 0)   # (Eldritch Spear)
        profile = AttackProfile(key, sp.name, c.resources["spell_attack"],
                                (DamagePart(dmg, sp.damage_type),) if dmg else (),   # Ray of Enfeeblement: none
                                sp.attack_type == "melee", SQUARE_FT, rng, rng,
                                spell=True, on_hit=on_hit(key))   # riders on a hit (Ray of Frost's slowing)
        before = t.hp
        out = b.make_attack(c, profile, t, melee=sp.attack_type == "melee", then="menu")
        if out and m.get("heal_half") and before > t.hp:   # Vampiric Touch: half the damage dealt
            b.heal(c, (before - t.hp) // 2, key)
        if out and m.get("condition") and not t.dead:   # a hit leaves the spell's condition (Contagion)
            impose(b, c, key, t, m.get("repeat"), level)
        return out
    if kind == "save":
        ok = b.saving_throw(t, sp.save_ability, _dc(c), magic=True, big=level > 0 or bool(m.get("condition")),
                            condition=m.get("condition"),   # what a failure imposes (Steel Will: fear)
                            origin=None if m.get("no_cover") else c)   # a Dex save's cover (not Sacred Flame's)
        if dmg and not m.get("repeat_damage"):
            amount = b.roller.roll_damage(dmg, what=f"damage {key} {sp.damage_type}")
            if ok and not m.get("damage_always"):   # Feeblemind: the damage comes before its save
                amount = amount // 2 if sp.save_success == "half" or dispatch.potent(c, sp) else 0
            if m.get("leave_at_least") and amount:   # Harm can't reduce it below 1 HP
                amount = min(amount, max(0, t.hp - m["leave_at_least"]) + t.temp_hp)
            if amount:
                b.damage(t, amount, sp.damage_type, magical=True, source=c.cid)
        if not ok and m.get("condition"):
            impose(b, c, key, t, sp.save_ability, level)
        return True
    if kind == "word":
        if t.hp > m["hp_max"]:
            b.event("spell", f"{t.cid} has too many hit points for {key}", creature=t.cid)
        elif m.get("kill"):
            b.die(t, key)
        else:
            impose(b, c, key, t, m["repeat"], level)
        return True
    if kind == "heal":
        amount = max(1, spell_buffs.heal_roll(b, t, sp.heal_for(level), f"heal {key}")   # Beacon of Hope
                     + (c.resources["spell_mod"] if sp.heal_adds_modifier else 0))
        b.heal(t, amount, key)
        _cure(b, t, m.get("cures", ()))
        return True
    if kind == "temp_hp":   # temporary HP don't stack: keep the higher
        amount = b.roller.roll(sp.heal_for(level), what=f"temp hp {key}")
        t.temp_hp = max(t.temp_hp, amount)
        b.event("temp_hp", f"{t.cid} has {t.temp_hp} temporary HP ({key})", creature=t.cid, amount=t.temp_hp)
        return True
    if kind == "max_hp":   # Aid: maximum and current HP rise for the duration
        amount = int(sp.heal_for(level))
        t.max_hp += amount
        t.hp += amount
        t.conditions[key] = {"by": c.cid, "spell": key, "max_hp": amount}   # 8 hours: the whole battle
        b.event("condition", f"{t.cid}'s HP maximum rises by {amount} ({key})", creature=t.cid, condition=key)
        return True
    if kind == "stabilize":
        t.stable = True
        t.death_successes = t.death_failures = 0
        b.event("stable", f"{t.cid} is stable ({key})", creature=t.cid)
        return True
    if kind == "cure":
        _cure(b, t, m["cures"])
        if m.get("exhaustion") and t.exhaustion:
            lvl = t.exhaustion - m["exhaustion"]
            if lvl > 0:
                t.conditions["exhaustion"]["level"] = lvl
            else:
                del t.conditions["exhaustion"]
            b.event("condition_end", f"{t.cid}'s exhaustion falls to {max(0, lvl)}", creature=t.cid,
                    condition="exhaustion")
        return True
    if kind == "buff":
        impose(b, c, key, t, None, level)
        _cure(b, t, m.get("cures", ()))   # Protection from Poison
        return True
    if kind == "dispel":
        dispel(b, c, t, level)
        return True
    if kind == "mark":   # no save: True Strike's insight into a foe's defences
        impose(b, c, key, t, None, level)
        return True
    if kind == "revive":
        t.dead, t.hp, t.stable = False, 1, False
        t.death_successes = t.death_failures = 0
        t.conditions.pop("unconscious", None)
        b.event("revive", f"{t.cid} returns to life with 1 HP ({key})", creature=t.cid)
        return True
    own = _mechanism(kind)   # Heat Metal, Water Walk, Water Breathing
    if own is not None and own.effect is not None:
        return own.effect(b, c, key, level, t)
    raise ValueError(f"{key}: mechanism {kind!r} has no single-target effect")


def _cure(b, t, conditions) -> None:
    for k in conditions:
        if k in t.conditions:
            del t.conditions[k]
            b.event("condition_end", f"{t.cid} is no longer {k}", creature=t.cid, condition=k)


def impose(b, c, key: str, t, repeat_ability, level: int | None = None) -> None:
    """Put the spell's condition on t: ended by the caster's concentration (tagged with the spell),
    its duration, a repeat save at the end of each of t's turns, or "until the end of a turn"."""
    m, sp = mech(key), _spell(key)
    cond = m["condition"]
    if t.dead or (cond in t.condition_immunities and not m.get("flags")):
        return
    if t.conditions and spell_buffs.wards(t, cond):   # Mind Blank, Freedom of Movement
        b.event("condition", f"{t.cid} is immune to {cond} ({key})", creature=t.cid)
        return
    if b.wards and spell_wards.shields(b, c, t, cond):   # Magic Circle: no charm or fear from its types
        return
    # a spell's charm or fear is kept off as a stat block's is (monster_actions.save_condition):
    # Aura of Devotion / Courage, Mindless Rage
    if dispatch.blocks_condition(b, t, cond):
        return
    entry = {"by": c.cid, "spell": key, "dc": _dc(c), "round": b.round, "turn_of": t.cid, "level": level,
             **m.get("flags", {})}
    spell_buffs.on_impose(b, c, key, t, entry, level)   # Protection from Energy's type
    if entry.get("temp_each_turn") == "mod":   # Heroism: the caster's spellcasting modifier
        entry["temp_each_turn"] = c.resources.get("spell_mod", 0)
        t.temp_hp = max(t.temp_hp, entry["temp_each_turn"])
    if entry.get("weapon_plus") == "slot":   # Magic Weapon: +1, +2 at a 4th-level slot, +3 at 6th
        entry["weapon_plus"] = 1 + ((level or sp.level) >= 4) + ((level or sp.level) >= 6)
    if entry.get("retort") == "spell":   # Fire Shield: the spell's dice at whoever hits in melee
        entry["retort"] = [dice(c, key, level or sp.level), sp.damage_type]
    if entry.get("bonus_dash") and b.active is t:   # Expeditious Retreat: the casting Dashes too
        t.economy.movement += b.speed(t)
        b.event("dash", f"{t.cid} dashes ({key})", creature=t.cid)
    if entry.get("hit_dice") == "spell":   # Divine Favor, Branding Smite: the spell's dice at this slot
        entry.update(hit_dice=dice(c, key, level or sp.level), hit_type=sp.damage_type)
    rep = m.get("repeat")
    if rep:
        entry.update(repeat=rep if isinstance(rep, str) else repeat_ability, magic=True)
    rounds = m.get("rounds") or (None if sp.concentration else sp.duration_rounds)
    if rounds and not m.get("lasting"):   # "lasting": knocked prone stays prone until it stands
        entry["until_round"] = b.round + rounds
    if m.get("until"):
        entry["until"] = m["until"]
        entry["turn_of"] = c.cid if m["until"] == "end_of_source_next_turn" else t.cid
    if m.get("ends_on_damage"):
        entry["ends_on_damage"] = True
    if m.get("repeat_damage"):   # its own repeat save, with damage on a failure (see end_of_turn)
        entry.pop("repeat", None)
        entry.update(repeat_damage=dice(c, key, level or sp.level) or m["damage_dice"],
                     dtype=sp.damage_type or m["damage_type"],
                     save_ability=m.get("save") or sp.save_ability)
    if m.get("lasting"):
        entry = {}
    t.conditions[cond] = entry
    for k in m.get("also", ()):   # Hideous Laughter: it also falls prone (standing up ends that)
        t.conditions.setdefault(k, {})
    b.event("condition", f"{t.cid} is {cond} ({key})", creature=t.cid, condition=cond, spell=key)
    if cond in _HELPLESS:
        b.end_concentration(t)
        b.release_grapples_by(t)


def origin(b, c, key: str, where, anchor=None):
    """Where an area spell's effect comes from, for the cover a Dexterity save adds (SRD Combat >
    Cover): the point of origin of a sphere or cylinder placed on a point (Fireball's centre), the
    caster for an area from its space (a cone, line or cube in a direction, an emanation); None
    for what appears throughout its area rather than spreading from a point: a wall, a cube placed
    on a point (Web, Grease, Black Tentacles, Faerie Fire, Fire Storm: the engine anchors it at a
    corner, not at a point of origin)."""
    if mech(key).get("wall"):
        return None
    if where is None or placement(key) != "point":
        return c
    a = area(b, c, key, where, anchor)
    return a.origin_ft if a.shape in ("sphere", "cylinder") else None


def area_hits(b, c, key: str, where, anchor=None, level: int | None = None) -> list:
    a = area(b, c, key, where, anchor)
    out = [o for o in b.creatures.values()
           if not o.dead and o is not c and not b.inside_apart(o, c) and areas.affects(a, b.map, o.cells, o.pos[2])]
    for screen in SPELL_SCREENS:   # an Antimagic Field, a Globe, Limited Magic Immunity (rules/hooks.py)
        out = screen(b, c, key, out, level)
    return out


def resolve_area(b, c, use: tuple, where) -> None:
    """An area spell lands: damage rolled once for all, a save each (half or none), the
    condition on a failure; a zone is recorded on the caster; Color Spray's HP pool."""
    key, level = use[1], use[2]
    m = mech(key)
    own = _mechanism(m["mech"])   # Mage Hand, Plant Growth's point, Dancing Lights, Shapechange, ...
    if own is not None and own.resolve_area is not None:
        own.resolve_area(b, c, use, where)
        return
    if m["mech"] == "summon":
        summon(b, c, key, level)
        return
    if m["mech"] == "tiers":
        _tiers(b, c, key, level)
        return
    if m["mech"] == "pool_heal":   # Mass Heal (dnd/spell_buffs.py)
        spell_buffs.pool_heal(b, c, key, level)
        return
    if m.get("wall") and len(use) == 3:   # Wall of Fire: the anchor point is chosen, now its direction
        ask_direction(b, c, use, where)
        return
    anchor = use[3] if len(use) > 3 else None
    hits = area_hits(b, c, key, where, anchor, level)
    if b.specials:   # a line spell on a tarrasque (Reflective Carapace, monster_traits/tarrasque.py)
        hits = monster_traits.carapace_hits(b, c, key, hits)
    if c.resources.pop("recalling", False):   # Call Lightning's later bolts: an action, no slot
        c.economy.actions -= 1
        b.event("recall", f"{c.cid} calls down {key} again", creature=c.cid, spell=key)
    else:
        b.pay_spell(c, key, level)
        if m.get("recall"):
            c.resources["recall"] = {"spell": key, "level": level}
    _reveal(c)
    if m["mech"] == "pool":
        pool = b.roller.roll(pool_dice(key, level), what=f"{key} hit points")
        b.event("spell", f"{key} affects {pool} hit points of creatures", creature=c.cid, pool=pool)
        for t in sorted(hits, key=lambda o: (o.hp, o.cid)):   # (Sleep: not the undead, nor those immune to charm)
            if not t.conscious or m["condition"] in t.conditions or _exempt(key, t):
                continue
            if t.hp > pool:
                break
            pool -= t.hp
            impose(b, c, key, t, None, level)
        b.back_to_menu(c)
        return
    hits = [o for o in hits if not _exempt(key, o)]
    if m.get("max_targets"):   # Slow: the caster's choice of up to N: its foes, nearest first
        hits = sorted([o for o in hits if o.side != c.side], key=lambda o: (b.distance(c, o), o.cid))
        hits = hits[:m["max_targets"]]
    if "zone" in m and where is not None:
        c.resources["zone"] = {"spell": key, "level": level, "at": list(anchor or where), "dc": _dc(c)}
        if anchor is not None:
            c.resources["zone"]["dir"] = list(where)
    _strike(b, c, key, level, hits, push=m.get("push", 0), origin=origin(b, c, key, where, anchor))
    b.back_to_menu(c)


def ask_direction(b, c, use: tuple, anchor) -> None:
    """A wall's anchor point is chosen: now the direction it runs in from there."""
    b.pending = {"kind": "direction", "actor": c.cid, "use": use + (tuple(anchor[:2]),)}
    b.forget_options()


def _strike(b, c, key: str, level: int, hits: list, push: int = 0, origin=None) -> None:
    """Each creature hit saves (``origin``: where the effect comes from, for a Dex save's cover)."""
    m, sp = mech(key), _spell(key)
    ability = m.get("save") or sp.save_ability
    dmg = dice(c, key, level)
    amount = b.roller.roll_damage(dmg, what=f"damage {key} {sp.damage_type}") if dmg else 0
    for t in hits:
        if t.dead:
            continue
        ok = b.saving_throw(t, ability, _dc(c), magic=True, big=True, condition=m.get("condition"),   # (Steel Will)
                            adv=dispatch.lands_stride_adv(t, key), origin=origin)   # Land's Stride: Entangle
        if amount and not m.get("repeat_damage"):   # (Evasion: none on a Dex save's success, half on a failure)
            dealt = dispatch.area_damage(t, ability, ok, sp.save_success == "half" or bool(m.get("half")), amount)
            if dealt:
                b.damage(t, dealt, sp.damage_type, magical=True, source=c.cid)
        if ok or t.dead:
            continue
        if m.get("condition"):
            impose(b, c, key, t, ability, level)
        b.push(c, t, push)   # Gust of Wind: pushed away from the caster
        if push:
            b.event("push", f"{t.cid} is pushed to ({t.pos[0]}, {t.pos[1]})", creature=t.cid)


def dispel(b, c, t, level: int) -> None:
    """SRD Dispel Magic: every spell on t of the slot's level or lower ends; a higher one ends on
    an ability check (spellcasting ability) against DC 10 + its level."""
    for k in list(t.conditions):
        v = t.conditions.get(k)
        if not v or not v.get("spell"):
            continue
        lv = v.get("level") or content.spell(v["spell"]).level
        if lv > level:
            roll = b.roller.roll_d20(bonus=c.resources.get("spell_mod", 0), what=f"dispel check {c.cid}")
            if roll.total < 10 + lv:
                b.event("dispel", f"{c.cid} fails to dispel {v['spell']} on {t.cid} ({roll.total})", creature=t.cid)
                continue
        del t.conditions[k]
        if v.get("max_hp"):   # Aid's extra hit points go with it
            t.max_hp -= v["max_hp"]
            t.hp = min(t.hp, t.max_hp)
        b.event("condition_end", f"{v['spell']} on {t.cid} is dispelled", creature=t.cid, condition=k)


def _tiers(b, c, key: str, level: int) -> None:
    """Divine Word: each foe in range saves; on a failure its current HP pick the effect (the
    lowest tier it is in): death, or conditions for a number of rounds."""
    m, sp = mech(key), _spell(key)
    hits = targets(b, c, key)
    b.pay_spell(c, key, level)
    _reveal(c)
    for t in hits:
        if t.dead or b.saving_throw(t, sp.save_ability, _dc(c), magic=True, big=True, origin=c):
            continue
        for hp_max, conds, rounds in m["tiers"]:
            if t.hp > hp_max:
                continue
            if conds == ["dead"]:
                b.die(t, key)
                break
            for k in conds:
                if k not in t.condition_immunities:
                    t.conditions[k] = {"by": c.cid, "spell": key, "level": level, "until_round": b.round + rounds}
                    b.event("condition", f"{t.cid} is {k} ({key})", creature=t.cid, condition=k, spell=key)
            if any(k in _HELPLESS for k in conds):
                b.end_concentration(t)
                b.release_grapples_by(t)
            break
    b.back_to_menu(c)


def recall_options(b, c) -> list:
    """Call Lightning: while the caster concentrates on it, its action can call another bolt."""
    r = c.resources.get("recall")
    if not r or c.concentration != r["spell"] or c.economy.actions <= 0:
        return []
    return [Opt(f"{_spell(r['spell']).name} again (action, no slot): {summary(c, r['spell'], r['level'])}",
                "recall", (r["spell"], r["level"]))]


def recall(b, c) -> None:
    """The "recall" option was chosen: place the next bolt (paid with the action in resolve_area)."""
    r = c.resources["recall"]
    c.resources["recalling"] = True
    b.pending = {"kind": "point_x", "actor": c.cid, "use": ("spell", r["spell"], r["level"])}
    b.forget_options()


# ================================================================ summons


def summon(b, c, key: str, level: int) -> None:
    """Conjure: new combatants on the caster's side, each taking a turn right after the caster's
    (simplification: no initiative roll of their own); played by whoever plays that side. They
    vanish when the caster's concentration on the spell ends (at their next turn)."""
    m = mech(key)
    if "monster" not in m:   # an authored creature (Flaming Sphere, Arcane Hand, Animate Objects...)
        return spell_summons.summon(b, c, key, level)
    count = m["count"] * m.get("upcast", {}).get(str(level), 1)
    squares = SIZE_SQUARES[content.monster(m["monster"]).size]
    b.pay_spell(c, key, level)
    _reveal(c)
    idx = b.order.index(c.cid)
    n0 = sum(1 for o in b.creatures.values() if o.resources.get("summoned_by") == c.cid)
    for i, (x, y) in enumerate(_free_squares(b, c, count, squares)):
        s = build_monster(m["monster"], f"{c.cid}_{m['monster']}_{n0 + i + 1}", c.side,
                          (x, y, b.map.standing_z(x, y, squares)))
        s.conditions["summoned"] = {"by": c.cid, "spell": key}
        s.resources["summoned_by"] = c.cid
        s.initiative = c.initiative
        b.creatures[s.cid] = s
        b.order.insert(idx + 1 + i, s.cid)
        b.event("summon", f"{c.cid} conjures {s.cid} at ({x}, {y})", creature=s.cid, by=c.cid, spell=key)
    b.forget_reach()
    b.back_to_menu(c)


# ================================================================ zones
def zone_of(b, c) -> dict | None:
    """The caster's live zone (it lasts while the caster concentrates on that spell)."""
    z = c.resources.get("zone")
    if z and (c.dead or c.concentration != z["spell"]):
        del c.resources["zone"]
        return None
    return z


def end_of_turn(b, c) -> None:
    """Phantasmal Killer, Weird: at the end of each of its turns the target saves again; a
    success ends the effect, a failure deals the spell's damage."""
    spell_summons.end_of_turn(b, c)   # Flaming Sphere (a cheap no-op without one)
    for k in sorted(c.conditions):
        v = c.conditions.get(k)
        if v and v.get("contagion"):   # Contagion's three saves (dnd/spell_buffs.py)
            spell_buffs.contagion_save(b, c, k, v)
            continue
        if not v or not v.get("repeat_damage") or c.dead:
            continue
        if b.saving_throw(c, v["save_ability"], v["dc"], magic=True):
            del c.conditions[k]
            b.event("condition_end", f"{c.cid} is no longer {k}", creature=c.cid, condition=k)
        else:
            amount = b.roller.roll_damage(v["repeat_damage"], what=f"damage {v['spell']} {v['dtype']}")
            b.damage(c, amount, v["dtype"], magical=True, source=v["by"])


def start_of_turn(b, c) -> None:
    """Zones: the caster's zone drifts away from it (Cloudkill: 10 ft) at the start of its turn;
    a creature that starts its turn inside a zone makes the save against its damage."""
    if c.resources.get("summoned_by") and "summoned" not in c.conditions:
        c.dead = True   # the conjuring ended: it vanishes
        b.event("vanish", f"{c.cid} vanishes", creature=c.cid)
        return
    spell_summons.start_of_turn(b, c)   # summons' command and caster, Guardian of Faith (no-op without them)
    for v in list(c.conditions.values()):   # Heroism: temporary HP at the start of each turn
        if v.get("temp_each_turn"):
            c.temp_hp = max(c.temp_hp, v["temp_each_turn"])
            if c.conditions.pop("frightened", None) is not None:
                b.event("condition_end", f"{c.cid} is no longer frightened", creature=c.cid, condition="frightened")
        if v.get("regen_each_turn") or v.get("slip_grapples"):   # Regenerate, Freedom of Movement
            spell_buffs.start_of_turn(b, c, v)
    z = zone_of(b, c)
    if z and mech(z["spell"])["zone"].get("moves"):
        steps = mech(z["spell"])["zone"]["moves"] // SQUARE_FT
        cx, cy = c.pos[0] + c.squares / 2, c.pos[1] + c.squares / 2
        dx = (z["at"][0] > cx) - (z["at"][0] < cx)
        dy = (z["at"][1] > cy) - (z["at"][1] < cy)
        if (dx, dy) == (0, 0):
            dx = 1
        x = min(max(0, z["at"][0] + dx * steps), b.map.width)
        y = min(max(0, z["at"][1] + dy * steps), b.map.height)
        z["at"] = [x, y] + list(z["at"][2:])
        b.event("zone_move", f"{c.cid}'s {z['spell']} drifts to ({x}, {y})", creature=c.cid, at=[x, y])
    for o in list(b.creatures.values()):
        oz = o.resources.get("zone")
        if not oz or zone_of(b, o) is None or c.dead:
            continue
        where, anchor = (tuple(oz["dir"]), tuple(oz["at"])) if "dir" in oz else (tuple(oz["at"]), None)
        if c in area_hits(b, o, oz["spell"], where, anchor, oz["level"]) and not _exempt(oz["spell"], c):
            b.event("zone", f"{c.cid} starts its turn in {o.cid}'s {oz['spell']}", creature=c.cid, source=o.cid)
            _strike(b, o, oz["spell"], oz["level"], [c], origin=origin(b, o, oz["spell"], where, anchor))


# ================================================================ coverage
def coverage() -> list[dict]:
    """One row per SRD spell: executable (a mechanism runs it; :func:`.verification.spell_probe.run_probe` shows it), out of
    scope or not yet, with the reason."""
    rows = []
    for key, m in sorted(table().items()):
        sp = content.spell(key)
        if "mech" in m:
            status, reason = "executable", ""
        elif "out" in m:
            status, reason = "out of scope", OUT_REASONS[m["out"]]
        else:
            status, reason = "not yet", m["not_yet"]
        rows.append({"key": key, "name": sp.name, "status": status, "reason": reason, "level": sp.level,
                     "mechanism": m.get("mech", ""), "class": ", ".join(sorted(sp.classes))})
    return rows


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
@hooks.OPTION_KINDS.handles("recall")
def _choose_recall(b, c, p, opt) -> None:
    recall(b, c)


@hooks.LATER_OPTIONS.step(10)
def _later_options(b, c) -> list:
    return recall_options(b, c)   # Call Lightning's next bolt


@hooks.TURN_ENDS.step(10)
def _turn_ends(b, c) -> None:
    end_of_turn(b, c)   # repeat saves that also hurt (Phantasmal Killer, Weird)
