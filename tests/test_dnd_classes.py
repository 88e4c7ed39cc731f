"""The 12 SRD classes (one subclass each) at levels 1-20, multiclass builds, and the class features
that matter in combat, through the engine's real options with scripted dice (tests/dnd_helpers.py)."""

import pytest
from dnd_helpers import WIDE, arena, events, labels, mon, pick, script, turn

from dungeonbench_gym.dnd import content, heuristic
from dungeonbench_gym.dnd.classes import dispatch, druid
from dungeonbench_gym.dnd.builders.pcs import (
    ARCHETYPES,
    build_pc,
    class_levels,
    long_rest,
    short_rest,
)
from dungeonbench_gym.dnd.state import ability_mod
from dungeonbench_gym.dnd.verification import feature_probes


def _mod(c, ab):
    return ability_mod(c.abilities[ab])


# ------------------------------------------------------------------ levels 1-20 for every archetype
@pytest.mark.parametrize("arch", sorted(ARCHETYPES))
@pytest.mark.parametrize("level", range(1, 21))
def test_every_archetype_builds_at_every_level_and_plays_a_turn(arch, level):
    c = build_pc(arch, level, "p", (2, 2, 0))
    assert c.level == level and c.prof == 2 + (level - 1) // 4
    assert c.hp == c.max_hp > 0
    g = mon("ogre", (3, 2), "o")
    b = arena(c, g, layout=WIDE, first="p")
    steps = 0
    while b.decision is not None and b.decision.actor == "p" and steps < 40:
        b.choose(heuristic.choose(b))
        steps += 1
    did = [e for e in b.log if e.get("creature") == "p" or e.get("attacker") == "p"]
    assert any(e["event"] in ("attack", "cast", "rage", "dodge", "dash", "smite", "wild_shape") for e in did), \
        [e["text"] for e in b.log[-10:]]


def test_hit_points_follow_the_hit_die_with_the_average_after_level_1():
    f = build_pc("fighter", 20, "f", (1, 1, 0))   # d10; Con 20 after the ASIs
    m = _mod(f, "con")
    assert f.abilities["con"] == 20 and f.max_hp == 10 + m + 19 * (6 + m)
    w = build_pc("wizard", 7, "w", (1, 1, 0))     # d6
    assert w.max_hp == 6 + _mod(w, "con") + 6 * (4 + _mod(w, "con"))


def test_ability_score_improvements_raise_the_primary_ability_to_20_then_the_next():
    assert build_pc("wizard", 3, "w", (1, 1, 0)).abilities["int"] == 16
    assert build_pc("wizard", 4, "w", (1, 1, 0)).abilities["int"] == 18
    assert build_pc("wizard", 8, "w", (1, 1, 0)).abilities["int"] == 20
    w12 = build_pc("wizard", 12, "w", (1, 1, 0))
    assert w12.abilities["int"] == 20 and w12.abilities["con"] == 16
    assert build_pc("fighter", 5, "f", (1, 1, 0)).abilities["str"] == 18
    assert build_pc("fighter", 6, "f", (1, 1, 0)).abilities["str"] == 20   # fighters get a 6th-level ASI
    assert build_pc("fighter", 8, "f", (1, 1, 0)).abilities["con"] == 17


def test_full_casters_get_slots_up_to_9th_level_as_a_longer_tuple():
    w = build_pc("wizard", 17, "w", (1, 1, 0))
    assert w.resources["slots"] == (4, 3, 3, 3, 2, 1, 1, 1, 1)
    assert len(build_pc("cleric", 1, "c", (1, 1, 0)).resources["slots"]) == 9
    assert build_pc("paladin", 20, "p", (1, 1, 0)).resources["slots"] == (4, 3, 3, 3, 2, 0, 0, 0, 0)


def test_extra_attack_gives_three_attacks_at_fighter_11_and_four_at_20():
    for level, n in ((5, 2), (11, 3), (20, 4)):
        f = build_pc("fighter", level, "f", (2, 2, 0))
        o = mon("ogre", (3, 2), "o")
        b = arena(f, o, layout=WIDE, first="f")
        script(b, 1)   # a miss
        pick(b, "attack", "Longsword")
        pick(b, "target")
        assert f.economy.attacks_left == n - 1


def test_barbarian_paladin_monk_and_ranger_get_one_extra_attack_at_5():
    for arch in ("barbarian", "paladin", "monk", "ranger"):
        assert "extra_attack" not in build_pc(arch, 4, "x", (1, 1, 0)).features
        assert build_pc(arch, 5, "x", (1, 1, 0)).resources["extra_attacks"] == 1


def test_action_surge_twice_at_17_but_once_a_turn_and_back_on_a_short_rest():
    f = build_pc("fighter", 17, "f", (2, 2, 0))
    b = arena(f, mon("ogre", (3, 2), "o"), layout=WIDE, first="f")
    pick(b, "action_surge")
    assert f.resources["action_surge"] == 1 and "action_surge" not in [o.kind for o in b.decision.options]
    short_rest(f)
    assert f.resources["action_surge"] == 2


def test_indomitable_rerolls_a_failed_save_and_spends_a_use():
    f = build_pc("fighter", 9, "f", (2, 2, 0))
    b = arena(f, mon("goblin", (6, 2), "g"), layout=WIDE)
    script(b, 2, 18)   # fails, then the reroll succeeds
    assert b.saving_throw(f, "wis", 12) is True
    assert f.resources["indomitable"] == 0
    script(b, 2)
    assert b.saving_throw(f, "wis", 12) is False   # no use left


def test_champion_scores_a_critical_hit_on_19_and_18_from_15():
    f = build_pc("fighter", 3, "f", (2, 2, 0))
    o = mon("ogre", (3, 2), "o")
    b = arena(f, o, layout=WIDE, first="f")
    script(b, 19, 4, 4)
    pick(b, "attack", "Longsword")
    pick(b, "target")
    assert events(b, "attack")[-1]["critical"] and o.hp == 59 - (4 + 4 + 3)
    assert build_pc("fighter", 15, "f", (1, 1, 0)).resources["crit_min"] == 18


def test_survivor_heals_5_plus_con_at_the_start_of_a_turn_at_half_hp_or_less():
    f = build_pc("fighter", 18, "f", (2, 2, 0))
    b = arena(f, mon("goblin", (8, 2), "g"), layout=WIDE)
    f.hp = f.max_hp // 2
    turn(b, "f")
    assert f.hp == f.max_hp // 2 + 5 + _mod(f, "con")


def test_sneak_attack_dice_grow_to_10d6_at_rogue_20():
    assert build_pc("rogue", 20, "r", (1, 1, 0)).resources["sneak_attack_dice"] == "10d6"
    assert build_pc("rogue", 9, "r", (1, 1, 0)).resources["sneak_attack_dice"] == "5d6"


# ------------------------------------------------------------------ Evasion
def _fireball_on(target, caster_level=5):
    w = build_pc("wizard", caster_level, "w", (2, 2, 0), side="enemies")
    b = arena(target, w, layout=WIDE, first="w")
    pick(b, "spell", "Fireball")
    return b, w


@pytest.mark.parametrize("arch,level", [("rogue", 7), ("monk", 7)])
def test_evasion_no_damage_on_a_dex_success_half_on_a_failure(arch, level):
    r = build_pc(arch, level, "r", (9, 6, 0))
    b, _ = _fireball_on(r)
    # place the fireball on the target's corner through the real point decisions
    pick(b, "point_x", "x = 9")
    script(b, 6, 6, 6, 6, 6, 6, 6, 6, 19)   # 8d6 = 48, a success
    pick(b, "point_y", "(9, 6) (hits r")
    assert r.hp == r.max_hp
    b2, _ = _fireball_on(build_pc(arch, level, "r", (9, 6, 0)))
    r2 = b2.creatures["r"]
    pick(b2, "point_x", "x = 9")
    script(b2, 1, 1, 1, 1, 1, 1, 1, 3, 2)     # 10 damage, a failure: half
    pick(b2, "point_y", "(9, 6) (hits r")
    assert r2.hp == r2.max_hp - 5


