"""Monster save actions of every shape (SRD stat blocks): single target, sphere, cone,
emanation, on-hit riders, with the stat block's durations and repeat saves; and every save action
the engine runs, for every SRD monster, resolves when chosen."""

from pathlib import Path

import pytest
from dnd_helpers import WIDE, arena, events, mon, pc, pick, script

from dungeonbench_gym.dnd import content, heuristic
from dungeonbench_gym.dnd.builders.monsters import monster_combatant
from dungeonbench_gym.dnd.verification import monster_report as report
from dungeonbench_gym.dnd.state import monster_action


def test_ghoul_claws_paralyze_for_a_minute_with_a_con_save_each_turn_end():
    g, f = mon("ghoul", (3, 2)), pc("fighter", 1, (2, 2), "f")
    b = arena(f, g)
    script(b, 15, 2, 2, 3)   # 15+4 hits AC 19... (fighter AC 19); 2d4+2 = 6; Con 3+4 = 7 < DC 10
    b.make_attack(g, g.attack("claws"), f)
    cond = f.conditions["paralyzed"]
    assert f.hp == f.max_hp - 6 and cond["repeat"] == "con" and cond["dc"] == 10
    assert cond["until_round"] == b.round + 10
    script(b, 6)             # 6+4 = 10 >= DC 10: the repeat save ends it
    b._end_of_turn_effects(f)
    assert "paralyzed" not in f.conditions


def test_ghoul_paralysis_spares_undead():
    g, s = mon("ghoul", (3, 2)), mon("skeleton", (2, 2), "s")
    s.side = "party"
    b = arena(s, g)
    script(b, 19, 1, 1)      # a hit for 2d4+2 = 4, no save: undead are exempt
    b.make_attack(g, g.attack("claws"), s)
    assert "paralyzed" not in s.conditions and s.hp == s.max_hp - 4


def test_dryad_fey_charm_single_target_save_and_immunity_after_a_success():
    d, f = mon("dryad", (5, 2)), pc("fighter", 1, (2, 2), "f")
    b = arena(f, d, first="dryad")
    pick(b, "save_action", "Fey Charm")
    assert b.decision.kind == "target" and [o.data[0] for o in b.decision.options] == ["f"]
    script(b, 5)             # Wis 5+1 = 6 < DC 14
    pick(b, "target", "f")
    assert f.conditions["charmed"]["by"] == "dryad"
    d2, f2 = mon("dryad", (5, 2)), pc("fighter", 1, (2, 2), "f")
    b2 = arena(f2, d2, first="dryad")
    script(b2, 13)           # 13+1 = 14: success, and immune to this dryad's charm
    pick(b2, "save_action", "Fey Charm")
    pick(b2, "target", "f")
    assert "charmed" not in f2.conditions
    assert not b2.save_targets(d2, monster_action(d2, "fey-charm"))


def test_gibbering_mouther_spittle_is_a_point_placed_sphere_until_the_end_of_its_next_turn():
    m = mon("gibbering-mouther", (2, 2), "m")
    a, c = pc("fighter", 1, (5, 2), "a"), pc("fighter", 1, (5, 3), "c")
    b = arena(a, c, m, first="m")
    pick(b, "save_action", "Blinding Spittle")
    assert b.decision.kind == "point_x"
    pick(b, "point_x", "x = 5")
    script(b, 2, 20)         # a: Dex 2+1 < 13 fails; c: 20 succeeds (no damage, no condition)
    pick(b, "point_y", "Point (5, 3) (hits a, c)")
    assert "blinded" in a.conditions and "blinded" not in c.conditions
    assert not m.recharge["blinding-spittle"]
    b._end_of_turn_effects(m)          # the end of this turn: still blinded
    assert "blinded" in a.conditions
    b.round += 1
    b._end_of_turn_effects(m)          # the end of its next turn: over
    assert "blinded" not in a.conditions


def test_dust_mephit_blinding_breath_is_a_condition_only_cone_for_one_minute():
    m, f = mon("dust-mephit", (5, 2), "m"), pc("fighter", 1, (3, 2), "f")
    b = arena(f, m, first="m")
    pick(b, "save_action", "Blinding Breath")
    script(b, 2)             # Dex 2+1 < DC 10
    pick(b, "direction", "Toward W")
    cond = f.conditions["blinded"]
    assert f.hp == f.max_hp and cond["repeat"] == "dex" and cond["until_round"] == b.round + 10
    b.round = cond["until_round"]
    b.start_turn(f)
    assert "blinded" not in f.conditions


