"""Water and objects (dnd/spell_utility.py): the SRD suffocation rule under water, Water Breathing,
Water Walk, Mage Hand and Unseen Servant, cast through the engine's own options with scripted dice.

The caster is dnd/spell_probe's level-5 wizard (Con 14: +2) holding the one spell under test and four
slots of every level; allies are fighters whose Con a test sets where breath matters.
"""

import pytest
from dnd_helpers import arena, cast, events, labels, mon, pc, pick, script, target, turn

from dungeonbench_gym.dnd import heuristic, items, spell_utility, spellbook
from dungeonbench_gym.dnd.day import DayRun, _clear_combat_state, parse_day
from dungeonbench_gym.dnd.advice.intermission import plan_intermission
from dungeonbench_gym.dnd.advice import spell_utility as utility_advice
from dungeonbench_gym.dnd.state import ability_mod
from dungeonbench_gym.dnd.verification import items_probes, spell_probe
from dungeonbench_gym.dnd.verification.arena import caster
from dungeonbench_gym.dnd.verification.coverage import probe_monster
from dungeonbench_gym.dnd.rules import spell_data

KEYS = ("water-walk", "water-breathing", "mage-hand", "unseen-servant")
POOL = ["##########", "#........#", "#..~~~~..#", "#..~~~~..#", "#........#", "##########"]
SEA = ["##########"] + ["#~~~~~~~~#"] * 4 + ["##########"]
HALL = ["##############", "#............#", "#............#", "##############"]   # the lever: (13, 1)
LONG = ["#" * 22, "#" + "." * 20 + "#", "#" + "." * 20 + "#", "#" * 22]              # the lever: (21, 1)
LEVER = {"type": "interact", "object": [13, 1], "name": "lever"}


def with_con(c, score):
    c.abilities["con"] = score
    return c


def breath_turn(b, c, rnd):
    """c's turn starts in round rnd (no other turn in between)."""
    b.round = rnd
    b.start_turn(c)


def underwater(*fighters, first=None):
    b = arena(*fighters, layout=SEA)
    b.underwater = True
    if first:
        turn(b, first)
    return b


@pytest.mark.parametrize("key", KEYS)
def test_each_spell_is_executable_and_probed(key):
    row = next(r for r in spellbook.coverage() if r["key"] == key)
    assert row["status"] == "executable" and spell_data.mech(key)["mech"] == "utility"
    spell_probe.run_probe(key)


@pytest.mark.parametrize("key", ["potion-of-water-breathing", "spell-scroll-water-walk", "spell-scroll-mage-hand"])
def test_the_potion_and_the_scrolls_are_executable_items(key):
    assert items.status(key) == ("executable", "")
    items_probes.probe(key)


def test_monsters_with_these_spells_keep_their_probes():
    for key in ("spirit-naga", "mage"):   # Water Breathing under water; Mage Hand left out (party only)
        probe_monster(key)
    from dungeonbench_gym.dnd.builders.monsters import monster_combatant
    assert "mage-hand" not in monster_combatant("lich", "l", "enemies", (2, 2, 0)).spells
    assert "water-breathing" in monster_combatant("storm-giant", "g", "enemies", (2, 2, 0)).spells


# ================================================================ breath (SRD Suffocating)
def test_breath_lasts_1_plus_con_minutes_at_least_30_seconds_and_con_rounds_after():
    assert spell_utility.hold_rounds(with_con(pc("fighter", 1, (1, 1)), 14)) == 30   # Con +2: 3 minutes
    assert spell_utility.hold_rounds(with_con(pc("fighter", 1, (1, 1)), 8)) == 5    # Con -1: 0 minutes -> 30 s
    assert spell_utility.hold_rounds(with_con(pc("fighter", 1, (1, 1)), 10)) == 10
    assert spell_utility.survive_rounds(with_con(pc("fighter", 1, (1, 1)), 14)) == 2
    assert spell_utility.survive_rounds(with_con(pc("fighter", 1, (1, 1)), 8)) == 1   # at least 1 round
    assert spell_utility.hold_rounds(mon("lizardfolk", (1, 1))) == 150   # Hold Breath: 15 minutes
    assert spell_utility.hold_rounds(mon("killer-whale", (1, 1))) == 300   # swims only, yet holds its breath


