"""Summons with authored stat blocks, the Polymorph family and conjured weapons (dnd/spell_summons.py,
content/data/spell_creatures.json), cast through the engine's own options with scripted dice.

The caster is a level-5 wizard (spell attack +7, save DC 15, 32 HP, Str 10) holding the one spell
under test and four slots of every level. Foes: orc (AC 13, 15 HP, Dex +1, Wis +0, CR 1/2), ogre
(AC 11, 59 HP, Dex -1, Wis -2, CR 2).
"""

import pytest
from dnd_helpers import cast, events, labels, mon, pc, pick, script, spell_setup, target

from dungeonbench_gym.dnd import heuristic, spellbook
from dungeonbench_gym.dnd.verification import spell_probe

KEYS = ("flaming-sphere", "arcane-hand", "arcane-sword", "guardian-of-faith", "faithful-hound", "animate-objects",
        "polymorph", "true-polymorph", "shapechange", "animal-shapes", "alter-self", "flame-blade")


def form(b, key):
    for i, o in enumerate(b.decision.options):
        if o.kind == "form" and o.data == (key,):
            b.choose(i)
            return
    raise AssertionError(f"no form {key}: {labels(b)}")


def summoned(b, spell):
    return [o for o in b.creatures.values() if o.resources.get("spell_key") == spell]


@pytest.mark.parametrize("key", KEYS)
def test_each_spell_is_executable_and_probed(key):
    row = next(r for r in spellbook.coverage() if r["key"] == key)
    assert row["status"] == "executable"
    spell_probe.run_probe(key)


# ================================================================ summons
def test_flaming_sphere_appears_by_the_foe_rams_it_and_burns_who_ends_a_turn_beside_it():
    b, c = spell_setup("flaming-sphere", mon("orc", (8, 5)))
    cast(b, "flaming-sphere", 3)
    (s,) = summoned(b, "flaming-sphere")
    assert s.side == "party" and b.order[1] == s.cid and c.concentration == "flaming-sphere"
    assert b.distance(s, b.creatures["orc"]) == 5 and b.distance(s, c) > 5
    assert b.modified_damage(s, 30, "fire") == 0   # it can't be harmed
    pick(b, "end_turn")
    assert b.decision.actor == s.cid and "Dash" not in labels(b)   # it only moves
    orc = b.creatures["orc"]
    script(b, 2, 2, 2, 1)   # 3d6 at 3rd level: 6 fire; the orc fails its Dex save
    pick(b, "end_turn")
    assert orc.hp == 9 and events(b, "ram")
    # the orc ends its own turn beside the sphere: another save
    script(b, 1, 1, 1, 20)   # 3 fire, saved: 1
    b._end_of_turn_effects(orc)
    assert orc.hp == 8


def test_flaming_sphere_waits_when_the_caster_spent_its_bonus_action_and_vanishes_with_concentration():
    b, c = spell_setup("flaming-sphere", mon("orc", (12, 8)))
    cast(b, "flaming-sphere", 2)
    (s,) = summoned(b, "flaming-sphere")
    c.economy.bonus = False
    pick(b, "end_turn")
    assert b.decision.actor == s.cid and s.economy.movement == 0 and events(b, "idle")
    b.end_concentration(c)
    b.start_turn(s)
    assert s.dead and events(b, "vanish")


def test_arcane_hand_has_the_casters_hit_points_and_a_force_fist_that_grows_with_the_slot():
    b, c = spell_setup("arcane-hand", mon("ogre", (9, 5)))
    cast(b, "arcane-hand", 6)
    (h,) = summoned(b, "arcane-hand")
    assert (h.ac, h.max_hp, h.size, h.side) == (20, c.max_hp, "large", "party")
    fist = h.attack("clenched-fist")
    assert fist.to_hit == c.resources["spell_attack"] == 7 and fist.damage[0].dice == "6d8"
    assert fist.damage[0].type == "force"
    pick(b, "end_turn")
    assert b.decision.actor == h.cid
    ogre = b.creatures["ogre"]
    pick(b, "attack", "Clenched Fist")
    script(b, 15, *[5] * 6)   # 15 + 7 hits AC 11: 30 force
    pick(b, "target", "ogre")
    assert ogre.hp == 59 - 30
    b.damage(h, 40, "slashing")
    assert h.dead   # at 0 HP it is gone


