"""Rules of the D&D engine, each a small constructed situation with fixed rolls or exact odds.

Dice are scripted by replacing the roller's integer source: every d20 and damage die the engine
draws comes, in order, from the list given to ``script``.
"""

from dungeonbench_gym.dnd.builders.pcs import build_pc
from fractions import Fraction

import pytest

from dungeonbench_gym.dnd import dice, heuristic
from dungeonbench_gym.dnd.engine import Battle
from dungeonbench_gym.dnd.grid import BattleMap, Cover

from dnd_helpers import (OPEN, Script, arena, events, fighter, kinds, mon, pick,
                         rogue, script, turn)


def longsword_of(c):
    return c.attack("longsword")


# ----------------------------------------------------------------- attack rolls
def test_advantage_and_disadvantage_cancel_to_one_die():
    f, o = fighter(), mon("ogre", (3, 2))
    f.conditions["prone"] = {}          # disadvantage
    o.conditions["restrained"] = {}     # advantage
    b = arena(f, o)
    adv, dis, _ = b.attack_modifiers(f, o, melee=True)
    assert adv and dis
    script(b, 10, 4)
    b.make_attack(f, longsword_of(f), o)
    roll = [e for e in b.log if e.get("what", "").startswith("attack")][-1]
    assert roll["advantage"] == "none" and len(roll["rolls"]) == 1


def test_advantage_keeps_the_higher_die():
    f, o = fighter(), mon("ogre", (3, 2))
    o.conditions["restrained"] = {}
    b = arena(f, o)
    script(b, 3, 17, 5)
    assert b.make_attack(f, longsword_of(f), o)
    assert events(b, "attack")[-1]["total"] == 17 + longsword_of(f).to_hit


def test_critical_hit_doubles_the_dice_not_the_modifier():
    f, o = fighter(), mon("ogre", (3, 2))
    b = arena(f, o)
    script(b, 20, 4, 5)   # 2d8 on a crit: 4 + 5, then +3
    b.make_attack(f, longsword_of(f), o)
    assert events(b, "attack")[-1]["critical"]
    assert o.hp == 59 - (4 + 5 + 3)


def test_natural_one_misses_whatever_the_bonus():
    f, o = fighter(), mon("ogre", (3, 2))
    b = arena(f, o)
    huge = longsword_of(f)._replace(to_hit=40)
    script(b, 1)
    assert not b.make_attack(f, huge, o)
    assert o.hp == 59


def test_natural_twenty_hits_any_armour_class():
    f, o = fighter(), mon("ogre", (3, 2))
    o.ac = 40
    b = arena(f, o)
    script(b, 20, 1, 1)
    assert b.make_attack(f, longsword_of(f), o)


def test_hit_needs_total_at_least_ac():
    f, o = fighter(), mon("ogre", (3, 2))   # longsword +5 vs AC 11
    b = arena(f, o)
    script(b, 6, 1)
    assert b.make_attack(f, longsword_of(f), o)
    script(b, 5)
    assert not b.make_attack(f, longsword_of(f), o)


def _cover_arena(mid):
    layout = ["#######", "#.....#", f"#..{mid}..#", "#.....#", "#######"]
    r = rogue(at=(1, 2))
    g = mon("ogre", (4, 2))
    g.size = "medium"
    return arena(r, g, layout=layout), r, g


def test_half_cover_adds_two_to_ac():
    b, r, g = _cover_arena("=")
    assert b.cover(r, g) == Cover.HALF
    script(b, 10, 1)
    b.make_attack(r, r.attack("shortbow"), g)
    assert events(b, "attack")[-1]["ac"] == g.ac + 2


def test_three_quarters_cover_adds_five_to_ac():
    b, r, g = _cover_arena("O")
    assert b.cover(r, g) == Cover.THREE_QUARTERS
    script(b, 10, 1)
    b.make_attack(r, r.attack("shortbow"), g)
    assert events(b, "attack")[-1]["ac"] == g.ac + 5


def test_total_cover_makes_a_creature_untargetable():
    layout = ["#######", "#..#..#", "#..#..#", "#..#..#", "#######"]
    r, g = rogue(at=(1, 2)), mon("goblin", (5, 2))
    b = arena(r, g, layout=layout, first="rogue")
    assert b.cover(r, g) == Cover.TOTAL
    assert "attack" not in kinds(b)


def test_ranged_attack_at_long_range_has_disadvantage():
    layout = ["#" * 30, "#" + "." * 28 + "#", "#" * 30]
    r, g = rogue(at=(1, 1)), mon("goblin", (25, 1))   # 120 ft: beyond the shortbow's 80
    b = arena(r, g, layout=layout)
    _, dis, why = b.attack_modifiers(r, g, melee=False, a=r.attack("shortbow"))
    assert dis and "long range" in why


def test_ranged_attack_with_a_hostile_adjacent_has_disadvantage():
    r, g, g2 = rogue(at=(2, 2)), mon("goblin", (6, 2)), mon("goblin", (3, 2), "goblin_2")
    b = arena(r, g, g2)
    _, dis, why = b.attack_modifiers(r, g, melee=False, a=r.attack("shortbow"))
    assert dis and "hostile within 5 ft" in why


# ----------------------------------------------------------------- damage types
def test_vulnerability_doubles_damage():
    s = mon("skeleton", (3, 2))     # vulnerable to bludgeoning
    b = arena(fighter(), s)
    b.damage(s, 5, "bludgeoning")
    assert s.hp == 13 - 10


def test_immunity_ignores_damage():
    s = mon("skeleton", (3, 2))     # immune to poison
    b = arena(fighter(), s)
    assert b.damage(s, 9, "poison") == 0 and s.hp == 13


def test_resistance_halves_damage_rounding_down():
    w = mon("white-dragon-wyrmling", (3, 2))
    w.resist = (("fire", False),)
    b = arena(fighter(), w)
    b.damage(w, 9, "fire")
    assert w.hp == 32 - 4


