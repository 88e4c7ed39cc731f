"""Spells, legendary actions and conditions against the SRD's numbers (scripted dice).

Dice are scripted (tests/dnd_helpers.py): every d20 and damage die the engine draws comes, in
order, from the list given to ``script``. Bless/Bane d4s are drawn before the d20 they modify.
"""

import numpy as np

from dungeonbench_gym.dnd import heuristic

from dnd_helpers import WIDE, arena, events, labels, mon, pc, pick, script, turn
from dungeonbench_gym.dnd.model.archetypes import ARCHETYPES


# ----------------------------------------------------------------- the list
def test_at_least_25_spells_across_the_cleric_and_wizard():
    spells = set(ARCHETYPES["wizard"]["spells"]) | set(ARCHETYPES["cleric"]["spells"])
    assert len(spells) >= 25


def test_every_spell_of_a_level_5_caster_is_offered_or_needs_a_situation():
    w = pc("wizard", 5, (2, 2))
    b = arena(w, mon("goblin", (3, 2)), mon("goblin", (6, 4), "g2"), first="wizard")
    offered = {o.data[0] for o in b.decision.options if o.kind == "spell"}
    assert "mage-armor" in offered and "shield" not in offered   # Shield is a reaction decision
    assert offered >= {"fire-bolt", "ray-of-frost", "shocking-grasp", "chill-touch", "magic-missile",
                       "burning-hands", "thunderwave", "sleep", "scorching-ray", "misty-step",
                       "hold-person", "fireball", "lightning-bolt"}


# ----------------------------------------------------------------- attack rolls and riders
def test_guiding_bolt_gives_advantage_to_the_next_attack_only():
    c, f, o = pc("cleric", 1, (2, 2)), pc("fighter", 1, (5, 3)), mon("ogre", (6, 2))
    b = arena(c, f, o, first="cleric")
    pick(b, "spell", "Guiding Bolt at level 1")
    script(b, 15, 1, 1, 1, 1)       # 15 + 5 hits AC 11; 4d6 = 4
    pick(b, "target", "ogre")
    assert o.hp == 59 - 4 and "guided" in o.conditions
    adv, _, why = b.attack_modifiers(f, o, True)
    assert adv and "guided" in why
    script(b, 2, 3, 1)              # advantage: 2 and 3 -> 3 + 5 misses; the rider is spent
    b.make_attack(f, f.attack("longsword"), o)
    assert "guided" not in o.conditions
    assert events(b, "attack")[-1]["total"] == 3 + 5


def test_guiding_bolt_rider_ends_after_the_casters_next_turn():
    c, o = pc("cleric", 1, (2, 2)), mon("ogre", (6, 2))
    b = arena(c, o, first="cleric")
    pick(b, "spell", "Guiding Bolt")
    script(b, 15, 1, 1, 1, 1)
    pick(b, "target", "ogre")
    b.round = 2
    b._end_of_turn_effects(c)
    assert "guided" not in o.conditions


def test_fire_bolt_is_2d10_at_level_5_and_1d10_at_4():
    for level, dice in ((4, "1d10"), (5, "2d10")):
        b = arena(pc("wizard", level, (1, 1)), mon("goblin", (6, 4)), first="wizard")
        assert any("Fire Bolt" in x and dice in x for x in labels(b, "spell"))


def test_ray_of_frost_takes_10_ft_of_speed_until_the_casters_next_turn():
    w, o = pc("wizard", 1, (1, 1)), mon("ogre", (6, 2))
    b = arena(w, o, first="wizard")
    pick(b, "spell", "Ray of Frost")
    script(b, 15, 3)
    pick(b, "target", "ogre")
    assert o.hp == 56 and b.speed(o) == 40 - 10
    turn(b, "wizard")
    assert b.speed(o) == 40