def test_without_evasion_a_dex_success_still_takes_half():
    assert dispatch.area_damage(build_pc("rogue", 6, "r", (1, 1, 0)), "dex", True, True, 20) == 10
    assert dispatch.area_damage(build_pc("rogue", 7, "r", (1, 1, 0)), "dex", True, True, 20) == 0
    assert dispatch.area_damage(build_pc("rogue", 7, "r", (1, 1, 0)), "con", True, True, 20) == 10


# ------------------------------------------------------------------ Barbarian
def _barb(level=1, at=(2, 2)):
    return build_pc("barbarian", level, "barb", (*at, 0))


def test_unarmored_defense_barbarian_dex_plus_con_monk_dex_plus_wis():
    b = _barb()
    assert b.ac == 10 + _mod(b, "dex") + _mod(b, "con") == 14
    m = build_pc("monk", 1, "m", (1, 1, 0))
    assert m.ac == 10 + _mod(m, "dex") + _mod(m, "wis") == 15


def test_rage_is_a_bonus_action_adding_damage_to_melee_strength_attacks():
    bb, o = _barb(), mon("ogre", (3, 2), "o")
    b = arena(bb, o, layout=WIDE, first="barb")
    pick(b, "feature", "Rage (bonus action")
    assert "raging" in bb.conditions and not bb.economy.bonus and bb.resources["rage"] == 1
    assert not any(o.label.startswith("Rage") for o in b.decision.options)
    script(b, 15, 6)
    pick(b, "attack", "Greataxe")
    pick(b, "target")
    assert o.hp == 59 - (6 + 3 + 2)


def test_rage_bonus_does_not_apply_to_a_thrown_weapon():
    bb, o = _barb(), mon("ogre", (5, 2), "o")
    b = arena(bb, o, layout=WIDE, first="barb")
    pick(b, "feature", "Rage (bonus action")
    script(b, 15, 4)
    pick(b, "attack", "Handaxe (thrown)")
    pick(b, "target")
    assert o.hp == 59 - (4 + 3)


def test_rage_resists_bludgeoning_piercing_slashing_not_fire():
    bb = _barb(5)
    b = arena(bb, mon("ogre", (3, 2), "o"), layout=WIDE, first="barb")
    pick(b, "feature", "Rage (bonus action")
    b.damage(bb, 10, "slashing")
    assert bb.hp == bb.max_hp - 5
    b.damage(bb, 10, "fire")
    assert bb.hp == bb.max_hp - 15


def test_rage_gives_advantage_on_strength_saves():
    bb = _barb()
    b = arena(bb, mon("ogre", (3, 2), "o"), layout=WIDE, first="barb")
    pick(b, "feature", "Rage (bonus action")
    script(b, 2, 15)   # advantage: the 15 counts
    assert b.saving_throw(bb, "str", 15) is True


def test_rage_ends_when_a_turn_passes_without_attacking_or_taking_damage():
    bb = _barb()
    b = arena(bb, mon("ogre", (8, 2), "o"), layout=WIDE, first="barb")
    pick(b, "feature", "Rage (bonus action")
    pick(b, "end_turn")
    assert "raging" not in bb.conditions and events(b, "rage_end")


def test_rage_lasts_while_the_barbarian_attacks_and_ends_after_a_minute():
    bb, o = _barb(), mon("ogre", (3, 2), "o")
    b = arena(bb, o, layout=WIDE, first="barb")
    pick(b, "feature", "Rage (bonus action")
    script(b, 2)
    pick(b, "attack", "Greataxe")
    pick(b, "target")   # a miss still counts as an attack
    pick(b, "end_turn")
    assert "raging" in bb.conditions
    bb.conditions["raging"]["ends"] = b.round   # the minute is over at its next turn
    turn(b, "barb")
    assert "raging" not in bb.conditions


def test_rage_uses_come_back_on_a_long_rest_not_a_short_one():
    bb = _barb(3)
    bb.resources["rage"] = 0
    short_rest(bb)
    assert bb.resources["rage"] == 0
    long_rest(bb)
    assert bb.resources["rage"] == 3


def test_reckless_attack_gives_advantage_and_attackers_advantage_against_the_barbarian():
    bb, o = _barb(2), mon("ogre", (3, 2), "o")
    b = arena(bb, o, layout=WIDE, first="barb")
    pick(b, "feature", "Reckless Attack")
    assert "Reckless" not in " ".join(labels(b))
    script(b, 3, 17, 5)   # advantage: 17 + 5 = 22 hits
    pick(b, "attack", "Greataxe")
    pick(b, "target")
    assert o.hp == 59 - 8
    adv, _, why = b.attack_modifiers(o, bb, True)
    assert adv and "target reckless" in why
    turn(b, "barb")
    assert "reckless" not in bb.conditions


def test_frenzy_adds_a_bonus_action_attack_on_later_turns_and_exhaustion_at_the_end():
    bb, o = _barb(3), mon("ogre", (3, 2), "o")
    b = arena(bb, o, layout=WIDE, first="barb")
    pick(b, "feature", "Rage with Frenzy")
    assert not any("Frenzy: attack" in x for x in labels(b))
    script(b, 2)
    pick(b, "attack", "Greataxe")
    pick(b, "target")
    pick(b, "end_turn")
    b.round += 1
    bb.economy.bonus = True   # the barbarian's next turn (same round numbering kept)
    b.pending = {"kind": "action", "actor": "barb"}
    b.forget_options()
    script(b, 2)
    pick(b, "attack", "Frenzy: attack with Greataxe")
    pick(b, "target")
    assert not bb.economy.bonus
    dispatch.end_rage(b, bb, "test")
    assert bb.exhaustion == 1


def test_brutal_critical_adds_a_weapon_die_that_is_not_doubled():
    bb, o = _barb(9), mon("ogre", (3, 2), "o")
    b = arena(bb, o, layout=WIDE, first="barb")
    script(b, 20, 1, 1, 5)   # 2d12 (crit) = 2, +mod, then one brutal d12 = 5
    pick(b, "attack", "Greataxe")
    pick(b, "target")
    assert o.hp == 59 - (2 + _mod(bb, "str") + 5)


def test_relentless_rage_keeps_the_barbarian_at_1_hp_on_a_con_save():
    bb = _barb(11)
    b = arena(bb, mon("ogre", (3, 2), "o"), layout=WIDE, first="barb")
    pick(b, "feature", "Rage (bonus action")
    script(b, 15)
    b.damage(bb, bb.hp + 5, "fire")   # fire: not resisted
    assert bb.hp == 1 and bb.resources["relentless_uses"] == 1
    script(b, 8)   # DC 15 now: 8 + 6 fails
    b.damage(bb, 5, "fire")
    assert bb.hp == 0


def test_danger_sense_gives_advantage_on_dex_saves():
    bb = _barb(2)
    b = arena(bb, mon("ogre", (8, 2), "o"), layout=WIDE)
    script(b, 3, 14)
    assert b.saving_throw(bb, "dex", 15) is True


def test_fast_movement_and_feral_instinct():
    assert _barb(4).speed == 30 and _barb(5).speed == 40
    assert dispatch.initiative_advantage(_barb(7)) and not dispatch.initiative_advantage(_barb(6))


def test_mindless_rage_blocks_charm_and_fear_while_raging():
    bb = _barb(6)
    b = arena(bb, mon("ogre", (8, 2), "o"), layout=WIDE)
    assert not dispatch.blocks_condition(b, bb, "frightened")
    bb.conditions["raging"] = {"ends": 10, "kept": True}
    assert dispatch.blocks_condition(b, bb, "frightened") and dispatch.blocks_condition(b, bb, "charmed")


# ------------------------------------------------------------------ Paladin
def _pal(level=2, at=(2, 2), cid="pal"):
    return build_pc("paladin", level, cid, (*at, 0))