def test_nonmagical_resistance_does_not_apply_to_spells():
    imp = mon("imp", (3, 2))        # resists nonmagical bludgeoning (not silvered)
    b = arena(fighter(), imp)
    assert b.modified_damage(imp, 10, "bludgeoning", magical=False) == 5
    assert b.modified_damage(imp, 10, "bludgeoning", magical=True) == 10


def test_monster_dies_at_zero_hit_points():
    g = mon("goblin", (3, 2))
    b = arena(fighter(), g)
    b.damage(g, 7, "slashing")
    assert g.dead and g.hp == 0


# ----------------------------------------------------------------- dying
def test_pc_falls_unconscious_and_prone_at_zero():
    f = fighter()
    b = arena(f, mon("goblin", (5, 5)))
    b.damage(f, f.hp, "slashing")
    assert not f.dead and not f.conscious and "prone" in f.conditions


def test_instant_death_when_the_rest_reaches_max_hp():
    f = fighter()   # 12 HP
    b = arena(f, mon("goblin", (5, 5)))
    b.damage(f, f.hp + f.max_hp, "slashing")
    assert f.dead


def test_no_instant_death_below_max_hp_remaining():
    f = fighter()
    b = arena(f, mon("goblin", (5, 5)))
    b.damage(f, f.hp + f.max_hp - 1, "slashing")
    assert not f.dead and f.hp == 0


def _dying(*rolls):
    f = fighter()
    b = arena(f, mon("goblin", (6, 5)))
    b.damage(f, f.hp, "slashing")
    script(b, *rolls)
    for _ in rolls:
        if f.dead or f.stable or f.conscious:
            break
        b._death_save(f)
    return f


def test_three_death_save_successes_stabilise():
    f = _dying(10, 15, 19)
    assert f.stable and not f.dead and f.hp == 0


def test_three_death_save_failures_kill():
    f = _dying(9, 2, 5)
    assert f.dead


def test_natural_twenty_death_save_regains_one_hp():
    f = _dying(20)
    assert f.hp == 1 and f.conscious and f.death_failures == 0


def test_natural_one_death_save_counts_two_failures():
    f = _dying(1)
    assert f.death_failures == 2 and not f.dead
    f2 = _dying(1, 4)
    assert f2.dead


def test_damage_at_zero_hp_is_a_failure_and_a_crit_two():
    f = fighter()
    b = arena(f, mon("goblin", (6, 5)))
    b.damage(f, f.hp, "slashing")
    b.damage(f, 1, "slashing")
    assert f.death_failures == 1
    b.damage(f, 1, "slashing", critical=True)
    assert f.dead


def test_healing_from_zero_wakes_and_resets_death_saves():
    f = _dying(5)
    assert f.death_failures == 1
    b = arena(f, mon("goblin", (6, 5)))
    b.heal(f, 4, "test")
    assert f.conscious and f.death_failures == 0 and f.hp == 4


def test_melee_hit_on_unconscious_creature_within_5ft_is_critical():
    f, g = fighter(), mon("ogre", (3, 2))
    f.max_hp = 40    # so that the critical 4d8+4 is not massive damage
    b = arena(f, g)
    b.damage(f, f.hp, "slashing")
    script(b, 15, 16, 3, 3, 3, 3)   # advantage: two d20s; 16 + 6 hits AC 19
    b.make_attack(g, g.attack("greatclub"), f)
    assert events(b, "attack")[-1]["critical"]
    assert f.death_failures == 2


def test_unconscious_creature_fails_dex_saves_automatically():
    f = fighter()
    b = arena(f, mon("goblin", (6, 5)))
    b.damage(f, f.hp, "slashing")
    assert not b.saving_throw(f, "dex", 1)


# ----------------------------------------------------------------- concentration
@pytest.mark.parametrize("damage,dc", [(8, 10), (21, 10), (22, 11), (30, 15)])
def test_concentration_dc_is_max_of_10_and_half_damage(damage, dc):
    w = build_pc("wizard", 5, "wizard", (2, 2, 0))
    w.hp = w.max_hp = 200
    w.concentration = "fly"
    b = arena(w, mon("goblin", (6, 5)))
    script(b, 1)
    b.damage(w, damage, "fire")
    assert f"DC {dc} CON" in events(b, "save")[-1]["text"]
    assert w.concentration is None   # a 1 fails


# ----------------------------------------------------------------- multiattack, OAs, movement
def test_multiattack_runs_its_attacks_in_sequence():
    bear, f = mon("black-bear", (3, 2)), fighter()
    b = arena(f, bear, first="black-bear")
    pick(b, "multiattack")
    assert bear.economy.attack_queue == ("bite", "claws")
    assert [o.label for o in b.decision.options if o.kind == "attack"] == ["Multiattack: attack with Bite (+3, 1d6+2)"]
    pick(b, "attack")
    pick(b, "target")
    assert bear.economy.attack_queue == ("claws",)
    pick(b, "attack")
    pick(b, "target")
    assert [e["attack"] for e in events(b, "attack")] == ["bite", "claws"]
    assert "attack" not in kinds(b) and "dash" not in kinds(b)   # the action is spent


def test_leaving_reach_provokes_an_opportunity_attack():
    f, g = fighter(at=(2, 2)), mon("goblin", (3, 2))
    b = arena(f, g, first="goblin")
    pick(b, "move")
    pick(b, "destination", "Move to (6, 2)")
    if b.decision.kind == "route":
        pick(b, "route", "provokes fighter")
    d = b.decision
    assert d.kind == "reaction" and d.actor == "fighter"
    pick(b, "reaction", "Opportunity attack")
    assert events(b, "attack")[-1]["attacker"] == "fighter"
    assert not f.economy.reaction


def test_disengage_prevents_opportunity_attacks():
    f, g = fighter(at=(2, 2)), mon("goblin", (3, 2))
    b = arena(f, g, first="goblin")
    pick(b, "disengage")
    pick(b, "move")
    pick(b, "destination", "Move to (6, 2)")
    assert b.decision.kind == "action" and b.decision.actor == "goblin"
    assert g.pos[:2] == (6, 2) and not events(b, "attack")


