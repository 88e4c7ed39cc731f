"""Monsters compiled from their SRD stat blocks into :class:`~..state.Combatant` records.

:func:`monster_combatant` runs the build steps below in a fixed order (the order in which the
resources and features are recorded is part of the result): the attacks (the stat block's and
the grabbing ones from ``monster_traits.json``), the save actions, the multiattack, the
legendary actions, the traits in four groups, the spellcasting, the recharges and uses, a
wall-making action (:data:`..spell_walls.MONSTER_WALLS`), and last the monster's own traits and
actions of :func:`..monster_traits.dispatch.compile_monster` (one module per trait family).

The builder registers itself with :mod:`..model.factories`, through which the mechanics build
monsters (summons, Wild Shape, familiars) without importing this layer.
"""

from __future__ import annotations

import functools

from .. import content, spellbook
from ..model.factories import register_monster_builder
from ..monster_traits import dispatch as monster_traits
from ..spell_walls import MONSTER_WALLS
from ..state import (
    ABILITIES,
    METAL_ARMOR,
    AttackProfile,
    Combatant,
    DamagePart,
    ability_mod,
    breath_rider,
)
from ..rules import spell_data

MAGIC_WEAPON_TRAITS = ("magic-weapons", "angelic-weapons", "hellish-weapons")
SAVE_SHAPES = ("cone", "line", "cube", "sphere", "cylinder", "emanation", "own_space")


def monster_combatant(key: str, cid: str, side: str, pos: tuple, name: str | None = None) -> Combatant:
    """A combatant from an SRD stat block: its executable attacks, save actions and multiattack."""
    spec = content.monster(key)
    mech = content.load_json("monster_traits")
    attacks = _stat_block_attacks(spec)
    gulp = mech["swallow"].get(key)
    swallows = next((a for a in attacks if gulp and a.key == gulp["attack"]), None) is not None
    attacks = _grab_attacks(spec, key, attacks, mech)
    keys = {a.key for a in attacks}
    save_actions = tuple(a.key for a in spec.actions if engine_runs_save_action(a)
                         or (not a.executable and breath_rider(key, a.key) is not None))   # a stone golem's Slow
    multi = _multiattack(spec, key, keys, save_actions, mech)
    legendary = _legendary_actions(spec, keys, save_actions)
    resources = {}
    features = _tactical_traits(spec, attacks, resources)
    spells, caster_level = _monster_spells(spec, resources)
    features += _body_traits(spec, resources)
    features += _special_actions(spec, key, attacks, resources, mech)
    features += _auras_and_saves(spec, key, resources, mech)
    if swallows:
        resources["swallow"] = dict(gulp)
    counted = mech["multiattack-count"].get(key)
    if counted and counted["action"] in keys:
        resources["multi_count"] = dict(counted)
    engulf = mech["engulf"].get(key)
    if engulf and engulf["attack"] in keys:
        resources["engulf"] = dict(engulf)
    features += _staying_power(spec, key, attacks, resources, mech)
    if legendary:
        resources["legendary_left"] = spec.legendary_actions_per_round or 3
    save_actions, recharge = _recharges_and_uses(spec, key, keys, save_actions, resources, mech)
    if key in MONSTER_WALLS:   # a wall-making action (an ice devil's Wall of Ice: dnd/spell_walls.py)
        resources["monster_wall"] = dict(MONSTER_WALLS[key], ready=True)
    return monster_traits.compile_monster(spec, Combatant(   # its own traits and actions, a swim speed
        cid=cid, name=name or spec.name, side=side, kind="monster", size=spec.size, ac=spec.ac,
        max_hp=spec.hp, hp=spec.hp, pos=tuple(pos), speed=spec.speed.walk or spec.speed.fly or 5,
        abilities=dict(spec.abilities), saves={ab: spec.save_bonus(ab) for ab in ABILITIES},
        prof=spec.proficiency_bonus, attacks=tuple(attacks), monster=key,
        resist=_damage_mods(spec.resistances), immune=_damage_mods(spec.immunities),
        vulnerable=_damage_mods(spec.vulnerabilities),
        condition_immunities=tuple(sorted(spec.condition_immunities)),
        save_actions=save_actions, multiattack=multi, recharge=recharge, resources=resources, features=features,
        fly=spec.speed.fly or 0, hover=bool(spec.speed.hover),
        creature_type=spec.type, metal_armor=any(a in METAL_ARMOR for a in spec.armor),
        legendary=tuple(legendary), legendary_per_round=spec.legendary_actions_per_round or 3 if legendary else 0,
        conditions={"invisible": {}} if spec.trait("invisibility") is not None else {},   # always invisible
        spells=spells, level=caster_level))



