"""Buffs, debuffs, reactions and between-fight spells that the generic interpreter
(:mod:`.spellbook`) cannot express with its flags alone.

The engine and the spellbook call in here through one-line hooks; each hook is a cheap early-out
when the mechanic is absent (a flag looked up on the few conditions a creature carries, or a
spell key in a creature's spell list).

Flags this module reads on conditions (``spell_mechanics.json`` ``flags``):

* ``resist: "choose"`` (Protection from Energy): the caster's choice of acid, cold, fire,
  lightning or thunder; the engine makes it for the caster (simplification: no decision), taking
  the type the target's foes deal most often, fire when none of them deals one;
* ``max_heal`` (Beacon of Hope): healing dice from spells give their maximum;
* ``death_save_adv`` (Beacon of Hope): death saving throws with advantage;
* ``immune`` (Mind Blank, Heroes' Feast): damage types the creature takes no damage from;
* ``half_str_weapon`` (Ray of Enfeeblement): the creature's Strength-based weapon attacks deal half
  damage (a melee weapon attack that is not finesse, or a monster's melee attack);
* ``attack_penalty`` (Raise Dead, Resurrection): subtracted from the creature's attack rolls (the
  same spells put ``save: -4`` on saving throws through the engine's own flag);
* ``regen_each_turn`` (Regenerate): hit points regained at the start of each of its turns;
* ``cond_immune`` (Mind Blank, Freedom of Movement, Heroes' Feast): conditions spells and save
  effects cannot put on the creature; ``slip_grapples`` (Freedom of Movement): a grapple is
  escaped for 5 ft of movement at the start of its turn;
* ``attack_adv`` (Foresight): advantage on its attack rolls;
* ``temp_dice`` (Enhance Ability, played as Bear's Endurance): temporary HP when cast;
* ``contagion``: the poisoned target's three Con saves (:func:`contagion_save`);
* ``climb`` (Spider Climb): a climbing speed equal to its walking speed (:func:`climb_speed`);
* ``check_die`` (Guidance): a die on one ability check the engine rolls (:func:`check_die`).

Reactions: Hellish Rebuke is offered as a reaction decision (cast at a slot level, or not) to a
creature that an attack has just damaged (the attacker within 60 ft); Feather Fall is taken
without a decision when a creature of the caster's side falls far enough to be hurt (like Rock
Catching in the engine: always worth a 1st-level slot then): no damage and it lands on its feet.

Between fights (``mech: "day"`` rows, the Day track's intermission, :func:`day_options`):
Goodberry, Heroes' Feast, Raise Dead, Resurrection, True Resurrection, Reincarnate, Regenerate,
Foresight (a 1-minute casting: an all-day buff), Mass Heal (also in battle: ``mech: "pool_heal"``),
Revivify on a member who died in the fight just played (at most a minute before its end, before a
short rest), Gentle Repose (that window then lasts all day), the data buffs that outlast a fight
(``mech: "buff"`` of 10 minutes or more: Mind Blank, Protection from Energy against the next
encounter's energy, Death Ward, ...), and the paladin's Lay on Hands. :func:`plan` is the
baseline planner's use of them (``advice.intermission.plan_intermission`` asks it first). Costly material
components are data (``cost_gp``): a caster pays them from its ``resources["gp"]`` (the day
file's ``gp`` for a party member; Revivify's 300 gp only between fights).

Not run here: Jump (the engine has no jumps); Wild Shape between fights is ``day.py``'s; Water
Breathing, Water Walk and Unseen Servant between fights are :mod:`.spell_utility`'s.
"""

from __future__ import annotations

from . import content
from .dice import parse
from .grid import fall_damage_dice
from .model.durations import DURATION_TEXT, drop_concentration, effect_duration
from .model.factories import build_monster
from .model.options import Opt
from .model.slots import spend_slot
from .rules import hooks
from .state import monster_action
from .rules import spell_data

ENERGY = ("acid", "cold", "fire", "lightning", "thunder")
REACTIONS = ("hellish_rebuke",)


