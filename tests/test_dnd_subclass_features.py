"""The subclass and later class features (dnd/classes/) played through the engine's options and
reaction decisions: Sculpt Spells to Foe Slayer, Retaliation, Giant Killer, Stand Against the Tide,
Hurl Through Hell, Land's Stride, Thief's Reflexes, Pact of the Chain, Minions of Chaos."""

from __future__ import annotations

import pytest
from dnd_helpers import WIDE, arena, events, labels, mon, pick, script, turn

from dungeonbench_gym.dnd import advice, heuristic
from dungeonbench_gym.dnd.builders.pcs import build_pc, long_rest
from dungeonbench_gym.dnd.classes import dispatch, druid, ranger, warlock
from dungeonbench_gym.dnd.state import ability_mod
from dungeonbench_gym.dnd.verification import feature_probes, subclass_probes
from dungeonbench_gym.dnd.verification import feature_probes as fp

MORE = sorted(subclass_probes.probes())


@pytest.mark.parametrize("key", MORE)
def test_each_feature_probe_passes_and_is_listed_executable(key):
    feature_probes.probe(key)
    row = next(r for r in feature_probes.coverage() if r["key"] == key)
    assert row["status"] == "executable" and row["reason"] == ""


def test_no_class_feature_is_left_with_the_generic_not_yet_reason():
    rows = feature_probes.coverage()
    generic = [r["key"] for r in rows if r["reason"] == "not yet: its choice or reaction is not wired into the engine"]
    assert not generic, generic
    assert sum(r["status"] == "not yet" for r in rows) <= 9


def _target(b, cid):
    for i, o in enumerate(b.decision.options):
        if o.kind == "target" and o.data[0] == cid:
            b.choose(i)
            return
    raise AssertionError(labels(b))


def test_sculpt_spells_spares_allies_but_never_foes_and_only_for_evocation():
    w, f, o = build_pc("wizard", 5, "w", (2, 2, 0)), build_pc("fighter", 5, "f", (9, 6, 0)), mon("ogre", (10, 6), "o")
    b = arena(w, f, o, layout=WIDE, first="w", max_options=10 ** 6)
    pick(b, "spell", "Cast Fireball at level 3")
    pick(b, "point_x", "x = 9")
    script(b, *([3] * 8), 20)   # 24 fire; only the ogre rolls (a 20: half)
    pick(b, "point_y", "(9, 6) (hits")
    assert f.hp == f.max_hp and o.hp == 59 - 12
    assert [e for e in events(b, "save") if "Sculpt" in e["text"]]


def test_a_wizard_below_2_and_a_sorcerer_do_not_sculpt():
    assert "sculpt_spells" not in build_pc("wizard", 1, "w", (0, 0, 0)).features
    assert "sculpt_spells" not in build_pc("sorcerer", 5, "s", (0, 0, 0)).features


def test_overchannel_is_once_a_long_rest_and_maximises_the_dice():
    w = build_pc("wizard", 14, "w", (2, 2, 0))
    o = mon("ogre", (6, 2), "o")
    b = arena(w, o, mon("ogre", (12, 8), "o2"), layout=WIDE, first="w", max_options=10 ** 6)
    pick(b, "feature", "Overchannel")
    script(b, 15, 4, 4, 4)   # a cantrip does not use it: Fire Bolt rolls its 3d10
    pick(b, "spell", "Cast Fire Bolt")
    _target(b, "o")
    assert o.hp == 59 - 12 - ability_mod(w.abilities["int"]) and w.resources["overchannel"] == 1
    turn(b, "w")
    assert "armed" not in w.economy.extra   # an unused Overchannel lapses with the turn
    pick(b, "feature", "Overchannel")
    hp = o.hp
    script(b, 1)   # no damage die is drawn: each dart at its maximum, 5 force
    pick(b, "spell", "Cast Magic Missile at level 5")
    while b.decision.actor == "w" and b.decision.kind == "target":
        _target(b, "o")
    assert o.hp == hp - 7 * 5 - ability_mod(w.abilities["int"]), o.hp   # + Empowered Evocation on one dart
    assert w.resources["overchannel"] == 0 and not any("Overchannel" in x for x in labels(b))
    assert w.resources["overchannel"] == 0
    long_rest(w)
    assert w.resources["overchannel"] == 1