def engine_runs_save_action(a, allow_move: bool = False) -> bool:
    """Whether the engine offers this monster save action: single-target, or an area of one of
    :data:`SAVE_SHAPES`, with damage or conditions, usable at will, on a recharge or n/day, not
    bound to a shape and not followed by a move (``allow_move``: a legendary wing attack, whose
    flight afterwards is not run)."""
    return (a.executable and isinstance(a, content.SaveActionSpec) and not a.forms
            and (allow_move or not a.then_move)
            and (a.area is None or a.area.shape in SAVE_SHAPES) and bool(a.save.damage or a.save.conditions)
            and (a.usage is None or a.usage.type in ("recharge", "per_day")))


def _damage_mods(items) -> tuple:
    """Resistances, immunities or vulnerabilities as (type, nonmagical only), spell-only ones left out."""
    return tuple((m.type, m.nonmagical_only) for m in items if not m.from_spells_only)


def _duration(s) -> tuple:
    """A SaveEffectSpec's condition duration and exemptions:
    (rounds, until, repeat_save, immune_on_success, exempt_types)."""
    return (s.rounds, s.until, s.repeat_save, s.immune_on_success, tuple(s.exempt_types))


def _stat_block_attacks(spec) -> list:
    """The stat block's attacks the engine rolls: each executable attack with damage, at will and
    in one form (its on-hit saves and grapple as riders), and a Web that restrains."""
    attacks = []
    # "its weapon attacks are magical" (resistance to nonmagical damage does not apply)
    magic_weapons = any(t.key in MAGIC_WEAPON_TRAITS for t in spec.traits)
    for a in spec.actions:
        if not a.executable or not isinstance(a, content.AttackSpec) or not a.damage:
            continue
        if a.forms or a.usage is not None:
            continue
        on_hit = []
        for s in a.on_hit_saves:
            on_hit.append(("save", s.ability, s.dc, tuple(s.conditions),
                           tuple(DamagePart(d.dice, d.type) for d in s.damage), s.half_on_success,
                           _duration(s)))
        if a.on_hit_grapple is not None:
            g = a.on_hit_grapple
            on_hit.append(("grapple", g.escape_dc, g.size_max, g.restrained))
        melee = a.is_melee or a.attack_type == "melee_or_ranged_weapon"
        attacks.append(AttackProfile(
            a.key, a.name, a.bonus, tuple(DamagePart(d.dice, d.type) for d in a.damage),
            melee, a.reach or 5 if melee else 0,
            a.range_normal or 0, a.range_long or a.range_normal or 0,
            spell=a.is_spell or magic_weapons, on_hit=tuple(on_hit)))
    for a in spec.actions:   # Web (Recharge): a ranged attack that restrains until an ability check bursts it
        esc = getattr(a, "on_hit_escape_check", None)
        if isinstance(a, content.AttackSpec) and a.executable and not a.damage and esc and not a.forms \
                and "restrained" in a.on_hit_conditions and a.usage is not None and a.usage.type == "recharge":
            attacks.append(AttackProfile(
                a.key, a.name, a.bonus, (), False, 0, a.range_normal or 0, a.range_long or a.range_normal or 0,
                on_hit=(("webbed", esc["ability"], esc["dc"], a.target_restriction.get("size_max")),)))
    return attacks


