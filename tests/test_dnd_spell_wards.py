"""Wards laid between fights (dnd/spell_wards.py): Glyph of Warding, Symbol and Magic Circle cast
in a Day-track intermission on the next fight's map, then that fight's triggers (SRD numbers)."""

from dungeonbench_gym.dnd import spell_wards as wards
from dungeonbench_gym.dnd.verification import spell_wards_probes as ward_probes
from dungeonbench_gym.dnd.advice.intermission import plan_intermission
from dungeonbench_gym.dnd.advice import spell_wards as wards_advice
from dungeonbench_gym.dnd.scenario import load_encounter
from dungeonbench_gym.dnd.spell_buffs import choose_day
from dnd_helpers import WIDE, arena, events, fighter, mon, pc, pick, script, turn


# ---------------------------------------------------------------- helpers
def _wizard(at=(1, 1)):
    return pc("wizard", 5, at, "caster")   # spell DC 14


def _walk_from_menu(b, square) -> None:
    """The mover has chosen Move: its destination square (opening the row's group when split)."""
    for _ in range(3):
        d = b.decision
        for i, o in enumerate(d.options):
            if o.kind == "destination" and tuple(o.data[0][:2]) == square:
                b.choose(i)
                return
        assert d.kind == "group", [o.label for o in d.options]
        b.choose(next(i for i, o in enumerate(d.options) if o.data == ("key", f"row y={square[1]}")))
    raise AssertionError(f"{square} not offered")


def _walk(b, c, square) -> None:
    """c's turn: it moves through its options to square."""
    turn(b, c.cid)
    pick(b, "move")
    _walk_from_menu(b, square)


def _damage(b, cid) -> list:
    return [e["amount"] for e in events(b, "damage") if e["creature"] == cid]


def _glyph_fight(level=3):
    caster, ally = _wizard(), fighter(5, (1, 10))
    a, c = mon("bugbear", (10, 5), "bugbear_a"), mon("bugbear", (9, 8), "bugbear_b")
    b = arena(caster, ally, a, c, layout=WIDE)
    w = wards.inscribe(b, "glyph-of-warding", caster, (8, 6), "fire", level)
    return b, caster, ally, a, c, w


# ---------------------------------------------------------------- Glyph of Warding
def test_the_glyph_goes_off_once_5d8_at_3rd_level_dex_for_half():
    b, caster, ally, a, c, w = _glyph_fight()
    assert sorted(w["cells"]) == [(7, 5), (7, 6), (8, 5), (8, 6)]   # the 10-ft glyph: 2x2 around the point
    turn(b, "bugbear_a")
    pick(b, "move")
    script(b, 3, 3, 3, 3, 3, 1, 19)   # 5d8 = 15; bugbear_a fails (1+2), bugbear_b saves (19+2) vs DC 14
    _walk_from_menu(b, (8, 5))
    assert _damage(b, "bugbear_a") == [15] and _damage(b, "bugbear_b") == [7]
    assert not b.wards and [e["text"] for e in events(b, "ward")] == ["bugbear_a sets off caster's glyph of warding"]
    assert not _damage(b, "caster") and not _damage(b, "fighter")   # 20 ft: the party far away is spared
    _walk(b, c, (7, 6))   # it is gone: a second foe on its squares sets nothing off
    assert len(events(b, "ward")) == 1 and _damage(b, "bugbear_b") == [7]


def test_a_4th_level_glyph_rolls_6d8():
    b, caster, ally, a, c, w = _glyph_fight(level=4)
    turn(b, "bugbear_a")
    pick(b, "move")
    script(b, 1, 2, 3, 4, 5, 6, 1, 1)   # 6d8 = 21, both fail
    _walk_from_menu(b, (8, 5))
    assert _damage(b, "bugbear_a") == [21] and _damage(b, "bugbear_b") == [21]


