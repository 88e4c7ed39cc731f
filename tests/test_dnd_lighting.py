"""Light and darkness (dnd/lighting.py): dark battles, light sources, darkvision, the light spells,
Enthrall, and the dark Kobold Warren. SRD numbers: a torch or Light sheds bright light 20 ft and dim
light 20 ft more; darkvision 60 ft (kobolds, the spell); Dancing Lights dim 10 ft, moved 60 ft."""

import copy

import pytest
from dnd_helpers import (
    WIDE,
    arena,
    cast,
    events,
    fighter,
    labels,
    mon,
    pick,
    rogue,
    script,
    spell_setup,
    target,
    turn,
)

from dungeonbench_gym.core.errors import FileFormatError
from dungeonbench_gym.dnd import lighting, spell_zones
from dungeonbench_gym.dnd.day import DayRun, parse_day
from dungeonbench_gym.dnd.advice.intermission import plan_intermission
from dungeonbench_gym.dnd.items import equip
from dungeonbench_gym.dnd.model.durations import effect_duration
from dungeonbench_gym.dnd.scenario import load_encounter, parse_encounter

UNSEEN = "attacker unseen (obscured)"
BLIND = "target unseen (obscured)"


def dark(*fighters, layout=WIDE, first=None):
    b = arena(*fighters, layout=layout, first=first)
    lighting.setup(b, "dark")
    return b


def torch(f):
    return equip(f, ["torch"])


# ---------------------------------------------------------------- sight in the dark
def test_darkvision_sees_to_60_ft_and_no_further():
    k, near, far = mon("kobold", (1, 2), "k"), fighter(at=(13, 2), cid="near"), fighter(at=(14, 5), cid="far")
    b = dark(k, near, far)
    assert b.distance(k, near) == 60 and b.distance(k, far) == 65
    assert spell_zones.sees(b, k, near)            # darkvision 60 ft (SRD kobold)
    assert not spell_zones.sees(b, k, far)         # 65 ft: unseen in the dark
    assert not spell_zones.sees(b, near, k)        # a human sees nothing unlit


def test_torch_bright_to_20_ft_dim_to_40_ft_then_dark():
    t = torch(fighter(at=(1, 1), cid="t"))
    others = [mon("orc", (1 + n, 1), f"o{n}") for n in (4, 5, 8, 9)]   # 20, 25, 40 and 45 ft away
    b = dark(t, *others)
    assert [lighting.level(b, o) for o in others] == [2, 1, 1, 0]
    assert lighting.level(b, t) == 2


def test_a_wall_blocks_the_light():
    layout = ["#" * 12, "#....#.....#", "#....#.....#", "#..........#", "#..........#", "#" * 12]
    t = torch(fighter(at=(3, 3), cid="t"))
    behind, round_the_gap = mon("goblin", (6, 1), "behind"), mon("goblin", (6, 3), "gap")   # both 15 ft away
    b = dark(t, behind, round_the_gap, layout=layout)
    assert lighting.level(b, behind) == 0           # the wall at (5, 1)-(5, 2) is in the way
    assert lighting.level(b, round_the_gap) == 2    # through the opening in row 3
    assert not spell_zones.sees(b, t, behind) and spell_zones.sees(b, t, round_the_gap)


def test_unseen_attacker_has_advantage_in_darkness_and_a_light_ends_it():
    k, f = mon("kobold", (3, 2), "k"), fighter(at=(2, 2))
    b = dark(k, f)
    adv, dis, why = b.attack_modifiers(k, f, melee=True)
    assert UNSEEN in why and BLIND not in why       # the kobold sees by darkvision, the fighter sees nothing
    adv, dis, why = b.attack_modifiers(f, k, melee=True)
    assert dis and BLIND in why
    torch(f)
    assert not {UNSEEN, BLIND} & set(b.attack_modifiers(k, f, melee=True)[2])


def test_a_lit_creature_beyond_a_dark_gap_is_seen():
    f, carrier = fighter(at=(1, 2)), mon("guard", (12, 2), "g")   # 50 ft of darkness between them
    carrier.conditions["lit"] = {"by": "someone", "spell": "light", "light": [20, 20]}   # a Light on its shield
    b = dark(f, carrier)
    assert lighting.level(b, f) == 0 and spell_zones.sees(b, f, carrier)