def _grab_attacks(spec, key: str, attacks: list, mech: dict) -> list:
    """The attacks that hold their target, from ``monster_traits.json``: Swallow, a rug's smother,
    a lamia's cursing touch, and a shambling mound's engulfing slams."""
    gulp = mech["swallow"].get(key)
    base = next((a for a in attacks if gulp and a.key == gulp["attack"]), None)
    if base is not None:   # Swallow: its bite against a creature it grapples; a hit swallows instead of grappling
        attacks.append(base._replace(key="swallow", name=spec.action("swallow").name,
                                     on_hit=tuple(e for e in base.on_hit if e[0] != "grapple") + (("swallow",),)))
    smother = mech["smother"].get(key)
    sm = spec.action(smother["action"]) if smother else None
    if sm is not None and sm.on_hit_grapple is not None:   # a rug: grappled, restrained, blinded, crushed
        g = sm.on_hit_grapple
        attacks.append(AttackProfile(sm.key, sm.name, sm.bonus, (), True, sm.reach or 5, 0, 0, on_hit=(
            ("grapple", g.escape_dc, sm.target_restriction.get("size_max"), g.restrained),
            ("smother", smother["damage"], smother["type"]))))
    curse = mech["curse-touch"].get(key)
    if curse:   # a lamia's Intoxicating Touch: a melee spell attack whose hit curses
        attacks.append(AttackProfile(curse["action"], spec.action(curse["action"]).name, curse["bonus"], (), True,
                                     curse["reach"], 0, 0, spell=True,
                                     on_hit=(("curse", curse["condition"], curse["save_dis"], curse["rounds"]),)))
    engulf = mech["engulf"].get(key)
    if engulf:   # a shambling mound: both slams on one target grapple and engulf it
        attacks = [a._replace(on_hit=a.on_hit + (("engulf_hit",),)) if a.key == engulf["attack"] else a
                   for a in attacks]
    return attacks


def _multiattack(spec, key: str, keys: set, save_actions: tuple, mech: dict) -> tuple:
    """The first multiattack alternative with at least two steps the engine runs (attacks and save
    actions), or an attack repeated a rolled number of times (shown twice)."""
    multi: tuple = ()
    for a in spec.actions:
        if isinstance(a, content.MultiattackSpec) and a.executable:
            for alt in a.alternatives:
                steps = []
                for ref in alt:
                    if ref.action in keys or ref.action in save_actions:   # a mummy's glare is a step too
                        steps.extend([ref.action] * (ref.count or 1))
                if len(steps) >= 2:
                    multi = tuple(steps)
                    break
    counted = mech["multiattack-count"].get(key)
    if counted and counted["action"] in keys:   # 1d4 touches, a bite per head: the count comes when used
        multi = (counted["action"],) * 2   # what the menu shows; Battle rolls / counts the real number
    return multi


def _legendary_actions(spec, keys: set, save_actions: tuple) -> list:
    """The legendary actions the engine runs, as (key, cost, kind, what): one attack or save action,
    healing itself, a move, a teleport, or a save action of its own (a wing attack)."""
    legendary = []
    for la in spec.legendary_actions:   # the kinds the engine runs: one attack, healing itself
        if not la.executable:
            continue
        if isinstance(la, content.UseActionSpec) and any(k in keys for k in la.actions):
            legendary.append((la.key, la.cost, "attack", next(k for k in la.actions if k in keys)))
        elif isinstance(la, content.UseActionSpec) and any(k in save_actions for k in la.actions):
            legendary.append((la.key, la.cost, "save", next(k for k in la.actions if k in save_actions)))
        elif isinstance(la, content.HealSpec) and la.self_only:
            legendary.append((la.key, la.cost, "heal", la.dice))
        elif isinstance(la, content.MoveSpec) and not la.forms:
            legendary.append((la.key, la.cost, "move", (la.fraction, la.provokes_opportunity_attacks)))
        elif isinstance(la, content.TeleportSpec) and not la.forms:
            legendary.append((la.key, la.cost, "teleport", la.distance))
        elif engine_runs_save_action(la, allow_move=True):   # a wing attack, a gaze, a cloud: a save action off-turn
            legendary.append((la.key, la.cost, "save", la.key))
    return legendary