def _mech(key: str) -> dict:
    return spell_data.mech(key)


# ================================================================ hooks on conditions
def on_impose(b, c, key: str, t, entry: dict, level) -> None:
    """Called by :func:`spellbook.impose` as an entry is put on t."""
    if entry.get("resist") == "choose":
        entry["resist"] = [energy_for(b, t)]
    if entry.get("temp_dice"):   # Enhance Ability (Bear's Endurance): temporary HP, the higher kept
        t.temp_hp = max(t.temp_hp, b.roller.roll(entry["temp_dice"], what=f"temp hp {key}"))
        b.event("temp_hp", f"{t.cid} has {t.temp_hp} temporary HP ({key})", creature=t.cid, amount=t.temp_hp)
    if entry.get("contagion"):   # three successes or three failures decide
        entry.update(saves_won=0, saves_lost=0)


def energy_for(b, t) -> str:
    """The energy type t's foes deal most often (attacks, save actions, spells), fire by default."""
    count = dict.fromkeys(ENERGY, 0)
    for o in b.enemies_of(t):
        for a in o.attacks:
            for part in a.damage:
                if part.type in count:
                    count[part.type] += 1
        for key in o.save_actions:   # breath weapons and the like
            save = getattr(monster_action(o, key), "save", None)
            for part in (save.damage if save is not None else ()):
                if part.type in count:
                    count[part.type] += 1
        for key in o.spells:
            dtype = content.spell(key).damage_type
            if dtype in count:
                count[dtype] += 1
    return max(ENERGY, key=lambda k: (count[k], k == "fire"))


def _flag(t, flag: str):
    for v in t.conditions.values():
        if v.get(flag):
            return v[flag]
    return None


def heal_roll(b, t, expr: str, what: str) -> int:
    """A spell's healing dice for t: their maximum under Beacon of Hope, else a roll."""
    if t.conditions and _flag(t, "max_heal"):
        b.event("max_heal", f"{t.cid} regains the most the dice allow (beacon of hope)", creature=t.cid)
        return parse(expr).max
    return b.roller.roll(expr, what=what)


def death_save_adv(t) -> bool:
    return bool(t.conditions) and bool(_flag(t, "death_save_adv"))


def immune(t, dtype: str) -> bool:
    """Mind Blank (psychic), Heroes' Feast (poison)."""
    return any(dtype in v.get("immune", ()) for v in t.conditions.values())


def attack_penalty(c) -> int:
    return sum(v.get("attack_penalty", 0) for v in c.conditions.values()) if c.conditions else 0


def weakened(c, a, melee: bool, amount: int) -> int:
    """Ray of Enfeeblement: half damage from a Strength-based weapon attack."""
    if _flag(c, "half_str_weapon") and melee and not a.spell and (not a.finesse or c.kind == "monster"):
        return amount // 2
    return amount


def start_of_turn(b, c, v: dict) -> None:
    """Regenerate: 1 hit point at the start of each of the creature's turns (not from 0 HP dead).
    Freedom of Movement: a grappled creature spends 5 ft of movement to escape the grapple."""
    if v.get("regen_each_turn") and not c.dead and c.hp < c.max_hp:
        b.heal(c, v["regen_each_turn"], "regenerate")
    if v.get("slip_grapples") and "grappled" in c.conditions and c.conscious:
        b.release(c)
        c.economy.movement = max(0, b.speed(c) - 5)
        b.event("escape", f"{c.cid} slips free of the grapple (freedom of movement)", creature=c.cid)