def test_divine_smite_is_a_choice_after_a_melee_hit_with_the_slot_level():
    p, o = _pal(5), mon("ogre", (3, 2), "o")
    b = arena(p, o, layout=WIDE, first="pal")
    script(b, 15)
    pick(b, "attack", "Longsword")
    pick(b, "target")
    assert b.decision.kind == "reaction" and b.decision.actor == "pal"
    assert any("level-2 slot (+3d8" in x for x in labels(b))
    script(b, 5, 4, 4, 4)   # longsword 5 + 4; smite 2d8 = 8
    pick(b, "reaction", "level-1 slot (+2d8")
    assert o.hp == 59 - (5 + 4 + 8) and p.resources["slots"][0] == 3
    assert b.decision.kind == "action" and b.decision.actor == "pal"


def test_divine_smite_adds_a_die_against_undead_and_doubles_on_a_critical():
    p, s = _pal(2), mon("skeleton", (3, 2), "s")
    b = arena(p, s, layout=WIDE, first="pal")
    script(b, 20)
    pick(b, "attack", "Longsword")
    pick(b, "target")
    assert any("level-1 slot (+3d8 radiant, doubled" in x for x in labels(b))


def test_no_smite_offered_after_a_thrown_javelin_or_when_declined():
    p, o = _pal(2), mon("ogre", (6, 2), "o")
    b = arena(p, o, layout=WIDE, first="pal")
    script(b, 15, 3)
    pick(b, "attack", "Javelin (thrown)")
    pick(b, "target")
    assert b.decision.kind == "action" and o.hp == 59 - 6
    p2, o2 = _pal(2), mon("ogre", (3, 2), "o")
    b2 = arena(p2, o2, layout=WIDE, first="pal")
    script(b2, 15)
    pick(b2, "attack", "Longsword")
    pick(b2, "target")
    script(b2, 4)
    pick(b2, "reaction", "No rider")
    assert o2.hp == 59 - 7 and p2.resources["slots"][0] == 2


def test_lay_on_hands_heals_what_is_missing_from_a_pool_of_5_per_level():
    p, f = _pal(3), build_pc("fighter", 3, "f", (3, 2, 0))
    b = arena(p, f, mon("goblin", (9, 9), "g"), layout=WIDE, first="pal")
    f.hp -= 10
    pick(b, "feature", "Lay on Hands")
    pick(b, "target", "on f")
    assert f.hp == f.max_hp and p.resources["lay_on_hands"] == 5 and p.economy.actions == 0
    long_rest(p)
    assert p.resources["lay_on_hands"] == 15


def test_aura_of_protection_adds_the_paladins_cha_to_allies_saves_within_10_ft():
    p = _pal(6)
    near, far = build_pc("wizard", 3, "near", (3, 2, 0)), build_pc("wizard", 3, "far", (8, 8, 0))
    b = arena(p, near, far, mon("goblin", (12, 9), "g"), layout=WIDE)
    cha = max(1, _mod(p, "cha"))
    assert dispatch.save_bonus(b, near, "wis") == cha and dispatch.save_bonus(b, far, "wis") == 0
    assert dispatch.save_bonus(b, p, "con") == cha
    script(b, 10)   # 10 + Wis save +... + aura reaches the DC only with the aura
    need = 10 + near.saves["wis"] + cha
    assert b.saving_throw(near, "wis", need) is True
    p.hp = 0
    assert dispatch.save_bonus(b, near, "wis") == 0   # an unconscious paladin has no aura


def test_sacred_weapon_adds_cha_to_weapon_attack_rolls_for_a_minute():
    p, o = _pal(3), mon("ogre", (3, 2), "o")
    b = arena(p, o, layout=WIDE, first="pal")
    pick(b, "feature", "Sacred Weapon")
    assert p.resources["channel_divinity"] == 0 and p.economy.actions == 0
    assert "sacred_weapon" in p.conditions and p.conditions["sacred_weapon"]["until_round"] == b.round + 10
    assert dispatch.attack_bonus(b, p, o, p.attack("longsword")) == max(1, _mod(p, "cha"))


def test_improved_divine_smite_adds_1d8_radiant_to_every_melee_weapon_hit():
    p, o = _pal(11), mon("ogre", (3, 2), "o")
    b = arena(p, o, layout=WIDE, first="pal")
    script(b, 15)
    pick(b, "attack", "Longsword")
    pick(b, "target")
    script(b, 4, 6)
    pick(b, "reaction", "No rider")
    assert o.hp == 59 - (4 + _mod(p, "str") + 6)


def test_aura_of_courage_and_devotion_block_fear_and_charm_nearby():
    p, w = _pal(10), build_pc("wizard", 3, "w", (3, 2, 0))
    b = arena(p, w, mon("goblin", (12, 9), "g"), layout=WIDE)
    assert dispatch.blocks_condition(b, w, "frightened") and dispatch.blocks_condition(b, w, "charmed")
    assert not dispatch.blocks_condition(b, w, "paralyzed")
    w.pos = (9, 9, 0)   # beyond 10 ft
    assert not dispatch.blocks_condition(b, w, "frightened")


def test_divine_health_makes_the_paladin_immune_to_disease():
    assert "diseased" in _pal(3).condition_immunities and "diseased" not in _pal(2).condition_immunities


# ------------------------------------------------------------------ Monk
def _monk(level=2, at=(2, 2)):
    return build_pc("monk", level, "monk", (*at, 0))


def test_martial_arts_bonus_unarmed_strike_only_after_the_attack_action():
    m, o = _monk(1), mon("ogre", (3, 2), "o")
    b = arena(m, o, layout=WIDE, first="monk")
    assert not any("Martial Arts" in x for x in labels(b))
    script(b, 2)
    pick(b, "attack", "Shortsword")
    pick(b, "target")
    script(b, 15, 3)
    pick(b, "attack", "Martial Arts: unarmed strike")
    pick(b, "target")
    assert o.hp == 59 - (3 + _mod(m, "dex")) and not m.economy.bonus


def test_unarmed_strike_uses_the_martial_arts_die_which_grows():
    assert build_pc("monk", 1, "m", (1, 1, 0)).attack("unarmed-strike").damage[0].dice.startswith("1d4")
    assert build_pc("monk", 5, "m", (1, 1, 0)).attack("unarmed-strike").damage[0].dice.startswith("1d6")
    assert build_pc("monk", 17, "m", (1, 1, 0)).attack("unarmed-strike").damage[0].dice.startswith("1d10")


def test_flurry_of_blows_spends_1_ki_for_two_unarmed_strikes():
    m, o = _monk(2), mon("ogre", (3, 2), "o")
    b = arena(m, o, layout=WIDE, first="monk")
    script(b, 2)
    pick(b, "attack", "Shortsword")
    pick(b, "target")
    script(b, 15, 2, 15, 3)
    pick(b, "attack", "Flurry of Blows")
    pick(b, "target")
    assert m.resources["ki"] == 1 and not m.economy.bonus
    pick(b, "attack", "Flurry of Blows: the second")
    pick(b, "target")
    assert o.hp == 59 - (2 + 3 + 2 * _mod(m, "dex"))
    assert not any("Flurry" in x for x in labels(b))


def test_patient_defense_and_step_of_the_wind_cost_ki_as_bonus_actions():
    m = _monk(2)
    b = arena(m, mon("ogre", (8, 2), "o"), layout=WIDE, first="monk")
    pick(b, "feature", "Patient Defense")
    assert m.dodging and m.resources["ki"] == 1 and not m.economy.bonus
    m2 = _monk(2)
    b2 = arena(m2, mon("ogre", (8, 2), "o"), layout=WIDE, first="monk")
    before = m2.economy.movement
    pick(b2, "feature", "Step of the Wind: Dash")
    assert m2.economy.movement == 2 * before and m2.resources["ki"] == 1


def test_ki_returns_on_a_short_rest():
    m = _monk(6)
    m.resources["ki"] = 0
    short_rest(m)
    assert m.resources["ki"] == 6


def test_stunning_strike_stuns_on_a_failed_con_save_until_the_end_of_the_monks_next_turn():
    m, o = _monk(5), mon("ogre", (3, 2), "o")
    b = arena(m, o, layout=WIDE, first="monk")
    script(b, 15)
    pick(b, "attack", "Unarmed Strike")
    pick(b, "target")
    script(b, 3, 2)   # damage 3, then the ogre's Con save 2 fails
    pick(b, "reaction", "Stunning Strike")
    assert "stunned" in o.conditions and m.resources["ki"] == 4
    pick(b, "end_turn")   # the stun outlasts the monk's current turn ...
    assert "stunned" in o.conditions
    b.round += 1
    b._end_of_turn_effects(m)   # ... and ends at the end of its next one
    assert "stunned" not in o.conditions