def _tactical_traits(spec, attacks: list, resources: dict) -> tuple:
    """Legendary Resistance, Magic Resistance and the traits of how it fights (Pack Tactics, a
    charge, a swarm, Sneak Attack, Cunning Action, absorbing energy); returns their features and
    records their numbers in ``resources``."""
    for t in spec.traits:
        if t.key == "legendary-resistance" and t.executable:
            resources["legendary_resistance"] = t.params.get("uses_per_day", 3)
    features = tuple(f for t, f in (("magic-resistance", "magic_resistance"),)
                     if any(x.key == t and x.executable for x in spec.traits))
    if any(x.key == "turn-resistance" for x in spec.traits):   # advantage against Turn Undead
        features += ("turn_resistance",)
    for trait, feature in (("pack-tactics", "pack_tactics"), ("nimble-escape", "nimble_escape"),
                           ("flyby", "flyby"), ("blood-frenzy", "blood_frenzy")):
        if any(x.key == trait and x.executable for x in spec.traits):
            features += (feature,)
    for trait in ("charge", "pounce", "trampling-charge"):   # a bonus after a run at the target
        t = spec.trait(trait)
        if t is not None and t.executable and t.params["attack"] in {a.key for a in attacks} \
                and t.params.get("bonus_attack", t.params["attack"]) in {a.key for a in attacks}:
            resources["charge"] = {k: (list(v) if isinstance(v, (list, tuple)) else dict(v) if hasattr(v, "keys") else v)
                                   for k, v in t.params.items()}
            resources["charge"]["extra_damage"] = [dict(d) for d in t.params.get("extra_damage", ())]
    if any(x.key == "swarm" for x in spec.traits):   # through others' spaces, no healing, weaker when hurt
        features += ("swarm",)
        resources["swarm_half_hp"] = {a.key: [(d.dice, d.type) for d in alt]
                                      for a in spec.actions if isinstance(a, content.AttackSpec)
                                      for when, alt in a.alt_damage if when == "swarm_half_hp"}
    for trait, feature, dice_key in (("sneak-attack", "sneak_attack", "sneak_attack_dice"),
                                     ("martial-advantage", "martial_advantage", "martial_advantage_dice")):
        t = spec.trait(trait)
        if t is not None and t.executable:
            features += (feature,)
            resources[dice_key] = t.params["extra_dice"]
    if spec.trait("cunning-action") is not None:   # bonus-action Dash, Disengage or Hide
        features += ("cunning_action",)
    absorb = [d for d in ("fire", "lightning") if spec.trait(f"{d}-absorption") is not None]
    if absorb:
        resources["absorb"] = absorb
    return features


@functools.cache
def castable_spells() -> frozenset:
    """The SRD spells the engine casts (the spell table's executable rows)."""
    return frozenset(r["key"] for r in spellbook.coverage() if r["status"] == "executable"
                     and spell_data.mech(r["key"]).get("mech") != "prepare"   # cast between fights only
                     and not spell_data.mech(r["key"]).get("party_only"))   # the party's objective (Mage Hand)


def _monster_spells(spec, resources: dict) -> tuple[tuple, int]:
    """A Spellcasting / Innate Spellcasting block as the spell options a PC caster gets: the
    block's spells the engine casts, its slots, its save DC and attack bonus; innate spells
    are cast at their own level, at will or with uses per day (``resources["innate"]``: spell ->
    uses left, -1 at will). Returns (spells, caster level for cantrip dice)."""
    spells, level, slots, innate = [], 0, [0] * 9, {}
    for block in spec.spellcasting:
        mod = ability_mod(spec.abilities[block.ability])
        resources["spell_mod"] = mod
        resources["spell_dc"] = block.dc if block.dc is not None else 8 + spec.proficiency_bonus + mod
        resources["spell_attack"] = (block.attack_bonus if block.attack_bonus is not None
                                     else spec.proficiency_bonus + mod)
        level = max(level, block.caster_level or 0)
        for lv, n in block.slots.items():
            slots[lv - 1] += n
        for s in block.spells:
            if s.spell not in castable_spells() or s.spell in spells:
                continue
            spells.append(s.spell)
            if s.usage is not None and s.usage.type == "per_day":
                innate[s.spell] = s.usage.times or 1
            elif block.key == "innate-spellcasting" or (s.usage is not None and s.usage.type == "at_will"):
                innate[s.spell] = -1
    if any(slots):
        resources["slots"] = tuple(slots)
    if innate:
        resources["innate"] = innate
    return tuple(spells), level or (1 if spells else 0)   # no caster level given: cantrips at their base dice


def _body_traits(spec, resources: dict) -> tuple:
    """Traits of its body and how it moves (a heated body, Sure-Footed, incorporeal movement,
    Split, Grappler, air or water form, Freeze, Rock Catching, Divine Eminence); returns their features."""
    features: tuple = ()
    hot = spec.trait("heated-body")
    if hot is not None and hot.damage:   # burns whoever hits it in melee from within 5 ft
        resources["heated_body"] = [(d.dice, d.type) for d in hot.damage]
    if spec.trait("sure-footed") is not None:
        features += ("sure_footed",)
    if spec.trait("incorporeal-movement") is not None:   # through creatures as difficult terrain
        features += ("incorporeal",)
    if any(r.key == "split" for r in spec.reactions):   # an ooze that halves when cut or shocked
        features += ("split",)
    if spec.trait("grappler") is not None:   # advantage against the creature it grapples
        features += ("grappler",)
    if spec.trait("damage-transfer") is not None:   # half of the damage goes to the creature it grapples
        features += ("damage_transfer",)
    if spec.trait("air-form") is not None or spec.trait("water-form") is not None:
        features += ("enters_foes",)   # into a hostile creature's space (the maps have no 1-inch gaps)
    if spec.trait("freeze") is not None:   # a water elemental: cold slows it by 20 ft
        features += ("freeze",)
    if any(r.key == "rock-catching" for r in spec.reactions):   # a stone giant: Dex DC 10 to catch a rock
        features += ("rock_catching",)
    if spec.trait("divine-eminence") is not None:   # a priest: a slot for radiant dice on melee hits
        features += ("divine_eminence",)
    return features