def test_moving_within_reach_provokes_nothing():
    f, g = fighter(at=(3, 3)), mon("goblin", (4, 3))
    b = arena(f, g, first="goblin")
    pick(b, "move")
    pick(b, "destination", "Move to (4, 2)")
    assert b.decision.kind == "action" and not events(b, "reaction")


def test_route_decision_offers_routes_with_different_provocations():
    # the goblin gets past the fighter: brushing its reach (20 ft), or around it (30 ft)
    f, g = fighter(at=(4, 3)), mon("goblin", (2, 3))
    b = arena(f, g, first="goblin")
    pick(b, "move")
    pick(b, "destination", "Move to (6, 3)")
    d = b.decision
    assert d.kind == "route"
    labels = [o.label for o in d.options]
    assert labels == ["Route 1 (20 ft; provokes fighter)",
                      "Route 2 (30 ft; provokes no opportunity attack)"]
    pick(b, "route", "Route 2")
    assert g.pos[:2] == (6, 3) and not events(b, "reaction") and g.economy.movement == 0


def test_prone_target_melee_advantage_ranged_disadvantage():
    r, g, far = rogue(at=(2, 2)), mon("goblin", (3, 2)), mon("goblin", (7, 2), "far")
    g.conditions["prone"] = {}
    far.conditions["prone"] = {}
    b = arena(r, g, far)
    assert b.attack_modifiers(r, g, melee=True)[:2] == (True, False)
    adv, dis, _ = b.attack_modifiers(r, far, melee=False, a=r.attack("shortbow"))
    assert dis and not adv


def test_standing_up_costs_half_the_speed():
    f = fighter()
    f.conditions["prone"] = {}
    b = arena(f, mon("goblin", (7, 6)), first="fighter")
    assert "move" not in kinds(b)
    pick(b, "stand")
    assert f.economy.movement == 15 and "prone" not in f.conditions


def test_dodge_imposes_disadvantage_until_the_dodgers_next_turn():
    f, g = fighter(), mon("goblin", (3, 2))
    b = arena(f, g, first="fighter")
    pick(b, "dodge")
    assert b.attack_modifiers(g, f, melee=True)[1]
    turn(b, "fighter")
    assert not f.dodging


def test_help_grants_advantage_to_the_next_ally_attack_only():
    f, r, g = fighter(at=(2, 2)), rogue(at=(4, 2)), mon("ogre", (3, 2))
    g.size = "medium"
    b = arena(f, r, g, first="fighter")
    pick(b, "help")
    pick(b, "target")
    assert b.attack_modifiers(r, g, melee=True)[0]
    script(b, 2, 2)
    b.make_attack(r, r.attack("shortsword"), g)
    assert not b.attack_modifiers(r, g, melee=True)[0]


def test_grappled_creature_has_speed_zero():
    f = fighter()
    f.conditions["grappled"] = {"by": "x", "dc": 10}
    b = arena(f, mon("goblin", (7, 6)), first="fighter")
    assert f.economy.movement == 0 and "move" not in kinds(b) and "escape" in kinds(b)


# ----------------------------------------------------------------- rogue
@pytest.mark.parametrize("level,dice_", [(1, "1d6"), (2, "1d6"), (3, "2d6"), (4, "2d6"), (5, "3d6")])
def test_sneak_attack_dice_by_level(level, dice_):
    assert rogue(level).resources["sneak_attack_dice"] == dice_


def _sneak(advantage=False, ally=False, disadvantage=False, finesse=True):
    r, g = rogue(3, at=(2, 2)), mon("ogre", (3, 2))
    g.size = "medium"
    others = [fighter(at=(4, 2))] if ally else []
    if advantage:
        g.conditions["restrained"] = {}
    if disadvantage:
        r.conditions["prone"] = {}
    b = arena(r, g, *others)
    a = r.attack("shortsword")
    if not finesse:
        a = a._replace(finesse=False)
    script(b, *([19, 19] if advantage or disadvantage else [19]), 3, 3, 3, 3, 3)
    b.make_attack(r, a, g)
    return b, g


def test_sneak_attack_with_advantage():
    b, g = _sneak(advantage=True)
    assert events(b, "sneak_attack") and g.hp == 59 - (3 + 3) - (3 + 3)


def test_sneak_attack_with_an_ally_next_to_the_target():
    b, _ = _sneak(ally=True)
    assert events(b, "sneak_attack")


def test_no_sneak_attack_without_advantage_or_ally():
    b, _ = _sneak()
    assert not events(b, "sneak_attack")


def test_no_sneak_attack_with_disadvantage_even_with_an_ally():
    b, _ = _sneak(ally=True, disadvantage=True)
    assert not events(b, "sneak_attack")


def test_no_sneak_attack_with_a_non_finesse_melee_weapon():
    b, _ = _sneak(advantage=True, finesse=False)
    assert not events(b, "sneak_attack")


def test_sneak_attack_only_once_per_turn():
    r, g = rogue(3, at=(2, 2)), mon("ogre", (3, 2))
    g.conditions["restrained"] = {}
    b = arena(r, g)
    script(b, 19, 19, 1, 1, 1, 19, 19, 1)   # shortsword 1d6, sneak 2d6 once
    b.make_attack(r, r.attack("shortsword"), g)
    b.make_attack(r, r.attack("shortsword"), g)
    assert len(events(b, "sneak_attack")) == 1


def test_cunning_action_disengage_is_a_bonus_action():
    r = rogue(2)
    b = arena(r, mon("goblin", (3, 2)), first="rogue")
    pick(b, "cunning_disengage")
    assert r.economy.disengaged and r.economy.actions == 1 and not r.economy.bonus
    assert "cunning_dash" not in kinds(b)