def test_flexible_casting_costs_the_srd_points_and_the_bonus_action():
    s = build_pc("sorcerer", 9, "s", (2, 2, 0))
    b = arena(s, mon("ogre", (12, 8), "o"), layout=WIDE, first="s", max_options=10 ** 6)
    opts = labels(b, "feature")
    assert any("create a level-5 slot" in x and "7 sorcery points" in x for x in opts)
    pick(b, "feature", "create a level-3 slot")
    assert s.resources["sorcery_points"] == 9 - 5 and s.resources["slots"][2] == 4
    assert not any("Flexible Casting" in x for x in labels(b))   # the bonus action is spent


def test_elemental_affinity_adds_cha_only_to_fire():
    s, o = build_pc("sorcerer", 6, "s", (2, 2, 0)), mon("ogre", (4, 2), "o")
    b = arena(s, o, layout=WIDE, first="s", max_options=10 ** 6)
    script(b, 15, 5, 5)   # 2d10 at 5th level
    pick(b, "spell", "Cast Fire Bolt")
    _target(b, "o")
    assert o.hp == 59 - 10 - ability_mod(s.abilities["cha"])
    assert "elemental_affinity" not in build_pc("sorcerer", 5, "s", (0, 0, 0)).features


def test_protection_needs_a_shield_and_spends_the_reaction_once():
    p = build_pc("fighter", 1, "p", (2, 2, 0), style="protection")
    bare = build_pc("fighter", 1, "q", (2, 2, 0), style="protection", shield=False)
    assert "protection" in p.features and "protection" not in bare.features
    f, o = build_pc("wizard", 1, "f", (3, 3, 0)), mon("ogre", (4, 3), "o")
    b = arena(p, f, o, layout=WIDE, first="o", max_options=10 ** 6)
    script(b, 19, 2)   # disadvantage: the 2 stands (a miss)
    pick(b, "attack", "Greatclub")
    _target(b, "f")
    assert f.hp == f.max_hp and not p.economy.reaction
    assert any("protects f" in e["text"] for e in events(b, "reaction"))


def test_multiattack_defense_only_after_a_hit_from_that_creature():
    r, t = build_pc("ranger", 7, "r", (2, 2, 0)), mon("thug", (3, 2), "t")
    b = arena(r, t, layout=WIDE, first="t", max_options=10 ** 6)
    assert ranger.attack_bonus(b, t, r, t.attack("mace")) == 0
    pick(b, "multiattack")
    script(b, 18, 2)
    pick(b, "attack", "Mace")
    _target(b, "r")
    assert r.hp < r.max_hp
    assert ranger.attack_bonus(b, t, r, t.attack("mace")) == -4


def test_disciple_of_life_and_supreme_healing_on_cure_wounds():
    for level, die in ((1, 4), (17, 8)):
        c, f = build_pc("cleric", level, "c", (2, 2, 0)), build_pc("fighter", 5, "f", (3, 2, 0))
        b = arena(c, f, mon("ogre", (12, 8), "o"), layout=WIDE, first="c", max_options=10 ** 6)
        f.hp = 1
        b.forget_options()
        script(b, 4)
        pick(b, "spell", "Cast Cure Wounds at level 1")
        _target(b, "f")
        assert f.hp == 1 + die + ability_mod(c.abilities["wis"]) + 3, (level, f.hp)


def test_always_prepared_spells_follow_the_class_level():
    assert "revivify" not in build_pc("cleric", 4, "c", (0, 0, 0)).spells
    assert "revivify" in build_pc("cleric", 5, "c", (0, 0, 0)).spells
    assert "sanctuary" in build_pc("paladin", 3, "p", (0, 0, 0)).spells
    assert "sanctuary" not in build_pc("paladin", 2, "p", (0, 0, 0)).spells
    assert "slow" in build_pc("druid", 5, "d", (0, 0, 0)).spells
    assert "cone-of-cold" not in build_pc("druid", 8, "d", (0, 0, 0)).spells