def test_open_hand_technique_knocks_prone_on_a_flurry_hit():
    m, o = _monk(3), mon("ogre", (3, 2), "o")
    b = arena(m, o, layout=WIDE, first="monk")
    script(b, 2)
    pick(b, "attack", "Shortsword")
    pick(b, "target")
    script(b, 15)
    pick(b, "attack", "Flurry of Blows")
    pick(b, "target")
    script(b, 2, 3)   # damage 2, the ogre's Dex save 3 fails
    pick(b, "reaction", "knock prone")
    assert "prone" in o.conditions


def test_deflect_missiles_reduces_ranged_weapon_damage():
    m = _monk(3, at=(2, 2))
    g = mon("goblin", (8, 2), "g")   # shortbow 1d6+2
    b = arena(m, g, layout=WIDE, first="g")
    script(b, 19)
    pick(b, "attack", "Shortbow")
    pick(b, "target")
    assert b.decision.kind == "reaction" and b.decision.actor == "monk"
    script(b, 1, 6)   # reduce by 1 + Dex + 3; the arrow does 8
    pick(b, "reaction", "Deflect Missiles")
    assert m.hp == m.max_hp - max(0, 8 - (1 + _mod(m, "dex") + 3)) and not m.economy.reaction


def test_wholeness_of_body_heals_three_times_the_monk_level_once():
    m = _monk(6)
    b = arena(m, mon("ogre", (8, 2), "o"), layout=WIDE, first="monk")
    m.hp = 5
    pick(b, "feature", "Wholeness of Body")
    assert m.hp == 23 and m.resources["wholeness_of_body"] == 0


def test_diamond_soul_proficiency_in_all_saves_and_a_ki_reroll():
    m = _monk(14)
    assert all(m.saves[ab] == _mod(m, ab) + m.prof for ab in m.saves)
    b = arena(m, mon("ogre", (8, 2), "o"), layout=WIDE)
    ki = m.resources["ki"]
    script(b, 1, 19)
    assert b.saving_throw(m, "int", 20) is True and m.resources["ki"] == ki - 1


def test_purity_of_body_immune_to_poison_and_stillness_of_mind():
    m = _monk(10)
    b = arena(m, mon("ogre", (8, 2), "o"), layout=WIDE, first="monk")
    assert b.damage(m, 10, "poison") == 0 and "poisoned" in m.condition_immunities
    m.conditions["frightened"] = {"by": "o"}
    b.forget_options()
    pick(b, "feature", "Stillness of Mind")
    assert "frightened" not in m.conditions


# ------------------------------------------------------------------ Bard
def test_bardic_inspiration_is_given_as_a_bonus_action_and_used_on_a_missed_attack():
    bard, f, o = build_pc("bard", 5, "bard", (2, 2, 0)), build_pc("fighter", 1, "f", (3, 3, 0)), \
        mon("ogre", (4, 3), "o")
    b = arena(bard, f, o, layout=WIDE, first="bard")
    pick(b, "feature", "Bardic Inspiration")
    pick(b, "target", "Inspire f (1d8)")
    assert f.conditions["inspired"]["die"] == "1d8" and not bard.economy.bonus
    assert bard.resources["bardic_inspiration"] == max(1, _mod(bard, "cha")) - 1
    turn(b, "f")
    script(b, 4, 5, 3)   # 4 + 5 = 9 misses AC 11; the d8 (5) makes 14: a hit for 3 + 3
    pick(b, "attack", "Longsword")
    pick(b, "target")
    assert "inspired" not in f.conditions and o.hp == 59 - 6


def test_bardic_inspiration_turns_a_failed_save():
    f = build_pc("fighter", 1, "f", (3, 3, 0))
    b = arena(f, mon("ogre", (8, 2), "o"), layout=WIDE)
    f.conditions["inspired"] = {"die": "1d6", "by": "bard"}
    script(b, 8, 4)
    assert b.saving_throw(f, "wis", 12) is True and "inspired" not in f.conditions


def test_font_of_inspiration_returns_uses_on_a_short_rest_from_level_5():
    b4, b5 = build_pc("bard", 4, "b", (1, 1, 0)), build_pc("bard", 5, "b", (1, 1, 0))
    b4.resources["bardic_inspiration"] = b5.resources["bardic_inspiration"] = 0
    short_rest(b4)
    short_rest(b5)
    assert b4.resources["bardic_inspiration"] == 0 and b5.resources["bardic_inspiration"] >= 1


# ------------------------------------------------------------------ Sorcerer
def test_quickened_spell_casts_an_action_spell_as_a_bonus_action_for_2_sorcery_points():
    s, g = build_pc("sorcerer", 3, "s", (2, 2, 0)), mon("ogre", (6, 2), "o")
    b = arena(s, g, layout=WIDE, first="s")
    assert s.resources["sorcery_points"] == 3
    pick(b, "spell", "Quickened Spell (2 sorcery points): cast Fire Bolt")
    script(b, 15, 5)
    pick(b, "target")
    assert s.resources["sorcery_points"] == 1 and not s.economy.bonus and s.economy.actions == 1
    # the bonus-action spell rule: only a cantrip with the action now
    spells = [o.data[0] for o in b.decision.options if o.kind == "spell"]
    assert "fire-bolt" in spells and "magic-missile" not in spells


def test_draconic_resilience_hp_and_ac():
    s = build_pc("sorcerer", 4, "s", (1, 1, 0))
    assert s.ac == 13 + _mod(s, "dex")
    assert s.max_hp == 6 + _mod(s, "con") + 3 * (4 + _mod(s, "con")) + 4


# ------------------------------------------------------------------ Warlock
def test_pact_magic_slots_are_all_of_the_pact_level_and_return_on_a_short_rest():
    w = build_pc("warlock", 5, "w", (2, 2, 0))
    assert w.resources["slots"] == (0, 0, 2, 0, 0, 0, 0, 0, 0)
    b = arena(w, mon("ogre", (6, 2), "o"), layout=WIDE, first="w")
    levels = [o.data[1] for o in b.decision.options if o.kind == "spell" and o.data[0] == "burning-hands"]
    assert levels == [3]
    w.resources["slots"] = (0, 0, 0, 0, 0, 0, 0, 0, 0)
    short_rest(w)
    assert w.resources["slots"] == (0, 0, 2, 0, 0, 0, 0, 0, 0)


def test_agonizing_blast_adds_cha_to_eldritch_blast_damage():
    w, o = build_pc("warlock", 2, "w", (2, 2, 0)), mon("ogre", (6, 2), "o")
    b = arena(w, o, layout=WIDE, first="w")
    script(b, 15, 7)
    pick(b, "spell", "Eldritch Blast")
    pick(b, "target")
    assert o.hp == 59 - (7 + _mod(w, "cha"))


def test_dark_ones_blessing_gives_temp_hp_on_a_kill():
    w, g = build_pc("warlock", 3, "w", (2, 2, 0)), mon("goblin", (3, 2), "g")
    b = arena(w, g, mon("goblin", (9, 9), "g2"), layout=WIDE)
    b.damage(g, 50, "force", source="w")
    assert w.temp_hp == _mod(w, "cha") + 3


# ------------------------------------------------------------------ Ranger
def test_colossus_slayer_adds_1d8_once_a_turn_against_a_wounded_target():
    r, o = build_pc("ranger", 5, "r", (2, 2, 0)), mon("ogre", (8, 2), "o")
    b = arena(r, o, layout=WIDE, first="r")
    o.hp = 50
    script(b, 15, 4, 5, 15, 4)
    pick(b, "attack", "Longbow")
    pick(b, "target")
    assert o.hp == 50 - (4 + _mod(r, "dex") + 5)
    pick(b, "attack", "Longbow")
    pick(b, "target")
    assert o.hp == 50 - (4 + _mod(r, "dex") + 5) - (4 + _mod(r, "dex"))