# ----------------------------------------------------------------- fighter
def test_extra_attack_at_level_5_gives_two_attacks():
    f, g = fighter(5), mon("ogre", (3, 2))
    b = arena(f, g, first="fighter")
    pick(b, "attack", "Longsword")
    pick(b, "target")
    assert any(o.kind == "attack" for o in b.decision.options)
    pick(b, "attack", "Longsword")
    pick(b, "target")
    assert "attack" not in kinds(b)
    assert len(events(b, "attack")) == 2


def test_no_extra_attack_at_level_4():
    f, g = fighter(4), mon("ogre", (3, 2))
    b = arena(f, g, first="fighter")
    pick(b, "attack", "Longsword")
    pick(b, "target")
    assert "attack" not in kinds(b)


def test_action_surge_gives_one_more_action_once():
    f, g = fighter(2), mon("ogre", (3, 2))
    b = arena(f, g, first="fighter")
    pick(b, "attack", "Longsword")
    pick(b, "target")
    assert "attack" not in kinds(b)
    pick(b, "action_surge")
    assert "attack" in kinds(b) and "action_surge" not in kinds(b)
    assert f.resources["action_surge"] == 0


def test_second_wind_heals_1d10_plus_level_as_a_bonus_action():
    f = fighter(3)
    f.hp = 5
    b = arena(f, mon("goblin", (7, 6)), first="fighter")
    script(b, 6)
    pick(b, "second_wind")
    assert f.hp == 5 + 6 + 3 and not f.economy.bonus and f.resources["second_wind"] == 0
    assert "second_wind" not in kinds(b)


def test_fighting_styles_defense_and_dueling():
    assert fighter().ac == 16 + 2 + 1             # chain mail, shield, Defense
    duel = fighter(arch="fighter_dueling")
    assert duel.ac == 18 and duel.attack("longsword").damage[0].dice == "1d8+5"   # +3 Str, +2


def test_potion_of_healing_heals_2d4_plus_2():
    f = fighter()
    f.hp = 1
    b = arena(f, mon("goblin", (7, 6)), first="fighter")
    script(b, 3, 4)
    pick(b, "potion")
    assert f.hp == 1 + 3 + 4 + 2 and f.resources["potions"] == 0


# ----------------------------------------------------------------- monsters: save actions, recharge
def test_recharge_5_6_probability_and_threshold():
    assert dice.p_at_least("1d6", 5) == Fraction(1, 3)
    w = mon("white-dragon-wyrmling", (5, 2), "w")
    b = arena(fighter(), w)
    w.recharge["cold-breath"] = False
    script(b, 4)
    b.start_turn(w)
    assert not w.recharge["cold-breath"]
    script(b, 5)
    b.start_turn(w)
    assert w.recharge["cold-breath"]


def test_breath_weapon_hits_the_cone_half_on_a_save_and_rolls_damage_once():
    w = mon("white-dragon-wyrmling", (5, 2), "w")
    f1, f2 = fighter(at=(3, 2), cid="a"), fighter(at=(2, 3), cid="b")   # both in the 15-ft cone
    f1.hp = f1.max_hp = f2.hp = f2.max_hp = 100
    b = arena(f1, f2, w, first="w")
    pick(b, "save_action")
    assert b.decision.kind == "direction" and len(b.decision.options) == 8
    script(b, 5, 5, 5, 5, 5, 20, 2)   # 5d8 = 25; a saves (20+1), b fails (2+1) vs DC 12
    pick(b, "direction", "Toward W")
    assert f1.hp == 100 - 12 and f2.hp == 100 - 25
    assert not w.recharge["cold-breath"]
    assert "save_action" not in kinds(b) if b.decision and b.decision.actor == "w" else True


def test_on_hit_save_knocks_prone():
    wolf, f = mon("wolf", (3, 2)), fighter()
    b = arena(f, wolf)
    script(b, 15, 2, 2, 3)   # hit, 2d4, Str save 3+3 < 11
    b.make_attack(wolf, wolf.attack("bite"), f)
    assert "prone" in f.conditions


# ----------------------------------------------------------------- initiative
def test_initiative_order_ties_by_dex_then_id():
    from dungeonbench_gym.dnd.dice import Roller
    r = Roller(0)
    r._int = Script([10, 11, 12, 10])   # rolled in id order: a, b, goblin, rogue
    a = fighter(cid="a")                # Dex 12: +1 -> 11
    bb = fighter(at=(4, 4), cid="b")    # 12
    g = mon("goblin", (6, 6))           # Dex 14: +2 -> 14
    ro = rogue(at=(2, 5))               # Dex 16: +3 -> 13
    b = Battle(BattleMap.from_dict({"layout": OPEN}), [a, bb, g, ro], roller=r)
    assert b.order == ["goblin", "rogue", "b", "a"]
    r2 = Roller(0)
    r2._int = Script([12, 13])          # goblin 14 and rogue 16... tie at 15 and 16? no: tie below
    g2, ro2 = mon("goblin", (6, 6)), rogue(at=(2, 5))
    ro2.abilities["dex"] = 14           # both Dex 14 -> +2; both roll 12 -> 14: tie on Dex, id decides
    r2._int = Script([12, 12])
    b2 = Battle(BattleMap.from_dict({"layout": OPEN}), [g2, ro2], roller=r2)
    assert b2.order == ["goblin", "rogue"]


# ----------------------------------------------------------------- spells
def test_spell_slot_levels_are_distinct_options():
    w, g = build_pc("wizard", 3, "wizard", (2, 2, 0)), mon("goblin", (6, 2))
    b = arena(w, g, first="wizard")
    labels = [o.label for o in b.decision.options if o.kind == "spell"]
    assert any("Magic Missile at level 1" in x for x in labels)
    assert any("Magic Missile at level 2" in x for x in labels)


def test_magic_missile_darts_hit_automatically_and_spend_the_slot():
    w, o = build_pc("wizard", 3, "wizard", (2, 2, 0)), mon("ogre", (6, 2))
    b = arena(w, o, first="wizard")
    pick(b, "spell", "Magic Missile at level 2")
    script(b, 1, 2, 3, 4)
    pick(b, "target")
    for _ in range(3):   # each further dart is a target decision
        assert b.decision.kind == "target" and "dart" in b.decision.options[0].label
        pick(b, "target")
    assert o.hp == 59 - (1 + 2 + 3 + 4 + 4)
    assert w.resources["slots"][1] == 1 and not events(b, "attack")
    assert b.decision.kind == "action"