def test_no_opportunity_attack_on_an_unseen_mover():
    f, k = fighter(at=(2, 2)), mon("kobold", (3, 2), "k")
    b = dark(f, k, first="k")
    pick(b, "move")
    while b.decision.kind == "group":
        pick(b, "group", "y=2")
    pick(b, "destination", "(6, 2)")   # leaves the fighter's reach unseen: no reaction decision
    assert b.decision.kind != "reaction" and k.pos[:2] == (6, 2)


def test_bright_battles_carry_no_lighting():
    b = arena(fighter(), mon("kobold", (3, 2), "k"))
    assert "lighting" not in b.__dict__ and not b.zones and lighting.level(b, b.creatures["k"]) == 2


# ---------------------------------------------------------------- the spells
def test_light_on_a_hostile_needs_a_failed_dex_save():
    orc = mon("orc", (4, 5), "orc")   # Dex 12: +1; the caster's DC 14
    b, c = spell_setup("light", orc)
    lighting.setup(b, "dark")
    script(b, 15)                       # 16: saved
    cast(b, "light")
    target(b, "orc")
    assert "lit" not in orc.conditions and events(b, "cast")
    turn(b, "caster")
    script(b, 5)                        # 6: failed
    cast(b, "light")
    target(b, "orc")
    assert orc.conditions["lit"]["light"] == [20, 20] and spell_zones.sees(b, c, orc)


def test_a_new_light_ends_the_old_one():
    ally = fighter(at=(3, 6), cid="ally")
    b, c = spell_setup("light", mon("orc", (12, 5), "orc"), allies=(ally,))
    lighting.setup(b, "dark")
    cast(b, "light")
    target(b, "ally")
    assert "lit" in ally.conditions
    turn(b, "caster")
    cast(b, "light")
    target(b, "caster")
    assert "lit" in c.conditions and "lit" not in ally.conditions


def test_light_spells_are_offered_only_in_the_dark():
    b, _ = spell_setup("light", mon("orc", (12, 5), "orc"))
    assert not any("Light" in x for x in labels(b, "spell"))
    lighting.setup(b, "dark")
    assert any(x.startswith("Cast Light") for x in labels(b, "spell"))


def test_dancing_lights_moved_by_a_bonus_action():
    orc = mon("orc", (12, 5), "orc")
    b, c = spell_setup("dancing-lights", orc)
    lighting.setup(b, "dark")
    cast(b, "dancing-lights")
    pick(b, "point_x", "x = 6")
    pick(b, "point_y", "Point (6, 5)")
    assert c.concentration == "dancing-lights" and lighting.level(b, orc) == 0
    turn(b, "caster")
    pick(b, "lights")                   # a bonus action: up to 60 ft
    d = b.decision
    assert d.kind in ("destination", "group")
    while b.decision.kind == "group":
        pick(b, "group", "y=5")
    pick(b, "destination", "to (12, 5)")
    assert lighting.level(b, orc) == 1 and not c.economy.bonus and c.economy.actions == 1
    assert not any(o.kind == "lights" for o in b.decision.options)   # the bonus action is spent


def test_darkvision_spell_lets_its_target_see_60_ft():
    ally, orc = fighter(at=(3, 6), cid="ally"), mon("orc", (14, 6), "orc")   # 55 ft from the ally
    b, c = spell_setup("darkvision", orc, allies=(ally,))
    lighting.setup(b, "dark")
    assert not spell_zones.sees(b, ally, orc)
    cast(b, "darkvision")
    target(b, "ally")
    assert lighting.darkvision(ally) == 60 and spell_zones.sees(b, ally, orc)
    assert sum(c.resources["slots"]) == 35


WALLED = ["#" * 16] + ["#" + "." * 14 + "#"] * 7 + ["#" + "." * 2 + "#" * 9 + "." * 3 + "#"] \
    + ["#" + "." * 14 + "#"] * 2 + ["#" * 16]   # a wall along row 8