def test_the_casters_side_does_not_set_it_off_nor_does_a_flyer_above():
    b, caster, ally, a, c, w = _glyph_fight()
    ally.pos = (6, 5, 0)
    _walk(b, ally, (7, 5))
    assert b.wards and not events(b, "ward")
    a.fly, a.pos = 30, (10, 5, 10)   # aloft: it passes over without touching the glyph
    from dungeonbench_gym.dnd import spell_wards
    spell_wards.on_step(b, a)
    a.pos = (8, 5, 10)
    spell_wards.on_step(b, a)
    assert b.wards and not events(b, "ward")


# ---------------------------------------------------------------- Symbol
def test_symbol_targets_everyone_in_its_sphere_allies_too():
    caster, ally = _wizard((2, 2)), fighter(5, (3, 3))
    foe = mon("bugbear", (10, 5))
    b = arena(caster, ally, foe, layout=WIDE)
    wards.inscribe(b, "symbol", caster, (8, 6), "stunning", 7)
    turn(b, "bugbear")
    pick(b, "move")
    script(b, 1, 1, 1)   # Wis saves in id order: bugbear, caster, fighter: all fail
    _walk_from_menu(b, (8, 5))
    stunned = [e["creature"] for e in events(b, "condition") if e["condition"] == "stunned"]
    assert stunned == ["bugbear", "caster", "fighter"]   # the whole party too: everyone stunned, turns pass
    w = b.wards[0]
    assert w["state"] == "active" and w["until"] == 101   # 10 minutes from round 1: the rest of the fight
    assert b.creatures["caster"].conditions["stunned"] == {"by": w["id"], "spell": "symbol", "round": 1,
                                                          "until_round": 11}   # 1 minute, no repeat save


def test_symbol_of_death_rolls_10d10_once_con_for_half_and_strikes_at_each_turns_end():
    caster, foe = _wizard((1, 1)), mon("ogre", (10, 5))
    for o in (caster, foe):
        o.hp = o.max_hp = 500
    b = arena(caster, foe, layout=WIDE)
    wards.inscribe(b, "symbol", caster, (8, 6), "death", 7)
    turn(b, "ogre")
    pick(b, "move")
    script(b, *([5] * 10), 1, 20)   # 10d10 = 50 for all; the caster fails its Con save, the ogre saves (half)
    _walk_from_menu(b, (8, 4))
    assert _damage(b, "caster") == [50] and _damage(b, "ogre") == [25]
    script(b, *([1] * 10), 1)   # the ogre ends its turn in the glow: targeted again, 10 necrotic
    pick(b, "end_turn")
    assert _damage(b, "ogre") == [25, 10]


def test_symbols_of_fear_and_hopelessness():
    caster, ally = _wizard((12, 2)), fighter(5, (3, 3))
    foe = mon("bugbear", (10, 8))
    b = arena(caster, ally, foe, layout=WIDE)
    wards.inscribe(b, "symbol", caster, (8, 6), "fear", 7)
    turn(b, "bugbear")
    pick(b, "move")
    script(b, 1, 20, 20)   # the bugbear fails its Wis save, the caster and the fighter save
    _walk_from_menu(b, (8, 6))
    fear = foe.conditions["frightened"]
    assert fear["attack_dis"] and fear["until_round"] == b.round + 10 and "frightened" not in ally.conditions
    turn(b, "bugbear")
    foe.pos = (9, 7, 0)
    b.forget_reach()
    pick(b, "move")
    from dungeonbench_gym.dnd.grid import box_distance_ft

    def to_glyph(x, y):
        return box_distance_ft(x, y, 1, 0, 7, 5, 2, 0)
    dests = [o.data[0] for o in b.visible_options() if o.kind == "destination"]
    assert dests and all(to_glyph(x, y) >= to_glyph(9, 7) for x, y, _ in dests)
    assert len(dests) < len(b.reach(foe).destinations) - 1   # closer squares are left out
    hero = fighter(5, (8, 7))
    b2 = arena(_wizard((12, 2)), hero, mon("bugbear", (10, 8)), layout=WIDE)
    wards.inscribe(b2, "symbol", b2.creatures["caster"], (8, 6), "hopelessness", 7)
    turn(b2, "bugbear")
    pick(b2, "move")
    script(b2, 1, 20, 20)   # the bugbear despairs
    _walk_from_menu(b2, (8, 6))
    bug = b2.creatures["bugbear"]
    assert "hopeless" in bug.conditions and b2.distance(bug, hero) == 5
    assert not b2.targets_for_attack(bug, bug.attacks[0]) and not any(o.kind == "attack" for o in b2.decision.options)