def test_magic_missile_darts_can_be_split_between_targets():
    w = build_pc("wizard", 1, "wizard", (2, 2, 0))
    g1, g2 = mon("goblin", (6, 2), "g1"), mon("goblin", (6, 4), "g2")
    b = arena(w, g1, g2, first="wizard")
    pick(b, "spell", "Magic Missile at level 1")
    script(b, 4, 2, 4)
    pick(b, "target", "g1")      # 5
    pick(b, "target", "g1")      # 3: 8 >= 7, dead
    assert g1.dead and [o.data[0] for o in b.decision.options] == ["g2"]
    pick(b, "target", "g2")      # 5
    assert g2.hp == 2 and b.decision.kind == "action"


def test_fireball_is_placed_by_x_then_y():
    w = build_pc("wizard", 5, "wizard", (1, 1, 0))
    g1, g2 = mon("goblin", (6, 4), "g1"), mon("goblin", (7, 4), "g2")
    b = arena(w, g1, g2, first="wizard")
    pick(b, "spell", "Fireball")
    assert b.decision.kind == "point_x"
    pick(b, "point_x", "x = 7")
    assert b.decision.kind == "point_y"
    script(b, *[1] * 8, 1, 1)   # 8d6 = 8; both goblins fail
    pick(b, "point_y", "Point (7, 4)")
    assert g1.dead and g2.dead


def test_fire_bolt_cantrip_scales_with_level():
    assert "2d10" in next(o.label for o in arena(build_pc("wizard", 5, "w", (1, 1, 0)), mon("goblin", (6, 4)),
                                               first="w").decision.options if o.kind == "spell")


# ----------------------------------------------------------------- decision structure
def test_oversized_decisions_are_split_into_groups_never_truncated():
    f = fighter(at=(1, 1))
    b = arena(f, mon("goblin", (8, 6)), first="fighter", max_options=8)
    pick(b, "move")
    full = b._options(b.pending)
    d = b.decision
    assert d.kind == "group" and len(d.options) <= 8
    total = 0
    for i in range(len(d.options)):
        c = arena(fighter(at=(1, 1)), mon("goblin", (8, 6)), first="fighter", max_options=8)
        pick(c, "move")
        c.choose(i)
        assert len(c.decision.options) <= 8
        total += len(c.decision.options)
    assert total == len(full)


def test_heuristic_plays_both_sides_to_an_outcome():
    b = arena(fighter(3, at=(1, 1)), mon("goblin", (8, 6)))
    while b.outcome is None:
        b.choose(heuristic.choose(b))
    assert b.outcome in ("win", "loss")


def test_to_dict_is_plain_data():
    import json
    b = arena(fighter(), mon("goblin", (5, 5)), first="fighter")
    d = b.to_dict()
    json.dumps(d)
    assert d["decision"]["kind"] == "action" and d["active"] == "fighter"


def test_turn_after_an_unconscious_creature_is_not_skipped():
    f, r, g = fighter(at=(2, 2)), rogue(at=(2, 4)), mon("goblin", (6, 6))
    b = arena(f, r, g)
    b.damage(r, r.hp, "slashing")
    b.order = ["fighter", "rogue", "goblin"]
    b.round, b.turn_index = 0, -1
    b.next_turn()
    pick(b, "end_turn")
    assert b.decision.actor == "goblin" and b.round == 1
    assert events(b, "death_save")   # the rogue rolled on its turn


# ----------------------------------------------------------------- objectives
def test_survive_objective_is_won_when_the_round_limit_passes_with_the_party_up():
    b = arena(fighter(at=(1, 1)), mon("goblin", (8, 6)), objective={"type": "survive"}, round_limit=2)
    while b.outcome is None:
        pick(b, "end_turn")
    assert b.outcome == "win" and events(b, "outcome")[-1]["how"] == "survive"


def test_defeat_objective_is_lost_at_the_round_limit():
    b = arena(fighter(at=(1, 1)), mon("goblin", (8, 6)), round_limit=1)
    while b.outcome is None:
        pick(b, "end_turn")
    assert b.outcome == "loss" and events(b, "outcome")[-1]["how"] == "round_limit"


def test_protect_objective_is_lost_when_the_ward_drops():
    ward = build_pc("wizard", 1, "ward", (1, 1, 0))
    b = arena(fighter(at=(3, 3)), ward, mon("goblin", (8, 6)),
              objective={"type": "protect", "creature": "ward"}, first="goblin")
    b.damage(ward, ward.hp, "piercing")
    b.check_outcome()
    assert b.outcome == "loss" and events(b, "outcome")[-1]["how"] == "ward_down"


def test_reach_objective_is_won_by_stepping_on_the_goal():
    b = arena(fighter(at=(1, 1)), mon("goblin", (8, 6)), objective={"type": "reach", "cells": [[3, 1]]},
              first="fighter")
    pick(b, "move")
    pick(b, "destination", "Move to (3, 1)")
    assert b.outcome == "win"


def _hold(rounds=2, limit=5, goblin_at=(8, 6)):
    return arena(fighter(at=(2, 2)), mon("goblin", goblin_at), round_limit=limit,
                 objective={"type": "hold", "cells": [[2, 2], [3, 2]], "rounds": rounds, "held": 0})


def test_hold_objective_is_won_after_n_consecutive_rounds_held():
    b = _hold(rounds=2)
    while b.outcome is None:
        pick(b, "end_turn")
    assert b.outcome == "win" and events(b, "outcome")[-1]["how"] == "hold"
    assert b.round == 2 and [e["held"] for e in events(b, "hold")] == [1, 2]