def test_enthrall_takes_5_off_passive_perception_against_others_only():
    from dungeonbench_gym.dnd.verification.arena import caster
    c, orc, ally = caster("enthrall", at=(3, 5)), mon("orc", (7, 5), "orc"), rogue(at=(7, 9), cid="ally")
    b = arena(c, orc, ally, layout=WALLED, first="caster")
    script(b, 3, 4)                     # the orc's save, with advantage: 3 and 4 (+0) against DC 14
    cast(b, "enthrall")
    assert orc.conditions["enthralled"]["by"] == "caster"
    assert lighting.perception_penalty(b, orc, ally) == 5 and lighting.perception_penalty(b, orc, c) == 0
    turn(b, "ally")                     # behind the wall, out of the orc's sight
    script(b, 8)                        # Stealth 8 + 5 = 13 against the orc's passive 10 - 5
    pick(b, "hide")
    assert "hidden" in ally.conditions and events(b, "hide")[-1]["text"].endswith("(Stealth 13 vs 5)")


def test_a_creature_that_cannot_be_charmed_shrugs_off_enthrall():
    golem = mon("clay-golem", (6, 5), "golem")   # immune to charmed (SRD)
    b, c = spell_setup("enthrall", golem)
    cast(b, "enthrall")                 # no die rolled: it succeeds
    assert "enthralled" not in golem.conditions and events(b, "save")[-1]["success"]


def test_hiding_in_dim_light_counts_perception_at_minus_5():
    f, g = torch(fighter(at=(2, 2))), mon("guard", (10, 2), "g")   # the guard 40 ft away: dim light
    b = dark(f, g)
    assert lighting.level(b, g) == 1 and lighting.perception_penalty(b, f, g) == 5
    assert lighting.perception_penalty(b, g, f) == 0   # the fighter stands in its own bright light


def test_daylight_lights_60_ft_in_a_dark_battle():
    orc = mon("orc", (14, 5), "orc")
    b, c = spell_setup("daylight", orc)
    lighting.setup(b, "dark")
    cast(b, "daylight")
    pick(b, "point_x", "x = 4")
    pick(b, "point_y", "Point (4, 5)")
    assert lighting.level(b, orc) == 2 and spell_zones.sees(b, c, orc)


def test_a_fire_elemental_sheds_its_own_light():
    e, f = mon("fire-elemental", (8, 2), "e"), fighter(at=(2, 2))
    b = dark(e, f)
    assert lighting.level(b, f) == 2 and spell_zones.sees(b, f, e)   # bright 30 ft (Illumination)


# ---------------------------------------------------------------- the planner
def test_heuristic_cleric_lights_the_fighter_when_it_cannot_see_the_foes():
    from dungeonbench_gym.dnd import heuristic
    from dungeonbench_gym.dnd.builders.pcs import build_pc
    cl, f = build_pc("cleric", 2, "cleric", (2, 3, 0)), fighter(2, at=(3, 3))
    b = dark(cl, f, mon("skeleton", (12, 3), "s"), first="cleric")
    i = heuristic.choose(b)
    assert b.decision.options[i].data[0] == "light"
    b.choose(i)
    b.choose(heuristic.choose(b))
    assert "lit" in f.conditions


# ---------------------------------------------------------------- the Day track
def _day(first="goblin_ambush", spells=("continual-flame", "darkvision")):
    data = {"name": "Dark Day", "short_rests": 1,
            "party": [{"id": "fighter", "archetype": "fighter", "level": 3},
                      {"id": "cleric", "archetype": "cleric", "level": 3, "gp": 60}],
            "encounters": [{"scenario": first, "place": {"cleric": [1, 3]}},
                           {"scenario": "kobold_warren", "place": {"cleric": [1, 3]}},
                           {"scenario": "gate_lever"}]}
    run = DayRun(parse_day(data, "dark.toml"), 0)
    run.results, run.stage, run.phase, run._menu = ["win"], 1, "intermission", None   # the first fight won
    cl = run.party["cleric"]
    cl.spells = tuple(cl.spells) + tuple(spells)
    return run


