"""The last class features (dnd/features_last.py) played through the engine's reaction decisions."""

from __future__ import annotations

import pytest
from dnd_helpers import WIDE, arena, events, labels, mon, pick

from dungeonbench_gym.dnd import features_last, heuristic
from dungeonbench_gym.dnd.builders.pcs import build_pc, long_rest
from dungeonbench_gym.dnd.verification import feature_probes
from dungeonbench_gym.dnd.verification import feature_probes as fp
from dungeonbench_gym.dnd.verification import features_last_probes

LAST = sorted(features_last_probes.probes())


@pytest.mark.parametrize("key", LAST)
def test_each_probe_passes_and_is_listed_executable(key):
    feature_probes.probe(key)
    row = next(r for r in feature_probes.coverage() if r["key"] == key)
    assert row["status"] == "executable" and row["reason"] == ""


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
    assert features_last.stride_map(b.map) is features_last.stride_map(b.map)   # built once
    assert b.map.is_difficult(3, 2)   # the battle's own map is unchanged
    plain = Battle(BattleMap.from_dict({"layout": WIDE}), [build_pc("ranger", 8, "p", (2, 2, 0))], seed=0)
    assert features_last.stride_map(plain.map) is plain.map   # nothing difficult: the map itself


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
    imp = features_last.placed_familiar(w, "imp", (4, 2, 0))
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