def test_invocation_spells_need_their_choice_and_warlock_level():
    assert "mire_the_mind" not in build_pc("warlock", 4, "w", (0, 0, 0), choices=("mire_the_mind",)).features
    assert "mire_the_mind" in build_pc("warlock", 5, "w", (0, 0, 0), choices=("mire_the_mind",)).features
    assert "mire_the_mind" not in build_pc("warlock", 5, "w", (0, 0, 0)).features


def test_spell_mastery_never_spends_a_level_1_slot_on_magic_missile():
    w, o = build_pc("wizard", 18, "w", (2, 2, 0)), mon("ogre", (6, 2), "o")
    b = arena(w, o, mon("ogre", (12, 8), "o2"), layout=WIDE, first="w", max_options=10 ** 6)
    slots = w.resources["slots"]
    pick(b, "spell", "Cast Magic Missile at level 2")   # upcast: the slot is spent
    while b.decision.actor == "w" and b.decision.kind == "target":
        _target(b, "o")
    assert w.resources["slots"][1] == slots[1] - 1 and w.resources["slots"][0] == slots[0]


def test_song_of_rest_without_a_bard_gives_nothing():
    f = build_pc("fighter", 5, "f", (0, 0, 0))
    f.resources["spent_hit_dice"] = 1
    assert dispatch.song_of_rest([f]) == [] and "spent_hit_dice" not in f.resources
    singer = build_pc("bard", 9, "b", (0, 0, 0))
    f.resources["spent_hit_dice"] = 1
    assert dispatch.song_of_rest([f, singer]) == [("f", "1d8")]


def test_the_planner_heightens_a_hold_person_and_upgrades_only_with_points():
    s, o = build_pc("sorcerer", 10, "s", (2, 2, 0)), mon("orc", (5, 2), "o")
    b = arena(s, o, layout=WIDE, first="s", max_options=10 ** 6)
    opts = list(b.decision.options)
    plain = next(i for i, x in enumerate(opts) if x.kind == "spell" and x.data == ("hold-person", 2))
    best = advice.class_features.upgrade(b, s, opts, plain)
    assert opts[best].data == ("hold-person", 2, "heightened")
    s.resources["sorcery_points"] = 2
    b.forget_options()
    opts = list(b.decision.options)
    plain = next(i for i, x in enumerate(opts) if x.kind == "spell" and x.data == ("hold-person", 2))
    assert advice.class_features.upgrade(b, s, opts, plain) == plain


def test_the_planner_casts_carefully_near_allies():
    s, f, o = build_pc("sorcerer", 17, "s", (2, 2, 0)), build_pc("fighter", 5, "f", (9, 6, 0)), mon("ogre", (10, 6), "o")
    b = arena(s, f, o, layout=WIDE, first="s", max_options=10 ** 6)
    opts = list(b.decision.options)
    plain = next(i for i, x in enumerate(opts) if x.kind == "spell" and x.data == ("fireball", 3))
    assert opts[advice.class_features.upgrade(b, s, opts, plain)].data == ("fireball", 3, "careful")


def test_the_planner_uses_step_of_the_wind_to_reach_a_far_foe():
    m, o = build_pc("monk", 5, "m", (1, 1, 0)), mon("ogre", (13, 9), "o")
    b = arena(m, o, layout=WIDE, first="m", max_options=10 ** 6)
    ki = m.resources["ki"]
    i = heuristic.choose(b)
    assert b.decision.options[i].data[:1] == ("step_dash",)
    b.choose(i)
    assert m.resources["ki"] == ki - 1 and m.economy.movement > 40