def test_con_minus_1_holds_5_rounds_survives_1_then_drops_to_0_and_is_dying():
    f = with_con(pc("fighter", 3, (2, 2), "f"), 8)
    b = underwater(f, mon("orc", (7, 3)))
    for rnd in range(1, 6):
        breath_turn(b, f, rnd)
        assert f.resources["breath"] == 6 - rnd and "out_of_breath" not in f.conditions
    breath_turn(b, f, 6)   # out of breath: it survives 1 round
    assert f.resources["breath"] == 0 and "out_of_breath" in f.conditions and f.hp == f.max_hp
    breath_turn(b, f, 7)   # the start of its next turn: 0 HP, dying
    assert f.hp == 0 and f.dying and "suffocating" in f.conditions and events(b, "suffocate")


def test_con_plus_2_drops_at_the_start_of_round_33_and_rounds_count_from_the_first_turn():
    f = with_con(pc("fighter", 3, (2, 2), "f"), 14)
    b = underwater(f, mon("orc", (7, 3)))
    breath_turn(b, f, 1)
    assert f.resources["breath"] == 30
    breath_turn(b, f, 31)
    assert "out_of_breath" in f.conditions and f.conditions["out_of_breath"]["drops_round"] == 33
    breath_turn(b, f, 32)
    assert f.hp > 0
    breath_turn(b, f, 33)
    assert f.hp == 0


def test_a_suffocating_creature_is_neither_healed_nor_stabilised_until_water_breathing():
    f = with_con(pc("fighter", 3, (2, 2), "f"), 8)
    c = caster("water-breathing", at=(3, 2))
    b = underwater(c, f, mon("orc", (7, 3)))
    for rnd in range(1, 8):
        breath_turn(b, f, rnd)
    assert f.hp == 0 and b.heal(f, 10, "a potion") == 0
    for _ in range(3):   # three successes: not stable while it suffocates
        script(b, 15)
        b._death_save(f)
    assert f.death_successes == 3 and not f.stable and f.dying
    turn(b, "caster")
    cast(b, "water-breathing", 3)
    target(b, "f")   # a dying ally counts as willing
    assert "suffocating" not in f.conditions and "no_heal" not in f.conditions
    assert b.heal(f, 5, "a potion") == 5 and f.conscious


def test_water_breathers_undead_and_constructs_never_suffocate():
    keys = ("sahuagin", "merrow", "reef-shark", "water-elemental", "skeleton", "animated-armor")
    spots = ((1, 1), (3, 1), (5, 1), (7, 1), (1, 3), (3, 3))   # the merrow and the elemental are Large
    foes = [mon(k, spots[i], f"m{i}") for i, k in enumerate(keys)]
    b = underwater(*foes, pc("fighter", 1, (8, 4), "f"))
    for o in foes:
        assert not spell_utility.needs_air(o), o.monster
        breath_turn(b, o, 60)
        assert "breath" not in o.resources and not o.dead and o.conscious
    assert spell_utility.needs_air(mon("giant-constrictor-snake", (1, 1)))   # a swimmer holds its breath
    breath_turn(b, b.creatures["m0"], 200)
    assert b.creatures["m0"].conscious


def test_a_monster_that_runs_out_of_breath_dies_and_breath_is_in_the_state_and_text():
    from dungeonbench_gym.games.dnd.views import text
    orc = mon("orc", (3, 2))   # Con 16: +3, 40 rounds, then 3
    b = underwater(orc, pc("fighter", 1, (6, 3), "f"))
    breath_turn(b, orc, 1)
    state = b.to_dict()
    assert next(c for c in state["combatants"] if c["id"] == "orc")["resources"]["breath"] == 40
    assert "breath 40 rounds" in text(state, "t")[0]
    breath_turn(b, orc, 44)
    assert orc.dead