def test_arcane_sword_attacks_with_the_spell_attack_for_3d10_force():
    b, _c = spell_setup("arcane-sword", mon("orc", (9, 5)))
    cast(b, "arcane-sword", 7)
    (s,) = summoned(b, "arcane-sword")
    blade = s.attack("spectral-blade")
    assert (blade.to_hit, blade.damage[0].dice, blade.damage[0].type) == (7, "3d10", "force")
    pick(b, "end_turn")
    pick(b, "attack", "Spectral Blade")
    script(b, 10, 3, 3, 3)   # 17 hits AC 13: 9 force
    pick(b, "target", "orc")
    assert b.creatures["orc"].hp == 6


def test_arcane_sword_and_hand_vanish_when_concentration_is_lost():
    b, c = spell_setup("arcane-sword", mon("orc", (12, 9)))
    cast(b, "arcane-sword", 7)
    (s,) = summoned(b, "arcane-sword")
    script(b, 1)   # the caster fails its concentration save
    b.damage(c, 10, "slashing")
    assert c.concentration is None
    pick(b, "end_turn")
    assert s.dead and b.decision.actor != s.cid


def walk(b, cid, x, y):
    """cid takes its turn and moves to (x, y) through the engine's move decisions."""
    from dnd_helpers import turn
    turn(b, cid)
    pick(b, "move")
    if b.decision.kind == "group":
        pick(b, "group", f"row y={y} ")
    for i, o in enumerate(b.decision.options):
        if o.kind == "destination" and tuple(o.data[0][:2]) == (x, y):
            b.choose(i)
            break
    else:
        raise AssertionError(f"no destination ({x}, {y}): {labels(b)}")
    if b.decision is not None and b.decision.kind == "route":
        b.choose(0)


def test_guardian_of_faith_burns_foes_moving_near_it_once_a_turn_until_60_damage():
    b, c = spell_setup("guardian-of-faith", mon("orc", (8, 5)), mon("ogre", (13, 8)))
    cast(b, "guardian-of-faith", 4)
    (g,) = summoned(b, "guardian-of-faith")
    assert g.side == "party" and g.speed == 0 and c.concentration is None   # no concentration
    orc, ogre = b.creatures["orc"], b.creatures["ogre"]
    assert b.distance(g, orc) <= 10 < b.distance(g, ogre)
    b.start_turn(orc)   # starting a turn there does nothing (only moving there does)
    assert orc.hp == 15
    script(b, 20)   # the orc moves within the area: it saves, 10 radiant
    walk(b, "orc", 9, 6)
    assert orc.hp == 5 and g.resources["aura_budget"] == 50
    script(b, 1, 1)   # the ogre walks in: it fails, 20 radiant; once this turn only
    walk(b, "ogre", 9, 2)
    assert ogre.hp == 39 and g.resources["aura_budget"] == 30
    script(b, 1, 1)
    walk(b, "ogre", 9, 1)
    script(b, 1, 1)
    walk(b, "ogre", 9, 2)
    assert ogre.hp == 0 or ogre.dead
    assert g.dead and any("spent" in e["text"] for e in events(b, "vanish"))


def test_guardian_and_hound_last_past_a_lost_concentration_but_not_past_the_duration():
    b, c = spell_setup("faithful-hound", mon("orc", (8, 5)))
    cast(b, "faithful-hound", 4)
    (h,) = summoned(b, "faithful-hound")
    b.end_concentration(c)
    b.start_turn(h)
    assert not h.dead
    b.round = h.conditions["summoned"]["until_round"]
    b.start_turn(h)
    assert h.dead


def test_faithful_hound_is_invisible_cant_be_harmed_and_bites_for_4d8():
    b, _c = spell_setup("faithful-hound", mon("orc", (8, 5)))
    cast(b, "faithful-hound", 4)
    (h,) = summoned(b, "faithful-hound")
    assert "invisible" in h.conditions and h.speed == 0 and b.modified_damage(h, 50, "force") == 0
    bite = h.attack("hound-bite")
    assert (bite.to_hit, bite.damage[0].dice, bite.damage[0].type) == (7, "4d8", "piercing")
    pick(b, "end_turn")
    assert b.decision.actor == h.cid
    pick(b, "attack", "Bite")
    script(b, 10, 1, 1, 1, 1)   # hits AC 13 (with advantage: invisible; 2 d20s): 4 piercing
    b.roller._int.values.insert(1, 10)
    pick(b, "target", "orc")
    assert b.creatures["orc"].hp == 11