def test_hold_objective_a_foe_inside_contests_and_resets_the_count():
    b = _hold(rounds=2, limit=3)
    while b.round == 1 and b.outcome is None:   # round 1: held
        pick(b, "end_turn")
    gob = b.creatures["goblin"]
    gob.pos = (3, 2, 0)                          # round 2: a conscious goblin stands in the area
    while b.round == 2 and b.outcome is None:
        pick(b, "end_turn")
    assert [e["held"] for e in events(b, "hold")][:2] == [1, 0]
    gob.pos = (8, 6, 0)
    while b.outcome is None:
        pick(b, "end_turn")
    assert b.outcome == "loss"   # round 3 held once more: 1 of 2, then the round limit
    assert events(b, "outcome")[-1]["how"] == "round_limit"


def test_hold_objective_needs_a_conscious_party_member_inside():
    b = arena(fighter(at=(5, 5)), mon("goblin", (8, 6)), round_limit=2,
              objective={"type": "hold", "cells": [[2, 2]], "rounds": 1, "held": 0})
    while b.outcome is None:
        pick(b, "end_turn")
    assert b.outcome == "loss" and [e["held"] for e in events(b, "hold")] == [0, 0]


# ----------------------------------------------------------------- Shield (a reaction mid-attack)
def _shield_setup():
    w, g = build_pc("wizard", 1, "wizard", (2, 2, 0)), mon("goblin", (3, 2))   # wizard AC 12
    b = arena(w, g, first="goblin")
    pick(b, "attack", "Scimitar")
    return b, w, g


def test_shield_is_offered_when_it_would_turn_a_hit_into_a_miss():
    b, w, g = _shield_setup()
    script(b, 10)            # 10 + 4 = 14 hits AC 12, misses 17
    pick(b, "target")
    d = b.decision
    assert d.kind == "reaction" and d.actor == "wizard" and "Cast Shield" in d.options[0].label
    pick(b, "reaction", "Cast Shield")
    assert events(b, "attack")[-1]["hit"] is False and w.hp == w.max_hp
    assert w.resources["slots"][0] == 1 and not w.economy.reaction
    assert b.decision.actor == "goblin" and b.decision.kind == "action"   # its turn goes on
    assert b.attack_modifiers(g, w, True) is not None and "shield" in w.conditions
    turn(b, "wizard")
    assert "shield" not in w.conditions   # until the start of its next turn


def test_taking_the_hit_applies_the_damage():
    b, w, _g = _shield_setup()
    script(b, 10, 3)
    pick(b, "target")
    pick(b, "reaction", "Take the hit")
    assert w.hp == w.max_hp - 5 and w.resources["slots"][0] == 2


def test_no_shield_decision_when_it_cannot_help():
    b, w, _g = _shield_setup()
    script(b, 18, 3)         # 22 beats AC 17 too
    pick(b, "target")
    assert b.decision.kind == "action" and w.hp == w.max_hp - 5


def test_shield_against_an_opportunity_attack_then_the_move_goes_on():
    w, g = build_pc("wizard", 1, "wizard", (2, 2, 0)), mon("goblin", (3, 2))
    b = arena(w, g, first="wizard")
    pick(b, "move")
    pick(b, "destination", "Move to (1, 5)")
    if b.decision.kind == "route":
        pick(b, "route", "Route 1")
    script(b, 10)            # 14 hits AC 12
    pick(b, "reaction", "Opportunity attack")
    assert b.decision.kind == "reaction" and b.decision.actor == "wizard"   # now the wizard's Shield
    pick(b, "reaction", "Cast Shield")
    assert w.pos[:2] == (1, 5) and w.hp == w.max_hp
    assert b.decision.actor == "wizard" and b.decision.kind == "action"


# ----------------------------------------------------------------- cleric
def cleric(level=1, at=(2, 2), cid="cleric"):
    return build_pc("cleric", level, cid, (*at, 0))


def test_cure_wounds_touch_heals_from_zero():
    c, f = cleric(), fighter(at=(3, 2))
    b = arena(c, f, mon("goblin", (8, 6)), first="cleric")
    b.damage(f, f.hp, "slashing")
    pick(b, "spell", "Cure Wounds at level 1")
    assert [o.data[0] for o in b.decision.options] == ["fighter"]   # only the wounded, in touch
    script(b, 5)
    pick(b, "target")
    assert f.hp == 5 + 3 + 3 and f.conscious   # 1d8 + Wis 3 + Disciple of Life (2 + the slot's level)


def test_healing_word_is_a_bonus_action_then_only_a_cantrip():
    c, f = cleric(3), fighter(at=(7, 5))
    f.hp = 3
    b = arena(c, f, mon("goblin", (8, 1)), first="cleric")
    pick(b, "spell", "Healing Word at level 1")
    script(b, 2)
    pick(b, "target", "fighter")
    assert f.hp == 3 + 2 + 3 + 3 and not c.economy.bonus and c.economy.actions == 1   # + Disciple of Life (2 + 1)
    spells = [o.data for o in b.decision.options if o.kind == "spell"]
    assert spells and all(level == 0 for _, level in spells)   # Sacred Flame only


def test_shield_of_faith_adds_two_ac_until_concentration_breaks():
    c, g = cleric(), mon("goblin", (3, 2))
    b = arena(c, g, first="cleric")
    pick(b, "spell", "Shield of Faith")
    pick(b, "target", "cleric")
    assert b.armour_class(c) == c.ac + 2 and c.concentration == "shield-of-faith"
    script(b, 1)    # the concentration save fails
    b.damage(c, 3, "slashing")
    assert b.armour_class(c) == c.ac and c.concentration is None


def test_sacred_flame_does_nothing_on_a_successful_save():
    c, g = cleric(), mon("ogre", (5, 2))
    b = arena(c, g, first="cleric")
    pick(b, "spell", "Sacred Flame")
    script(b, 20, 8)   # the save succeeds; the damage is rolled (the spellbook's save) and not dealt
    pick(b, "target")
    assert g.hp == g.max_hp