def test_water_breathing_only_under_water_and_only_on_those_who_need_air():
    b = arena(caster("water-breathing", at=(2, 2)), pc("fighter", 5, (3, 2), "f"), mon("orc", (7, 3)), layout=SEA,
              first="caster")
    assert not any(o.data[0] == "water-breathing" for o in b.decision.options if o.kind == "spell")
    c = caster("water-breathing", at=(2, 2))
    b = underwater(c, pc("fighter", 5, (3, 2), "f"), mon("merrow", (2, 3), "ally"), mon("orc", (7, 3)), first="caster")
    b.creatures["ally"].side = "party"
    cast(b, "water-breathing", 3)
    assert sorted(o.data[0] for o in b.decision.options if o.kind == "target") == ["caster", "f"]   # not the merrow
    target(b, "f")
    pick(b, "target", "caster")   # the next target decision ("No more targets" beside it)
    assert "water_breathing" in c.conditions and "water_breathing" in b.creatures["f"].conditions


def test_the_planner_casts_water_breathing_only_when_breath_runs_short():
    c = caster("water-breathing", at=(2, 2))
    f = with_con(pc("fighter", 5, (3, 2), "f"), 10)
    b = underwater(c, f, mon("orc", (8, 4)), first="caster")
    assert b.decision.options[heuristic.choose(b)].data[:1] != ("water-breathing",)   # 10 rounds left
    b.round = 3   # f has held its breath since round 1: 8 rounds left
    b._breath["f"] = 1
    b.forget_options()
    assert b.decision.options[heuristic.choose(b)].data[:1] == ("water-breathing",)


def test_the_potion_is_drunk_under_water_only():
    f = items.equip(with_con(pc("fighter", 3, (2, 2), "f"), 8), ["potion-of-water-breathing"])
    b = arena(f, mon("orc", (7, 3)), layout=SEA, first="f")
    assert "Potion of Water Breathing" not in " ".join(labels(b))
    b = underwater(f, mon("orc", (7, 3)), first="f")
    pick(b, "item", "Potion of Water Breathing")
    assert "water_breathing" in f.conditions and spell_utility.breath_left(b, f) is None


# ================================================================ Water Walk
def test_water_walk_makes_a_water_square_cost_5_ft_instead_of_10():
    c = caster("water-walk", at=(1, 2))
    f = pc("fighter", 5, (2, 3), "f")
    b = arena(c, f, mon("orc", (8, 4)), layout=POOL, first="f")
    assert b.reach(f).costs[(3, 3, 0)] == 10
    turn(b, "caster")
    cast(b, "water-walk", 3)
    target(b, "f")
    pick(b, "stop")
    turn(b, "f")
    assert "water_walk" in f.conditions and b.reach(f).costs[(3, 3, 0)] == 5 and b.reach(f).costs[(6, 3, 0)] == 20


def test_water_walk_is_not_offered_under_water_nor_without_water_nor_on_a_swimmer():
    def offered(b):
        return any(o.kind == "spell" and o.data[0] == "water-walk" for o in b.decision.options)

    c = caster("water-walk", at=(1, 2))
    assert offered(arena(c, pc("fighter", 5, (2, 3), "f"), mon("orc", (8, 4)), layout=POOL, first="caster"))
    b = arena(c, pc("fighter", 5, (2, 3), "f"), mon("orc", (8, 4)), layout=POOL)
    b.underwater = True
    turn(b, "caster")
    assert not offered(b)
    assert not offered(arena(c, pc("fighter", 5, (2, 3), "f"), mon("orc", (8, 4)), first="caster"))   # no water
    b = arena(c, mon("merrow", (2, 3), "m"), mon("orc", (8, 4)), layout=POOL, first="caster")
    b.creatures["m"].side = "party"
    assert [t.cid for t in spellbook.targets(b, c, "water-walk")] == ["caster"]   # the merrow swims already


# ================================================================ Mage Hand
def test_mage_hand_uses_the_lever_from_30_ft_but_not_from_35_ft():
    far = caster("mage-hand", at=(6, 1))   # 35 ft from the lever
    b = arena(far, pc("fighter", 5, (1, 2), "f"), layout=HALL, objective=dict(LEVER), first="caster")
    assert not any(o.kind == "spell" for o in b.decision.options)
    c = caster("mage-hand", at=(7, 1))   # 30 ft
    b = arena(c, pc("fighter", 5, (1, 2), "f"), layout=HALL, objective=dict(LEVER), first="caster")
    cast(b, "mage-hand")
    assert events(b, "mage_hand") and "hand_use" not in [o.kind for o in b.decision.options]   # the action is spent
    turn(b, "caster")
    pick(b, "hand_use")
    assert b.objective["done"] and b.outcome == "win"