def test_shocking_grasp_has_advantage_on_metal_armour_and_stops_reactions():
    w, g = pc("wizard", 1, (2, 2)), mon("guard", (3, 2))      # chain shirt
    b = arena(w, g, first="wizard")
    adv, _, why = b.attack_modifiers(w, g, True, w.attack("dagger")._replace(key="shocking-grasp"))
    assert adv and "metal armour" in why
    pick(b, "spell", "Shocking Grasp")
    script(b, 2, 15, 4)             # advantage keeps 15: 20 hits AC 16; 1d8 = 4
    pick(b, "target", "guard")
    assert g.hp == 11 - 4 and not g.economy.reaction
    # leaving its reach provokes nothing: it has no reaction
    assert b.attack_modifiers(w, mon("bandit", (5, 5)), True, w.attack("dagger")._replace(
        key="shocking-grasp"))[0] is False


def test_chill_touch_stops_healing_until_the_casters_next_turn():
    w, g = pc("wizard", 1, (1, 1)), mon("bandit", (6, 2))
    b = arena(w, g, first="wizard")
    pick(b, "spell", "Chill Touch")
    script(b, 15, 4)
    pick(b, "target", "bandit")
    assert g.hp == 7 and b.heal(g, 5, "test") == 0
    turn(b, "wizard")
    assert b.heal(g, 5, "test") == 4


def test_chill_touch_on_undead_gives_it_disadvantage_against_the_caster():
    w, s = pc("wizard", 1, (1, 1)), mon("skeleton", (6, 2))
    b = arena(w, s, first="wizard")
    pick(b, "spell", "Chill Touch")
    script(b, 15, 4)
    pick(b, "target", "skeleton")
    assert b.attack_modifiers(s, w, False)[1]


def test_inflict_wounds_is_a_melee_spell_attack_for_3d10():
    c, o = pc("cleric", 1, (2, 2)), mon("ogre", (3, 2))
    b = arena(c, o, first="cleric")
    assert not any("Inflict Wounds" in x for x in labels(arena(pc("cleric", 1, (1, 1)), mon("ogre", (6, 2)),
                                                                first="cleric"), "spell"))  # touch only
    pick(b, "spell", "Inflict Wounds at level 1")
    script(b, 10, 10, 10, 10)
    pick(b, "target", "ogre")
    assert o.hp == 59 - 30


def test_scorching_ray_is_three_rays_each_a_target_decision():
    w = pc("wizard", 3, (1, 1))
    g1, g2 = mon("goblin", (6, 2), "g1"), mon("goblin", (6, 4), "g2")
    b = arena(w, g1, g2, first="wizard")
    pick(b, "spell", "Scorching Ray at level 2")
    script(b, 18, 4, 4)              # 23 hits: 8 fire kills g1
    pick(b, "target", "g1")
    assert g1.dead and b.decision.kind == "target" and "(2 more)" in b.decision.options[0].label
    script(b, 1)                     # natural 1 misses
    pick(b, "target", "g2")
    script(b, 18, 1, 2)
    pick(b, "target", "g2")
    assert g2.hp == 7 - 3 and b.decision.kind == "action" and w.resources["slots"][1] == 1


def test_scorching_ray_at_level_3_has_four_rays():
    w = pc("wizard", 5, (1, 1))
    b = arena(w, mon("ogre", (6, 2)), first="wizard")
    pick(b, "spell", "Scorching Ray at level 3")
    n = 0
    while b.decision.kind == "target":
        script(b, 1)
        pick(b, "target")
        n += 1
    assert n == 4


# ----------------------------------------------------------------- areas
def test_lightning_bolt_line_hits_everyone_in_the_line_save_for_half():
    w = pc("wizard", 5, (1, 3))
    g1, g2, g3 = mon("ogre", (4, 3), "o1"), mon("ogre", (8, 3), "o2"), mon("goblin", (4, 6), "g3")
    b = arena(w, g1, g2, g3, layout=WIDE, first="wizard")
    pick(b, "spell", "Lightning Bolt")
    assert b.decision.kind == "direction"
    label = next(x for x in labels(b) if x.startswith("Toward E "))
    assert "o1" in label and "o2" in label and "g3" not in label
    script(b, *[3] * 8, 1, 20)       # 8d6 = 24; o1 fails, o2 succeeds (half)
    pick(b, "direction", "Toward E ")
    assert g1.hp == 59 - 24 and g2.hp == 59 - 12