def test_mace_on_a_skeleton_deals_double_damage():
    c, s = cleric(), mon("skeleton", (3, 2))
    b = arena(c, s)
    script(b, 15, 3)    # 1d6+2 = 5, doubled
    b.make_attack(c, c.attack("mace"), s)
    assert s.hp == 13 - 10


def test_uncanny_dodge_halves_the_damage_of_a_hit_at_level_5():
    r, o = rogue(5, at=(2, 2)), mon("ogre", (3, 2))
    b = arena(r, o, first="ogre")
    pick(b, "attack", "Greatclub")
    script(b, 15, 4, 5)     # 2d8+4 = 13
    pick(b, "target")
    d = b.decision
    assert d.kind == "reaction" and d.actor == "rogue" and "Uncanny Dodge" in d.options[0].label
    pick(b, "reaction", "Uncanny Dodge")
    assert r.hp == r.max_hp - 6 and not r.economy.reaction


def test_no_uncanny_dodge_before_level_5():
    r, o = rogue(4, at=(2, 2)), mon("ogre", (3, 2))
    b = arena(r, o, first="ogre")
    pick(b, "attack", "Greatclub")
    script(b, 15, 4, 5)
    pick(b, "target")
    assert b.decision.kind == "action" and r.hp == r.max_hp - 13


# ----------------------------------------------------------------- hazards on routes
SPIKES = ["#########", "#.......#", "#.#####.#", "#.^^^^^.#", "#########"]
SPIKE_LEGEND = {"^": {"hazard": {"kind": "spikes", "damage": "1d4", "damage_type": "piercing"}}}


def _spike_arena():
    """A spiked corridor (30 ft, 5 spike squares) or the long way round (50 ft)."""
    f = fighter(at=(1, 3))
    f.speed = 60
    b = Battle(BattleMap.from_dict({"layout": SPIKES, "legend": SPIKE_LEGEND}), [f], seed=0,
               objective={"type": "survive"})
    turn(b, "fighter")
    pick(b, "move")
    pick(b, "destination", "Move to (7, 3)")
    return b, f


def test_route_through_hazards_or_around_is_a_decision():
    b, _f = _spike_arena()
    labels = [o.label for o in b.decision.options]
    assert b.decision.kind == "route"
    assert labels == ["Route 1 (30 ft; provokes no opportunity attack; hazards spikes x5)",
                      "Route 2 (50 ft; provokes no opportunity attack)"]


def test_walking_through_spikes_deals_their_damage_per_square():
    b, f = _spike_arena()
    f.hp = f.max_hp = 40
    script(b, 1, 2, 3, 4, 1)
    pick(b, "route", "hazards spikes x5")
    assert f.hp == 40 - 11 and f.pos[:2] == (7, 3)
    assert len(events(b, "hazard")) == 5


def test_the_heuristic_walks_around_hazards():
    b, f = _spike_arena()
    b.choose(heuristic.choose(b))
    assert f.hp == f.max_hp and not events(b, "hazard") and f.pos[:2] == (7, 3)


# ----------------------------------------------------------------- every SRD monster
def test_every_srd_monster_plays_a_duel_and_almost_all_act():
    """All 334 stat blocks run a 3-round duel against a fighter without error; all but a few
    (no damaging attack: shrieker, frog; shape-bound actions: vampire mist) get an attack,
    multiattack or breath option on their first turn."""
    from dungeonbench_gym.dnd import content
    layout = ["#" * 14] + ["#" + "." * 12 + "#" for _ in range(10)] + ["#" * 14]
    bm = BattleMap.from_dict({"layout": layout})
    acting = []
    for key in sorted(content.monsters()):
        m = mon(key, (6, 3), "m")
        f = fighter(5, at=(5, 3), cid="f")
        f.hp = f.max_hp = 10_000
        b = Battle(bm, [f, m], seed=1, round_limit=3)
        turn(b, "m")
        if {o.kind for o in b.decision.options} & {"attack", "multiattack", "save_action"}:
            acting.append(key)
        while b.outcome is None:
            b.choose(heuristic.choose(b))
    assert len(content.monsters()) == 334
    assert len(acting) >= 325


# ----------------------------------------------------------------- lookup (exact odds)
def test_lookup_attack_odds_are_exact():
    from dungeonbench_gym.dnd import lookup
    f, o = fighter(), mon("ogre", (3, 2))    # +5 vs AC 11: hit on 6+, 15/20
    b = arena(f, o)
    odds = lookup.attack_odds(b, "fighter", "longsword", "ogre")
    assert odds["p_hit"] == 0.75 and odds["p_crit"] == 0.05 and odds["mode"] == "normal"
    # expected: 0.70 * 7.5 + 0.05 * 12 (2d8+3) = 5.85
    assert odds["expected_damage"] == pytest.approx(0.70 * 7.5 + 0.05 * 12)
    o.conditions["restrained"] = {}
    odds = lookup.attack_odds(b, "fighter", "longsword", "ogre")
    assert odds["mode"] == "advantage" and odds["p_hit"] == pytest.approx(1 - 0.25 ** 2)


def test_lookup_expected_damage_respects_immunity_and_vulnerability():
    from dungeonbench_gym.dnd import lookup
    c, s = cleric(), mon("skeleton", (3, 2))
    b = arena(c, s)
    odds = lookup.attack_odds(b, "cleric", "mace", "skeleton")   # 1d6+2 doubled: 11 on a hit
    p_hit = (20 - (13 - 4) + 1) / 20
    assert odds["expected_damage"] == pytest.approx((p_hit - 0.05) * 11 + 0.05 * 18)


def test_lookup_save_odds_and_area_preview():
    from dungeonbench_gym.dnd import lookup
    w = mon("white-dragon-wyrmling", (5, 2), "w")
    f = fighter(at=(3, 2))               # Con +2 (proficient), Dex +1
    b = arena(f, w)
    assert lookup.save_odds(b, "fighter", "dex", 12) == 0.5   # 11+ on the d20
    assert lookup.area_preview(b, "w", ("save_action", "cold-breath"), (-1, 0, 0)) == ["fighter"]
    assert lookup.area_preview(b, "w", ("save_action", "cold-breath"), (1, 0, 0)) == []