def test_mage_hand_vanishes_beyond_30_ft_and_can_not_attack():
    c = caster("mage-hand", at=(7, 1))
    b = arena(c, pc("fighter", 5, (1, 2), "f"), mon("orc", (12, 2)), layout=HALL, objective=dict(LEVER),
              first="caster")
    cast(b, "mage-hand")
    assert not any(o.kind == "attack" and "hand" in o.label.lower() for o in b.decision.options)
    c.pos = (1, 1, 0)   # 60 ft away now
    turn(b, "caster")
    assert "hand_use" not in [o.kind for o in b.decision.options] and "caster" not in b._utility["hands"]


def test_the_planner_casts_mage_hand_when_walking_there_takes_longer():
    hall = ["##############", "#.......,,,,,#", "#.......,,,,,#", "##############"]   # rubble before the lever
    c = caster("mage-hand", at=(7, 1))
    b = arena(c, layout=hall, objective=dict(LEVER), first="caster")
    c.economy.movement = 0   # 50 ft of rubble to walk, no movement left: two turns on foot
    b.forget_options()
    assert b.decision.options[heuristic.choose(b)].data[:1] == ("mage-hand",)


# ================================================================ Unseen Servant
def _servant(b):
    return next(o for o in b.creatures.values() if o.resources.get("servant_of"))


def test_unseen_servant_moves_15_ft_on_a_bonus_action_and_uses_the_lever():
    c = caster("unseen-servant", at=(8, 1))
    b = arena(c, pc("fighter", 5, (1, 2), "f"), layout=LONG, objective={"type": "interact", "object": [21, 1],
                                                                       "name": "lever"}, first="caster")
    cast(b, "unseen-servant", 1)
    s = _servant(b)
    assert (s.ac, s.hp, s.abilities["str"], s.attacks) == (10, 1, 2, ()) and "invisible" in s.conditions
    assert s.cid not in b.order   # no turns of its own
    s.pos = (11, 1, 0)
    b.forget_options()
    pick(b, "servant_command", "move 15 ft")
    assert s.pos[:2] == (14, 1) and not c.economy.bonus and not b.objective.get("done")
    assert "servant_command" not in [o.kind for o in b.decision.options]   # once a turn
    turn(b, "caster")
    pick(b, "servant_command")
    turn(b, "caster")
    pick(b, "servant_command", "use the lever")
    assert s.pos[:2] == (20, 1) and b.objective["done"] and b.outcome == "win"
    assert s.cid not in b.creatures   # dismissed at the battle's end


def test_unseen_servant_appears_beside_a_lever_in_reach_and_dies_to_1_damage():
    c = caster("unseen-servant", at=(2, 1))
    orc = mon("orc", (8, 2))
    b = arena(c, orc, layout=HALL, objective=dict(LEVER), first="caster")
    cast(b, "unseen-servant", 1)
    s = _servant(b)
    assert b.distance(c, s) <= 60 and max(abs(s.pos[0] - 13), abs(s.pos[1] - 1)) == 1
    assert b.attack_modifiers(orc, s, melee=True)[1]   # unseen: disadvantage
    b.damage(s, 1, "slashing", source="orc")
    assert s.dead and "servant_command" not in [o.kind for o in b.decision.options]
    assert any(o.kind == "spell" for o in b.decision.options) is False   # the action is spent this turn


def test_a_party_left_with_only_its_servant_is_wiped():
    c = caster("unseen-servant", at=(2, 1))
    b = arena(c, mon("orc", (8, 2)), layout=HALL, objective=dict(LEVER), first="caster")
    cast(b, "unseen-servant", 1)
    c.hp = 0
    assert b.check_outcome() and b.outcome == "loss"
    assert events(b, "outcome")[-1]["how"] == "wipe"