def test_archery_style_adds_2_to_ranged_weapon_attacks():
    r = build_pc("ranger", 1, "r", (1, 1, 0))
    assert r.attack("longbow").to_hit == _mod(r, "dex") + r.prof + 2
    assert r.attack("shortsword").to_hit == _mod(r, "dex") + r.prof


# ------------------------------------------------------------------ Rogue high levels
def test_elusive_denies_advantage_against_the_rogue():
    r, o = build_pc("rogue", 18, "r", (2, 2, 0)), mon("ogre", (3, 2), "o")
    b = arena(r, o, layout=WIDE)
    r.conditions["prone"] = {}
    adv = b.attack_modifiers(o, r, True)[0]
    assert not adv


def test_stroke_of_luck_turns_a_miss_into_a_hit_once_per_short_rest():
    r, o = build_pc("rogue", 20, "r", (2, 2, 0)), mon("ogre", (3, 2), "o")
    b = arena(r, o, layout=WIDE, first="r")
    script(b, 1, 3, *([1] * 10))   # a natural 1 misses; Stroke of Luck makes it a hit
    pick(b, "attack", "Shortsword")
    pick(b, "target")
    assert events(b, "stroke_of_luck") and r.resources["stroke_of_luck"] == 0 and o.hp < 59
    short_rest(r)
    assert r.resources["stroke_of_luck"] == 1


# ------------------------------------------------------------------ multiclass
def test_class_levels_split_a_multiclass_build_by_its_plan():
    assert class_levels("paladin_sorcerer", 5) == (("paladin", 2), ("sorcerer", 3))
    assert class_levels("paladin_sorcerer", 20) == (("paladin", 6), ("sorcerer", 14))
    assert class_levels("fighter_rogue", 5) == (("fighter", 2), ("rogue", 3))


def test_paladin_sorcerer_uses_the_multiclass_slot_table_and_both_classes_features():
    ps = build_pc("paladin_sorcerer", 5, "ps", (2, 2, 0))   # paladin 2 (half: 1) + sorcerer 3 = caster 4
    assert ps.resources["slots"] == content.class_spec("wizard").level(4).slots
    assert {"divine_smite", "lay_on_hands", "quickened_spell"} <= set(ps.features)
    assert ps.resources["sorcery_points"] == 3 and "extra_attack" not in ps.features
    assert ps.saves["wis"] == _mod(ps, "wis") + ps.prof   # saving throws of the first class only
    assert ps.saves["con"] == _mod(ps, "con")
    o = mon("ogre", (3, 2), "o")
    b = arena(ps, o, layout=WIDE, first="ps")
    script(b, 15)
    pick(b, "attack", "Longsword")
    pick(b, "target")
    assert any("level-2 slot (+3d8" in x for x in labels(b))   # sorcerer slots feed the smite


def test_fighter_rogue_gets_second_wind_action_surge_sneak_attack_and_its_hit_points():
    fr = build_pc("fighter_rogue", 5, "fr", (2, 2, 0))
    c = _mod(fr, "con")
    assert {"second_wind", "action_surge", "sneak_attack", "cunning_action"} <= set(fr.features)
    assert fr.resources["sneak_attack_dice"] == "2d6" and "extra_attack" not in fr.features
    assert fr.max_hp == (10 + c) + (6 + c) + 3 * (5 + c)


# ------------------------------------------------------------------ rests
def test_short_rest_and_long_rest_restore_the_right_resources():
    p = build_pc("paladin", 5, "p", (1, 1, 0))
    p.resources["slots"] = (0, 0, 0, 0, 0, 0, 0, 0, 0)
    p.resources["lay_on_hands"] = 0
    p.hp = 1
    short_rest(p)
    assert p.resources["lay_on_hands"] == 0 and p.resources["slots"][0] == 0
    long_rest(p)
    assert p.resources["lay_on_hands"] == 25 and p.resources["slots"][:2] == (4, 2) and p.hp == p.max_hp
    c = build_pc("cleric", 5, "c", (1, 1, 0))
    c.resources["channel_divinity"] = 0
    short_rest(c)
    assert c.resources["channel_divinity"] == 1


# ------------------------------------------------------------------ the coverage table
def test_the_feature_table_has_one_row_per_srd_feature_with_a_status():
    rows = feature_probes.coverage()
    assert len(rows) == len({r["key"] for r in rows}) >= 400
    assert {r["status"] for r in rows} <= {"executable", "out of scope", "not yet"}
    assert all(r["reason"] == "" for r in rows if r["status"] == "executable")
    assert all(r["reason"] for r in rows if r["status"] != "executable")
    assert len({r["class"] for r in rows}) == 12
    assert sum(r["status"] == "executable" for r in rows) >= 60


@pytest.mark.parametrize("key", [r["key"] for r in feature_probes.coverage() if r["status"] == "executable"])
def test_every_executable_feature_probe_passes(key):
    feature_probes.probe(key)


def test_probe_refuses_a_feature_that_is_not_executable():
    key = next(r["key"] for r in feature_probes.coverage() if r["status"] != "executable")
    with pytest.raises(AssertionError):
        feature_probes.probe(key)


# ------------------------------------------------------------------ Druid
def test_wild_shape_takes_the_beasts_hp_ac_and_attacks_keeps_wis_and_reverts_with_the_excess():
    d, o = build_pc("druid", 2, "d", (2, 2, 0)), mon("ogre", (3, 2), "o")
    b = arena(d, o, layout=WIDE, first="d")
    own_hp, wis = d.hp, d.abilities["wis"]
    pick(b, "feature", "Wild Shape")
    pick(b, "feature", "Wild Shape into: Wolf")
    assert (d.hp, d.max_hp, d.ac, d.speed) == (11, 11, 13, 40) and d.abilities["wis"] == wis
    assert [a.key for a in d.attacks] == ["bite"] and d.spells == () and d.economy.actions == 0
    assert d.resources["wild_shape"] == 1
    turn(b, "d")
    script(b, 15, 2, 3, 1)   # bite: 2d4+2 = 7, the ogre's Str save 1: knocked prone
    pick(b, "attack", "Bite")
    pick(b, "target")
    assert o.hp == 59 - 7 and "prone" in o.conditions
    b.damage(d, 16, "slashing")   # 11 for the wolf, 5 carry over
    assert d.hp == own_hp - 5 and d.attacks[0].key == "scimitar" and "healing-word" in d.spells


def test_wild_shape_forms_follow_the_cr_and_speed_limits():
    two = dict(druid.beast_forms(0.25, 2))
    assert "wolf" in two and "ape" not in two and "giant-eagle" not in two
    assert "crocodile" not in dict(druid.beast_forms(0.5, 2))   # no swim speed before 4
    four = dict(druid.beast_forms(0.5, 4))
    assert "ape" in four and "crocodile" in four and "giant-eagle" not in four
    assert "reef-shark" not in four   # no walking speed: not a form for our land battles
    assert "giant-eagle" in dict(druid.beast_forms(1, 8))


def test_revert_is_a_bonus_action_and_wild_shape_returns_on_a_short_rest_long_rest_reverts():
    d = build_pc("druid", 2, "d", (2, 2, 0))
    b = arena(d, mon("ogre", (8, 2), "o"), layout=WIDE, first="d")
    pick(b, "feature", "Wild Shape")
    pick(b, "feature", "Wild Shape into: Wolf")
    pick(b, "feature", "Revert to your normal form")
    assert d.creature_type == "humanoid" and not d.economy.bonus and d.hp == d.max_hp
    short_rest(d)
    assert d.resources["wild_shape"] == 2
    druid.wild_shape(b, d, "wolf")
    long_rest(d)
    assert "wild_shape_saved" not in d.resources and d.attacks[0].key == "scimitar"