def test_lookup_area_effect_counts_the_cover_a_dex_save_gets():
    """The planner's odds follow the engine: a fighter behind a low wall (half cover from a red
    wyrmling's Fire Breath, DC 13 Dex) saves on 10+ (Dex +1, +2), not 12+."""
    from dungeonbench_gym.dnd import lookup
    layout = ["#" * 12] + ["#" + "." * 10 + "#"] * 3 + ["#.....=....#"] + ["#" + "." * 10 + "#"] * 3 + ["#" * 12]
    d, f = mon("red-dragon-wyrmling", (5, 4), "wyrmling"), fighter(5, at=(7, 4))
    b = arena(d, f, layout=layout)
    hit, = lookup.area_effect(b, "wyrmling", "fire-breath", "E")["hits"]
    assert hit["id"] == "fighter" and hit["p_save"] == pytest.approx(11 / 20)


# ----------------------------------------------------------------- shove
def test_shove_prone_wins_the_contest_and_uses_an_attack():
    f, g = fighter(5), mon("goblin", (3, 2))    # Athletics +3 Str +3 prof; goblin best +2 (Dex)
    b = arena(f, g, first="fighter")
    pick(b, "shove", "prone")
    script(b, 10, 10)
    pick(b, "target")
    assert "prone" in g.conditions and f.economy.attacks_left == 1   # Extra Attack: one left
    assert b.attack_modifiers(f, g, True)[0]                          # now melee has advantage


def test_shove_tie_fails():
    f, g = fighter(), mon("goblin", (3, 2))
    b = arena(f, g, first="fighter")
    pick(b, "shove", "prone")
    script(b, 4, 7)     # 4 + 5 = 9 vs 7 + 2 (the better of Str -1 and Dex +2): a tie
    pick(b, "target")
    assert "prone" not in g.conditions


def test_shove_away_moves_the_target_without_provoking_and_onto_hazards():
    layout = ["#######", "#.....#", "#..^..#", "#.....#", "#######"]
    legend = {"^": {"hazard": {"kind": "spikes", "damage": "1d4", "damage_type": "piercing"}}}
    f, g = fighter(at=(1, 2)), mon("ogre", (2, 2))
    g.size = "medium"
    b = Battle(BattleMap.from_dict({"layout": layout, "legend": legend}), [f, g], seed=0)
    turn(b, "fighter")
    pick(b, "shove", "away")
    script(b, 15, 2, 3)
    pick(b, "target")
    assert g.pos[:2] == (3, 2) and g.hp == 59 - 3 and not events(b, "reaction")


def test_lookup_routes_lists_consequence_classes():
    from dungeonbench_gym.dnd import lookup
    f, g = fighter(at=(4, 3)), mon("goblin", (2, 3))
    b = arena(f, g, first="goblin")
    found = lookup.routes(b, "goblin", (6, 3))
    assert [(r["cost_ft"], r["provokes"]) for r in found] == [(20, ["fighter"]), (30, [])]


# ----------------------------------------------------------------- two-weapon fighting
def test_off_hand_attack_after_a_light_weapon_attack_adds_no_modifier():
    r, o = rogue(1, at=(2, 2)), mon("ogre", (3, 2))
    b = arena(r, o, first="rogue")
    assert not any("Off-hand" in x.label for x in b.decision.options)
    pick(b, "attack", "Shortsword")
    script(b, 15, 4)     # shortsword hits: 1d6+3 = 7, no sneak attack (no ally, no advantage)
    pick(b, "target")
    pick(b, "attack", "Off-hand attack with Dagger")
    script(b, 15, 3)     # dagger off hand: 1d4 = 3, no +3
    pick(b, "target")
    assert o.hp == 59 - 7 - 3 and not r.economy.bonus
    assert "cunning_dash" not in kinds(b)


def test_off_hand_attack_can_carry_the_sneak_attack():
    r, o, f = rogue(1, at=(2, 2)), mon("ogre", (3, 2)), fighter(at=(4, 2))
    o.size = "medium"
    b = arena(r, o, f, first="rogue")
    pick(b, "attack", "Shortsword")
    script(b, 1)         # the main attack misses
    pick(b, "target")
    pick(b, "attack", "Off-hand")
    script(b, 15, 2, 5)  # hits: 1d4 = 2, then Sneak Attack 1d6 = 5 (an ally is next to the ogre)
    pick(b, "target")
    assert o.hp == 59 - 7 and events(b, "sneak_attack")


def test_no_off_hand_attack_after_a_ranged_attack():
    r, g = rogue(1, at=(2, 2)), mon("goblin", (6, 2))
    b = arena(r, g, first="rogue")
    pick(b, "attack", "Shortbow")
    pick(b, "target")
    assert not any("Off-hand" in x.label for x in b.decision.options)


# ----------------------------------------------------------------- grapple
def test_grapple_holds_the_target_until_a_contested_escape():
    f, g = fighter(), mon("goblin", (3, 2))
    b = arena(f, g, first="fighter")
    pick(b, "shove", "Grapple")
    script(b, 10, 5)     # 15 vs 7
    pick(b, "target")
    assert g.conditions["grappled"]["by"] == "fighter"
    turn(b, "goblin")
    assert g.economy.movement == 0 and "move" not in kinds(b)
    script(b, 12, 2)     # the goblin's 12 + 2 = 14 beats the fighter's 2 + 5 = 7
    pick(b, "escape", "contested")
    assert "grappled" not in g.conditions and events(b, "escape")[-1]["success"]


def test_moving_away_releases_a_grapple():
    f, g = fighter(), mon("goblin", (3, 2))
    g.conditions["grappled"] = {"by": "fighter", "dc": None}
    b = arena(f, g, first="fighter")
    pick(b, "move")
    pick(b, "destination", "Move to (1, 1)")
    assert "grappled" not in g.conditions