def test_thunderwave_cube_pushes_failures_10_ft_and_halves_on_a_success():
    w = pc("wizard", 1, (2, 3))
    o, g = mon("bandit", (3, 3), "b1"), mon("bandit", (3, 4), "b2")
    b = arena(w, o, g, layout=WIDE, first="wizard")
    pick(b, "spell", "Thunderwave at level 1")
    label = next(x for x in labels(b) if x.startswith("Toward E "))
    assert "b1" in label and "b2" in label
    script(b, 2, 2, 1, 20)           # 2d8 = 4; b1 fails (Con), b2 succeeds
    pick(b, "direction", "Toward E ")
    assert o.hp == 11 - 4 and o.pos[:2] == (5, 3)
    assert g.hp == 11 - 2 and g.pos[:2] == (3, 4)


def test_burning_hands_upcast_adds_a_die_per_level():
    w = pc("wizard", 3, (2, 3))
    assert any("Burning Hands at level 2" in x and "4d6" in x
               for x in labels(arena(w, mon("ogre", (4, 3)), first="wizard"), "spell"))


def test_sleep_puts_the_lowest_hp_creatures_to_sleep_without_a_save():
    w = pc("wizard", 1, (1, 1))
    g1, g2, o = mon("goblin", (6, 4), "g1"), mon("goblin", (7, 4), "g2"), mon("ogre", (6, 5))
    g2.hp = 3
    b = arena(w, g1, g2, o, first="wizard")
    pick(b, "spell", "Sleep")
    pick(b, "point_x", "x = 7")
    script(b, 2, 2, 2, 2, 3)          # 5d8 = 11: g2 (3), then g1 (7): 1 left, not the ogre (59)
    pick(b, "point_y", "Point (7, 5)")
    assert "unconscious" in g1.conditions and "unconscious" in g2.conditions
    assert "unconscious" not in o.conditions and not events(b, "save")
    assert g1.incapacitated and b.attack_modifiers(w, g1, True)[0]
    script(b, 1)
    b.damage(g1, 1, "fire")           # damage wakes it
    assert "unconscious" not in g1.conditions


def test_sleep_skips_undead():
    w, s = pc("wizard", 1, (1, 1)), mon("skeleton", (6, 4))
    b = arena(w, s, first="wizard")
    pick(b, "spell", "Sleep")
    pick(b, "point_x", "x = 6")
    script(b, 8, 8, 8, 8, 8)
    pick(b, "point_y", "Point (6, 4)")
    assert "unconscious" not in s.conditions


# ----------------------------------------------------------------- Hold Person
def _held():
    c, f, g = pc("cleric", 3, (1, 1)), pc("fighter", 1, (6, 3)), mon("bandit", (7, 3))
    b = arena(c, f, g, first="cleric")
    pick(b, "spell", "Hold Person at level 2")
    script(b, 1)                      # Wis save 1 fails vs DC 13
    pick(b, "target", "bandit")
    return b, c, f, g


def test_hold_person_paralyzes_on_a_failed_save():
    b, c, _f, g = _held()
    assert "paralyzed" in g.conditions and g.incapacitated and c.concentration == "hold-person"
    assert b.speed(g) == 0
    assert not b.saving_throw(g, "dex", 1)       # automatic failure


def test_a_melee_hit_on_a_paralyzed_creature_within_5_ft_is_a_critical():
    b, _c, f, g = _held()
    script(b, 2, 15, 5, 6)            # advantage (paralyzed): 15 hits; a critical: 2d8+3 = 14
    b.make_attack(f, f.attack("longsword"), g)
    assert events(b, "attack")[-1]["critical"] and g.dead


def test_hold_person_repeat_save_at_the_end_of_its_turn():
    b, _c, _f, g = _held()
    script(b, 20)
    b._end_of_turn_effects(g)
    assert "paralyzed" not in g.conditions