def test_not_offered_without_an_unused_interact_objective():
    for key in ("mage-hand", "unseen-servant"):
        c = caster(key, at=(7, 1))
        b = arena(c, mon("orc", (12, 2)), layout=HALL, first="caster")
        assert not any(o.kind == "spell" for o in b.decision.options), key
        b = arena(caster(key, at=(7, 1)), mon("orc", (12, 2)), layout=HALL, objective=dict(LEVER), first="caster")
        assert any(o.kind == "spell" for o in b.decision.options), key
        b.objective["done"], b._cache = True, None   # used already (the outcome comes after the next choice)
        assert not any(o.kind == "spell" for o in b.decision.options), key


# ================================================================ the Day track
DAY = {"name": "Water Day", "description": "t", "short_rests": 1,
       "party": [{"id": "fighter", "archetype": "fighter", "level": 5},
                 {"id": "cleric", "archetype": "cleric", "level": 5},
                 {"id": "wizard", "archetype": "wizard", "level": 5}],
       "encounters": [{"scenario": "gate_lever", "place": {"wizard": [1, 3]}},
                      {"scenario": "drowned_causeway", "place": {"wizard": [1, 5]}},
                      {"scenario": "gate_lever", "place": {"wizard": [1, 3]}},
                      {"scenario": "sunken_shrine", "place": {"wizard": [2, 5]}}]}


def intermission(run, stage):
    run.phase, run.stage, run._menu = "intermission", stage, None
    return run._options()


def test_between_fights_water_walk_before_water_lasts_until_a_short_rest_and_crosses_the_water():
    run = DayRun(parse_day(DAY), 0)
    opts = intermission(run, 1)   # next: the drowned causeway
    mine = [o for o in opts if o.kind == "utility_day"]
    walk = next(o for o in mine if o.data[1] == "water-walk")
    assert "as a ritual, no slot" in walk.label and walk.data[0] == "cleric"   # a cleric's Ritual Casting
    assert not any(o.data[1] == "unseen-servant" for o in mine)   # the next fight has no object
    slots = run.party["cleric"].resources["slots"]
    seen = []
    while run.phase == "intermission":   # the baseline casts it before going on
        o = run._visible()[plan_intermission(run)]
        seen.append(o.data[1] if o.kind == "utility_day" else o.kind)
        run.choose(run._visible().index(o))
    assert "water-walk" in seen and run.party["cleric"].resources["slots"] == slots
    f = run.party["fighter"]
    assert f.conditions["water_walk"]["day_duration"] == "until_short_rest"
    b = run.battle   # the drowned causeway: the fighter at (2, 4), water from x = 5
    f.economy.movement, b._reach_cache = 30, None
    assert b.map.is_water(5, 3) and b.reach(f).costs[(5, 3, 0)] == 15   # 20 ft without Water Walk
    _clear_combat_state(f, keep=("until_short_rest", "all_day"))
    assert "water_walk" in f.conditions   # after a fight
    _clear_combat_state(f, keep=("all_day",))
    assert "water_walk" not in f.conditions   # after a short rest


def test_between_fights_a_servant_joins_the_next_interact_fight_and_water_breathing_before_the_deep():
    run = DayRun(parse_day(DAY), 0)
    opts = intermission(run, 2)   # next: the gate lever
    i = next(i for i, o in enumerate(opts) if o.kind == "utility_day" and o.data[1] == "unseen-servant")
    assert utility_advice.plan(run, opts) == i and run._visible() == opts
    run.choose(i)
    run.stage = 2
    run._start_battle()
    s = next(o for o in run.battle.creatures.values() if o.resources.get("servant_of") == "wizard")
    assert s.cid not in run.battle.order and run.battle.distance(s, run.party["wizard"]) == 5
    with_con(run.party["fighter"], 8)   # holds 5 rounds: less than the shrine's 12
    opts = intermission(run, 3)   # next: the sunken shrine, under water
    i = next(i for i, o in enumerate(opts) if o.kind == "utility_day" and o.data[1] == "water-breathing")
    assert utility_advice.plan(run, opts) == i and "all day" in opts[i].label
    run.choose(i)
    assert run.party["fighter"].conditions["water_breathing"]["day_duration"] == "all_day"
    run.stage = 3
    run._start_battle()
    assert run.battle.underwater   # the file's underwater = true, in the Day track too
    assert ability_mod(run.party["fighter"].abilities["con"]) == -1