def _special_actions(spec, key: str, attacks: list, resources: dict, mech: dict) -> tuple:
    """Actions and reactions with numbers from ``monster_traits.json`` or the stat block (Unnerving
    Mask, Consume Life, Children of the Night, Create Specter, Leadership, Rampage, Invisibility,
    Healing Touch) and the reckless and aggressive; returns their features."""
    features: tuple = ()
    mask = mech["unnerving-mask"].get(key)
    if mask and any(r.key == "unnerving-mask" for r in spec.reactions):   # a chain devil frightens those near
        resources["unnerving_mask"] = dict(mask)
    eat = mech["consume-life"].get(key)
    if eat and spec.trait("consume-life") is not None and spec.trait("consume-life").save:
        resources["consume_life"] = {**eat, **dict(spec.trait("consume-life").save)}   # + ability, dc
    kids = mech["children-of-the-night"].get(key)
    if kids and any(a.key == "children-of-the-night" for a in spec.actions):   # a vampire calls swarms, once
        resources["children"], resources["uses:children-of-the-night"] = dict(kids), 1
    rise = mech["create-specter"].get(key)
    if rise and any(a.key == "create-specter" for a in spec.actions):   # a wraith raises the fresh dead
        resources["create_specter"] = dict(rise)
    if any(a.key == "leadership" for a in spec.actions):   # a knight: once per battle (a rest recharges it)
        features += ("leadership",)
        resources["uses:leadership"] = 1
    if spec.trait("reckless") is not None and any(a.melee for a in attacks):
        features += ("reckless",)
    rampage = spec.trait("rampage")
    if rampage is not None and rampage.params.get("attack") in {a.key for a in attacks}:
        resources["rampage"] = rampage.params["attack"]
    if any(a.key in ("invisibility", "invisible-passage") and a.reason == "invisibility effect" and a.usage is None
           for a in spec.actions):   # a green hag's Invisible Passage is the same magic
        features += ("invisibility_action",)   # turns invisible until it attacks (concentration)
    touch = next((a for a in spec.actions if isinstance(a, content.HealSpec) and a.key == "healing-touch"
                  and a.usage is not None and a.usage.type == "per_day"), None)
    if touch is not None:
        resources["healing_touch"], resources["uses:healing-touch"] = touch.dice, touch.usage.times
    if any(t.key == "aggressive" and t.executable for t in spec.traits):   # a bonus-action move at a foe
        features += ("aggressive",)
    return features


def _auras_and_saves(spec, key: str, resources: dict, mech: dict) -> tuple:
    """Evasion and the other named defences, damaging hides and auras, what happens around it
    (a death burst, a stench, a fear aura, a petrifying gaze) and its advantage on saves against
    some conditions; returns their features."""
    features: tuple = ()
    for trait, feature in (("evasion", "evasion"), ("gnome-cunning", "gnome_cunning"), ("reactive", "reactive"),
                           ("turn-defiance", "turn_defiance"), ("assassinate", "assassinate"),
                           ("tree-stride", "tree_stride")):   # a dryad's tree to tree (dnd/spell_plants.py)
        if spec.trait(trait) is not None:
            features += (feature,)
    for trait, res in (("barbed-hide", "barbed_hide"), ("fire-aura", "fire_aura")):
        t = spec.trait(trait)
        if t is not None and t.damage:   # damage to whoever grapples it / stands next to it
            resources[res] = [(d.dice, d.type) for d in t.damage]
    if "fire_aura" in resources:   # a Fire Aura also burns whoever touches or hits it in melee
        resources["heated_body"] = resources["fire_aura"]
    for trait, res in (("death-burst", "death_burst"), ("death-throes", "death_burst"), ("stench", "stench"),
                       ("fear-aura", "fear_aura"), ("petrifying-gaze", "gaze")):
        t = spec.trait(trait)
        if t is not None and t.save and key in mech[trait]:
            resources[res] = {**mech[trait][key], "ability": t.save["ability"], "dc": t.save["dc"],
                              "damage": [(d.dice, d.type) for d in t.damage]}
    vs = sorted({c for t in spec.traits for c in mech["save-advantage"].get(t.key, ())})
    if vs:   # Brave, Dark Devotion, Two Heads, Fey Ancestry: advantage on saves against these
        resources["save_adv_vs"] = vs
    ward = next((mech["ally-ward"][t.key] for t in spec.traits if t.key in mech["ally-ward"]), None)
    if ward:   # Steadfast: not frightened while it sees an ally nearby
        resources["ally_ward"] = dict(ward)
    return features