def test_hold_person_only_targets_humanoids_and_upcasts_to_more_targets():
    c = pc("cleric", 5, (1, 1))
    b = arena(c, mon("bandit", (6, 3), "b1"), mon("bandit", (6, 5), "b2"), mon("ogre", (3, 5)), first="cleric")
    pick(b, "spell", "Hold Person at level 3")
    assert {o.data[0] for o in b.decision.options} == {"b1", "b2"}
    script(b, 20)
    pick(b, "target", "b1")
    assert b.decision.kind == "target" and "No more targets" in labels(b)
    script(b, 20)
    pick(b, "target", "b2")
    assert b.decision.kind == "action"


def test_concentration_loss_ends_hold_person():
    b, c, _f, g = _held()
    b.end_concentration(c)
    assert "paralyzed" not in g.conditions


# ----------------------------------------------------------------- Bless, Bane
def test_bless_three_targets_add_1d4_to_attacks_and_saves():
    c, f, r = pc("cleric", 1, (2, 2)), pc("fighter", 1, (3, 2)), pc("rogue", 1, (2, 3))
    o = mon("ogre", (6, 5))
    b = arena(c, f, r, o, first="cleric")
    pick(b, "spell", "Bless")
    pick(b, "target", "fighter")
    pick(b, "target", "rogue")
    pick(b, "target", "cleric")
    assert b.decision.kind == "action" and all("blessed" in x.conditions for x in (c, f, r))
    script(b, 4, 5, 1)                # d4 = 4, d20 5: 5 + 5 + 4 = 14 hits AC 11
    assert b.make_attack(f, f.attack("longsword"), o)
    script(b, 3, 7)                   # Dex save +1 + 3 + 7 = 11
    b.saving_throw(f, "dex", 11)
    assert events(b, "save")[-1]["success"]


def test_bane_is_a_cha_save_and_subtracts_1d4():
    c, f, o = pc("cleric", 1, (2, 2)), pc("fighter", 1, (3, 2)), mon("ogre", (6, 5))
    b = arena(c, f, o, first="cleric")
    pick(b, "spell", "Bane")
    script(b, 5)                      # Cha -2 + 5 = 3 < 13
    pick(b, "target", "ogre")
    assert "baned" in o.conditions and b.decision.kind == "action"   # no other foe to add
    script(b, 4, 10)                  # 10 + 6 - 4 = 12 misses AC 18 (chain mail + shield + defense)
    assert not b.make_attack(o, o.attack("greatclub"), f)


# ----------------------------------------------------------------- healing, AC, wards
def test_healing_word_upcast_and_cure_wounds_add_the_modifier():
    c, f = pc("cleric", 3, (2, 2)), pc("fighter", 1, (8, 6))
    f.hp = 1
    b = arena(c, f, mon("goblin", (8, 1)), first="cleric")
    pick(b, "spell", "Healing Word at level 2 (bonus action)")
    script(b, 1, 2)
    pick(b, "target", "fighter")
    assert f.hp == min(f.max_hp, 1 + 3 + 3 + 4)   # + the Life cleric's Disciple of Life (2 + level 2)


def test_mage_armor_makes_ac_13_plus_dex():
    w = pc("wizard", 1, (2, 2))
    b = arena(w, mon("goblin", (8, 6)), first="wizard")
    pick(b, "spell", "Mage Armor")
    pick(b, "target", "wizard")
    assert b.armour_class(w) == 13 + 2 and w.concentration is None


def test_sanctuary_turns_aside_an_attacker_that_fails_its_wis_save():
    c, g = pc("cleric", 1, (2, 2)), mon("goblin", (3, 2))
    b = arena(c, g, first="cleric")
    pick(b, "spell", "Sanctuary")
    pick(b, "target", "cleric")
    script(b, 5)                      # goblin Wis -1 + 5 = 4 < 13: the attack is lost
    assert b.make_attack(g, g.attack("scimitar"), c) is False and c.hp == c.max_hp
    script(b, 20, 19, 3)              # save made: the attack goes on (and hits)
    assert b.make_attack(g, g.attack("scimitar"), c) is not False


def test_shield_of_faith_and_bless_are_one_concentration():
    c = pc("cleric", 1, (2, 2))
    b = arena(c, mon("goblin", (8, 6)), first="cleric")
    pick(b, "spell", "Shield of Faith")
    pick(b, "target", "cleric")
    assert not any("Bless" in x for x in labels(b, "spell"))   # after a bonus-action spell: cantrips only
    turn(b, "cleric")
    pick(b, "spell", "Bless")
    pick(b, "target", "cleric")
    assert c.concentration == "bless" and "shield_of_faith" not in c.conditions and "blessed" in c.conditions