def test_dretch_fetid_cloud_emanation_once_a_day():
    d, f = mon("dretch", (3, 2), "d"), pc("fighter", 1, (2, 2), "f")
    far = pc("fighter", 1, (7, 6), "far")
    b = arena(f, far, d, first="d")
    script(b, 3)             # only f is within 10 ft: Con 3+4 = 7 < DC 11
    pick(b, "save_action", "Fetid Cloud")
    assert "poisoned" in f.conditions and "poisoned" not in far.conditions
    assert d.resources["uses:fetid-cloud"] == 0 and not b._save_action_options(d)


def _engine_save_monsters():
    return [(m.key, k) for m in content.monsters().values()
            for k in monster_combatant(m.key, "m", "enemies", (2, 2, 0)).save_actions]


@pytest.mark.parametrize("key,action", _engine_save_monsters())
def test_every_save_action_the_engine_runs_is_offered_and_resolves(key, action):
    m = mon(key, (2, 2), "m")
    n = m.squares
    a, c = pc("fighter", 5, (2 + n, 2), "a"), pc("fighter", 5, (2 + n, 3), "c")
    for f in (a, c):
        f.hp = f.max_hp = 500
    spec = monster_action(m, action)
    if spec.target_filter == "grappled_by_self":
        a.conditions["grappled"] = {"by": "m", "dc": 10}
    b = arena(a, c, m, layout=WIDE, first="m")
    pick(b, "save_action", spec.name)
    while b.decision and b.decision.actor == "m" and b.decision.kind != "action":
        b.choose(heuristic.choose(b))
    assert events(b, "save_action")[-1]["action"] == action


def test_the_report_counts_what_the_engine_runs():
    rows = {r.key: r for r in report.rows()}
    assert rows["dretch"].engine >= 1 and rows["gibbering-mouther"].engine >= 1
    assert all(r.engine <= r.executable for r in rows.values())


# ---------------------------------------------------------------- points: x, then y, then z
def test_point_z_is_chosen_when_a_creature_is_aloft_and_skipped_otherwise():
    m = mon("gibbering-mouther", (2, 2), "m")
    f = pc("fighter", 1, (4, 2), "f")
    f.pos, f.fly, f.hover = (4, 2, 10), 30, True   # flying 10 ft up (as if by a Fly spell)
    b = arena(f, m, layout=WIDE, first="m")
    pick(b, "save_action", "Blinding Spittle")
    pick(b, "point_x", "x = 5")
    pick(b, "point_y", "Point (5, 3)")
    assert b.decision.kind == "point_z"
    heights = [o.data[0] for o in b.decision.options]
    assert heights[0] == 0 and 10 in heights and heights == sorted(heights)
    assert f not in b.area_hits(m, ("save_action", "blinding-spittle"), (5, 3, 0))   # 5-ft radius
    assert f in b.area_hits(m, ("save_action", "blinding-spittle"), (5, 3, 10))
    script(b, 2)                                 # Dex 2+1 < 13
    pick(b, "point_z", "Height 10 ft")
    assert "blinded" in f.conditions
    # nobody aloft: only the ground is legal, and the point is complete after y
    m2, f2 = mon("gibbering-mouther", (2, 2), "m"), pc("fighter", 1, (4, 2), "f")
    b2 = arena(f2, m2, layout=WIDE, first="m")
    pick(b2, "save_action", "Blinding Spittle")
    pick(b2, "point_x", "x = 5")
    script(b2, 2)
    pick(b2, "point_y", "Point (5, 3)")
    assert b2.decision.kind != "point_z" and "blinded" in f2.conditions


def test_the_monster_coverage_page_is_current():
    """docs/dnd-monster-coverage.md is generated; it must say what the engine runs today."""
    page = Path(__file__).resolve().parent.parent / "docs" / "dnd-monster-coverage.md"
    assert page.read_text(encoding="utf-8") == report.markdown(report.rows()), (
        "docs/dnd-monster-coverage.md is stale: python -m dungeonbench_gym.dnd.verification.monster_report --markdown")