def contagion_save(b, c, k: str, v: dict) -> None:
    """Contagion: a Con save at the end of each of the poisoned target's turns; three successes end
    it, three failures bring the disease (the engine picks Blinding Sickness: blinded, and
    disadvantage on Wis saves) for the rest of the spell's 7 days."""
    if c.dead:
        return
    if b.saving_throw(c, "con", v["dc"], magic=True):
        v["saves_won"] += 1
    else:
        v["saves_lost"] += 1
    if v["saves_won"] >= 3:
        del c.conditions[k]
        b.event("condition_end", f"{c.cid} is no longer {k} (contagion)", creature=c.cid, condition=k)
    elif v["saves_lost"] >= 3:
        del c.conditions[k]
        c.conditions["blinding_sickness"] = {"by": v["by"], "spell": "contagion", "save_dis": ["wis"]}
        if "blinded" not in c.condition_immunities:
            c.conditions["blinded"] = {"by": v["by"], "spell": "contagion"}
        b.event("condition", f"{c.cid} falls ill with blinding sickness (contagion)", creature=c.cid,
                condition="blinding_sickness")


def climb_speed(b, c) -> int:
    """Spider Climb: a climbing speed equal to the walking speed (climbing costs no extra)."""
    return c.speed if any(v.get("climb") for v in c.conditions.values()) else 0


def check_die(b, c) -> int:
    """Guidance: a die added to one ability check (escaping a grapple, a shove or grapple contest),
    then the spell ends."""
    if not c.conditions:
        return 0
    for k, v in sorted(c.conditions.items()):
        if v.get("check_die"):
            del c.conditions[k]
            by = b.creatures.get(v.get("by"))
            if by is not None and by.concentration == v.get("spell"):
                by.concentration = None
            return b.roller.roll(v["check_die"], what=f"{v.get('spell', k)} {c.cid}")
    return 0


def attack_adv(c) -> list:
    """Foresight: advantage on the creature's attack rolls."""
    if not c.conditions or not any(v.get("attack_adv") for v in c.conditions.values()):
        return []
    return [f"attacker {k}" for k, v in sorted(c.conditions.items()) if v.get("attack_adv")]


# ================================================================ Mass Heal
def pool_heal_targets(b, c, key: str) -> list:
    m = _mech(key)
    return [o for o in b.creatures.values() if o.side == c.side and not o.dead and b.distance(c, o) <= m["range"]
            and o.creature_type not in m.get("not_types", ()) and "no_heal" not in o.conditions
            and (o.hp < o.max_hp or any(k in o.conditions for k in m.get("cures", ())))]


def pool_heal(b, c, key: str, level: int) -> None:
    """Mass Heal: a pool of hit points shared out to the caster's side in range, the most hurt
    first (the caster's division, made for it); those healed are cured of blindness and deafness."""
    m = _mech(key)
    hits = sorted(pool_heal_targets(b, c, key), key=lambda o: (o.hp / o.max_hp, o.cid))
    b.pay_spell(c, key, level)
    left = m["pool"]
    for t in hits:
        got = b.heal(t, min(left, t.max_hp - t.hp), key) if left else 0
        left -= got
        for k in m.get("cures", ()):
            if t.conditions.pop(k, None) is not None:
                b.event("condition_end", f"{t.cid} is no longer {k}", creature=t.cid, condition=k)
    b.back_to_menu(c)


# ================================================================ reactions
def _slot_levels(c, key: str) -> list:
    lv0 = content.spell(key).level
    slots = c.resources.get("slots", ())
    out = [lv for lv in range(lv0, len(slots) + 1) if slots[lv - 1] > 0]
    if not out and c.resources.get("innate", {}).get(key, 0) != 0:
        out = [lv0]
    return out


def _spend_slot(c, key: str, level: int) -> None:
    innate = c.resources.get("innate", {})
    slots = c.resources.get("slots", ())
    if innate.get(key, 0) != 0 and (len(slots) < level or not slots[level - 1]):
        if innate[key] > 0:
            innate[key] -= 1
        return
    spend_slot(c, level)


