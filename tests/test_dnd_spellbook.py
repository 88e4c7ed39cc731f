"""The data-driven spell layer (dnd/spellbook.py + content/data/spell_mechanics.json) against the
SRD's rules, with scripted dice (tests/dnd_helpers.py): every d20 and damage die the engine draws
comes, in order, from the values given to ``script``.

The caster is a level-5 wizard (spell attack +7, save DC 15, Int +4, 32 HP, Con save +2) holding
the one spell under test and four slots of every level. Foes: orc (AC 13, 15 HP, Dex +1, Con +3,
Wis +0, Str +3), ogre (AC 11, 59 HP, Dex -1, Con +3, Wis -2), zombie (undead), bandit (humanoid).
"""

import pytest
from dnd_helpers import WIDE, arena, cast, events, labels, mon, pc, pick, script, spell_setup, target, turn

from dungeonbench_gym.dnd import content, heuristic, spellbook
from dungeonbench_gym.dnd.verification import spell_probe
from dungeonbench_gym.dnd.verification.arena import caster as make_caster
from dungeonbench_gym.dnd.rules import spell_data


def place(b, x, y):
    pick(b, "point_x", f"x = {x}")
    pick(b, "point_y", f"Point ({x}, {y}")


# ================================================================ the table and coverage
def test_one_row_per_srd_spell_each_with_a_status():
    rows = spellbook.coverage()
    assert len(rows) == 319 == len(spell_data.table())
    assert {r["status"] for r in rows} == {"executable", "out of scope", "not yet"}
    for r in rows:
        assert (r["reason"] == "") == (r["status"] == "executable"), r
        content.spell(r["key"])   # every key is an SRD spell


def test_save_mechanisms_know_their_save_ability():
    for key, m in spell_data.table().items():
        if m.get("mech") in ("save", "area"):
            assert m.get("save") or content.spell(key).save_ability, key
        if m.get("mech") == "area":
            assert "shape" in m or content.spell(key).area is not None, key


def test_executable_count_and_bespoke_rows():
    rows = spellbook.coverage()
    executable = [r for r in rows if r["status"] == "executable"]
    assert len(executable) >= 123
    assert sum(r["mechanism"] == "engine" for r in rows) == 2   # the spells with bespoke engine code
    assert not any(spell_data.handles(r["key"]) for r in rows if r["mechanism"] == "engine")


@pytest.mark.parametrize("key", [r["key"] for r in spellbook.coverage() if r["status"] == "executable"])
def test_probe_every_executable_spell(key):
    spell_probe.run_probe(key)


def test_probe_fails_for_a_spell_that_is_not_executable():
    with pytest.raises(AssertionError):
        spell_probe.run_probe("jump")


# ================================================================ slot scaling and dice
def test_damage_dice_scale_with_the_slot_and_stop_where_the_srd_stops():
    c = make_caster("disintegrate")
    assert spell_data.dice(c, "disintegrate", 6) == "10d6+40"
    assert spell_data.dice(c, "disintegrate", 8) == "10d6+40+6d6"   # +3d6 per slot level above 6th
    assert spell_data.dice(c, "chain-lightning", 9) == "10d8"         # more targets, not more dice
    assert spell_data.dice(c, "acid-arrow", 4) == "6d4"


def test_extra_targets_per_slot_level():
    assert spell_data.extra_targets("chain-lightning", 6) == 3
    assert spell_data.extra_targets("chain-lightning", 8) == 5
    assert spell_data.extra_targets("hold-monster", 5) == 0
    assert spell_data.extra_targets("hold-monster", 7) == 2


def test_every_legal_slot_level_is_offered_up_to_ninth():
    b, _c = spell_setup("hold-monster", mon("orc", (5, 5)))
    assert sorted(o.data[1] for o in b.decision.options if o.kind == "spell") == [5, 6, 7, 8, 9]


def test_a_ninth_level_cast_spends_the_ninth_level_slot():
    b, c = spell_setup("acid-arrow", mon("ogre", (6, 5)))
    cast(b, "acid-arrow", 9)
    script(b, 2, *[1] * 11)   # a miss still spends the slot
    target(b, "ogre")
    assert c.resources["slots"] == (4,) * 8 + (3,)


def test_eldritch_blast_beams_by_character_level():
    assert [spell_data.beams("eldritch-blast", lv) for lv in (1, 4, 5, 10, 11, 17)] == [1, 1, 2, 2, 3, 4]


# ================================================================ spell attacks
def test_acid_arrow_hits_for_4d4_acid():
    b, _c = spell_setup("acid-arrow", mon("ogre", (6, 5)))
    cast(b, "acid-arrow", 2)
    script(b, 10, 1, 2, 3, 4)   # 10 + 7 = 17 vs AC 11: hit, 10 acid
    target(b, "ogre")
    assert b.creatures["ogre"].hp == 49


def test_eldritch_blast_fires_a_second_beam_at_level_5():
    b, _c = spell_setup("eldritch-blast", mon("ogre", (6, 5)))
    cast(b, "eldritch-blast")
    script(b, 10, 6, 10, 4)
    target(b, "ogre")
    assert b.decision.kind == "target"   # the second beam is its own decision
    target(b, "ogre")
    assert b.creatures["ogre"].hp == 59 - 10
    assert b.decision.kind == "action"


def test_vampiric_touch_heals_half_the_necrotic_damage():
    b, c = spell_setup("vampiric-touch", mon("ogre", (4, 5)))
    c.hp = 10
    cast(b, "vampiric-touch", 3)
    script(b, 15, 6, 5, 4)   # hit, 15 necrotic
    target(b, "ogre")
    assert b.creatures["ogre"].hp == 44 and c.hp == 10 + 7


def test_produce_flame_reaches_30_ft_only():
    b, _c = spell_setup("produce-flame", mon("orc", (12, 5)))
    assert not [o for o in b.decision.options if o.kind == "spell"]   # 45 ft away
    b2, _ = spell_setup("produce-flame", mon("orc", (8, 5)))
    assert [o for o in b2.decision.options if o.kind == "spell"]


# ================================================================ single-target saves
def test_blight_deals_half_on_a_successful_save():
    b, _c = spell_setup("blight", mon("ogre", (6, 5)))
    cast(b, "blight", 4)
    script(b, 19, *[3] * 8)   # 19 + 3 = 22 >= 15: success; 24 rolled, 12 taken
    target(b, "ogre")
    assert b.creatures["ogre"].hp == 59 - 12


def test_poison_spray_deals_nothing_on_a_success():
    b, _c = spell_setup("poison-spray", mon("orc", (4, 5)))
    cast(b, "poison-spray")
    script(b, 15, 12, 12)
    target(b, "orc")
    assert b.creatures["orc"].hp == 15