# ----------------------------------------------------------------- Spirit Guardians
def test_spirit_guardians_damages_a_foe_starting_its_turn_inside_and_halves_its_speed():
    c, o = pc("cleric", 5, (2, 2)), mon("ogre", (4, 2))
    b = arena(c, o, first="cleric")
    pick(b, "spell", "Spirit Guardians")
    assert c.concentration == "spirit-guardians"
    script(b, 1, 4, 4, 4)             # Wis save fails, 3d8 = 12
    turn(b, "ogre")
    assert o.hp == 59 - 12 and o.economy.movement == 20


def test_spirit_guardians_damages_a_foe_entering_once_per_turn():
    c, g = pc("cleric", 5, (1, 1)), mon("goblin", (8, 6))
    g.hp = g.max_hp = 30
    b = arena(c, g, first="cleric")
    pick(b, "spell", "Spirit Guardians")
    turn(b, "goblin")
    pick(b, "move")
    script(b, 20, 4, 4, 4)            # save succeeds: half of 12
    pick(b, "destination", "Move to (4, 3)")
    assert g.hp == 30 - 6 and len(events(b, "zone")) == 1


# ----------------------------------------------------------------- Misty Step, Spiritual Weapon
def test_misty_step_is_a_bonus_action_teleport_with_a_destination_decision():
    w, g = pc("wizard", 3, (2, 2)), mon("goblin", (3, 2))
    b = arena(w, g, first="wizard")
    pick(b, "spell", "Misty Step at level 2 (bonus action)")
    assert b.decision.kind in ("destination", "group")
    opts = b._options(b.pending)
    assert all(b.map.distance_ft([(2, 2)], [o.data[0][:2]]) <= 30 for o in opts)
    assert not any(o.data[0][:2] == (3, 2) for o in opts)       # occupied
    while b.decision.kind == "group":
        pick(b, "group", "y=6")
    pick(b, "destination", "(6, 6)")
    assert w.pos[:2] == (6, 6) and not w.economy.bonus and w.economy.actions == 1
    assert not events(b, "reaction")       # a teleport provokes no opportunity attack


def test_spiritual_weapon_attacks_on_cast_and_as_a_bonus_action_later():
    c, o = pc("cleric", 3, (1, 1)), mon("ogre", (6, 4))
    b = arena(c, o, first="cleric")
    pick(b, "spell", "Spiritual Weapon at level 2")
    script(b, 15, 5)                  # 1d8 + 3 = 8 force
    pick(b, "target", "ogre")
    assert o.hp == 59 - 8
    assert not any(x.startswith("Spiritual Weapon:") for x in labels(b))   # bonus action spent
    turn(b, "cleric")
    pick(b, "spiritual_weapon")
    script(b, 15, 1)
    pick(b, "target", "ogre")
    assert o.hp == 59 - 8 - 4 and not c.economy.bonus and c.economy.actions == 1


# ----------------------------------------------------------------- legendary actions
def test_unicorn_takes_legendary_actions_at_the_end_of_other_turns():
    f, u = pc("fighter", 5, (2, 2)), mon("unicorn", (3, 2))
    b = arena(f, u, first="fighter")
    pick(b, "end_turn")
    d = b.decision
    assert d.kind == "legendary" and d.actor == "unicorn"
    assert any("hooves" in x and "costs 1 of 3" in x for x in labels(b))
    assert not any("heal-self" in x for x in labels(b))     # unhurt
    pick(b, "legendary", "hooves")
    script(b, 15, 3, 3)                # 2d6+4 = 10
    pick(b, "target", "fighter")
    assert f.hp == f.max_hp - 10 and events(b, "legendary")[-1]["cost"] == 1
    assert b.decision.actor == "unicorn" and b.decision.kind == "action"   # its own turn: points reset
    assert u.resources["legendary_left"] == 3