def test_the_planner_takes_fiendish_vigor_when_nothing_is_in_reach():
    w = build_pc("warlock", 2, "w", (1, 1, 0), choices=("fiendish_vigor",))
    b = arena(w, mon("ogre", (13, 9), "o"), layout=WIDE, first="w", max_options=10 ** 6)
    w.spells = ()   # nothing to cast at the ogre: no cantrip in reach
    w.attacks = tuple(a for a in w.attacks if a.melee)
    b.forget_options()
    i = heuristic.choose(b)
    assert b.decision.options[i].data[:1] == ("fiendish_vigor",)


def test_features_without_their_class_add_no_options():
    f = build_pc("fighter", 20, "f", (2, 2, 0), style="defense", shield=False)
    b = arena(f, mon("ogre", (12, 8), "o"), layout=WIDE, first="f", max_options=10 ** 6)
    assert dispatch.options(b, f) == []
    assert set(f.features).isdisjoint({"flexible_casting", "overchannel", "horde_breaker", "whirlwind_attack",
                                       "cleansing_touch", "countercharm", "fast_hands", "pact_of_the_chain"})


def test_the_heuristic_party_still_finishes_battles_with_the_new_features():
    for arch, level in (("sorcerer", 18), ("wizard", 20), ("ranger", 20), ("cleric", 17), ("paladin", 14),
                        ("bard", 6), ("rogue", 17), ("warlock", 12)):
        p = build_pc(arch, level, "p", (2, 2, 0))
        b = arena(p, mon("ogre", (9, 5), "o"), mon("zombie", (10, 7), "z"), layout=WIDE, max_options=10 ** 6)
        for _ in range(3000):
            if b.outcome is not None:
                break
            b.choose(heuristic.choose(b))
        assert b.outcome is not None, arch


def test_a_turn_helper_keeps_its_promise():
    w = build_pc("wizard", 1, "w", (2, 2, 0))
    b = arena(w, mon("ogre", (12, 8), "o"), layout=WIDE, max_options=10 ** 6)
    turn(b, "w")
    assert b.decision.actor == "w"



def _foe_attack(b, text, *values, rest=10):
    fp._dice(b, *values, rest=rest)
    pick(b, "attack", text)
    if b.decision.kind == "target":
        pick(b, "target")


def _reaction_labels(b):
    return labels(b, "reaction") if b.decision.kind == "reaction" else []


def test_retaliation_needs_damage_and_the_planner_takes_it():
    c, o = build_pc("barbarian", 14, "p", (2, 2, 0)), mon("ogre", (3, 2), "m")
    b = arena(c, o, layout=WIDE, first="m", max_options=10 ** 6)
    _foe_attack(b, "Greatclub", 2, rest=2)   # a miss: nothing to retaliate for
    assert not any("Retaliation" in x for x in _reaction_labels(b)) and c.hp == c.max_hp
    fp._again(b, "m")
    _foe_attack(b, "Greatclub", 15, 3, 3)
    assert any("Retaliation" in x for x in _reaction_labels(b))
    fp._dice(b, 15, 6, 6)
    i = heuristic.choose(b)
    assert "Retaliation" in b.decision.options[i].label
    hp = o.hp
    b.choose(i)
    assert o.hp < hp and [e for e in events(b, "reaction") if "Retaliation" in e["text"]]
    assert not c.economy.reaction   # spent until the barbarian's next turn


def test_giant_killer_answers_a_hit_too_but_not_a_creature_out_of_reach():
    c = build_pc("ranger", 5, "p", (2, 2, 0), choices=("giant_killer",))
    assert "giant_killer" in c.features and "colossus_slayer" not in c.features
    o = mon("ogre", (3, 2), "m")
    b = arena(c, o, layout=WIDE, first="m", max_options=10 ** 6)
    _foe_attack(b, "Greatclub", 19, 2, 2)
    assert c.hp < c.max_hp and any("Giant Killer" in x for x in _reaction_labels(b))
    pick(b, "reaction", "Do not react")
    assert c.economy.reaction
    far = mon("ogre", (8, 2), "m")   # a javelin from 30 ft: not within 5 ft
    c2 = build_pc("ranger", 5, "p", (2, 2, 0), choices=("giant_killer",))
    b2 = arena(c2, far, layout=WIDE, first="m", max_options=10 ** 6)
    _foe_attack(b2, "Javelin", 19, 2, 2)
    assert not any("Giant Killer" in x for x in _reaction_labels(b2))