def test_animate_objects_asks_for_a_size_and_animates_that_many():
    b, c = spell_setup("animate-objects", mon("orc", (12, 8)))
    cast(b, "animate-objects", 5)
    assert b.decision.kind == "target" and all(o.kind == "form" for o in b.decision.options)
    assert any("Animate 10 Animated Object (Tiny)" in x for x in labels(b))
    form(b, "animated-object-medium")
    objs = summoned(b, "animate-objects")
    assert len(objs) == 5 and all((o.ac, o.max_hp, o.size) == (13, 40, "medium") for o in objs)
    assert objs[0].attack("slam").to_hit == 5 and objs[0].attack("slam").damage[0].dice == "2d6+1"
    assert c.resources["slots"][4] == 3   # the slot is paid once the size is chosen
    b.end_concentration(c)
    for o in objs:
        b.start_turn(o)
    assert all(o.dead for o in objs)


def test_animate_objects_at_a_higher_slot_animates_two_more_small_objects_per_level():
    b, _c = spell_setup("animate-objects", mon("orc", (12, 8)))
    cast(b, "animate-objects", 6)
    form(b, "animated-object-tiny")
    objs = summoned(b, "animate-objects")
    assert len(objs) == 12 and all(o.side == "party" for o in objs)
    pick(b, "end_turn")
    assert b.decision.actor == objs[0].cid
    for _ in range(10):   # the heuristic plays the first object: it heads for the orc
        if b.decision.actor != objs[0].cid:
            break
        b.choose(heuristic.choose(b))
    assert b.decision.actor != objs[0].cid


# ================================================================ the Polymorph family
def test_polymorph_turns_a_failed_foe_into_a_beast_that_reverts_with_the_damage_carried_over():
    b, c = spell_setup("polymorph", mon("orc", (8, 5)))
    cast(b, "polymorph", 4)
    target(b, "orc")
    forms = [o.data[0] for o in b.decision.options]
    assert forms[0] == "frog" and "brown-bear" not in forms   # CR 1/2 at most, the weakest first
    script(b, 1)   # the orc fails its Wis save
    form(b, "giant-frog")
    orc = b.creatures["orc"]
    assert (orc.max_hp, orc.hp, orc.ac, orc.creature_type) == (18, 18, 11, "beast")
    assert orc.abilities["int"] == 2 and c.concentration == "polymorph"   # mental scores replaced too
    b.damage(orc, 23, "slashing")   # 18 to the frog, 5 carry over
    assert orc.hp == 10 and orc.max_hp == 15 and orc.creature_type == "humanoid" and not orc.dead
    assert events(b, "shape_end") and c.concentration is None


def test_polymorph_can_be_resisted_and_ends_with_concentration():
    b, c = spell_setup("polymorph", mon("orc", (8, 5)), mon("ogre", (9, 8)))
    cast(b, "polymorph", 4)
    target(b, "orc")
    script(b, 20)
    form(b, "frog")
    assert b.creatures["orc"].max_hp == 15 and c.concentration is None and c.resources["slots"][3] == 3
    b, c = spell_setup("polymorph", mon("ogre", (9, 8)))
    cast(b, "polymorph", 4)
    target(b, "ogre")
    script(b, 1)
    form(b, "rat")
    ogre = b.creatures["ogre"]
    assert ogre.max_hp == 1 and ogre.attacks and ogre.attacks[0].key == "bite"
    b.end_concentration(c)
    assert ogre.max_hp == 59 and ogre.hp == 59 and ogre.attacks[0].key != "bite"


def test_polymorph_on_an_ally_needs_no_save_and_offers_the_strongest_form_first():
    b, _c = spell_setup("polymorph", mon("orc", (12, 8)), allies=[pc("fighter", 5, (4, 6), "f1")])
    cast(b, "polymorph", 4)
    target(b, "f1")
    assert b.decision.options[0].data == ("triceratops",)   # CR 5 for a level-5 fighter
    form(b, "polar-bear")
    f = b.creatures["f1"]
    assert (f.max_hp, f.size) == (42, "large") and f.multiattack