def test_legendary_heal_costs_three_and_not_offered_without_points():
    f, u = pc("fighter", 5, (2, 2)), mon("unicorn", (3, 2))
    b = arena(f, u, first="fighter")
    u.hp = 20
    u.resources["legendary_left"] = 2
    pick(b, "end_turn")
    assert not any("heal-self" in x for x in labels(b))
    turn(b, "fighter")
    u.hp, u.resources["legendary_left"] = 20, 3
    pick(b, "end_turn")
    pick(b, "legendary", "heal-self")
    script(b, 4, 4)
    assert u.hp == 30 and events(b, "legendary")[-1]["cost"] == 3


def test_legendary_resistance_turns_a_failed_big_save_into_a_success():
    w, d = pc("wizard", 5, (1, 1)), mon("adult-red-dragon", (5, 2))
    b = arena(w, d, layout=WIDE)
    script(b, 1)
    assert b.saving_throw(d, "dex", 30, big=True) and d.resources["legendary_resistance"] == 2
    script(b, 1)
    assert not b.saving_throw(d, "dex", 30) and d.resources["legendary_resistance"] == 2


def test_magic_resistance_gives_advantage_on_saves_against_spells():
    u = mon("unicorn", (3, 2))
    b = arena(pc("wizard", 1, (1, 1)), u)
    script(b, 2, 19)
    assert b.saving_throw(u, "dex", 15, magic=True)


def test_heuristic_plays_a_legendary_boss_to_an_outcome():
    party = [pc("fighter", 5, (1, 1), "f"), pc("cleric", 5, (1, 3), "c"), pc("wizard", 5, (1, 5), "w")]
    b = arena(*party, mon("unicorn", (6, 3)))
    while b.outcome is None:
        b.choose(heuristic.choose(b))
    assert events(b, "legendary")


# ----------------------------------------------------------------- objectives: use an object
def test_interact_objective_is_a_free_object_interaction_within_5_ft():
    from dungeonbench_gym.dnd.scenario import load_encounter
    b = load_encounter("gate_lever").build(0)
    f = b.creatures["fighter"]
    turn(b, "fighter")
    assert not any(o.kind == "interact" for o in b.decision.options)   # too far
    f.pos = (16, 4, 0)
    b.forget_options()
    assert "Use the lever (free object interaction)" in labels(b)
    pick(b, "interact")
    assert b.outcome == "win" and f.economy.actions == 1   # no action spent


def test_interact_objective_file_errors_name_the_field():
    import pytest

    from dungeonbench_gym.core.errors import FileFormatError
    from dungeonbench_gym.dnd.scenario import parse_encounter
    data = {"name": "x", "family": "objective", "round_limit": 5, "map": {"layout": ["#####", "#...#", "#####"]},
            "objective": {"type": "interact", "object": [9, 9]},
            "party": [{"id": "f", "archetype": "fighter", "level": 1, "at": [1, 1]}],
            "enemies": [{"id": "g", "monster": "goblin", "at": [3, 1]}]}
    with pytest.raises(FileFormatError, match="objective.object"):
        parse_encounter(data, "bad.toml")


def test_random_play_with_every_new_mechanism_never_breaks():
    """Random choices for both sides, casters at 5 against a flyer, a legendary boss and humanoids:
    every listed option must be executable (no exception, never an empty decision)."""
    import random
    for seed in range(6):
        rng = random.Random(seed)
        party = [pc("wizard", 5, (1, 1), "w"), pc("cleric", 5, (1, 3), "c"), pc("rogue", 5, (1, 5), "r"),
                 pc("fighter", 5, (2, 3), "f")]
        foes = [mon("unicorn", (10, 2)), mon("white-dragon-wyrmling", (12, 6), "wy"), mon("bandit", (9, 8), "b1"),
                mon("skeleton", (7, 8), "s1")]
        b = arena(*party, *foes, layout=WIDE)
        b.roller._int = np.random.default_rng(seed).integers
        steps = 0
        while b.outcome is None and steps < 3000:
            d = b.decision
            assert d.options, d
            b.choose(rng.randrange(len(d.options)))
            steps += 1
        assert b.outcome is not None