def offer_rebuke(b, c, t, then: str, before: int) -> bool:
    """After c's attack on t has landed: t (damaged, able to react, within 60 ft of c and seeing
    it) may cast Hellish Rebuke. True when the reaction decision is now pending."""
    if "hellish-rebuke" not in t.spells or then == "none" or c.dead or t.hp + t.temp_hp >= before:
        return False
    if not t.conscious or t.incapacitated or not t.economy.reaction or b.distance(c, t) > 60:
        return False
    if ("invisible" in c.conditions and not _sees_invisible(t, b.distance(c, t))) or "blinded" in t.conditions:
        return False
    if not _slot_levels(t, "hellish-rebuke"):
        return False
    b.pending = {"kind": "reaction", "actor": t.cid, "reaction": "hellish_rebuke", "attacker": c.cid,
                 "then": then, "prompt": f"{t.cid}: {c.cid} damaged you; cast Hellish Rebuke?"}
    b.forget_options()
    return True


def _sees_invisible(t, feet: int) -> bool:
    return spell_data.sees_invisible(t, feet)


def reaction_options(b, c, p: dict) -> list:
    if p["reaction"] == "hellish_rebuke":
        out = [Opt(f"Cast Hellish Rebuke at level {lv} on {p['attacker']} (DC {c.resources.get('spell_dc')} DEX, "
                   f"{spell_data.dice(c, 'hellish-rebuke', lv)} fire, half on a save)", "reaction", (True, lv))
               for lv in _slot_levels(c, "hellish-rebuke")]
        return out + [Opt("Do not react", "reaction", (False, None))]
    return [Opt("Do not react", "reaction", (False, None))]


def resolve_reaction(b, c, p: dict, data: tuple) -> None:
    b.pending = {}
    attacker = b.creatures[p["attacker"]]
    if data[0] and p["reaction"] == "hellish_rebuke" and not attacker.dead:
        lv = data[1]
        c.economy.reaction = False
        _spend_slot(c, "hellish-rebuke", lv)
        b.event("cast", f"{c.cid} casts hellish-rebuke at level {lv} (reaction)", creature=c.cid,
                spell="hellish-rebuke", level=lv)
        amount = b.roller.roll_damage(spell_data.dice(c, "hellish-rebuke", lv), what="damage hellish-rebuke fire")
        if b.saving_throw(attacker, content.spell("hellish-rebuke").save_ability, c.resources["spell_dc"],
                          magic=True, big=True, origin=c):
            amount //= 2
        if amount:
            b.damage(attacker, amount, "fire", magical=True, source=c.cid)
    if b.check_outcome():
        return
    b.after_attack(p["then"], attacker)


def feather_fall(b, c, height: int) -> bool:
    """A creature of c's side (c too) with Feather Fall, its reaction and a slot, within 60 ft,
    slows c's fall: no damage, and it lands on its feet. Taken only when the fall would hurt."""
    if c.dead or not fall_damage_dice(height):
        return False
    for o in sorted(b.creatures.values(), key=lambda o: (o is not c, o.cid)):
        if o.side != c.side or "feather-fall" not in o.spells or not o.conscious or o.incapacitated \
                or not o.economy.reaction or (o is not c and b.distance(o, c) > 60):
            continue
        levels = _slot_levels(o, "feather-fall")
        if not levels:
            continue
        o.economy.reaction = False
        _spend_slot(o, "feather-fall", levels[0])
        b.event("cast", f"{o.cid} casts feather-fall on {c.cid} (reaction)", creature=o.cid,
                spell="feather-fall", level=levels[0])
        b.event("feather_fall", f"{c.cid} drifts down {height} ft and lands on its feet", creature=c.cid)
        return True
    return False


def wards(t, cond: str) -> bool:
    """A spell on t keeps this condition off it (``cond_immune``: Mind Blank's charm, Freedom of
    Movement's paralysis and restraint, Heroes' Feast's fear and poison)."""
    return any(cond in v.get("cond_immune", ()) for v in t.conditions.values())


# ================================================================ between fights (the Day track)
DAY_KINDS = ("day_spell", "lay_on_hands")
REVIVIFY_GP = 300   # SRD: diamonds worth 300 gp, consumed (charged between fights only)


def _day_rows(c) -> list:
    return [k for k in c.spells if (_mech(k).get("mech") in ("day", "pool_heal") and _mech(k).get("day") != "heal")
            or _day_buff(k)]