def test_symbols_of_sleep_and_insanity():
    caster, foe = _wizard((12, 2)), mon("bugbear", (10, 8))
    b = arena(caster, foe, layout=WIDE)
    wards.inscribe(b, "symbol", caster, (8, 6), "sleep", 7)
    turn(b, "bugbear")
    pick(b, "move")
    script(b, 1, 20)   # the bugbear falls asleep (10 minutes), prone; the caster saves
    _walk_from_menu(b, (8, 6))
    assert foe.conditions["unconscious"]["asleep"] and foe.conditions["unconscious"]["until_round"] == 101
    assert "prone" in foe.conditions and foe.incapacitated
    b.damage(foe, 1, "fire")   # damage wakes it
    assert "unconscious" not in foe.conditions
    caster2, mad = _wizard((12, 2)), mon("bugbear", (10, 8))
    b = arena(caster2, mad, layout=WIDE)
    wards.inscribe(b, "symbol", caster2, (8, 6), "insanity", 7)
    turn(b, "bugbear")
    pick(b, "move")
    script(b, 1, 20)   # Int saves: the bugbear goes mad, the caster keeps its wits
    _walk_from_menu(b, (8, 6))
    assert mad.conditions["incapacitated"]["insane"]
    mad.pos = (3, 2, 0)
    script(b, 7)   # its turn: 1d8 = 7, east; it staggers its 30 ft and takes no action
    turn(b, "bugbear")
    assert mad.pos[:2] == (9, 2) and b.decision.actor != "bugbear"


# ---------------------------------------------------------------- Magic Circle
def _circle_fight():
    hero, skel = fighter(5, (5, 5)), mon("skeleton", (9, 5))
    b = arena(hero, skel, layout=WIDE)
    w = wards.inscribe(b, "magic-circle", hero, (6, 6), ("undead",))
    turn(b, "skeleton")
    return b, hero, skel, w


def test_magic_circle_keeps_undead_out_and_they_attack_inside_at_disadvantage():
    b, hero, skel, w = _circle_fight()
    inside = wards._circle_cells(b, w)
    assert (5, 5) in inside and len(inside) > 4
    dests = {tuple(p[:2]) for p in b.reach(skel).destinations}
    assert len(dests) > 1 and not dests & inside
    bow = next(a for a in skel.attacks if not a.melee)
    _, dis, why = b.attack_modifiers(skel, hero, False, bow)
    assert dis and "target in a magic circle" in why
    hero.pos = (1, 1, 0)   # out of the circle: no disadvantage
    assert "target in a magic circle" not in b.attack_modifiers(skel, hero, False, bow)[2]
    b.wards = []   # without the circle the skeleton may walk in
    b.forget_reach()
    assert {tuple(p[:2]) for p in b.reach(skel).destinations} & inside


def test_a_circle_against_another_type_changes_nothing_for_undead():
    hero, skel = fighter(5, (5, 5)), mon("skeleton", (9, 5))
    b = arena(hero, skel, layout=WIDE)
    w = wards.inscribe(b, "magic-circle", hero, (6, 6), ("fiend",))
    turn(b, "skeleton")
    assert {tuple(p[:2]) for p in b.reach(skel).destinations} & wards._circle_cells(b, w)