def test_true_polymorph_allows_any_creature_up_to_the_targets_cr():
    b, _c = spell_setup("true-polymorph", mon("ogre", (6, 5)), allies=[pc("fighter", 5, (4, 6), "f1")])
    cast(b, "true-polymorph", 9)
    target(b, "f1")
    assert {"earth-elemental", "fire-elemental"} <= {o.data[0] for o in b.decision.options}
    assert "deva" not in {o.data[0] for o in b.decision.options}   # CR 10 > level 5
    form(b, "earth-elemental")
    f = b.creatures["f1"]
    assert f.max_hp == 126 and f.creature_type == "elemental"


def test_shapechange_keeps_the_casters_mind_and_reverts_at_zero_hp():
    b, c = spell_setup("shapechange", mon("orc", (8, 5)))
    int_score = c.abilities["int"]
    cast(b, "shapechange", 9)
    assert next(o.data[0] for o in b.decision.options) == "fire-elemental"   # CR 5 at caster level 5
    form(b, "brown-bear")
    assert c.max_hp == 34 and c.abilities["int"] == int_score and c.abilities["str"] == 19
    assert "shaped" in c.conditions and c.concentration == "shapechange"
    b.damage(c, 40, "slashing")   # 34 to the bear, 6 carry over
    assert c.max_hp == 32 and c.hp == 26 and "shaped" not in c.conditions


def test_animal_shapes_changes_the_caster_and_near_allies_only():
    near, far = pc("fighter", 5, (4, 6), "near"), pc("fighter", 5, (14, 9), "far")
    b, c = spell_setup("animal-shapes", mon("orc", (12, 2)), allies=[near, far])
    wis = near.abilities["wis"]
    cast(b, "animal-shapes", 8)
    form(b, "dire-wolf")
    assert c.max_hp == near.max_hp == 37 and far.max_hp == 44
    assert near.abilities["wis"] == wis and near.creature_type == "beast"
    b.damage(near, 40, "piercing")
    assert near.max_hp == 44 and near.hp == 41   # 37 to the wolf, 3 carry over
    assert c.concentration == "animal-shapes"   # the caster is still a wolf
    b.end_concentration(c)
    assert c.max_hp == 32


# ================================================================ conjured weapons
def test_flame_blade_gives_a_melee_spell_attack_that_scales_and_goes_with_concentration():
    b, c = spell_setup("flame-blade", mon("orc", (4, 5)))
    cast(b, "flame-blade", 4)
    assert not c.economy.bonus and c.economy.actions == 1   # a bonus action
    a = c.attack("flame-blade")
    assert (a.to_hit, a.damage[0].dice, a.damage[0].type, a.melee) == (7, "4d6", "fire", True)
    pick(b, "attack", "Flame Blade")
    script(b, 10, 1, 1, 1, 1)   # 17 hits AC 13: 4 fire
    pick(b, "target", "orc")
    assert b.creatures["orc"].hp == 11
    b.end_concentration(c)
    assert all(x.key != "flame-blade" for x in c.attacks) and "flame_blade" not in c.conditions


def test_alter_self_natural_weapon_is_a_magic_unarmed_strike_with_plus_one():
    b, c = spell_setup("alter-self", mon("orc", (4, 5)))
    cast(b, "alter-self", 2)
    a = c.attack("natural-weapon")
    mod = c.mod("str") + 1   # Strength, +1 magic; proficient
    assert (a.to_hit, a.spell) == (c.prof + mod, True)
    assert a.damage[0].dice == (f"1d6{mod:+d}" if mod else "1d6")
    c.abilities["str"] = 16   # a strong caster: +3 +1
    assert spellbook.spell_summons.weapon_attack(c, "alter-self", 2).damage[0].dice == "1d6+4"
    assert "altered" in c.conditions and "Alter Self" not in " ".join(labels(b))   # not twice
    b.end_concentration(c)
    assert all(x.key != "natural-weapon" for x in c.attacks)


# ================================================================ long summonings, cast between fights (Day track)
PREPARED = ("animate-dead", "create-undead", "conjure-celestial", "conjure-elemental", "conjure-fey",
            "conjure-minor-elementals", "find-familiar", "find-steed", "planar-ally", "simulacrum")


def day_with(key):
    from dungeonbench_gym.dnd.verification.spell_buffs_probes import day_probe_run
    run = day_probe_run(key)
    caster = next(c for c in run.party.values() if key in c.spells)
    return run, caster


def prepare(run, pred):
    from dungeonbench_gym.dnd.spell_buffs import choose_day
    assert choose_day(run, lambda o: o.kind == "prepare_summon" and pred(o)), \
        [o.label for o in run._options() if o.kind == "prepare_summon"]


