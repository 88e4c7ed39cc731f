"""Subclass and late class features (dnd/features_more.py) played through the engine's options."""

from __future__ import annotations

import pytest
from dnd_helpers import WIDE, arena, events, labels, mon, pick, script, turn

from dungeonbench_gym.dnd import advice, features_more, heuristic
from dungeonbench_gym.dnd.builders.pcs import build_pc, long_rest
from dungeonbench_gym.dnd.state import ability_mod
from dungeonbench_gym.dnd.verification import feature_probes, features_more_probes

MORE = sorted(features_more_probes.probes())


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
    assert features_more.attack_bonus(b, t, r, t.attack("mace")) == 0
    pick(b, "multiattack")
    script(b, 18, 2)
    pick(b, "attack", "Mace")
    _target(b, "r")
    assert r.hp < r.max_hp
    assert features_more.attack_bonus(b, t, r, t.attack("mace")) == -4


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
    assert features_more.song_of_rest([f]) == [] and "spent_hit_dice" not in f.resources
    bard = build_pc("bard", 9, "b", (0, 0, 0))
    f.resources["spent_hit_dice"] = 1
    assert features_more.song_of_rest([f, bard]) == [("f", "1d8")]


def test_the_planner_heightens_a_hold_person_and_upgrades_only_with_points():
    s, o = build_pc("sorcerer", 10, "s", (2, 2, 0)), mon("orc", (5, 2), "o")
    b = arena(s, o, layout=WIDE, first="s", max_options=10 ** 6)
    opts = list(b.decision.options)
    plain = next(i for i, x in enumerate(opts) if x.kind == "spell" and x.data == ("hold-person", 2))
    best = advice.features_more.upgrade(b, s, opts, plain)
    assert opts[best].data == ("hold-person", 2, "heightened")
    s.resources["sorcery_points"] = 2
    b.forget_options()
    opts = list(b.decision.options)
    plain = next(i for i, x in enumerate(opts) if x.kind == "spell" and x.data == ("hold-person", 2))
    assert advice.features_more.upgrade(b, s, opts, plain) == plain


def test_the_planner_casts_carefully_near_allies():
    s, f, o = build_pc("sorcerer", 17, "s", (2, 2, 0)), build_pc("fighter", 5, "f", (9, 6, 0)), mon("ogre", (10, 6), "o")
    b = arena(s, f, o, layout=WIDE, first="s", max_options=10 ** 6)
    opts = list(b.decision.options)
    plain = next(i for i, x in enumerate(opts) if x.kind == "spell" and x.data == ("fireball", 3))
    assert opts[advice.features_more.upgrade(b, s, opts, plain)].data == ("fireball", 3, "careful")


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
    assert features_more.options(b, f) == []
    assert features_more.MENU.isdisjoint(f.features)


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