def test_magic_circle_blocks_the_ghosts_possession_of_someone_inside():
    hero, ghost = fighter(5, (5, 5)), mon("ghost", (8, 5))
    b = arena(hero, ghost, layout=WIDE)
    ghost.pos = (8, 5, 0)
    turn(b, "ghost")
    ghost.pos = (4, 4, 0)   # beside the hero, just outside the circle (its corner square)
    assert any(o.data[0] == "possession" for o in b._save_action_options(ghost))
    wards.inscribe(b, "magic-circle", hero, (6, 6), ("undead",))
    assert wards._inside(b, b.wards[0], hero) and not wards._inside(b, b.wards[0], ghost)
    assert not any(o.data[0] == "possession" for o in b._save_action_options(ghost))
    b.save_condition(ghost, hero, "frightened", "wis", 13, (10, None, None))   # its Horrifying Visage's fear
    assert "frightened" not in hero.conditions


def test_a_teleport_into_the_circle_needs_a_charisma_save():
    hero, dog = fighter(5, (5, 5)), mon("blink-dog", (10, 5))
    b = arena(hero, dog, layout=WIDE)
    wards.inscribe(b, "magic-circle", hero, (6, 6), ("fey",))
    script(b, 1)   # the Cha save fails: it stays where it is
    assert wards.teleport_dest(b, dog, (6, 5, 0)) == (10, 5, 0)
    script(b, 20)
    assert wards.teleport_dest(b, dog, (6, 5, 0)) == (6, 5, 0)
    assert wards.teleport_dest(b, dog, (12, 5, 0)) == (12, 5, 0)   # outside: no save


# ---------------------------------------------------------------- between fights (the Day track)
def test_the_gold_is_consumed_and_nothing_is_offered_without_it():
    run = ward_probes.probe_run("glyph-of-warding")
    cleric = run.party["cleric"]
    cleric.resources["gp"] = 199
    run._menu = None
    assert not any(o.kind == "ward_cast" and o.data[1] == "glyph-of-warding" for o in run._options())
    assert any(o.kind == "ward_cast" and o.data[1] == "magic-circle" for o in run._options())   # 100 gp: yes
    cleric.resources["gp"] = 200
    run._menu = None
    slots = sum(cleric.resources["slots"])
    ward_probes.cast(run, "glyph-of-warding", (8, 3), "fire")
    assert cleric.resources["gp"] == 0 and sum(cleric.resources["slots"]) == slots - 1
    run2 = ward_probes.probe_run("symbol")
    run2.party["cleric"].resources["gp"] = 999
    assert not any(o.kind == "ward_cast" and o.data[1] == "symbol" for o in run2._options())
    run2.party["cleric"].resources["gp"] = 1000
    run2._menu = None
    assert [o.data[2] for o in run2._options() if o.kind == "ward_cast" and o.data[1] == "symbol"] == [7]


def test_placement_is_x_then_y_on_floor_squares_the_party_can_reach():
    run = ward_probes.probe_run("glyph-of-warding")
    assert choose_day(run, lambda o: o.kind == "ward_cast" and o.data[2] == 3)
    d = run.decision
    assert d.kind == "point_x" and d.actor == "cleric" and all(o.kind == "point_x" for o in d.options)
    floor, points = wards.places(run)
    m = run.current.scenario.battle_map()
    assert floor and all(m.fits(x, y) for x, y in floor)
    assert all(cells and set(cells) <= floor for cells in points.values())
    assert (0, 0) not in points and (6, 1) in points and points[(6, 1)] == ((5, 1),)   # walls all round
    xs = [o.data[0] for o in d.options]
    assert xs == sorted({p[0] for p in points})
    run.choose(xs.index(6))
    d = run.decision
    assert d.kind == "point_y" and [o.data[0] for o in d.options] == sorted(p[1] for p in points if p[0] == 6)
    assert "glyph on (5, 1)" in d.options[0].label
    run.choose(0)
    assert run.decision.kind == "intermission" and [o.data[0] for o in run.decision.options] == list(wards.ENERGY)