def next_fight(run):
    from dungeonbench_gym.dnd.spell_buffs import choose_day
    assert choose_day(run, lambda o: o.kind == "continue")
    return run.battle


def win(run):
    b = run.battle
    for o in b.enemies_of(b.creatures[next(iter(run.party))]):
        o.dead = True
    b.outcome = "win"
    run._end_battle()


def of(b, key):
    return [o for o in b.creatures.values() if o.resources.get("prepared") == key]


@pytest.mark.parametrize("key", PREPARED)
def test_long_summonings_are_executable_and_not_offered_in_a_battle(key):
    row = next(r for r in spellbook.coverage() if r["key"] == key)
    assert row["status"] == "executable"
    spell_probe.run_probe(key)
    b, _c = spell_setup(key, mon("orc", (12, 8)))
    assert not [o for o in b.decision.options if o.kind == "spell" and o.data[0] == key]   # a minute or more


def test_animate_dead_raises_more_undead_with_a_higher_slot_and_they_stay_all_day():
    run, c = day_with("animate-dead")
    labels_ = [o.label for o in run._options() if o.kind == "prepare_summon"]
    assert any("level 3" in x and ": 1 Zombie" in x for x in labels_)
    assert any("level 5" in x and ": 5 Skeleton" in x for x in labels_)
    prepare(run, lambda o: o.data[2:] == (5, "skeleton", 5))
    assert c.resources["slots"][4] == 3
    b = next_fight(run)
    bones = of(b, "animate-dead")
    assert len(bones) == 5 and all(o.side == "party" and o.monster == "skeleton" for o in bones)
    assert all(o.cid in b.order for o in bones)   # their own initiative: each takes turns
    bones[0].dead = True
    win(run)
    b = next_fight(run)
    assert len(of(b, "animate-dead")) == 4   # the fallen one stays down, the rest come along


def test_create_undead_offers_ghasts_and_wights_only_from_an_8th_level_slot():
    run, _c = day_with("create-undead")
    got = {(o.data[2], o.data[3], o.data[4]) for o in run._options() if o.kind == "prepare_summon"}
    assert (6, "ghoul", 3) in got and (8, "wight", 2) in got and (9, "mummy", 2) in got
    assert not any(lv < 8 and m in ("ghast", "wight") for lv, m, _n in got)
    prepare(run, lambda o: o.data[2:] == (6, "ghoul", 3))
    assert len(of(next_fight(run), "create-undead")) == 3


def test_conjure_elemental_needs_concentration_and_turns_hostile_when_it_breaks():
    run, c = day_with("conjure-elemental")
    prepare(run, lambda o: o.data[3] == "earth-elemental")
    assert c.concentration == "conjure-elemental"
    b = next_fight(run)
    (el,) = of(b, "conjure-elemental")
    assert el.side == "party" and el.max_hp == 126
    b.end_concentration(b.creatures[c.cid])
    assert el.side == "enemies" and not el.dead and events(b, "uncontrolled")


def test_conjure_celestial_vanishes_when_concentration_ends_and_lasts_one_fight():
    run, _c = day_with("conjure-celestial")
    prepare(run, lambda o: o.data[3] == "couatl")
    b = next_fight(run)
    (cel,) = of(b, "conjure-celestial")
    assert cel.side == "party" and cel.creature_type == "celestial"
    win(run)
    assert not of(next_fight(run), "conjure-celestial")   # an hour at most: gone by the next fight


def test_conjure_fey_and_minor_elementals_bring_their_data_chosen_creatures():
    run, c = day_with("conjure-fey")
    prepare(run, lambda o: o.data[3] == "mammoth")
    assert [o.monster for o in of(next_fight(run), "conjure-fey")] == ["mammoth"]
    run, c = day_with("conjure-minor-elementals")
    prepare(run, lambda o: o.data[2:] == (6, "steam-mephit", 16))   # twice as many from a 6th-level slot
    b = next_fight(run)
    assert len(of(b, "conjure-minor-elementals")) == 16
    b.end_concentration(b.creatures[c.cid])
    for o in of(b, "conjure-minor-elementals"):
        b.start_turn(o)
    assert all(o.dead for o in of(b, "conjure-minor-elementals"))