def _staying_power(spec, key: str, attacks: list, resources: dict, mech: dict) -> tuple:
    """What keeps it up: a hydra's heads, Undead Fortitude, Relentless, Regeneration and Parry;
    returns their features."""
    features: tuple = ()
    heads = mech["multiple-heads"].get(key)
    if heads:   # a hydra: heads die to heavy damage and grow back two for one
        resources["heads"], resources["heads_rule"] = heads["heads"], dict(heads)
        resources["oa_extra"] = heads["heads"] - 1   # Reactive Heads
        resources["save_adv_vs"] = sorted(set(resources.get("save_adv_vs", ())) | set(heads["save_adv"]))
    fort = spec.trait("undead-fortitude")
    if fort is not None and fort.executable:
        resources["undead_fortitude"] = {"dc_base": fort.params["dc_base"], "except": list(fort.params["except"])}
    relentless = spec.trait("relentless")
    if relentless is not None and relentless.executable:
        resources["relentless"] = relentless.params["max_damage"]
    regen = spec.trait("regeneration")
    if regen is not None and regen.executable:
        features += ("regeneration",)
        resources["regeneration"] = {"hp": regen.params["hp"], "stop": list(regen.params.get("disabled_by", ())),
                                     "at_zero": not regen.params.get("requires_hp_above_zero", True)}
    parry = next((r for r in spec.reactions if isinstance(r, content.ParrySpec) and r.executable), None)
    if parry is not None and any(a.melee for a in attacks):   # it needs a melee weapon in hand
        features += ("parry",)
        resources["parry"] = parry.ac_bonus
    return features


def _recharges_and_uses(spec, key: str, keys: set, save_actions: tuple, resources: dict,
                        mech: dict) -> tuple[tuple, dict]:
    """Which actions recharge, the uses of "n/Day" save actions, the breaths of a "Breath Weapons"
    choice (one shared recharge) and the teleports. Returns (save_actions with those breaths,
    recharge)."""
    recharge = {k: True for k in (*save_actions, *keys)
                if spec.action(k).usage is not None and spec.action(k).usage.type == "recharge"}
    for k in save_actions:   # "1/Day" save actions: uses left
        if spec.action(k).usage is not None and spec.action(k).usage.type == "per_day":
            resources[f"uses:{k}"] = spec.action(k).usage.times or 1
    for a in spec.actions:   # "Breath Weapons (Recharge 5-6)": one of two breaths, one shared recharge
        if isinstance(a, content.ChoiceSpec) and a.executable and a.usage is not None \
                and a.usage.type == "recharge" and not a.forms:
            runs = [o.key for o in a.options if (engine_runs_save_action(o) and o.usage is None)
                    or breath_rider(key, o.key) is not None]
            for o in a.options:   # a repulsion breath's push
                push = mech["breath-weapons"].get(key, {}).get(o.key, {}).get("push")
                if push:
                    resources["breath_push"] = {o.key: push}
            if runs:
                save_actions += tuple(runs)
                recharge[a.key] = True
                resources["recharge_of"] = {**resources.get("recharge_of", {}), **{k: a.key for k in runs}}

    teleports = {a.key: a.distance for a in spec.actions if isinstance(a, content.TeleportSpec) and a.executable
                 and not a.forms and (a.usage is None or a.usage.type == "recharge")}
    if teleports:
        resources["teleports"] = teleports
        recharge.update({k: True for k in teleports if spec.action(k).usage is not None})
    return save_actions, recharge


register_monster_builder(monster_combatant)   # the mechanics build monsters through model.factories