def _day_buff(key: str) -> bool:
    """A data-driven buff (``mech: "buff"``) that outlasts a fight when cast between fights (10
    minutes or more: Mind Blank, Freedom of Movement, Protection from Energy, Death Ward)."""
    return _mech(key).get("mech") == "buff" and effect_duration(key) is not None


def _levels(c, key: str) -> list:
    slots = c.resources.get("slots") or ()
    return [lv for lv in range(content.spell(key).level, len(slots) + 1) if slots[lv - 1] > 0]


def _may_revive(m: dict, t) -> bool:
    return t.dead and t.creature_type not in m.get("not_types", ("undead", "construct")) and \
        ("types" not in m or t.creature_type in m["types"])


def revivify_window(run, t) -> bool:
    """Whether Revivify can still reach dead member t between fights: it died in the fight just
    played, at most a minute (10 rounds) before it ended, and no short rest has passed since; or
    Gentle Repose keeps its body (then for the rest of the day)."""
    if not t.dead:
        return False
    if "gentle_repose" in t.conditions:
        return True
    b = run.battle
    if b is None or t.cid not in b.creatures or b.round - t.resources.get("died_round", -10 ** 6) > 10:
        return False
    ends = [i for i, e in enumerate(run.log) if e.get("event") == "fight"]
    return bool(ends) and not any(e.get("event") == "rest" for e in run.log[ends[-1]:])


def day_options(run, c, living) -> list:
    """What conscious member c can do between fights with this module's spells and features."""
    out = []
    hurt = [t for t in living if t.hp < t.max_hp]
    if "lay_on_hands" in c.features and c.resources.get("lay_on_hands", 0) > 0:
        for t in hurt:
            if t.creature_type in ("undead", "construct"):
                continue
            out.append(Opt(f"{c.cid} uses Lay on Hands on {t.cid} (up to {min(c.resources['lay_on_hands'], t.max_hp - t.hp)}"
                           f" HP from a pool of {c.resources['lay_on_hands']}; {t.cid} {t.hp}/{t.max_hp} HP)",
                           "lay_on_hands", (c.cid, t.cid)))
    if "revivify" in c.spells and _levels(c, "revivify") and c.resources.get("gp", 0) >= REVIVIFY_GP:
        for t in run.party.values():
            if revivify_window(run, t) and t.creature_type not in ("undead", "construct"):
                out.append(Opt(f"{c.cid} casts Revivify (level {_levels(c, 'revivify')[0]}, consumes {REVIVIFY_GP} gp "
                               f"of diamonds) on {t.cid} (dead): back with 1 HP", "day_spell",
                               (c.cid, "revivify", _levels(c, "revivify")[0], (t.cid,))))
    for key in _day_rows(c):
        levels = _levels(c, key)
        m, sp = _mech(key), content.spell(key)
        if not levels or c.resources.get("gp", 0) < m.get("cost_gp", 0):
            continue
        lv, kind = levels[0], m.get("day") or "gbuff"
        cost = f", consumes {m['cost_gp']} gp of components" if m.get("cost_gp") else ""
        head = f"{c.cid} casts {sp.name} (level {lv}{cost})"
        if kind == "goodberry" and hurt:
            out.append(Opt(f"{head}: ten berries of 1 HP each for the most hurt", "day_spell", (c.cid, key, lv, ())))
        elif kind == "feast" and any("heroes_feast" not in t.conditions for t in living):
            out.append(Opt(f"{head} for the party: +2d10 max HP each, immune to poison and fear, "
                           "advantage on Wis saves (all day)", "day_spell", (c.cid, key, lv, ())))
        elif kind == "revive":
            for t in run.party.values():
                if _may_revive(m, t):
                    hp = "all its HP" if m.get("hp") == "full" else "1 HP"
                    pen = f", -{m['penalty']} to attacks and saves all day" if m.get("penalty") else ""
                    out.append(Opt(f"{head} on {t.cid} (dead): back with {hp}{pen}", "day_spell",
                                   (c.cid, key, lv, (t.cid,))))
        elif kind == "pool_heal" and hurt:
            out.append(Opt(f"{head}: {m['pool']} HP shared out to the party, the most hurt first", "day_spell",
                           (c.cid, key, lv, ())))
        elif kind == "buff":
            for t in living:
                if m["condition"] not in t.conditions:
                    out.append(Opt(f"{head} on {t.cid} ({DURATION_TEXT[effect_duration(key)]})", "day_spell",
                                   (c.cid, key, lv, (t.cid,))))
        elif kind == "gbuff":
            conc = ", concentration" if sp.concentration else ""
            for t in living:
                if (m.get("self") and t is not c) or m["condition"] in t.conditions or \
                        (m.get("unarmored") and t.armored):   # SRD Mage Armor: a target not wearing armour
                    continue
                out.append(Opt(f"{head} on {t.cid} ({DURATION_TEXT[effect_duration(key)]}{conc})", "day_spell",
                               (c.cid, key, lv, (t.cid,))))
        elif kind == "repose":
            for t in run.party.values():
                if revivify_window(run, t) and "gentle_repose" not in t.conditions:
                    out.append(Opt(f"{head} on {t.cid} (dead): its body keeps, so Revivify can still reach it "
                                   "all day", "day_spell", (c.cid, key, lv, (t.cid,))))
        elif kind == "regenerate":
            for t in living:
                if "regenerate" not in t.conditions:
                    out.append(Opt(f"{head} on {t.cid} ({sp.heal_for(lv)} HP now, then 1 HP at the start of each "
                                   f"of its turns until a short rest; {t.hp}/{t.max_hp} HP)", "day_spell",
                                   (c.cid, key, lv, (t.cid,))))
    return out