def test_stand_against_the_tide_needs_another_creature_in_the_attackers_reach():
    c = build_pc("ranger", 15, "p", (2, 2, 0), choices=("stand_against_the_tide",))
    assert "stand_against_the_tide" in c.features and "evasion" not in c.features
    o = mon("ogre", (3, 2), "m")
    b = arena(c, o, mon("ogre", (12, 9), "m2"), layout=WIDE, first="m", max_options=10 ** 6)
    _foe_attack(b, "Greatclub", 2, rest=2)
    assert not any("Stand Against" in x for x in _reaction_labels(b))
    # with a second ogre next to the first, the planner turns the miss on it
    c = build_pc("ranger", 15, "p", (2, 2, 0), choices=("stand_against_the_tide",))
    o, o2 = mon("ogre", (3, 2), "m"), mon("ogre", (3, 4), "m2")
    b = arena(c, o, o2, layout=WIDE, first="m", max_options=10 ** 6)
    _foe_attack(b, "Greatclub", 2, rest=2)
    i = heuristic.choose(b)
    assert "against m2" in b.decision.options[i].label
    fp._dice(b, 19, 6, 6)
    b.choose(i)
    assert o2.hp < o2.max_hp


def _hurl_battle(foe):
    c = build_pc("warlock", 14, "p", (2, 2, 0))
    o = mon(foe, (4, 2), "m")
    b = arena(c, o, mon("ogre", (12, 9), "m2"), layout=WIDE, first="p", max_options=10 ** 6)
    fp._dice(b, 19, 5, 5)
    pick(b, "spell", "Eldritch Blast")
    while b.decision.kind == "target":
        pick(b, "target", "m")
    return b, c, o


def _play_until_back(b, o):
    for _ in range(300):
        if "removed" not in o.conditions or b.outcome is not None:
            return
        if b.decision.actor == "p" and b.decision.kind == "action":
            pick(b, "end_turn")
        else:
            b.choose(heuristic.choose(b))


def test_hurl_through_hell_once_a_long_rest_and_no_damage_to_a_fiend():
    b, c, o = _hurl_battle("bearded-devil")
    assert o.creature_type == "fiend"
    assert any("no damage: a fiend" in x for x in _reaction_labels(b))
    pick(b, "reaction", "Hurl Through Hell")
    hp = o.hp
    assert o.dead and b.outcome is None   # removed, not slain: the fight is not won
    _play_until_back(b, o)
    assert "removed" not in o.conditions and not o.dead and o.hp == hp
    # spent: the next hit offers nothing until a long rest
    fp._again(b, "p")
    fp._dice(b, 19, 5, 5)
    pick(b, "spell", "Eldritch Blast")
    while b.decision.kind == "target":
        pick(b, "target", "m")
    assert not any("Hurl" in x for x in _reaction_labels(b))
    long_rest(c)
    assert c.resources["hurl_through_hell"] == 1


def test_a_warlock_below_14_has_no_hurl():
    assert "hurl_through_hell" not in build_pc("warlock", 13, "p", (2, 2, 0)).features