def test_twinned_spell_hits_two_creatures_for_one_slot_and_the_spells_level_in_points():
    s = build_pc("sorcerer", 5, "s", (2, 2, 0))
    g1, g2 = mon("ogre", (6, 2), "g1"), mon("ogre", (6, 6), "g2")
    b = arena(s, g1, g2, layout=WIDE, first="s")
    assert not any("Twinned" in x and "Magic Missile" in x for x in labels(b))   # several darts: not twinnable
    pick(b, "feature", "Twinned Spell (1 sorcery point): Fire Bolt")
    pick(b, "target", "first target g1")
    assert not any("g1" in x for x in labels(b))   # two different creatures
    script(b, 15, 5, 4, 15, 6, 6)   # cantrip at 5: 2d10 each
    pick(b, "target", "second target g2")
    assert g1.hp == 59 - 9 and g2.hp == 59 - 12
    assert s.resources["sorcery_points"] == 4 and s.economy.actions == 0
    assert s.resources["slots"] == s.resources["slots_max"]


def test_twinned_spell_only_at_slot_levels_where_the_spell_has_one_target():
    s = build_pc("sorcerer", 11, "s", (2, 2, 0))
    s.spells += ("command", "chain-lightning")   # Command: +1 target per slot level; Chain Lightning: 4
    g1, g2 = mon("ogre", (6, 2), "g1"), mon("ogre", (6, 6), "g2")
    b = arena(s, g1, g2, layout=WIDE, first="s", max_options=500)
    twins = [x for x in labels(b) if x.startswith("Twinned Spell")]
    assert any(x.endswith("Command at level 1 at two creatures") for x in twins)
    assert not any("Command at level 2" in x or "Chain Lightning" in x for x in twins)


def test_twinned_spell_at_a_slot_level_costs_that_many_points_and_one_slot():
    s = build_pc("sorcerer", 5, "s", (2, 2, 0))
    s.spells += ("inflict-wounds",)   # a levelled single-target attack spell, for the cost rule
    g1, g2 = mon("ogre", (3, 2), "g1"), mon("ogre", (3, 5), "g2")
    s.pos = (2, 4, 0)
    b = arena(s, g1, g2, layout=WIDE, first="s", max_options=500)
    pick(b, "feature", "Twinned Spell (2 sorcery points): Inflict Wounds at level 2")
    pick(b, "target", "g1")
    script(b, 1, 1)   # two misses
    pick(b, "target", "g2")
    assert s.resources["sorcery_points"] == 3 and s.resources["slots"][1] == s.resources["slots_max"][1] - 1


def test_divine_strike_adds_radiant_damage_once_a_turn_from_cleric_8():
    c, o = build_pc("cleric", 8, "c", (2, 2, 0)), mon("ogre", (3, 2), "o")
    assert "divine_strike" not in build_pc("cleric", 7, "c", (1, 1, 0)).features
    b = arena(c, o, layout=WIDE, first="c")
    script(b, 15, 3, 5)
    pick(b, "attack", "Mace")
    pick(b, "target")
    assert o.hp == 59 - (3 + _mod(c, "str") + 5)
    c.economy.actions, c.economy.attacks_left = 1, 0   # a second attack in the same turn: no strike
    b.forget_options()
    script(b, 15, 3)
    pick(b, "attack", "Mace")
    pick(b, "target")
    assert o.hp == 59 - (3 + _mod(c, "str") + 5) - (3 + _mod(c, "str"))


def test_natural_recovery_recovers_half_the_druid_level_in_slots_once_a_day():
    from dungeonbench_gym.dnd.builders.pcs import natural_recovery
    d = build_pc("druid", 6, "d", (1, 1, 0))   # budget 3
    d.resources["slots"] = (0, 0, 0) + d.resources["slots"][3:]
    with pytest.raises(ValueError):
        natural_recovery(d, (2, 2))
    assert natural_recovery(d, (1, 2)) == (1, 2) and d.resources["slots"][:3] == (1, 1, 0)
    assert natural_recovery(d) == ()
    long_rest(d)
    assert d.resources["natural_recovery"] == 1 and d.resources["slots"] == d.resources["slots_max"]


def test_cutting_words_is_the_bards_reaction_that_can_turn_a_hit_on_an_ally_into_a_miss():
    bard, f, o = build_pc("bard", 3, "bard", (2, 2, 0)), build_pc("fighter", 1, "f", (3, 4, 0)), \
        mon("ogre", (3, 2), "o")
    b = arena(bard, f, o, layout=WIDE, first="o")
    script(b, 13)   # 13 + 6 = 19 against AC 19: a hit a d6 can undo
    pick(b, "attack", "Greatclub")
    pick(b, "target", "Attack f with")
    assert b.decision.actor == "bard" and b.decision.kind == "reaction"
    script(b, 1, 5, 5)   # the die shows 1: 18 still misses AC 19
    pick(b, "reaction", "Cutting Words")
    assert f.hp == f.max_hp and bard.resources["bardic_inspiration"] == max(1, _mod(bard, "cha")) - 1
    assert not bard.economy.reaction
    f.ac = 25
    assert not dispatch.cutting_words(b, o, f, {"total": 30, "ac": 25})   # a d6 cannot turn a 30


def test_cutting_words_is_not_offered_for_a_hit_the_die_cannot_undo():
    bard, f, o = build_pc("bard", 3, "bard", (2, 2, 0)), build_pc("fighter", 1, "f", (3, 4, 0)), \
        mon("ogre", (3, 2), "o")
    b = arena(bard, f, o, layout=WIDE, first="o")
    script(b, 19, 5, 5)   # 25 vs 19: beyond a d6
    pick(b, "attack", "Greatclub")
    pick(b, "target", "Attack f with")
    assert b.decision.actor != "bard" and f.hp == max(0, f.max_hp - 14) and bard.economy.reaction


def test_jack_of_all_trades_and_remarkable_athlete_add_half_proficiency_to_initiative():
    bard = build_pc("bard", 5, "bard", (2, 2, 0))   # proficiency +3: +1 (rounded down)
    champ = build_pc("fighter", 7, "champ", (4, 4, 0))   # +3: +2 (rounded up)
    assert dispatch.initiative_bonus(bard) == 1 and dispatch.initiative_bonus(champ) == 2
    assert dispatch.initiative_bonus(build_pc("bard", 1, "b", (1, 1, 0))) == 0
    b = arena(bard, champ, mon("ogre", (9, 9), "o"), layout=WIDE)
    assert bard.initiative - _mod(bard, "dex") - 1 == next(
        e["natural"] for e in b.log if e.get("what") == "initiative bard")


def test_intimidating_presence_frightens_on_a_failed_wis_save_and_a_success_gives_immunity():
    bb, o = _barb(10), mon("ogre", (6, 2), "o")
    b = arena(bb, o, layout=WIDE, first="barb")
    dc = 8 + bb.prof + _mod(bb, "cha")
    pick(b, "feature", f"Intimidating Presence (action: a creature within 30 ft, WIS save DC {dc}")
    script(b, 20)   # the ogre saves
    pick(b, "target", "Frighten o")
    assert "frightened" not in o.conditions and bb.economy.actions == 0
    turn(b, "barb")
    assert not any("Intimidating" in x for x in labels(b))   # immune after a success
    o2 = mon("ogre", (6, 6), "o2")
    b2 = arena(_barb(10), o2, layout=WIDE, first="barb")
    pick(b2, "feature", "Intimidating Presence")
    script(b2, 1)
    pick(b2, "target", "Frighten o2")
    assert o2.conditions["frightened"]["until"] == "end_of_source_next_turn"
    assert b2.attack_modifiers(o2, b2.creatures["barb"], True)[1]   # frightened: disadvantage


def test_holy_nimbus_sears_foes_that_start_their_turn_within_30_ft_once_a_day():
    p, near, far = _pal(20), mon("ogre", (5, 2), "near"), mon("ogre", (12, 8), "far")
    b = arena(p, near, far, layout=WIDE, first="pal")
    pick(b, "feature", "Holy Nimbus")
    assert p.resources["holy_nimbus"] == 0 and not any("Holy Nimbus" in x for x in labels(b))
    turn(b, "near")
    turn(b, "far")
    assert near.hp == 59 - 10 and far.hp == 59
    long_rest(p)
    assert p.resources["holy_nimbus"] == 1