def test_harm_cannot_drop_a_creature_below_1_hp():
    b, _c = spell_setup("harm", mon("ogre", (6, 5)))
    cast(b, "harm", 6)
    script(b, 2, *[6] * 14)   # 84 necrotic on a failed save
    target(b, "ogre")
    assert b.creatures["ogre"].hp == 1 and not b.creatures["ogre"].dead


def test_chain_lightning_asks_for_each_further_target():
    b, _c = spell_setup("chain-lightning", mon("orc", (6, 5), "orc_1"), mon("orc", (6, 7), "orc_2"))
    cast(b, "chain-lightning", 6)
    script(b, 2, *[2] * 10, 2, *[2] * 10)   # 20 lightning each on failed saves
    target(b, "orc_1")
    assert b.pending["use"][0] == "more" and "No more targets" in labels(b)
    target(b, "orc_2")
    assert b.creatures["orc_1"].dead and b.creatures["orc_2"].dead


def test_hold_monster_paralyzes_until_a_repeat_save_succeeds():
    b, c = spell_setup("hold-monster", mon("ogre", (6, 5)))
    cast(b, "hold-monster", 5)
    script(b, 5)   # 5 - 2 = 3: fails
    target(b, "ogre")
    ogre = b.creatures["ogre"]
    assert "paralyzed" in ogre.conditions and c.concentration == "hold-monster"
    script(b, 20)   # its turn passes (paralyzed); the end-of-turn Wis save succeeds
    b._end_of_turn_effects(ogre)
    assert "paralyzed" not in ogre.conditions


def test_hold_monster_cannot_target_undead_and_charm_person_only_humanoids():
    b, c = spell_setup("hold-monster", mon("zombie", (6, 5)), mon("ogre", (6, 7)))
    assert [t.cid for t in spellbook.targets(b, c, "hold-monster")] == ["ogre"]
    b2, c2 = spell_setup("charm-person", mon("bandit", (5, 5)), mon("ogre", (6, 7)))
    assert [t.cid for t in spellbook.targets(b2, c2, "charm-person")] == ["bandit"]


def test_ending_concentration_ends_the_paralysis():
    b, c = spell_setup("hold-monster", mon("ogre", (6, 5)))
    cast(b, "hold-monster", 5)
    script(b, 5)
    target(b, "ogre")
    script(b, 1)   # 12 damage: DC 10 Con save, 1 + 2 fails
    b.damage(c, 12, "slashing")
    assert c.concentration is None and "paralyzed" not in b.creatures["ogre"].conditions


def test_a_new_concentration_spell_ends_the_old_ones_effect():
    b, c = spell_setup("hold-monster", mon("ogre", (6, 5)))
    c.spells = ("hold-monster", "haste")
    cast(b, "hold-monster", 5)
    script(b, 5)
    target(b, "ogre")
    turn(b, "caster")
    cast(b, "haste", 3)
    target(b, "caster")
    assert c.concentration == "haste" and "paralyzed" not in b.creatures["ogre"].conditions


def test_blindness_lasts_one_minute_without_concentration():
    b, c = spell_setup("blindness-deafness", mon("ogre", (6, 5)))
    cast(b, "blindness-deafness", 2)
    script(b, 2)
    target(b, "ogre")
    ogre = b.creatures["ogre"]
    assert ogre.conditions["blinded"]["until_round"] == b.round + 10 and c.concentration is None
    b.round += 10
    b.start_turn(ogre)
    assert "blinded" not in ogre.conditions


def test_power_word_kill_kills_at_100_hp_or_fewer_without_a_save():
    b, _c = spell_setup("power-word-kill", mon("ogre", (6, 5)))
    cast(b, "power-word-kill", 9)
    target(b, "ogre")
    assert b.creatures["ogre"].dead
    b2, _c2 = spell_setup("power-word-kill", mon("ogre", (6, 5)))
    b2.creatures["ogre"].hp = b2.creatures["ogre"].max_hp = 101
    cast(b2, "power-word-kill", 9)
    target(b2, "ogre")
    assert not b2.creatures["ogre"].dead


def test_power_word_stun_stuns_with_a_con_save_each_turn():
    b, _c = spell_setup("power-word-stun", mon("ogre", (6, 5)))
    cast(b, "power-word-stun", 8)
    target(b, "ogre")
    ogre = b.creatures["ogre"]
    assert ogre.conditions["stunned"]["repeat"] == "con"
    script(b, 11)   # 11 + 3 = 14 < 15: still stunned
    b._end_of_turn_effects(ogre)
    assert "stunned" in ogre.conditions


def test_vicious_mockery_gives_disadvantage_on_the_targets_attacks():
    b, c = spell_setup("vicious-mockery", mon("orc", (4, 5)))
    cast(b, "vicious-mockery")
    script(b, 2, 1, 1)   # fails; 2 psychic
    target(b, "orc")
    orc = b.creatures["orc"]
    assert orc.hp == 13
    _adv, dis, why = b.attack_modifiers(orc, c, True)
    assert dis and "attacker mocked" in why


# ================================================================ areas
def test_shatter_rolls_once_and_halves_for_a_success():
    b, _c = spell_setup("shatter", mon("orc", (8, 5), "orc_1"), mon("orc", (9, 5), "orc_2"))
    cast(b, "shatter", 2)
    script(b, 2, 2, 2, 2, 20)   # 6 thunder rolled once; orc_1 fails, orc_2 succeeds
    place(b, 9, 6)
    assert b.creatures["orc_1"].hp == 9 and b.creatures["orc_2"].hp == 12


def test_cone_of_cold_is_aimed_by_direction_and_spares_those_behind():
    b, _c = spell_setup("cone-of-cold", mon("orc", (6, 5), "orc_1"), mon("orc", (1, 5), "orc_2"))
    cast(b, "cone-of-cold", 5)
    assert b.decision.kind == "direction"
    script(b, *[1] * 8, 2)
    pick(b, "direction", "Toward E ")
    assert b.creatures["orc_1"].hp == 7 and b.creatures["orc_2"].hp == 15


def test_web_is_a_placed_cube_that_restrains_until_a_str_save():
    b, _c = spell_setup("web", mon("orc", (8, 5)))
    cast(b, "web", 2)
    script(b, 3)   # Dex 3 + 1 fails
    place(b, 8, 5)
    orc = b.creatures["orc"]
    assert "restrained" in orc.conditions and orc.conditions["restrained"]["repeat"] == "str"
    assert b.speed(orc) == 0
    script(b, 15)   # 15 + 3 = 18: breaks free
    b._end_of_turn_effects(orc)
    assert "restrained" not in orc.conditions


def test_faerie_fire_gives_attackers_advantage():
    b, c = spell_setup("faerie-fire", mon("orc", (8, 5)))
    cast(b, "faerie-fire")
    script(b, 2)
    place(b, 8, 5)
    adv, _dis, why = b.attack_modifiers(c, b.creatures["orc"], False)
    assert adv and "target outlined" in why