def test_more_options_than_slots_are_split_into_ranges_never_cut():
    run = ward_probes.probe_run("glyph-of-warding")
    run.max_options = 3
    assert choose_day(run, lambda o: o.kind == "ward_cast" and o.data[2] == 3)
    full = wards.pending_options(run)   # 16 x coordinates: ranges of 9, then of 3
    d = run.decision
    spans = [o.data for o in d.options]
    assert d.kind == "group" and len(spans) <= 3 < len(full)
    assert spans[0][0] == 0 and spans[-1][1] == len(full) and all(p[1] == q[0] for p, q in zip(spans, spans[1:]))
    run.choose(len(spans) - 1)
    while run.decision.options[0].kind == "ward_span":
        run.choose(len(run.decision.options) - 1)
    assert run.decision.kind == "point_x" and run.decision.options[-1].data == full[-1].data
    run = ward_probes.probe_run("glyph-of-warding")   # the baseline finds its way through the ranges
    run.max_options = 3
    assert choose_day(run, lambda o: o.kind == "ward_cast" and o.data[2] == 3)
    while "_ward_pending" in run.__dict__:
        assert len(run.decision.options) <= 3
        run.choose(plan_intermission(run))
    assert tuple(run.__dict__["_wards"][0]["point"]) == wards_advice._glyph_point(run)


def test_the_circle_ends_with_its_fight_and_fades_with_a_short_rest():
    run = ward_probes.probe_run("magic-circle")
    ward_probes.cast(run, "magic-circle", wards_advice._circle_point(run), ("undead",))
    ward_probes.go_on(run)
    assert run.battle.wards and run.battle.wards[0]["kind"] == ["undead"]
    for o in run.battle.creatures.values():   # the skeletons fall: the fight is won
        if o.side == "enemies":
            run.battle.die(o, "test")
    run.battle.check_outcome()
    run._after_choice()
    assert run.phase == "intermission"
    ward_probes.go_on(run)
    assert not run.battle.wards and "_wards" not in run.__dict__
    for level, kept in ((3, False), (4, True)):   # an hour, one more per slot level above 3rd
        run = ward_probes.probe_run("magic-circle")
        ward_probes.cast(run, "magic-circle", wards_advice._circle_point(run), ("undead",), level=level)
        assert choose_day(run, lambda o: o.kind == "short_rest")
        assert choose_day(run, lambda o: o.kind == "finish_rest")
        ward_probes.go_on(run)
        assert bool(run.battle.wards) == kept


def test_the_baseline_rings_the_party_against_undead_then_glyphs_the_foes_way_in():
    run = ward_probes.probe_run("glyph-of-warding")   # a 5th-level cleric knows Magic Circle too
    for _ in range(12):
        if run.phase == "battle":
            break
        run.choose(plan_intermission(run))
    laid = {w["spell"]: w for w in run.battle.wards}
    assert set(laid) == {"magic-circle", "glyph-of-warding"}
    assert laid["magic-circle"]["kind"] == ["undead"] and wards._inside(run.battle, laid["magic-circle"],
                                                                        run.battle.creatures["fighter"])
    g = laid["glyph-of-warding"]
    from dungeonbench_gym.dnd import areas
    blast = areas.sphere(g["point"], 20, run.battle.map)
    assert not any(areas.affects(blast, run.battle.map, c.cells, c.pos[2]) for c in run.battle.creatures.values()
                   if c.side == "party")
    assert g["kind"] == "fire"   # skeletons resist nothing but are not fire-immune


def test_the_encounter_track_has_no_wards():
    b = load_encounter("skeleton_crypt").build(0)
    assert not b.wards and b.to_dict()["zones"] == []