def test_purity_of_spirit_gives_undead_and_fiends_disadvantage_against_the_paladin():
    p, z, o = _pal(15), mon("zombie", (3, 2), "z"), mon("ogre", (2, 4), "o")
    b = arena(p, z, o, layout=WIDE)
    assert "purity of spirit" in b.attack_modifiers(z, p, True)[2]
    assert "purity of spirit" not in b.attack_modifiers(o, p, True)[2]


# ------------------------------------------------------------------ the planner plays the party's features
def _planned(b):
    return b.decision.options[heuristic.choose(b)]


def test_planner_rages_before_its_first_melee_attack_then_attacks_recklessly():
    c = build_pc("barbarian", 3, "p", (2, 2, 0))
    b = arena(c, mon("ogre", (3, 2), "o"), layout=WIDE, first="p")
    o = _planned(b)
    assert o.kind == "feature" and o.data == ("rage",), o.label   # plain Rage, not Frenzy
    b.choose(heuristic.choose(b))
    assert "raging" in c.conditions
    assert _planned(b).data == ("reckless",)


def test_planner_without_features_neither_rages_nor_smites(monkeypatch):
    monkeypatch.setattr(heuristic, "PARTY_FEATURES", False)
    c = build_pc("barbarian", 3, "p", (2, 2, 0))
    b = arena(c, mon("ogre", (3, 2), "o"), layout=WIDE, first="p")
    assert _planned(b).kind == "attack"
    p = build_pc("paladin", 5, "p", (2, 2, 0))
    b = arena(p, mon("ogre", (3, 2), "o"), layout=WIDE, first="p")
    script(b, 20)
    pick(b, "attack", "Longsword")
    pick(b, "target")
    assert _planned(b).label == "No rider on this hit"


@pytest.mark.parametrize("d20,hp,ctype,want", [
    (15, 59, None, "level-1 slot"),     # a sturdy foe: the lowest slot
    (20, 59, None, "level-2 slot"),     # a critical hit: the highest slot that adds a die
    (15, 20, None, "level-2 slot"),     # 8.5 + 3d8 (13.5) falls short of 20; 4d8 finishes it
    (15, 15, None, "level-1 slot"),     # 8.5 + 2d8 finishes it
    (15, 8, None, "No rider"),          # the longsword alone drops it (8.5 on average)
    (15, 59, "undead", "level-2 slot"),
])
def test_planner_smites_on_a_crit_to_finish_or_against_undead(d20, hp, ctype, want):
    p = build_pc("paladin", 5, "p", (2, 2, 0))   # Str 18: longsword 1d8+4; slots 4 + 2
    g = mon("ogre", (3, 2), "o")
    g.hp = hp
    if ctype:
        g.creature_type = ctype
    b = arena(p, g, layout=WIDE, first="p")
    script(b, d20)
    pick(b, "attack", "Longsword")
    pick(b, "target")
    assert b.decision.kind == "reaction"
    assert want in _planned(b).label


def test_planner_lays_hands_on_a_dying_ally():
    p = build_pc("paladin", 3, "p", (2, 2, 0))
    f = build_pc("fighter", 3, "f", (2, 3, 0))
    b = arena(p, f, mon("ogre", (8, 6), "o"), layout=WIDE, first="p")
    f.hp = 0
    b.forget_options()
    o = _planned(b)
    assert o.data == ("lay_on_hands",), o.label
    b.choose(heuristic.choose(b))
    assert _planned(b).data == ("f",)
    b.choose(heuristic.choose(b))
    assert f.hp == 15 and p.resources["lay_on_hands"] == 0


@pytest.mark.parametrize("hp,want", [(59, "Stunning Strike"), (3, "No rider")])
def test_planner_stuns_a_foe_the_hit_leaves_standing(hp, want):
    m = build_pc("monk", 5, "p", (2, 2, 0))
    g = mon("ogre", (3, 2), "o")
    g.hp = hp
    b = arena(m, g, layout=WIDE, first="p")
    script(b, 15)
    pick(b, "attack", "Shortsword")
    pick(b, "target")
    assert want in _planned(b).label


@pytest.mark.parametrize("ki,flurry", [(5, True), (1, False)])
def test_planner_flurries_while_ki_is_left_for_stunning_strike(ki, flurry):
    m = build_pc("monk", 5, "p", (2, 2, 0))
    b = arena(m, mon("ogre", (3, 2), "o"), layout=WIDE, first="p")
    m.resources["ki"] = ki
    script(b, 1)   # a miss
    pick(b, "attack", "Shortsword")
    pick(b, "target")
    assert _planned(b).label.startswith("Flurry of Blows") == flurry


def test_planner_inspires_the_next_ally_to_act():
    bard = build_pc("bard", 3, "b", (2, 2, 0))
    f1, f2 = build_pc("fighter", 3, "f1", (2, 4, 0)), build_pc("fighter", 3, "f2", (2, 6, 0))
    b = arena(bard, f1, f2, mon("ogre", (12, 2), "o"), layout=WIDE)
    b.order = ["b", "o", "f2", "f1"]
    turn(b, "b")
    steps = 0
    while b.decision.actor == "b" and steps < 30:
        b.choose(heuristic.choose(b))
        steps += 1
    assert "inspired" in f2.conditions and "inspired" not in f1.conditions


def test_planner_wild_shapes_when_nothing_better_is_on_offer():
    d = build_pc("druid", 2, "d", (2, 2, 0))
    b = arena(d, mon("ogre", (8, 2), "o"), layout=WIDE, first="d")
    steps = 0
    while b.decision.actor == "d" and steps < 30:
        b.choose(heuristic.choose(b))
        steps += 1
    # the form with the most HP plus three rounds of damage: a draft horse (19 HP, hooves 2d4+4)
    assert d.resources.get("wild_shape_form") == "draft-horse" and events(b, "wild_shape")


# ------------------------------------------------------------------ fighting styles (loadout overrides)
def test_great_weapon_fighting_rerolls_each_1_or_2_once_on_a_critical_too():
    c = build_pc("fighter", 1, "p", (2, 2, 0), style="great_weapon_fighting", weapons=("greatsword",), shield=False)
    g = mon("ogre", (3, 2), "o")
    b = arena(c, g, layout=WIDE, first="p")
    script(b, 20, 2, 6, 1, 6, 4, 1)   # a crit: 4d6 -> 2 and 1 rerolled (4, then a 1 that stands)
    pick(b, "attack", "Greatsword")
    pick(b, "target")
    assert g.hp == 59 - (4 + 6 + 1 + 6 + _mod(c, "str"))


@pytest.mark.parametrize("shield,rolls,dmg", [(False, (15, 2, 7), 7), (True, (15, 2), 2)])
def test_great_weapon_fighting_needs_the_weapon_in_two_hands(shield, rolls, dmg):
    c = build_pc("fighter", 1, "p", (2, 2, 0), style="great_weapon_fighting", shield=shield)
    g = mon("ogre", (3, 2), "o")
    b = arena(c, g, layout=WIDE, first="p")
    assert c.attack("longsword").damage[0].dice.startswith("1d10" if not shield else "1d8")
    script(b, *rolls)
    pick(b, "attack", "Longsword")
    pick(b, "target")
    assert g.hp == 59 - (dmg + _mod(c, "str"))


def test_two_weapon_fighting_style_adds_the_modifier_to_the_off_hand():
    plain = build_pc("fighter_rogue", 1, "p", (2, 2, 0))
    styled = build_pc("fighter_rogue", 1, "p", (2, 2, 0), style="two_weapon_fighting")
    dex = _mod(styled, "dex")
    assert plain.attack("dagger").offhand[0].dice == "1d4"
    assert styled.attack("dagger").offhand[0].dice == f"1d4+{dex}"


def test_loadout_rejects_unknown_fields_and_hunter_may_choose_uncanny_dodge():
    with pytest.raises(KeyError):
        build_pc("fighter", 1, "p", (2, 2, 0), colour="red")
    r = build_pc("ranger", 15, "p", (2, 2, 0), choices=("uncanny_dodge",))
    assert "uncanny_dodge" in r.features and "evasion" not in r.features
    assert "evasion" in build_pc("ranger", 15, "p", (2, 2, 0)).features