def test_slow_lowers_ac_and_halves_speed_for_at_most_six():
    foes = [mon("goblin", (8 + i % 4, 4 + i // 4), f"g{i}") for i in range(8)]
    b, _c = spell_setup("slow", *foes)
    cast(b, "slow", 3)
    script(b, *[1] * 6)
    place(b, 8, 4)   # the cube's corner: it covers all eight
    slowed = [g for g in b.creatures.values() if "slow" in g.conditions]
    assert len(slowed) == 6
    g = slowed[0]
    assert b.armour_class(g) == 13 and b.speed(g) == 15


def test_hypnotic_pattern_incapacitates_until_damage():
    b, _c = spell_setup("hypnotic-pattern", mon("orc", (8, 5)))
    cast(b, "hypnotic-pattern", 3)
    script(b, 2)
    place(b, 7, 4)
    orc = b.creatures["orc"]
    assert orc.incapacitated and b.speed(orc) == 0
    b.damage(orc, 1, "fire")
    assert "incapacitated" not in orc.conditions


def test_grease_knocks_prone_on_a_failed_dex_save():
    b, _c = spell_setup("grease", mon("orc", (8, 5)))
    cast(b, "grease", 1)
    script(b, 1)
    place(b, 8, 5)
    assert "prone" in b.creatures["orc"].conditions


def test_color_spray_blinds_the_lowest_hp_first_within_its_pool():
    b, _c = spell_setup("color-spray", mon("goblin", (5, 5), "g1"), mon("orc", (6, 5), "o1"))
    cast(b, "color-spray", 1)
    script(b, *[1] * 6)   # a pool of 6: the goblin (7 HP) is too much
    pick(b, "direction", "Toward E ")
    assert "blinded" not in b.creatures["g1"].conditions
    b2, _c2 = spell_setup("color-spray", mon("goblin", (5, 5), "g1"), mon("orc", (6, 5), "o1"))
    cast(b2, "color-spray", 1)
    script(b2, *[2] * 6)   # 12: the goblin (7), not the orc (15) too
    pick(b2, "direction", "Toward E ")
    assert "blinded" in b2.creatures["g1"].conditions and "blinded" not in b2.creatures["o1"].conditions
    assert b2.creatures["g1"].conditions["blinded"]["until"] == "end_of_source_next_turn"


def test_gust_of_wind_pushes_15_ft_on_a_failed_str_save():
    b, _c = spell_setup("gust-of-wind", mon("orc", (5, 5)))
    cast(b, "gust-of-wind", 2)
    script(b, 1)
    pick(b, "direction", "Toward E ")
    assert b.creatures["orc"].pos[:2] == (8, 5)


def test_stinking_cloud_spares_undead():
    b, _c = spell_setup("stinking-cloud", mon("zombie", (8, 5)), mon("orc", (9, 5)))
    cast(b, "stinking-cloud", 3)
    script(b, 1)   # only the orc saves
    place(b, 9, 6)
    assert "incapacitated" in b.creatures["orc"].conditions
    assert "incapacitated" not in b.creatures["zombie"].conditions


def test_sunburst_blinds_with_a_repeat_con_save():
    b, _c = spell_setup("sunburst", mon("ogre", (10, 5)))
    cast(b, "sunburst", 8)
    script(b, *[1] * 12, 2)
    place(b, 10, 5)
    ogre = b.creatures["ogre"]
    assert ogre.hp == 59 - 12 and ogre.conditions["blinded"]["repeat"] == "con"


# ================================================================ zones
def test_cloudkill_hurts_who_starts_a_turn_in_it_and_drifts_away_from_the_caster():
    b, c = spell_setup("cloudkill", mon("ogre", (9, 5)))
    cast(b, "cloudkill", 5)
    script(b, *[1] * 5, 20)   # 5 poison rolled, the ogre saves: 2
    place(b, 10, 6)
    ogre = b.creatures["ogre"]
    assert ogre.hp == 57 and c.resources["zone"]["at"] == [10, 6]
    script(b, *[2] * 5, 1)   # its turn starts inside: fails, 10 poison
    b.start_turn(ogre)
    assert ogre.hp == 47
    b.start_turn(c)   # the caster's turn: the cloud moves 10 ft away from it
    assert c.resources["zone"]["at"] == [12, 8]


def test_a_zone_ends_with_concentration():
    b, c = spell_setup("moonbeam", mon("ogre", (9, 5)))
    cast(b, "moonbeam", 2)
    script(b, 1, 1, 20)
    place(b, 9, 5)
    b.end_concentration(c)
    ogre = b.creatures["ogre"]
    hp = ogre.hp
    b.start_turn(ogre)
    assert ogre.hp == hp and "zone" not in c.resources


# ================================================================ healing and hit points
def test_mass_healing_word_heals_several_allies_as_a_bonus_action():
    allies = [pc("fighter", 5, (3, 6), "f1"), pc("fighter", 5, (4, 6), "f2")]
    b, c = spell_setup("mass-healing-word", mon("orc", (12, 8)), allies=allies)
    for f in allies:
        b.creatures[f.cid].hp = 10
    cast(b, "mass-healing-word", 3)
    script(b, 3, 2)   # 1d4 + 4 each
    target(b, "f1")
    target(b, "f2")
    assert b.creatures["f1"].hp == 17 and b.creatures["f2"].hp == 16
    assert not c.economy.bonus and c.economy.actions == 1


def test_heal_restores_70_and_ends_blindness():
    b, _c = spell_setup("heal", mon("orc", (12, 8)), allies=[pc("fighter", 5, (3, 6), "f1")])
    f = b.creatures["f1"]
    f.hp, f.conditions["blinded"] = 1, {}
    cast(b, "heal", 6)
    target(b, "f1")
    assert f.hp == f.max_hp and "blinded" not in f.conditions


def test_false_life_temp_hp_do_not_stack_lower():
    b, c = spell_setup("false-life", mon("orc", (12, 8)))
    cast(b, "false-life", 1)
    script(b, 2)
    target(b, "caster")
    assert c.temp_hp == 6
    c.temp_hp = 20
    turn(b, "caster")
    cast(b, "false-life", 1)
    script(b, 4)
    target(b, "caster")
    assert c.temp_hp == 20


def test_aid_raises_maximum_and_current_hp_more_when_upcast():
    b, c = spell_setup("aid", mon("orc", (12, 8)))
    cast(b, "aid", 3)
    target(b, "caster")
    assert c.max_hp == 42 and c.hp == 42


def test_spare_the_dying_stabilizes():
    b, _c = spell_setup("spare-the-dying", mon("orc", (12, 8)), allies=[pc("fighter", 5, (3, 6), "f1")])
    f = b.creatures["f1"]
    b.damage(f, f.hp, "slashing")
    assert f.dying
    cast(b, "spare-the-dying")
    target(b, "f1")
    assert f.stable and not f.dying


def test_restorations_end_conditions_and_exhaustion():
    b, _c = spell_setup("lesser-restoration", mon("orc", (12, 8)), allies=[pc("fighter", 5, (3, 6), "f1")])
    f = b.creatures["f1"]
    f.conditions["poisoned"] = {}
    cast(b, "lesser-restoration", 2)
    target(b, "f1")
    assert "poisoned" not in f.conditions
    b2, _c2 = spell_setup("greater-restoration", mon("orc", (12, 8)), allies=[pc("fighter", 5, (3, 6), "f1")])
    f2 = b2.creatures["f1"]
    b2.add_exhaustion(f2, 2)
    cast(b2, "greater-restoration", 5)
    target(b2, "f1")
    assert f2.exhaustion == 1


# ================================================================ buffs
def test_haste_doubles_speed_and_adds_2_ac_until_concentration_ends():
    b, c = spell_setup("haste", mon("orc", (12, 8)))
    cast(b, "haste", 3)
    target(b, "caster")
    assert b.armour_class(c) == 14 and b.speed(c) == 60
    b.end_concentration(c)
    assert b.armour_class(c) == 12 and b.speed(c) == 30


def test_barkskin_sets_a_minimum_ac_of_16():
    b, c = spell_setup("barkskin", mon("orc", (12, 8)))
    cast(b, "barkskin", 2)
    target(b, "caster")
    assert b.armour_class(c) == 16


def test_blur_gives_attackers_disadvantage():
    b, c = spell_setup("blur", mon("orc", (4, 5)))
    cast(b, "blur", 2)
    target(b, "caster")
    _adv, dis, why = b.attack_modifiers(b.creatures["orc"], c, True)
    assert dis and "target blur" in why


def test_stoneskin_halves_nonmagical_weapon_damage_only():
    b, c = spell_setup("stoneskin", mon("orc", (12, 8)))
    cast(b, "stoneskin", 4)
    target(b, "caster")
    assert b.modified_damage(c, 10, "slashing") == 5
    assert b.modified_damage(c, 10, "slashing", magical=True) == 10
    assert b.modified_damage(c, 10, "fire") == 10


def test_warding_bond_adds_1_to_ac_and_saves():
    b, _c = spell_setup("warding-bond", mon("orc", (12, 8)), allies=[pc("fighter", 5, (4, 6), "f1")])
    f = b.creatures["f1"]
    ac = b.armour_class(f)
    cast(b, "warding-bond", 2)
    target(b, "f1")
    assert b.armour_class(f) == ac + 1
    script(b, 10)   # 10 + Wis save +1 (fighter) + 1 = 12 >= 12
    assert b.saving_throw(f, "wis", 12)


def test_longstrider_adds_10_ft_and_an_extra_target_per_level():
    allies = [pc("fighter", 5, (4, 6), "f1")]
    b, c = spell_setup("longstrider", mon("orc", (12, 8)), allies=allies)
    cast(b, "longstrider", 2)
    target(b, "caster")
    target(b, "f1")
    assert b.speed(c) == 40 and b.speed(b.creatures["f1"]) == 40


def test_invisibility_ends_when_the_invisible_creature_attacks():
    b, _c = spell_setup("invisibility", mon("orc", (12, 8)), allies=[pc("fighter", 5, (4, 6), "f1")])
    cast(b, "invisibility", 2)
    target(b, "f1")
    f = b.creatures["f1"]
    assert "invisible" in f.conditions
    orc = b.creatures["orc"]
    script(b, 1, 1)   # this attack is still made unseen (advantage: two d20s); both miss
    b.make_attack(f, f.attacks[0], orc, melee=True)
    assert "invisible" not in f.conditions


# ================================================================ the heuristic plays them
def test_the_heuristic_plays_a_battle_with_spellbook_spells():
    c = make_caster("cone-of-cold", 9, "caster", (3, 5))
    c.spells = ("cone-of-cold", "web", "haste", "blight", "mass-healing-word", "eldritch-blast")
    b = arena(c, mon("orc", (9, 5), "o1"), mon("orc", (10, 6), "o2"), mon("ogre", (11, 5)), layout=WIDE,
              round_limit=8)
    for _ in range(2000):
        if b.outcome is not None:
            break
        b.choose(heuristic.choose(b))
    assert b.outcome is not None
    assert any(e.get("spell") in c.spells for e in events(b, "cast"))


# ================================================================ Counterspell
def duel_of_mages(foe_spells=("blight",), foe_at=(9, 5), me_at=(3, 5)):
    """The party wizard (level 9: Int +5, Counterspell) against a hostile wizard; the foe's turn."""
    me = make_caster("counterspell", 9, "caster", me_at)
    foe = make_caster(foe_spells[0], 9, "foe", foe_at)
    foe.spells, foe.side = tuple(foe_spells), "enemies"
    b = arena(me, foe, mon("orc", (13, 10)), layout=WIDE, first="foe")
    return b, me, foe


def test_counterspell_at_the_spells_level_stops_it_without_a_check():
    b, me, foe = duel_of_mages()
    cast(b, "blight", 4)
    d = b.decision
    assert d.kind == "reaction" and d.actor == "caster"
    assert [o.data for o in d.options] == [(True, lv) for lv in range(3, 10)] + [(False,)]
    n = len(b.log)
    pick(b, "reaction", "level-4 slot")
    assert not [e for e in b.log[n:] if "what" in e]   # no roll at all
    assert events(b, "countered") and foe.resources["slots"][3] == 3 and me.resources["slots"][3] == 3
    assert not me.economy.reaction and foe.economy.actions == 0 and b.decision.actor == "foe"


def test_a_lower_counterspell_needs_a_check_against_10_plus_the_level():
    b, _me, _foe = duel_of_mages()
    cast(b, "blight", 4)
    script(b, 8)   # 8 + 5 = 13 < 14: the blight goes ahead
    pick(b, "reaction", "level-3 slot")
    assert not events(b, "countered")
    assert b.decision.kind == "target" and b.decision.actor == "foe"
    b2, _me2, _foe2 = duel_of_mages()
    cast(b2, "blight", 4)
    script(b2, 9)   # 14: stopped
    pick(b2, "reaction", "level-3 slot")
    assert events(b2, "countered")


def test_a_counterspell_can_itself_be_countered():
    b, me, foe = duel_of_mages(foe_spells=("blight", "counterspell"))
    cast(b, "blight", 4)
    pick(b, "reaction", "level-4 slot")   # the wizard counters
    d = b.decision
    assert d.kind == "reaction" and d.actor == "foe"   # the foe may counter the counter
    pick(b, "reaction", "level-4 slot")
    assert not events(b, "countered")   # the wizard's counter was stopped: the blight goes ahead
    assert [e["success"] for e in events(b, "counterspell")] == [True]
    assert b.decision.kind == "target" and b.decision.actor == "foe"
    assert me.resources["slots"][3] == 3 and foe.resources["slots"][3] == 3   # blight's slot: on its target
    script(b, 20, *[1] * 8)
    target(b, "caster")
    assert foe.resources["slots"][3] == 2 and me.hp == me.max_hp - 4   # 8 necrotic, halved


def test_no_counterspell_beyond_60_ft_or_when_declined():
    b, _me, _foe = duel_of_mages(foe_spells=("acid-arrow",), foe_at=(14, 10), me_at=(1, 1))   # 65 ft
    cast(b, "acid-arrow", 2)
    assert b.decision.kind == "target"
    b2, me2, _foe2 = duel_of_mages()
    cast(b2, "blight", 4)
    pick(b2, "reaction", "Let foe cast")
    assert b2.decision.kind == "target" and me2.economy.reaction


# ================================================================ Dispel Magic and summons
def test_dispel_magic_ends_low_spells_and_checks_for_higher_ones():
    b, _c = spell_setup("dispel-magic", mon("orc", (12, 8)), allies=[pc("fighter", 5, (4, 6), "f1")])
    f = b.creatures["f1"]
    f.conditions["baned"] = {"by": "orc", "spell": "bane"}
    f.conditions["paralyzed"] = {"by": "orc", "spell": "hold-monster"}
    cast(b, "dispel-magic", 3)
    script(b, 10)   # 10 + 4 = 14 < 15 for the 5th-level Hold Monster
    target(b, "f1")
    assert "baned" not in f.conditions and "paralyzed" in f.conditions


def test_conjure_animals_brings_bears_that_act_after_the_caster_and_vanish_with_concentration():
    b, c = spell_setup("conjure-animals", mon("orc", (12, 8)))
    cast(b, "conjure-animals", 5)   # twice as many at 5th level
    bears = [o for o in b.creatures.values() if o.monster == "brown-bear"]
    assert len(bears) == 4 and all(o.side == "party" for o in bears)
    assert b.order[1:5] == [o.cid for o in bears]
    b.end_concentration(c)
    b.start_turn(bears[0])
    assert bears[0].dead and events(b, "vanish")


def test_wall_of_fire_is_placed_by_a_point_then_a_direction_and_burns_who_starts_in_it():
    b, c = spell_setup("wall-of-fire", mon("orc", (8, 5)), mon("ogre", (11, 8)))
    cast(b, "wall-of-fire", 4)
    place(b, 8, 2)
    assert b.decision.kind == "direction" and "Toward S (hits orc)" in labels(b)
    assert "Toward E (hits no one)" in labels(b)
    script(b, *[1] * 5, 20)   # 5 fire, the orc saves: 2
    pick(b, "direction", "Toward S ")
    orc = b.creatures["orc"]
    assert orc.hp == 13 and c.resources["zone"]["dir"] == [0, 1, 0]
    script(b, *[2] * 5, 1)   # its turn starts in the wall: 10 fire
    b.start_turn(orc)
    assert orc.hp == 3
    ogre = b.creatures["ogre"]
    b.start_turn(ogre)   # not in the wall: nothing rolled
    assert ogre.hp == 59


def test_heroism_gives_temp_hp_each_turn_and_ends_fear():
    b, c = spell_setup("heroism", mon("orc", (12, 8)))
    cast(b, "heroism", 1)
    target(b, "caster")
    assert c.temp_hp == 4   # Int +4
    c.temp_hp = 0
    c.conditions["frightened"] = {"by": "orc"}
    b.start_turn(c)
    assert c.temp_hp == 4 and "frightened" not in c.conditions


def test_protection_from_evil_and_good_hinders_undead_not_humanoids():
    b, c = spell_setup("protection-from-evil-and-good", mon("zombie", (4, 5)), mon("orc", (4, 4)))
    cast(b, "protection-from-evil-and-good", 1)
    target(b, "caster")
    assert b.attack_modifiers(b.creatures["zombie"], c, True)[1]
    assert not b.attack_modifiers(b.creatures["orc"], c, True)[1]


def test_revivify_returns_a_pc_dead_within_a_minute_with_1_hp():
    b, _c = spell_setup("revivify", mon("orc", (12, 8)), allies=[pc("fighter", 5, (4, 6), "f1")])
    f = b.creatures["f1"]
    b.die(f, "test")
    cast(b, "revivify", 3)
    target(b, "f1")
    assert not f.dead and f.hp == 1
    b2, c2 = spell_setup("revivify", mon("orc", (12, 8)), allies=[pc("fighter", 5, (4, 6), "f1")])
    b2.die(b2.creatures["f1"], "test")
    b2.round += 11   # more than a minute ago
    assert not spellbook.targets(b2, c2, "revivify")


def test_phantasmal_killer_frightens_then_hurts_on_each_failed_repeat_save():
    b, _c = spell_setup("phantasmal-killer", mon("ogre", (6, 5)))
    cast(b, "phantasmal-killer", 5)   # 5d10 at 5th level
    script(b, 2)   # fails the first save: frightened, no damage yet
    target(b, "ogre")
    ogre = b.creatures["ogre"]
    assert "frightened" in ogre.conditions and ogre.hp == 59
    script(b, 2, *[3] * 5)   # fails again at the end of its turn: 15 psychic
    b._end_of_turn_effects(ogre)
    assert ogre.hp == 44 and "frightened" in ogre.conditions
    script(b, 20)   # succeeds: it ends
    b._end_of_turn_effects(ogre)
    assert "frightened" not in ogre.conditions and ogre.hp == 44


def test_weird_frightens_everyone_in_its_sphere_with_4d10_on_failed_repeats():
    b, _c = spell_setup("weird", mon("orc", (9, 5), "o1"), mon("orc", (10, 6), "o2"))
    cast(b, "weird", 9)
    script(b, 1, 1)
    place(b, 10, 6)
    o1 = b.creatures["o1"]
    assert "frightened" in o1.conditions and "frightened" in b.creatures["o2"].conditions
    script(b, 1, 1, 1, 1, 1)
    b._end_of_turn_effects(o1)
    assert o1.hp == 11


def test_command_and_hideous_laughter_leave_plain_prone():
    b, _c = spell_setup("hideous-laughter", mon("orc", (6, 5)))
    cast(b, "hideous-laughter", 1)
    script(b, 1)
    target(b, "orc")
    orc = b.creatures["orc"]
    assert orc.incapacitated and orc.conditions["prone"] == {}
    script(b, 20)   # one repeat save ends the laughter; it stays prone until it stands
    b._end_of_turn_effects(orc)
    assert "incapacitated" not in orc.conditions and "prone" in orc.conditions


def test_executable_spells_are_cast_within_a_round():
    for r in spellbook.coverage():
        if r["status"] == "executable" and spell_data.mech(r["key"])["mech"] not in ("day", "prepare", "ward"):   # between fights
            assert content.spell(r["key"]).casting_time in ("action", "bonus_action", "reaction"), r["key"]


def test_a_countered_concentration_spell_leaves_no_concentration():
    b, _me, foe = duel_of_mages(foe_spells=("hold-monster",))
    cast(b, "hold-monster", 5)
    pick(b, "reaction", "level-5 slot")
    assert events(b, "countered") and foe.concentration is None and foe.resources["slots"][4] == 3


def test_summoned_bears_take_their_turns_and_the_heuristic_attacks_with_them():
    b, _c = spell_setup("conjure-animals", mon("orc", (7, 5)))
    cast(b, "conjure-animals", 3)
    pick(b, "end_turn")
    bear = b.creatures[b.decision.actor]
    assert bear.monster == "brown-bear" and bear.side == "party"
    for _ in range(20):
        if b.decision.actor != bear.cid:
            break
        b.choose(heuristic.choose(b))
    assert any(e.get("attacker") == bear.cid for e in events(b, "attack"))


def test_divine_word_picks_the_effect_by_current_hp():
    b, c = spell_setup("divine-word", mon("orc", (5, 5), "o1"), mon("ogre", (6, 6)), mon("orc", (5, 7), "o2"))
    b.creatures["ogre"].hp = 35
    cast(b, "divine-word", 7)
    script(b, 1, 1, 20)   # o1 (15 HP) and the ogre (35) fail; o2 saves
    assert b.creatures["o1"].dead
    ogre = b.creatures["ogre"]
    assert {"blinded", "deafened"} <= set(ogre.conditions) and "stunned" not in ogre.conditions
    assert not b.creatures["o2"].conditions and not c.economy.bonus


def test_true_strike_gives_the_caster_advantage_against_that_foe_only():
    b, c = spell_setup("true-strike", mon("orc", (6, 5)), allies=[pc("fighter", 5, (4, 6), "f1")])
    cast(b, "true-strike")
    target(b, "orc")
    orc = b.creatures["orc"]
    assert b.attack_modifiers(c, orc, False)[0]
    assert not b.attack_modifiers(b.creatures["f1"], orc, True)[0]
    assert c.concentration == "true-strike"


# ================================================================ weapon riders, Fly, Resistance (wave 2)
def test_hunters_mark_adds_1d6_to_the_casters_weapon_hits_on_that_foe_only():
    b, c = spell_setup("hunters-mark", mon("orc", (4, 5)), mon("ogre", (4, 6)), allies=[pc("fighter", 5, (2, 5), "f1")])
    cast(b, "hunters-mark")
    target(b, "orc")
    assert c.concentration == "hunters-mark" and not c.economy.bonus and c.economy.actions == 1
    orc, ogre = b.creatures["orc"], b.creatures["ogre"]
    script(b, 15, 3, 4)   # hit; dagger 1d4+2 = 5, the mark's 1d6 = 4
    b.make_attack(c, c.attacks[0], orc, melee=True)
    assert orc.hp == 15 - 9
    script(b, 15, 3)   # the unmarked ogre: the dagger alone
    b.make_attack(c, c.attacks[0], ogre, melee=True)
    assert ogre.hp == 59 - 5
    b.end_concentration(c)
    script(b, 15, 1)
    b.make_attack(c, c.attacks[0], orc, melee=True)
    assert orc.hp == 6 - 3


def test_hunters_mark_dice_double_on_a_critical_hit():
    b, c = spell_setup("hunters-mark", mon("ogre", (4, 5)))
    cast(b, "hunters-mark")
    target(b, "ogre")
    script(b, 20, 1, 1, 6, 6)   # a natural 20: 2d4+2 and 2d6
    b.make_attack(c, c.attacks[0], b.creatures["ogre"], melee=True)
    assert b.creatures["ogre"].hp == 59 - (1 + 1 + 2 + 12)


def test_divine_favor_adds_radiant_to_every_weapon_hit_but_not_spell_attacks():
    b, c = spell_setup("divine-favor", mon("ogre", (4, 5)))
    c.spells = ("divine-favor", "fire-bolt")
    cast(b, "divine-favor", 2)   # upcasting does not add dice (the SRD has no higher-level entry)
    target(b, "caster")
    ogre = b.creatures["ogre"]
    for left in (59 - 5 - 4, 59 - 10 - 8):
        script(b, 15, 3, 4)
        b.make_attack(c, c.attacks[0], ogre, melee=True)
        assert ogre.hp == left
    assert any("adds 1d4" in e["text"] for e in events(b, "spell_rider"))
    bolt = spellbook.AttackProfile("fire-bolt", "Fire Bolt", 7, (spellbook.DamagePart("2d10", "fire"),), False, 0,
                                   120, 120, spell=True)
    assert spellbook.hit_parts(b, c, ogre, bolt) == []


def test_branding_smite_adds_its_slot_dice_once_then_ends_and_reveals():
    b, c = spell_setup("branding-smite", mon("ogre", (4, 5)))
    cast(b, "branding-smite", 3)
    target(b, "caster")
    ogre = b.creatures["ogre"]
    ogre.conditions["invisible"] = {}
    assert c.conditions["branding_smite"]["hit_dice"] == "3d6" and c.concentration == "branding-smite"
    script(b, 15, 15, 3, 1, 2, 3)   # two d20s (the target is invisible: disadvantage); dagger 5, 3d6 = 6
    b.make_attack(c, c.attacks[0], ogre, melee=True)
    assert ogre.hp == 59 - 5 - 6
    assert "branding_smite" not in c.conditions and c.concentration is None
    assert "invisible" not in ogre.conditions
    script(b, 15, 3)
    b.make_attack(c, c.attacks[0], ogre, melee=True)
    assert ogre.hp == 48 - 5


def test_fly_gives_60_ft_of_flight_per_target_and_its_end_drops_them():
    b, c = spell_setup("fly", mon("orc", (12, 8)), allies=[pc("fighter", 5, (4, 6), "f1")])
    f = b.creatures["f1"]
    assert not b.flying(f) and b.speed(f) == 30
    cast(b, "fly", 4)   # a 4th-level slot: two creatures
    target(b, "caster")
    target(b, "f1")
    assert b.flying(f) and b.speed(f) == 60 and b.speed(c) == 60
    f.pos = (f.pos[0], f.pos[1], 20)
    b.end_concentration(c)
    assert not b.flying(f) and b.speed(f) == 30
    script(b, 3, 4)   # a 20-ft fall: 2d6 bludgeoning, landing prone
    b.falls()
    assert f.pos[2] == 0 and f.hp == f.max_hp - 7 and "prone" in f.conditions


def test_resistance_adds_1d4_to_one_save_then_ends():
    b, c = spell_setup("resistance", mon("orc", (12, 8)), allies=[pc("fighter", 5, (4, 6), "f1")])
    cast(b, "resistance")
    target(b, "f1")
    f = b.creatures["f1"]
    script(b, 3, 9)   # the 1d4 (3), then the d20: 9 + Wis +1 + 3 = 13 >= 13
    assert b.saving_throw(f, "wis", 13)
    assert "resistance" not in f.conditions and c.concentration is None
    script(b, 9)
    assert not b.saving_throw(f, "wis", 13)


def test_trick_cantrips_are_out_of_scope_as_no_combat_effect():
    rows = {r["key"]: r for r in spellbook.coverage()}
    for key in ("light", "dancing-lights", "continual-flame"):   # dark battles run them (dnd/lighting.py)
        assert rows[key]["status"] == "executable" and rows[key]["mechanism"] == "sight", key
    for key in ("message", "prestidigitation", "thaumaturgy", "druidcraft", "mending",
                "minor-illusion"):   # (Mage Hand uses an interact objective's object: dnd/spell_utility.py)
        assert rows[key]["status"] == "out of scope", key


def test_mirror_image_duplicates_draw_attacks_by_a_d20_and_break_when_hit():
    b, c = spell_setup("mirror-image", mon("orc", (4, 5)))
    cast(b, "mirror-image", 2)
    target(b, "caster")
    orc = b.creatures["orc"]
    hp = c.hp
    script(b, 6, 7)   # 6: a duplicate (three left); 7 + 5 = 12 vs its AC 10 + Dex 2: destroyed
    assert b.make_attack(orc, orc.attacks[0], c, melee=True) is False
    assert c.conditions["mirror_image"]["images"] == 2 and c.hp == hp
    script(b, 7, 20, 6, 6)   # 7 < 8 with two left: the caster is attacked (a crit: 2d12+3)
    b.make_attack(orc, orc.attacks[0], c, melee=True)
    assert c.conditions["mirror_image"]["images"] == 2 and c.hp == hp - 15
    c.conditions["mirror_image"]["images"] = 1
    script(b, 11, 6)   # 11: the last duplicate; 6 + 5 = 11 < 12 misses it
    assert b.make_attack(orc, orc.attacks[0], c, melee=True) is False
    script(b, 11, 7)
    b.make_attack(orc, orc.attacks[0], c, melee=True)
    assert "mirror_image" not in c.conditions


def test_death_ward_leaves_1_hp_the_first_time_only():
    b, _c = spell_setup("death-ward", mon("orc", (12, 8)), allies=[pc("fighter", 5, (4, 6), "f1")])
    cast(b, "death-ward", 4)
    target(b, "f1")
    f = b.creatures["f1"]
    f.hp = 5
    b.damage(f, 20, "slashing")
    assert f.hp == 1 and "death_ward" not in f.conditions and events(b, "death_ward")
    b.damage(f, 20, "slashing")
    assert f.hp == 0


def test_feeblemind_always_deals_4d6_and_a_failed_int_save_ends_spellcasting():
    foe = make_caster("fire-bolt", 5, "mage", (8, 5))
    foe.side = "enemies"
    b, c = spell_setup("feeblemind", foe, mon("orc", (12, 8)))
    cast(b, "feeblemind", 8)
    script(b, 20, 1, 2, 3, 4)   # the Int save succeeds; the 4d6 (10) still lands
    target(b, "mage")
    assert foe.hp == foe.max_hp - 10 and "feebleminded" not in foe.conditions
    turn(b, "caster")
    cast(b, "feeblemind", 8)
    script(b, 2, 1, 1, 1, 1)   # 2 + 7 = 9 < 15
    target(b, "mage")
    assert foe.conditions["feebleminded"]["no_spells"]
    turn(b, "mage")
    assert not [o for o in b.decision.options if o.kind == "spell"]


def test_giant_insect_brings_three_giant_spiders_on_the_casters_side():
    b, c = spell_setup("giant-insect", mon("orc", (12, 8)))
    cast(b, "giant-insect", 4)
    spiders = [o for o in b.creatures.values() if o.monster == "giant-spider"]
    assert len(spiders) == 3 and all(o.side == "party" for o in spiders)
    assert b.order[1:4] == [o.cid for o in spiders] and c.concentration == "giant-insect"


def test_the_heuristic_values_spellbook_spells_from_their_mechanics():
    ranger = pc("ranger", 5, (3, 5), "caster")
    ranger.spells = ("hunters-mark",)
    b = arena(ranger, mon("orc", (5, 5)), layout=WIDE, first="caster")
    assert b.decision.options[heuristic.choose(b)].data[0] == "hunters-mark"   # a bonus action: free value
    b.choose(heuristic.choose(b))
    b.choose(heuristic.choose(b))   # its target: the orc
    assert "hunters_mark" in b.creatures["orc"].conditions
    assert not any(o.kind == "spell" for o in b.decision.options) or \
        b.decision.options[heuristic.choose(b)].kind != "spell"   # concentrating: not again
    wiz = make_caster("giant-insect", 9, "caster", (3, 5))
    wiz.spells = ("giant-insect", "feeblemind")
    b = arena(wiz, mon("orc", (9, 5), "o1"), mon("ogre", (11, 5)), layout=WIDE, first="caster")
    assert b.decision.options[heuristic.choose(b)].data[0] == "giant-insect"   # 3 spiders beat a dagger
    wiz.concentration = "giant-insect"
    b.forget_options()
    assert b.decision.options[heuristic.choose(b)].kind != "spell"   # feeblemind's 4d6 does not pay an 8th slot


def test_see_invisibility_cancels_the_invisible_creatures_edge_both_ways():
    b, c = spell_setup("see-invisibility", mon("orc", (4, 5)))
    orc = b.creatures["orc"]
    orc.conditions["invisible"] = {}
    assert b.attack_modifiers(c, orc, True)[1] and b.attack_modifiers(orc, c, True)[0]
    cast(b, "see-invisibility", 2)
    target(b, "caster")
    assert "target invisible" not in b.attack_modifiers(c, orc, True)[2]
    assert "attacker invisible" not in b.attack_modifiers(orc, c, True)[2]


def test_magic_weapon_adds_its_slot_bonus_to_attack_and_damage():
    b, _c = spell_setup("magic-weapon", mon("ogre", (5, 6)), allies=[pc("fighter", 5, (4, 6), "f1")])
    cast(b, "magic-weapon", 4)   # a 4th-level slot: +2
    target(b, "f1")
    f, ogre = b.creatures["f1"], b.creatures["ogre"]
    script(b, 2, 3)   # 2 + 7 + 2 = 11 hits AC 11 (it would miss without the spell); 1d8+4 = 7, +2
    assert b.make_attack(f, f.attacks[0], ogre, melee=True)
    assert ogre.hp == 59 - 9


def test_protection_from_poison_ends_poisoned_resists_poison_and_favours_its_saves():
    b, _c = spell_setup("protection-from-poison", mon("orc", (12, 8)), allies=[pc("fighter", 5, (4, 6), "f1")])
    f = b.creatures["f1"]
    f.conditions["poisoned"] = {"by": "orc"}
    cast(b, "protection-from-poison", 2)
    target(b, "f1")
    assert "poisoned" not in f.conditions
    assert b.modified_damage(f, 10, "poison") == 5
    script(b, 2, 15)   # advantage against being poisoned: the higher d20 counts
    assert b.saving_throw(f, "con", 15, condition="poisoned")
    script(b, 2)   # any other Con save: one d20
    assert not b.saving_throw(f, "con", 15)


def test_irresistible_dance_needs_no_save_hinders_the_dancer_and_spares_the_charm_immune():
    b, c = spell_setup("irresistible-dance", mon("ogre", (5, 5)), mon("ghoul", (6, 6)))
    ogre = b.creatures["ogre"]
    assert {t.cid for t in spellbook.targets(b, c, "irresistible-dance")} == {"ogre"}   # a ghoul can't be charmed
    cast(b, "irresistible-dance", 6)
    target(b, "ogre")
    assert "dancing" in ogre.conditions and c.concentration == "irresistible-dance"
    assert b.attack_modifiers(c, ogre, True)[0] and b.attack_modifiers(ogre, c, True)[1]
    assert b.speed(ogre) == 0
    script(b, 18, 3)   # Dex save at disadvantage: the lower d20 (3) counts
    assert not b.saving_throw(ogre, "dex", 10)
    script(b, 19)   # the end of its turn: a Wis save (19 - 2 = 17 >= 15) ends the dance
    b._end_of_turn_effects(ogre)
    assert "dancing" not in ogre.conditions


def test_holy_aura_gives_chosen_allies_advantage_on_saves_and_attackers_disadvantage():
    b, c = spell_setup("holy-aura", mon("orc", (12, 8)), allies=[pc("fighter", 5, (6, 6), "f1")])
    cast(b, "holy-aura", 8)
    target(b, "caster")
    target(b, "f1")   # 15 ft away: within the aura's 30 ft
    f, orc = b.creatures["f1"], b.creatures["orc"]
    assert "holy_aura" in c.conditions and "holy_aura" in f.conditions
    assert b.attack_modifiers(orc, f, True)[1]
    script(b, 2, 14)
    assert b.saving_throw(f, "wis", 15)


def test_fire_shield_burns_a_melee_attacker_that_hits_and_resists_cold():
    b, c = spell_setup("fire-shield", mon("orc", (4, 5)))
    cast(b, "fire-shield", 4)
    target(b, "caster")
    orc = b.creatures["orc"]
    assert b.modified_damage(c, 10, "cold") == 5
    script(b, 15, 6, 2, 3)   # the greataxe hits (1d12+3 = 9); the shield's 2d8 = 5 fire back
    b.make_attack(orc, orc.attacks[0], c, melee=True)
    assert orc.hp == 15 - 5
    script(b, 2)   # a miss: nothing back
    b.make_attack(orc, orc.attacks[0], c, melee=True)
    assert orc.hp == 10


def test_bestow_curse_adds_1d8_necrotic_to_the_casters_attacks_after_a_failed_wis_save():
    b, c = spell_setup("bestow-curse", mon("ogre", (4, 5)), allies=[pc("fighter", 5, (4, 6), "f1")])
    script(b, 1)   # Wis save 1 - 2 fails
    cast(b, "bestow-curse", 3)
    target(b, "ogre")
    ogre = b.creatures["ogre"]
    assert "cursed" in ogre.conditions
    script(b, 15, 3, 8)   # dagger 5, the curse's 1d8 = 8 necrotic
    b.make_attack(c, c.attacks[0], ogre, melee=True)
    assert ogre.hp == 59 - 13
    f = b.creatures["f1"]
    script(b, 15, 3)   # another attacker: no curse damage
    b.make_attack(f, f.attacks[0], ogre, melee=True)
    assert ogre.hp == 46 - 7


def test_expeditious_retreat_dashes_when_cast_and_offers_a_bonus_dash_each_turn():
    b, c = spell_setup("expeditious-retreat", mon("orc", (12, 8)))
    moved = c.economy.movement
    cast(b, "expeditious-retreat")
    target(b, "caster")
    assert c.economy.movement == moved + 30 and not c.economy.bonus
    turn(b, "caster")
    pick(b, "cunning_dash", "Expeditious Retreat")
    assert c.economy.movement == 60 and not c.economy.bonus and c.economy.actions == 1


def test_dispel_evil_and_good_hinders_undead_attackers_only():
    b, c = spell_setup("dispel-evil-and-good", mon("zombie", (4, 5)), mon("orc", (4, 4)))
    cast(b, "dispel-evil-and-good", 5)
    target(b, "caster")
    assert b.attack_modifiers(b.creatures["zombie"], c, True)[1]
    assert not b.attack_modifiers(b.creatures["orc"], c, True)[1]


def test_call_lightning_strikes_a_5_ft_point_and_again_each_turn_with_the_action_only():
    b, c = spell_setup("call-lightning", mon("ogre", (8, 5)), mon("orc", (12, 8)))
    ogre = b.creatures["ogre"]
    cast(b, "call-lightning", 3)
    script(b, 5, 5, 5, 1)   # 3d10 = 15 lightning; the ogre's Dex save 1 - 1 fails
    place(b, 8, 5)
    assert ogre.hp == 59 - 15 and b.creatures["orc"].hp == 15   # the orc is outside the 5-ft radius
    slots = c.resources["slots"]
    turn(b, "caster")
    pick(b, "recall", "Call Lightning again")
    script(b, 4, 4, 4, 20)   # 12; a save (20 - 1) halves it
    place(b, 8, 5)
    assert ogre.hp == 44 - 6 and c.resources["slots"] == slots and c.economy.actions == 0
    assert not [o for o in b.decision.options if o.kind == "recall"]   # no action left
    b.end_concentration(c)
    turn(b, "caster")
    assert not [o for o in b.decision.options if o.kind == "recall"]


def test_shillelagh_turns_a_quarterstaff_into_a_spell_ability_d8_magic_weapon():
    druid = mon("druid", (3, 5), "caster")
    druid.side, druid.spells = "party", ("shillelagh",)
    b = arena(druid, mon("ogre", (4, 5)), layout=WIDE, first="caster")
    cast(b, "shillelagh")
    target(b, "caster")
    ogre = b.creatures["ogre"]
    staff = druid.attack("quarterstaff")
    script(b, 7, 5)   # 7 + 4 (the SRD druid's "+4 to hit with shillelagh") = 11 hits AC 11; 1d8+2 = 7
    assert b.make_attack(druid, staff, ogre, melee=True)
    assert ogre.hp == 59 - 7
    assert druid.conditions["shillelagh"]["until_round"] == b.round + 10 and druid.concentration is None
    del druid.conditions["shillelagh"]   # its minute is over
    script(b, 7)   # 7 + 2 misses without it
    assert not b.make_attack(druid, staff, ogre, melee=True)