def test_find_familiar_is_a_fey_that_cannot_attack_and_find_steed_has_int_6():
    run, _c = day_with("find-familiar")
    prepare(run, lambda o: o.data[3] == "owl")
    (fam,) = of(next_fight(run), "find-familiar")
    assert fam.creature_type == "fey" and fam.attacks == () and fam.side == "party"
    run, _c = day_with("find-steed")
    prepare(run, lambda o: o.data[3] == "warhorse")
    (steed,) = of(next_fight(run), "find-steed")
    assert steed.abilities["int"] == 6 and steed.creature_type == "celestial" and steed.attacks


def test_planar_ally_costs_gold_and_serves_for_one_fight():
    run, c = day_with("planar-ally")
    gp = c.resources["gp"]
    prepare(run, lambda o: o.data[3] == "deva")
    assert c.resources["gp"] == gp - 100
    assert [o.monster for o in of(next_fight(run), "planar-ally")] == ["deva"]
    win(run)
    assert not of(next_fight(run), "planar-ally")


def test_simulacrum_has_half_the_hit_points_no_equipment_and_melts_at_zero():
    run, _c = day_with("simulacrum")
    fighter = run.party["fighter"]
    prepare(run, lambda o: o.data[3] == "fighter")
    b = next_fight(run)
    (sim,) = of(b, "simulacrum")
    assert sim.max_hp == fighter.max_hp // 2 and sim.side == "party" and not sim.armored
    assert [a.key for a in sim.attacks] == ["unarmed-strike"] and sim.ac < fighter.ac
    b.damage(sim, sim.hp + 1, "slashing")
    assert sim.dead and events(b, "melt")


def test_a_form_taken_in_one_fight_is_gone_by_the_next():
    run, c = day_with("find-familiar")
    b = next_fight(run)
    me = b.creatures[c.cid]
    from dungeonbench_gym.dnd import spell_summons
    spell_summons.transform(b, me, me, "brown-bear", "shapechange")
    me.attacks = me.attacks + (spell_summons.weapon_attack(me, "flame-blade", 2),)
    assert me.size == "large"
    win(run)
    b = next_fight(run)
    me = b.creatures[c.cid]
    assert me.size == "medium" and "shape_saved" not in me.resources
    assert all(a.key != "flame-blade" for a in me.attacks)


def test_a_pc_dragon_form_multiattacks_with_its_attacks_only():
    b, c = spell_setup("shapechange", mon("orc", (12, 8)), level=17)
    cast(b, "shapechange", 9)
    form(b, "adult-red-dragon")
    assert c.size == "huge" and c.multiattack and all(k in {a.key for a in c.attacks} for k in c.multiattack)
    assert c.save_actions == ()


def test_one_bonus_action_commands_all_animated_objects_and_none_act_without_it():
    b, _c = spell_setup("animate-objects", mon("orc", (12, 8)))
    cast(b, "animate-objects", 5)
    form(b, "animated-object-large")
    big = summoned(b, "animate-objects")
    assert len(big) == 2
    pick(b, "end_turn")
    assert b.decision.actor == big[0].cid and big[0].economy.movement > 0
    pick(b, "end_turn")
    assert b.decision.actor == big[1].cid and big[1].economy.movement > 0   # the same bonus action
    b2, c2 = spell_setup("animate-objects", mon("orc", (12, 8)))
    cast(b2, "animate-objects", 5)
    form(b2, "animated-object-large")
    c2.economy.bonus = False   # spent on something else
    pick(b2, "end_turn")
    assert b2.creatures[b2.decision.actor].economy.movement == 0 and events(b2, "idle")


def test_arcane_hand_at_zero_hp_ends_the_spell():
    b, c = spell_setup("arcane-hand", mon("ogre", (12, 8)))
    cast(b, "arcane-hand", 5)
    (h,) = summoned(b, "arcane-hand")
    b.damage(h, h.hp, "force")
    assert h.dead and c.concentration == "arcane-hand"
    b.start_turn(c)
    assert c.concentration is None


def test_a_dispelled_polymorph_gives_the_creature_its_own_form_back_at_its_turn():
    b, c = spell_setup("polymorph", mon("ogre", (9, 8)))
    cast(b, "polymorph", 4)
    target(b, "ogre")
    script(b, 1)
    form(b, "rat")
    ogre = b.creatures["ogre"]
    from dungeonbench_gym.dnd import spellbook as sb
    sb.dispel(b, c, ogre, 9)
    b.start_turn(ogre)
    assert ogre.max_hp == 59 and ogre.size == "large" and "shape_saved" not in ogre.resources