# ------------------------------------------------------------------ Quivering Palm, Empty Body, invocations, Preserve Life
def _palm_set(hp=59):
    m = build_pc("monk", 17, "p", (2, 2, 0))
    g = mon("ogre", (3, 2), "o")
    g.hp = hp
    b = arena(m, g, layout=WIDE, first="p")
    script(b, 15, 5)
    pick(b, "attack", "Attack with Unarmed Strike")
    pick(b, "target")
    pick(b, "reaction", "Quivering Palm")
    return b, m, g


def test_quivering_palm_on_a_successful_save_deals_10d10_necrotic():
    b, m, g = _palm_set()
    assert g.hp == 59 - (5 + _mod(m, "dex"))
    turn(b, "p")
    script(b, 19, *([2] * 10))   # the ogre's Con save (+3) succeeds: 10d10 necrotic
    pick(b, "feature", "Quivering Palm: end")
    assert g.hp == 59 - (5 + _mod(m, "dex")) - 20 and not g.dead
    assert "quivering_palm_on" not in m.resources
    assert not labels(b, "feature") or not any("Quivering Palm: end" in x for x in labels(b))


def test_quivering_palm_costs_3_ki_and_holds_one_creature_at_a_time():
    b, m, _ = _palm_set()
    assert m.resources["ki"] == m.resources["ki_max"] - 3
    g2 = mon("ogre", (2, 3), "o2")
    b.creatures["o2"] = g2
    b.order.append("o2")
    script(b, 15, 5)
    pick(b, "attack", "Attack with Unarmed Strike")
    pick(b, "target", "o2")
    pick(b, "reaction", "Quivering Palm")
    assert m.resources["quivering_palm_on"] == "o2" and m.resources["ki"] == m.resources["ki_max"] - 6


def test_planner_sets_quivering_palm_on_a_big_foe_and_ends_it_next_turn():
    m = build_pc("monk", 17, "p", (2, 2, 0))
    g = mon("ogre", (3, 2), "o")
    b = arena(m, g, layout=WIDE, first="p")
    script(b, 15, 5)
    pick(b, "attack", "Attack with Unarmed Strike")
    pick(b, "target")
    assert "Quivering Palm" in _planned(b).label
    b.choose(heuristic.choose(b))
    turn(b, "p")
    assert _planned(b).data == ("palm_end",)


def test_empty_body_resists_everything_but_force():
    m = build_pc("monk", 18, "p", (2, 2, 0))
    b = arena(m, mon("ogre", (8, 2), "o"), layout=WIDE, first="p")
    pick(b, "feature", "Empty Body")
    assert m.resources["ki"] == m.resources["ki_max"] - 4
    b.damage(m, 10, "force")
    b.damage(m, 10, "fire")
    assert m.hp == m.max_hp - 15


def test_eldritch_blast_pushes_only_with_repelling_blast():
    for choices, x in (((), 6), (("repelling_blast",), 8)):
        w = build_pc("warlock", 2, "p", (2, 2, 0), choices=choices)
        o = mon("orc", (6, 2), "o")
        b = arena(w, o, layout=WIDE, first="p")
        script(b, 15, 5)
        pick(b, "spell", "Eldritch Blast")
        pick(b, "target")
        assert o.pos[:2] == (x, 2)


def test_preserve_life_needs_someone_below_half_and_the_planner_uses_it_for_two():
    c, f = build_pc("cleric", 2, "p", (2, 2, 0)), build_pc("fighter", 1, "f", (2, 4, 0))
    b = arena(c, f, mon("ogre", (12, 2), "o"), layout=WIDE, first="p")
    assert not any("Preserve Life" in x for x in labels(b, "feature"))
    c.hp, f.hp = 3, 1
    b.forget_options()
    assert _planned(b).data == ("preserve_life",)


@pytest.mark.parametrize("choices,d20s,frightened", [((), (5,), True), (("steel_will",), (5, 19), False)])
def test_steel_will_gives_advantage_against_a_fear_aura(choices, d20s, frightened):
    r = build_pc("ranger", 7, "p", (2, 2, 0), choices=choices)   # Wis save +2 against DC 21
    b = arena(r, mon("pit-fiend", (4, 2), "f"), layout=WIDE)
    script(b, *d20s)
    turn(b, "p")
    assert ("frightened" in r.conditions) == frightened


def test_heightened_spell_gives_the_first_save_disadvantage_and_needs_3_points():
    s, o = build_pc("sorcerer", 10, "p", (2, 2, 0)), mon("orc", (5, 2), "o")
    b = arena(s, o, layout=WIDE, first="p", max_options=10 ** 6)
    assert "heightened_spell" not in build_pc("sorcerer", 9, "q", (2, 2, 0)).features
    script(b, 19, 3)
    pick(b, "spell", "Heightened Spell (3 sorcery points): cast Hold Person at level 2")
    pick(b, "target")
    assert "paralyzed" in o.conditions and s.resources["sorcery_points"] == 7
    s.resources["sorcery_points"] = 2
    turn(b, "p")
    assert not any("Heightened" in x for x in labels(b))


def test_mystic_arcanum_is_once_a_long_rest_without_a_slot():
    w = build_pc("warlock", 13, "p", (2, 2, 0))
    g = mon("ogre", (5, 2), "o")
    b = arena(w, g, mon("ogre", (13, 9), "o2"), layout=WIDE, first="p")
    script(b, 2, *([5] * 7))   # the ogre's Con save (+3) fails: 7d8+30 necrotic
    pick(b, "spell", "Cast Finger of Death at level 7")
    pick(b, "target", "o ")
    assert g.dead and w.resources["slots"][4] == 3 and w.resources["innate"]["finger-of-death"] == 0
    assert "Finger of Death" not in " ".join(labels(b, "spell"))
    long_rest(w)
    assert w.resources["innate"] == {"circle-of-death": 1, "finger-of-death": 1}
    w.resources["innate"]["circle-of-death"] = 0
    assert w.resources["innate_max"]["circle-of-death"] == 1   # the rest restored a copy
    assert "finger-of-death" not in build_pc("warlock", 12, "q", (2, 2, 0)).spells


def test_jack_of_all_trades_and_remarkable_athlete_add_to_untrained_checks():
    bard, champ = build_pc("bard", 5, "b", (2, 2, 0)), build_pc("fighter", 7, "f", (2, 4, 0))
    b = arena(bard, champ, mon("ogre", (9, 2), "o"), layout=WIDE)
    assert b.athletics(bard) == _mod(bard, "str") + 1            # +3 proficiency: half rounded down
    assert b.stealth(bard) == _mod(bard, "dex") + 1
    assert b.athletics(champ) == _mod(champ, "str") + 3          # trained: the full bonus, nothing more
    assert b.stealth(champ) == _mod(champ, "dex") + 2            # Remarkable Athlete: half rounded up
    assert dispatch.check_bonus(champ, "wis") == 0 and dispatch.check_bonus(bard, "wis") == 1


def test_careful_spell_spares_allies_only_and_comes_at_17():
    assert "careful_spell" not in build_pc("sorcerer", 16, "q", (2, 2, 0)).features
    s, f, g = build_pc("sorcerer", 17, "p", (2, 2, 0)), build_pc("fighter", 5, "f", (9, 6, 0)), mon("ogre", (10, 6), "o")
    b = arena(s, f, g, layout=WIDE, first="p", max_options=10 ** 6)
    pick(b, "spell", "Careful Spell (1 sorcery point): cast Fireball at level 3")
    pick(b, "point_x", "x = 9")
    script(b, *([1] * 8), 20)   # 8d6 = 8; only the ogre rolls its save (a 20: half)
    pick(b, "point_y", "(9, 6) (hits")
    fire = 8 + s.mod("cha")   # + Cha: the red sorcerer's Elemental Affinity (dnd/classes/sorcerer.py)
    assert f.hp == f.max_hp - fire // 2 and g.hp == 59 - fire // 2
    assert any("Careful Spell" in e.get("text", "") for e in events(b, "save"))