def day_apply(run, opt) -> None:
    """An intermission option of this module was chosen."""
    if opt.kind == "lay_on_hands":
        c, t = run.party[opt.data[0]], run.party[opt.data[1]]
        amount = min(c.resources["lay_on_hands"], t.max_hp - t.hp)
        c.resources["lay_on_hands"] -= amount
        run._heal(t, amount, f"Lay on Hands from {c.cid}")
        return
    cid, key, lv, ids = opt.data
    c, m = run.party[cid], _mech(key)
    spend_slot(c, lv)
    if key == "revivify":   # the SRD's 300 gp diamond; back with 1 HP, no penalty
        c.resources["gp"] -= REVIVIFY_GP
        m = {"day": "revive", "hp": "one"}
    if m.get("cost_gp"):
        c.resources["gp"] -= m["cost_gp"]
    run.event("cast", f"{c.cid} casts {key} at level {lv}")
    living = [t for t in run.party.values() if not t.dead]
    kind = m.get("day") or "gbuff"
    if kind == "goodberry":
        for _ in range(m.get("berries", 10)):
            hurt = [t for t in living if t.hp < t.max_hp]
            if not hurt:
                break
            run._heal(min(hurt, key=lambda t: (t.hp / t.max_hp, t.cid)), 1, "a goodberry")
    elif kind == "feast":
        for t in living:
            if "heroes_feast" in t.conditions:
                continue
            t.conditions.pop("poisoned", None)
            n = run.roller.roll("2d10", what=f"heroes' feast {t.cid}")
            t.max_hp += n
            t.hp += n
            t.conditions["heroes_feast"] = {"by": c.cid, "max_hp": n, "save_adv": ["wis"],   # not a spell kept up
                                            "immune": ["poison"], "cond_immune": ["frightened", "poisoned"],
                                            "day_duration": "all_day"}
            run.event("buff", f"{t.cid} feasts: +{n} max HP ({t.hp}/{t.max_hp}), immune to poison and fear")
    elif kind == "revive":
        t = run.party[ids[0]]
        t.dead, t.stable = False, False
        t.death_successes = t.death_failures = 0
        t.max_hp -= sum(v.get("max_hp", 0) for v in t.conditions.values())   # a feast's or Aid's HP go
        t.conditions.clear()
        t.hp = t.max_hp if m.get("hp") == "full" else 1
        if m.get("penalty"):   # reduced by 1 per long rest: the Day track has none, so all day
            t.conditions["back_from_death"] = {"by": c.cid, "attack_penalty": m["penalty"],   # no spell to dispel
                                               "save": -m["penalty"], "day_duration": "all_day"}
        run.event("revive", f"{t.cid} returns to life ({t.hp}/{t.max_hp} HP, {key})")
    elif kind == "pool_heal":
        left = m["pool"]
        for t in sorted(living, key=lambda t: (t.hp / t.max_hp, t.cid)):
            got = min(left, t.max_hp - t.hp)
            if got:
                run._heal(t, got, f"{key} from {c.cid}")
                left -= got
    elif kind == "buff":   # Foresight: its flags on the member, for the spell's span of the day
        t = run.party[ids[0]]
        t.conditions[m["condition"]] = {"by": c.cid, "spell": key, **m.get("flags", {}),
                                        "day_duration": effect_duration(key)}
        run.event("buff", f"{c.cid} casts {key} on {t.cid}")
    elif kind == "gbuff":
        _day_buff_on(run, c, key, lv, run.party[ids[0]])
    elif kind == "repose":
        t = run.party[ids[0]]
        t.conditions["gentle_repose"] = {"by": c.cid, "spell": key, "day_duration": "all_day"}
        run.event("buff", f"{c.cid} casts {key} on {t.cid}'s body")
    elif kind == "regenerate":
        t = run.party[ids[0]]
        run._heal(t, run.roller.roll(content.spell(key).heal_for(lv), what=f"{key} by {c.cid}"), f"{key} from {c.cid}")
        t.conditions["regenerate"] = {"by": c.cid, "spell": key, "regen_each_turn": 1,
                                      "day_duration": "until_short_rest"}
    run._menu = None