def test_heuristic_battles_with_the_new_features_finish():
    used = set()
    for seed in range(3):
        party = [build_pc("barbarian", 14, "a", (2, 2, 0)),
                 build_pc("ranger", 15, "r", (2, 4, 0), choices=("giant_killer", "stand_against_the_tide")),
                 build_pc("warlock", 14, "w", (2, 6, 0))]
        foes = [mon("ogre", (6, 2), "o1"), mon("ogre", (6, 5), "o2"), mon("hill-giant", (8, 7), "g")]
        from dungeonbench_gym.dnd.engine import Battle
        from dungeonbench_gym.dnd.grid import BattleMap
        b = Battle(BattleMap.from_dict({"layout": WIDE}), party + foes, seed=seed)
        for _ in range(3000):
            if b.outcome is not None:
                break
            b.choose(heuristic.choose(b))
        assert b.outcome is not None
        used |= {e.get("feature") for e in events(b, "reaction")} | {e.get("spell") for e in events(b, "removed")}
    assert used & {"retaliation", "giant_killer", "stand_against_the_tide", "hurl-through-hell"}, used


def test_lands_stride_leaves_spell_terrain_difficult():
    from dungeonbench_gym.dnd.engine import Battle
    from dungeonbench_gym.dnd.grid import BattleMap
    layout = ["#" * 16] + ["#" + "," * 14 + "#"] * 10 + ["#" * 16]
    c = build_pc("ranger", 8, "p", (2, 2, 0))
    b = Battle(BattleMap.from_dict({"layout": layout}), [c, mon("ogre", (12, 9), "m")], seed=0)
    fp._again(b, "p")
    far = max(k[0] for k in b.reach(c).costs if k[1] == 2)
    assert far == 8   # 30 ft through rubble
    assert druid.stride_map(b.map) is druid.stride_map(b.map)   # built once
    assert b.map.is_difficult(3, 2)   # the battle's own map is unchanged
    plain = Battle(BattleMap.from_dict({"layout": WIDE}), [build_pc("ranger", 8, "p", (2, 2, 0))], seed=0)
    assert druid.stride_map(plain.map) is plain.map   # nothing difficult: the map itself


def test_thiefs_reflexes_second_turn_only_in_round_one():
    c, o = build_pc("rogue", 17, "p", (2, 2, 0)), mon("ogre", (12, 9), "m")
    b = arena(c, o, layout=WIDE, max_options=10 ** 6)
    c.initiative, o.initiative = 12, 8   # 12 - 10 = 2: after the ogre
    b.order, b.round, b.turn_index, b.outcome = ["p", "m"], 0, -1, None
    b.next_turn()
    assert b.order == ["p", "m", "p"]
    actors = []
    for _ in range(80):
        if b.round == 2 or b.outcome is not None:
            break
        if b.decision.kind == "action":
            actors.append(b.decision.actor)
            if b.decision.actor == "p":
                pick(b, "end_turn")
                continue
        b.choose(heuristic.choose(b))
    assert [a for i, a in enumerate(actors) if i == 0 or actors[i - 1] != a] == ["p", "m", "p"]
    assert b.order == ["p", "m"] and b.round == 2


def test_the_chain_familiar_attacks_only_through_the_warlock():
    w = build_pc("warlock", 5, "p", (2, 2, 0), choices=("pact_of_the_chain", "pact_of_the_blade", "thirsting_blade"))
    imp = warlock.placed_familiar(w, "imp", (4, 2, 0))
    o = mon("ogre", (5, 2), "m")
    b = arena(w, imp, o, layout=WIDE, first="p_imp", max_options=10 ** 6)
    assert not [x for x in labels(b) if "Sting" in x or "sting" in x]   # no attacks of its own
    fp._again(b, "p")
    pick(b, "feature", "Pact of the Chain")
    fp._dice(b, 18, 4, rest=1)
    pick(b, "target", "p_imp attacks m")
    # Thirsting Blade: one of two attacks was forgone, one is left
    assert w.economy.attacks_left == 1 and w.economy.actions == 0 and not imp.economy.reaction
    assert [e for e in events(b, "attack") if e["attacker"] == "p_imp"]


def test_minions_of_chaos_needs_the_invocation():
    assert "conjure-elemental" in build_pc("warlock", 9, "p", (0, 0, 0), choices=("minions_of_chaos",)).spells
    assert "minions_of_chaos" not in build_pc("warlock", 7, "p", (0, 0, 0), choices=("minions_of_chaos",)).features