def test_continual_flame_cast_between_fights_lasts_the_day():
    assert effect_duration("continual-flame") == "all_day"   # SRD: until dispelled
    run = _day()
    pick_day(run, "Continual Flame on fighter")
    f, cl = run.party["fighter"], run.party["cleric"]
    assert f.conditions["continual_flame"]["day_duration"] == "all_day" and cl.resources["gp"] == 10
    pick_day(run, "Take a short rest")
    pick_day(run, "Finish the short rest")
    assert "continual_flame" in f.conditions
    pick_day(run, "Go on to encounter 2")
    assert run.battle.__dict__["lighting"]["ambient"] == "dark" and lighting.level(run.battle, f) == 2


def test_darkvision_between_fights_only_while_a_dark_fight_is_ahead_and_the_planner_casts_it():
    run = _day(spells=("darkvision",))
    assert any("Darkvision on fighter (level 2, all day)" in o.label for o in run.decision.options)
    chosen = []
    for _ in range(2):   # a light for the next (dark) fight first, then darkvision
        i = plan_intermission(run)
        chosen.append(run.decision.options[i].label)
        run.choose(i)
    assert chosen == ["cleric casts Light on fighter (until a short rest)",
                      "cleric casts Darkvision on fighter (level 2, all day)"]
    assert run.party["fighter"].conditions["darkvision"]["darkvision"] == 60
    assert "Go on" in run.decision.options[plan_intermission(run)].label
    run.stage = 2   # only the bright gate is left: nothing to see in the dark for
    run._menu = None
    assert not any(o.kind == "day_light" for o in run.decision.options)


def pick_day(run, text):
    for i, o in enumerate(run.decision.options):
        if text in o.label:
            run.choose(i)
            return
    raise AssertionError(f"{text!r} not in {[o.label for o in run.decision.options]}")


# ---------------------------------------------------------------- the scenario
def test_the_dark_kobold_warren_loads_with_the_fighters_torch():
    s = load_encounter("kobold_warren")
    b = s.build(0)
    assert s.light == "dark" and b.lighting["ambient"] == "dark"
    assert lighting.carried(b.creatures["fighter"]) == (20, 20)
    assert all(lighting.darkvision(o) == 60 for o in b.creatures.values() if o.side == "enemies")
    assert b.to_dict()["light"]["sources"] == ["fighter carries a light: bright 20 ft, dim 20 ft more"]


GOOD = {"name": "T", "family": "duel", "round_limit": 5,
        "map": {"layout": ["#####", "#...#", "#...#", "#####"]}, "objective": {"type": "defeat"},
        "party": [{"id": "f", "archetype": "fighter", "level": 1, "at": [1, 1]}],
        "enemies": [{"id": "g", "monster": "goblin", "at": [3, 2]}]}


@pytest.mark.parametrize("change,field,says", [
    ({"light": "pitch black"}, "light", "must be one of"),
    ({"light": 0}, "light", "must be one of"),
    ({"map": {"layout": ["#####", "#.*.#", "#...#", "#####"], "legend": {"*": {"light": 7}}}}, "map", "'light'"),
    ({"map": {"layout": ["#####", "#.*.#", "#...#", "#####"], "legend": {"*": {"wall": True, "light": 20}}}},
     "map", "wall square cannot hold a light"),
])
def test_a_bad_light_names_the_file_the_field_and_the_fix(change, field, says):
    d = copy.deepcopy(GOOD)
    d.update(change)
    with pytest.raises(FileFormatError) as err:
        parse_encounter(d, "bad.toml")
    e = err.value
    assert e.path == "bad.toml" and e.field == field and says in str(e) and e.fix


def test_a_brazier_in_the_legend_lights_its_squares():
    d = copy.deepcopy(GOOD)
    d.update(light="dark", map={"layout": ["#######", "#*....#", "#.....#", "#######"],
                                "legend": {"*": {"name": "brazier", "passable": False, "light": 5}}})
    d["party"][0]["at"] = [2, 1]
    b = parse_encounter(d, "t.toml").build(0)
    f, g = b.creatures["f"], b.creatures["g"]   # f beside the brazier, g 10 ft from it
    assert lighting.level(b, f) == 2 and lighting.level(b, g) == 1