def _day_buff_on(run, c, key: str, lv: int, t) -> None:
    """A data buff cast between fights: its flags on t for the Day's span of its duration (a
    concentration spell replaces the caster's old one); Protection from Energy takes the energy
    the next encounter's foes deal most."""
    m = _mech(key)
    if content.spell(key).concentration:
        drop_concentration(c, run.party.values())
        c.concentration = key
        c.resources["concentration_until"] = 10 ** 9
    entry = {"by": c.cid, "spell": key, "dc": c.resources.get("spell_dc"), "level": lv, **m.get("flags", {}),
             "day_duration": effect_duration(key)}
    if entry.get("resist") == "choose":
        entry["resist"] = [_next_energy(run)]
    if entry.get("temp_dice"):
        t.temp_hp = max(t.temp_hp, run.roller.roll(entry["temp_dice"], what=f"temp hp {key}"))
    t.conditions[m["condition"]] = entry
    run.event("buff", f"{c.cid} casts {key} on {t.cid}")


def _next_energy(run) -> str:
    """The energy the next encounter's foes deal most (their attacks and save actions)."""

    class _Foes:   # energy_for asks a battle for t's enemies
        def __init__(self, foes):
            self.foes = foes

        def enemies_of(self, _t):
            return self.foes

    foes = [build_monster(e["monster"], e["id"], "enemies", (0, 0, 0)) for e in run.current.scenario.enemies]
    return energy_for(_Foes(foes), None)


def choose_day(run, pred) -> bool:
    """Pick the first intermission option matching pred through the visible (grouped) options."""
    for _ in range(3):
        shown = run._visible()
        full = run._options()
        want = next((o for o in full if pred(o)), None)
        if want is None:
            return False
        for i, o in enumerate(shown):
            if o == want:
                run.choose(i)
                return True
        i = next((i for i, o in enumerate(shown) if o.kind == "group" and o.data[0] == want.data[0]), None)
        if i is None:
            return False
        run.choose(i)
    return False


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
for _name in REACTIONS:   # Hellish Rebuke
    hooks.REACTIONS.register(_name, hooks.Reaction(reaction_options, resolve_reaction))
