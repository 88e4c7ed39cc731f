"""Monsters' own traits and actions (dnd/monster_traits/: one module per trait family) and swimming."""

from dnd_helpers import (
    WIDE,
    arena,
    events,
    fighter,
    kinds,
    labels,
    mon,
    pc,
    pick,
    script,
    turn,
)

from dungeonbench_gym.dnd import heuristic
from dungeonbench_gym.dnd.grid import BattleMap
from dungeonbench_gym.dnd.verification import coverage

POOL = ["#" * 12] + ["#" + "~~~~~~" + "...." + "#"] * 6 + ["#" * 12]


def _first(b, kind):
    return next(i for i, o in enumerate(b.decision.options) if o.kind == kind)


# ---------------------------------------------------------------- swimming
def test_a_swimmer_uses_its_swim_speed_in_water_and_pays_no_extra():
    hag, f = mon("sea-hag", (2, 2), "hag"), fighter(at=(9, 5))
    b = arena(hag, f, layout=POOL, first="hag")
    assert hag.resources["swim"] == 40 and b.speed(hag) == 40 and hag.economy.movement == 40
    r = b.reach(hag)
    assert r.costs[(4, 2, 0)] == 10   # two water squares at 5 ft each
    hag.pos = (8, 2, 0)   # on dry land: its walking speed
    assert b.speed(hag) == 30


def test_a_walker_pays_double_in_water():
    f, g = fighter(at=(2, 2)), mon("goblin", (9, 6), "g")
    b = arena(f, g, layout=POOL, first="fighter")
    assert "swim" not in f.resources and b.speed(f) == 30
    assert b.reach(f).costs[(4, 2, 0)] == 20
    assert BattleMap.from_dict({"layout": POOL}).is_water(2, 2)


# ---------------------------------------------------------------- golems
def test_berserk_golem_attacks_only_the_nearest_creature_even_an_ally():
    g, ally, f = mon("clay-golem", (3, 3), "g"), mon("goblin", (5, 3), "ally"), fighter(at=(3, 6))
    f.pos = (2, 5, 0)
    g.hp = 60
    b = arena(g, ally, f, layout=WIDE)
    script(b, 6, *[1] * 40)
    turn(b, "g")
    assert "berserk" in g.conditions and g.side == "berserk" and events(b, "berserk")
    ally.pos, f.pos = (5, 3, 0), (7, 7, 0)   # the goblin is the nearest now
    b.open_menu(g)
    assert not any(k in kinds(b) for k in ("dodge", "disengage", "help"))
    pick(b, "attack", "Slam")
    assert [o.data[0] for o in b.decision.options] == ["ally"]
    g.hp = g.max_hp
    b.round += 1
    b.start_turn(g)
    assert "berserk" not in g.conditions and g.side == "enemies"


def test_berserk_needs_a_six_and_low_hit_points():
    g, f = mon("flesh-golem", (2, 2), "g"), fighter(at=(4, 2))
    g.hp = 41
    b = arena(g, f)
    script(b, 6, 6)
    b.start_turn(g)
    assert "berserk" not in g.conditions   # above 40 HP: no roll
    g.hp = 40
    b.start_turn(g)
    assert "berserk" in g.conditions


def test_aversion_of_fire_gives_disadvantage_until_the_end_of_its_next_turn():
    g, f = mon("flesh-golem", (2, 2), "g"), fighter(at=(4, 2))
    b = arena(g, f, first="fighter")
    b.damage(g, 6, "fire", source="fighter")
    assert b.attack_modifiers(g, f, True)[1]
    b._end_of_turn_effects(f)
    assert "fire_aversion" in g.conditions
    turn(b, "g")
    b._end_of_turn_effects(g)
    assert "fire_aversion" not in g.conditions and not b.attack_modifiers(g, f, True)[1]


def test_acid_heals_a_clay_golem():
    g, f = mon("clay-golem", (2, 2), "g"), fighter(at=(4, 2))
    b = arena(g, f)
    g.hp = 100
    b.damage(g, 12, "acid", source="fighter")
    assert g.hp == 112


def test_clay_golem_haste_raises_ac_and_gives_a_bonus_slam():
    g, f = mon("clay-golem", (2, 2), "g"), fighter(at=(4, 2))
    f.hp = f.max_hp = 500
    b = arena(g, f, first="g")
    ac = b.armour_class(g)
    pick(b, "ms_haste")
    assert b.armour_class(g) == ac + 2 and g.recharge["haste"] is False
    assert "ms_haste" not in kinds(b)
    pick(b, "ms_haste_slam")
    pick(b, "target")
    assert events(b, "attack")[-1]["attacker"] == "g" and not g.economy.bonus
    script(b, 3, 17)
    assert b.saving_throw(g, "dex", 10)   # advantage on Dex saves: the 17 counts


# ---------------------------------------------------------------- corrosion
def _hit_until(b, att, t, weapon_key, n=1):
    hits = 0
    for _ in range(300):
        a = next((a for a in att.attacks if a.key == weapon_key), None)
        if a is None:
            return hits
        att.economy.reaction = True
        if b.make_attack(att, a, t, melee=True):
            hits += 1
            if hits >= n:
                return hits
    return hits


def test_rust_metal_corrodes_a_longsword_until_it_is_gone():
    rm, f = mon("rust-monster", (2, 2), "rm"), fighter(at=(3, 2))
    rm.hp = rm.max_hp = 10 ** 6
    b = arena(rm, f)
    base = f.attack("longsword").damage[0].dice
    _hit_until(b, f, rm, "longsword")
    assert f.resources["corroded"]["longsword"] == 1 and f.attack("longsword").damage[0].dice != base
    _hit_until(b, f, rm, "longsword", 4)
    assert all(a.key != "longsword" for a in f.attacks) and events(b, "corrode")


def test_a_club_is_safe_from_rust_but_not_from_a_black_pudding():
    rm, a = mon("rust-monster", (2, 2), "rm"), mon("acolyte", (3, 2), "a")
    a.side = "party"
    rm.hp = rm.max_hp = 10 ** 6
    b = arena(rm, a)
    _hit_until(b, a, rm, "club")
    assert not a.resources.get("corroded")
    p, a = mon("black-pudding", (2, 2), "p"), mon("acolyte", (4, 2), "a")
    a.side = "party"
    p.hp = p.max_hp = 10 ** 6
    a.hp = a.max_hp = 10 ** 6
    b = arena(p, a)
    _hit_until(b, a, p, "club")
    assert a.resources["corroded"]["club"] == 1
    assert any(e.get("type") == "acid" and e["creature"] == "a" for e in events(b, "damage"))   # Corrosive Form


def test_gray_ooze_pseudopod_corrodes_metal_armour():
    o, f = mon("gray-ooze", (2, 2), "o"), fighter(at=(3, 2))
    f.hp = f.max_hp = 10 ** 6
    b = arena(o, f)
    ac = f.ac
    _hit_until(b, o, f, "pseudopod")
    assert f.ac == ac - 1 and f.resources["armor_corroded"] == 1


def test_rust_monster_antennae_corrode_armour_on_a_failed_dex_save():
    rm, f = mon("rust-monster", (2, 2), "rm"), fighter(at=(3, 2))
    b = arena(rm, f, first="rm")
    ac = f.ac
    pick(b, "ms_antennae")
    script(b, 1)   # the Dex save fails
    pick(b, "target")
    assert f.ac == ac - 1 and events(b, "antennae")


# ---------------------------------------------------------------- fire elemental
def test_fire_elemental_touch_ignites_and_dousing_ends_it():
    e, f = mon("fire-elemental", (2, 2), "e"), fighter(at=(3, 2))
    f.hp = f.max_hp = 500
    b = arena(e, f)
    _hit_until(b, e, f, "touch")
    assert "burning" in f.conditions
    hp = f.hp
    turn(b, "fighter")
    assert f.hp < hp   # burned at the start of its turn
    pick(b, "ms_douse")
    assert "burning" not in f.conditions


def test_fire_form_burns_whoever_it_sweeps_through_and_water_hurts_it():
    e, f = mon("fire-elemental", (5, 2), "e"), fighter(at=(3, 2))
    f.hp = f.max_hp = 500
    b = arena(e, f, layout=POOL, first="e")
    assert "enters_foes" in e.features
    b.enter_hazards(e, (3, 2, 0))
    assert "burning" in f.conditions and events(b, "fire_form")
    hp = e.hp
    b.enter_hazards(e, (2, 4, 0))   # a step in water
    assert e.hp == hp - 1
    hp = f.hp
    b.enter_hazards(e, (3, 2, 0))   # once a turn per creature
    assert f.hp == hp


# ---------------------------------------------------------------- sea hag
def test_horrific_appearance_frightens_and_death_glare_drops_to_zero():
    hag, f = mon("sea-hag", (2, 2), "hag"), fighter(at=(4, 2))
    b = arena(hag, f)
    f.resources["immune_to"], f.conditions = (), {}   # whatever its first turn brought
    script(b, *[1] * 60)
    turn(b, "fighter")
    assert "frightened" in f.conditions and events(b, "horrific_appearance")
    turn(b, "hag")
    pick(b, "ms_glare")
    script(b, 1)
    pick(b, "target")
    assert f.hp == 0


def test_death_glare_needs_a_frightened_target():
    hag, f = mon("sea-hag", (2, 2), "hag"), fighter(at=(4, 2))
    f.resources["immune_to"] = ("hag:horrific",)
    b = arena(hag, f, first="hag")
    assert "ms_glare" not in kinds(b)


# ---------------------------------------------------------------- shapechangers, the kiss
def test_true_form_attacks_are_used():
    assert mon("night-hag", (2, 2)).attack("claws").to_hit == 7
    assert mon("oni", (2, 2)).attack("claw").to_hit == 7
    assert mon("succubus-incubus", (2, 2)).attack("claw").to_hit == 5


def test_draining_kiss_lowers_the_hit_point_maximum():
    s, f = mon("succubus-incubus", (2, 2), "s"), fighter(5, at=(3, 2))
    f.hp = f.max_hp = 200
    b = arena(s, f, first="s")
    assert "ms_kiss" not in kinds(b)   # only a creature it has charmed
    f.conditions["charmed"] = {"by": "s"}
    b.open_menu(s)
    pick(b, "ms_kiss")
    pick(b, "target")
    lost = 200 - f.hp
    assert lost > 0 and f.max_hp == 200 - lost


# ---------------------------------------------------------------- duergar
def test_duergar_enlarge_and_invisibility_once_each():
    d, f = mon("duergar", (2, 2), "d"), fighter(at=(6, 2))
    b = arena(d, f, first="d")
    pick(b, "ms_invisibility")
    assert "invisible" in d.conditions and "ms_invisibility" not in kinds(b)
    d.economy.actions = 1
    b.open_menu(d)
    pick(b, "ms_enlarge")
    assert d.size == "large" and d.attack("war-pick").damage[0].dice == "2d8+2"
    assert "invisible" not in d.conditions   # Enlarge ends Invisibility
    d.economy.actions = 1
    b.open_menu(d)
    assert "ms_enlarge" not in kinds(b)
    b.round += 11
    b.start_turn(d)
    assert d.size == "medium" and d.attack("war-pick").damage[0].dice == "1d8+2"


def test_duergar_resilience_gives_advantage_against_poison():
    d, f = mon("duergar", (2, 2), "d"), fighter(at=(6, 2))
    b = arena(d, f)
    script(b, 2, 19)
    assert b.saving_throw(d, "con", 12, condition="poisoned")   # the better of 2 and 19


# ---------------------------------------------------------------- guardian naga
def test_guardian_naga_spit_poison():
    n, f = mon("guardian-naga", (2, 2), "n"), fighter(at=(5, 2))
    f.hp = f.max_hp = 500
    b = arena(n, f, first="n")
    a = n.attack("spit-poison")
    assert a.range_normal == 15 and not a.damage
    _hit_until(b, n, f, "spit-poison")
    assert any(e.get("type") == "poison" for e in events(b, "damage"))


# ---------------------------------------------------------------- legendary actions
def _legendary(b, key):
    pick(b, "end_turn")
    assert b.decision.kind == "legendary"
    pick(b, "legendary", key)


def test_aboleth_psychic_drain_heals_it():
    a, f = mon("aboleth", (2, 2), "ab"), fighter(5, at=(5, 2))
    f.hp = f.max_hp = 500
    a.hp = 50
    b = arena(a, f, layout=WIDE, first="fighter")
    pick(b, "end_turn")
    assert not any("psychic-drain" in x for x in labels(b))
    f.conditions["charmed"] = {"by": "ab"}
    turn(b, "fighter")
    _legendary(b, "psychic-drain")
    pick(b, "target")
    assert f.hp < 500 and a.hp == 50 + (500 - f.hp)


def test_mummy_lord_negative_energy_blocks_healing():
    m, f = mon("mummy-lord", (2, 2), "m"), fighter(at=(5, 2))
    b = arena(m, f, first="fighter")
    _legendary(b, "channel-negative-energy")
    f.hp = 1
    assert b.heal(f, 5, "test") == 0
    assert any(x[0] == "whirlwind-of-sand" and x[2] == "move" for x in m.legendary)


def test_unicorn_shimmering_shield():
    u, f = mon("unicorn", (2, 2), "u"), fighter(at=(5, 2))
    b = arena(u, f, first="fighter")
    ac = b.armour_class(u)
    _legendary(b, "shimmering-shield")
    pick(b, "target", "on u")
    assert b.armour_class(u) == ac + 2


# ---------------------------------------------------------------- cloaker, solar, shield guardian
def test_cloaker_phantasms_take_attacks():
    c, f = mon("cloaker", (2, 2), "c"), fighter(at=(3, 2))
    b = arena(c, f, first="c")
    pick(b, "ms_phantasms")
    assert c.conditions["phantasms"]["images"] == 3 and c.concentration == "phantasms"
    script(b, 2, 20)   # a duplicate is picked (2 of 1-4) and hit
    assert b.make_attack(f, f.attack("longsword"), c, melee=True) is False
    assert c.conditions["phantasms"]["images"] == 2


def test_solar_flying_sword():
    s, f = mon("solar", (2, 2), "s"), fighter(at=(9, 6))
    f.hp = f.max_hp = 1000
    b = arena(s, f, layout=WIDE, first="s")
    pick(b, "ms_release_sword")
    assert not any(o.kind == "attack" and o.data[0] == "greatsword" for o in b.decision.options)
    assert "multiattack" not in kinds(b)
    pick(b, "ms_sword_attack")
    pick(b, "target")
    assert events(b, "attack")[-1]["attack"] == "greatsword" and not s.economy.bonus


def test_shield_guardian_bound_and_shield():
    g, w, f = mon("shield-guardian", (2, 2), "g"), pc("wizard", 5, (4, 2), "w"), fighter(5, at=(5, 2))
    w.side = g.side
    w.hp = w.max_hp = 100
    b = arena(g, w, f)
    assert w.resources["amulet_of"] == "g"
    hp = g.hp
    b.damage(w, 9, "force", source="fighter")
    assert w.hp == 96 and g.hp == hp - 5
    ac = b.armour_class(w)
    b.make_attack(f, f.attack("longsword"), w, melee=True)
    assert events(b, "guardian_shield") and events(b, "attack")[-1]["ac"] == ac + 2


# ---------------------------------------------------------------- harpy, mouther, sphinx
def test_luring_song_draws_the_charmed_and_ends_unsung():
    h, f = mon("harpy", (2, 2), "h"), fighter(at=(10, 8))
    b = arena(h, f, layout=WIDE, first="h")
    script(b, 1)   # the Wis save fails
    pick(b, "ms_song")
    assert "charmed" in f.conditions and "incapacitated" in f.conditions
    d = b.distance(h, f)
    script(b, *[1] * 10)   # its repeat save fails too
    pick(b, "end_turn")   # the fighter's turn passes: it walks toward the harpy
    assert b.distance(h, f) < d and b.decision.actor == "h" and b.round == 2
    assert "ms_sing" in kinds(b)
    pick(b, "end_turn")   # not kept up: the song ends
    assert "charmed" not in f.conditions and events(b, "luring_song_end")


def test_gibbering_leaves_nothing_to_do_on_a_low_roll():
    m, f = mon("gibbering-mouther", (2, 2), "m"), fighter(at=(4, 2))
    b = arena(m, f)
    script(b, 1, 1, 3, *[10] * 10)   # Str save fails, Wis save fails, d8 = 3
    turn(b, "fighter")
    assert kinds(b) == ["end_turn"] and f.economy.movement == 0 and not f.economy.reaction


def test_gibbering_seven_forces_one_attack():
    m, f = mon("gibbering-mouther", (2, 2), "m"), fighter(at=(3, 2))
    b = arena(m, f)
    script(b, 20, 1, 8, 1, *[1] * 20)   # Str save ok, Wis save fails, d8 = 8, the only creature; a miss
    turn(b, "fighter")
    assert kinds(b) == ["ms_gibber_attack", "end_turn"]
    pick(b, "ms_gibber_attack")
    assert events(b, "attack")[-1]["target"] == "m" and kinds(b) == ["end_turn"]


def test_androsphinx_three_roars_in_turn():
    s, f = mon("androsphinx", (2, 2), "s"), fighter(5, at=(9, 6))
    f.hp = f.max_hp = 500
    b = arena(s, f, layout=WIDE, first="s")
    script(b, 1)
    pick(b, "ms_roar", "Roar #1")
    assert "frightened" in f.conditions
    f.conditions.clear()
    s.economy.actions = 1
    b.open_menu(s)
    script(b, 1)
    pick(b, "ms_roar", "Roar #2")
    assert {"deafened", "frightened", "paralyzed"} <= set(f.conditions)
    f.conditions.clear()
    s.economy.actions = 1
    b.open_menu(s)
    script(b, *[5] * 12)
    pick(b, "ms_roar", "Roar #3")
    assert f.hp < 500
    s.economy.actions = 1
    b.open_menu(s)
    assert "ms_roar" not in kinds(b)


# ---------------------------------------------------------------- coverage and play
def test_these_monsters_are_executable_and_probe():
    rows = {r["key"]: r for r in coverage.monster_coverage()}
    for key in ("black-pudding", "clay-golem", "cloaker", "duergar", "fire-elemental", "flesh-golem",
                "gibbering-mouther", "gray-ooze", "harpy", "rust-monster", "sea-hag", "shield-guardian",
                "succubus-incubus"):
        assert rows[key]["status"] == "executable", (key, rows[key]["reason"])
        coverage.probe_monster(key)


def test_heuristic_plays_the_special_monsters_to_the_end():
    for key in ("clay-golem", "harpy", "gibbering-mouther", "sea-hag", "solar", "duergar"):
        m, a, c = mon(key, (2, 2), "m"), fighter(3, at=(9, 6), cid="a"), pc("cleric", 3, (10, 7), "c")
        b = arena(m, a, c, layout=WIDE)
        for _ in range(3000):
            if b.outcome is not None:
                break
            b.choose(heuristic.choose(b))
        assert b.outcome is not None, key



# ---------------------------------------------------------------- the baseline policy
def _heuristic_pick(b):
    return b.decision.options[heuristic.choose(b)]


def test_heuristic_knight_leads_with_allies_near():
    k, g1, g2, f = mon("knight", (2, 2), "k"), mon("guard", (2, 4), "g1"), mon("guard", (4, 4), "g2"), \
        fighter(at=(8, 6))
    b = arena(k, g1, g2, f, first="k")
    assert _heuristic_pick(b).kind == "leadership"
    k2, f2 = mon("knight", (2, 2), "k"), fighter(at=(8, 6))
    b2 = arena(k2, f2, first="k")
    assert _heuristic_pick(b2).kind != "leadership"   # no allies to lead


def test_heuristic_priest_divine_eminence_before_melee():
    p, f = mon("priest", (2, 2), "p"), fighter(at=(3, 2))
    f.hp = f.max_hp = 200
    b = arena(p, f, first="p")
    assert _heuristic_pick(b).kind == "divine_eminence"


def test_heuristic_wraith_raises_a_specter_and_wisp_consumes_life():
    w, f, g = mon("wraith", (2, 2), "w"), fighter(at=(3, 2)), fighter(at=(6, 6), cid="g")
    b = arena(w, f, g)
    b.die(f, "test")
    turn(b, "w")
    assert _heuristic_pick(b).kind == "create_specter"
    o, f2, g2 = mon("will-o-wisp", (2, 2), "o"), fighter(at=(3, 2)), fighter(at=(6, 6), cid="g")
    b2 = arena(o, f2, g2)
    f2.hp = 0
    f2.conditions["unconscious"] = {}
    turn(b2, "o")
    assert _heuristic_pick(b2).kind == "consume_life"


def test_heuristic_vampire_calls_its_children_when_no_foe_is_in_reach():
    v, f = mon("vampire-vampire", (2, 2), "v"), fighter(at=(9, 6))
    b = arena(v, f, layout=WIDE, first="v")
    assert _heuristic_pick(b).kind == "children_of_the_night"


def test_heuristic_harpy_sings_and_keeps_singing():
    h, f = mon("harpy", (2, 2), "h"), fighter(at=(10, 8))
    b = arena(h, f, layout=WIDE, first="h")
    assert _heuristic_pick(b).kind == "ms_song"


# ---------------------------------------------------------------- gelatinous cube
def test_gelatinous_cube_engulfs_dissolves_and_can_be_escaped():
    cube, f, g = mon("gelatinous-cube", (2, 2), "cube"), fighter(5, at=(4, 2)), fighter(5, at=(4, 3), cid="g")
    f.hp = f.max_hp = g.hp = g.max_hp = 500
    b = arena(cube, f, g, layout=WIDE, first="cube")
    pick(b, "ms_engulf")
    script(b, 1, *[3] * 3)   # the Dex save fails; 3d6 acid
    pick(b, "target", "Engulf fighter")
    assert f.hp == 491 and f.conditions["swallowed"]["cube"] == "cube" and "restrained" in f.conditions
    assert f.pos == cube.pos and all(o.data[0] != "fighter" for o in b.decision.options if o.kind == "target")
    script(b, *[2] * 6, *[10] * 10)   # 6d6 acid at the start of the cube's turn
    b.round += 1
    b.start_turn(cube)
    assert f.hp == 479
    turn(b, "fighter")
    assert "ms_cube_escape" in kinds(b)
    script(b, 19)
    pick(b, "ms_cube_escape")
    assert "swallowed" not in f.conditions and "restrained" not in f.conditions and f.pos != cube.pos


def test_a_friend_pulls_a_creature_out_of_the_cube_and_gets_burned():
    cube, f, g = mon("gelatinous-cube", (2, 2), "cube"), fighter(5, at=(4, 2)), fighter(5, at=(4, 3), cid="g")
    f.hp = f.max_hp = g.hp = g.max_hp = 500
    b = arena(cube, f, g, layout=WIDE, first="cube")
    pick(b, "ms_engulf")
    script(b, 1, *[3] * 3)
    pick(b, "target", "Engulf fighter")
    turn(b, "g")
    pick(b, "ms_cube_pull")
    script(b, 19, 1, 1, 1)
    pick(b, "target")
    assert "swallowed" not in f.conditions and g.hp == 497


def test_only_one_large_creature_fits_in_a_cube():
    cube, o = mon("gelatinous-cube", (2, 2), "cube"), mon("ogre", (4, 2), "o")
    o.side = "party"
    b = arena(cube, o, layout=WIDE, first="cube")
    from dungeonbench_gym.dnd.monster_traits import gelatinous_cube
    assert gelatinous_cube._room_in_cube(b, cube, o)
    o.conditions["swallowed"] = {"by": "cube", "swallowed": True, "cube": "cube"}
    f = fighter(at=(4, 4))
    b.creatures["fighter"] = f
    assert not gelatinous_cube._room_in_cube(b, cube, f)


# ---------------------------------------------------------------- kraken, roper
BIG = ["#" * 30] + ["#" + "." * 28 + "#"] * 20 + ["#" * 30]


def test_kraken_flings_a_grappled_creature_into_a_wall():
    k, f = mon("kraken", (2, 2), "k"), fighter(5, at=(7, 3))
    f.hp = f.max_hp = 500
    b = arena(k, f, layout=BIG, first="k")
    f.conditions["grappled"] = {"by": "k", "dc": 18}
    f.conditions["restrained"] = {"by": "k", "dc": 18}
    b.open_menu(k)
    pick(b, "ms_fling")
    script(b, 7, *[4] * 10)   # east: 60 ft of open floor (no wall): no damage
    pick(b, "target")
    assert f.pos[:2] == (19, 3) and f.hp == 500 and "prone" in f.conditions and "grappled" not in f.conditions
    f.pos = (24, 3, 0)
    f.conditions = {"grappled": {"by": "k", "dc": 18}}
    k.economy.actions = 1
    b.open_menu(k)
    pick(b, "ms_fling")
    script(b, 7, *[4] * 10)   # east again: the wall after 20 ft: 2d6
    pick(b, "target")
    assert f.pos[:2] == (28, 3) and f.hp == 492


def test_kraken_freedom_of_movement_slips_a_grapple_and_magic_slowing():
    k, f = mon("kraken", (2, 2), "k"), fighter(5, at=(7, 3))
    b = arena(k, f, layout=BIG)
    k.conditions["grappled"] = {"by": "fighter", "dc": 12}
    k.conditions["slowed"] = {"by": "fighter", "spell": "ray-of-frost"}
    turn(b, "k")
    assert "grappled" not in k.conditions and "slowed" not in k.conditions
    assert k.economy.movement == b.speed(k) - 5 and "move" in kinds(b)


def test_roper_multiattack_tendrils_reel_then_bite():
    r, f = mon("roper", (2, 2), "r"), fighter(5, at=(9, 2))
    f.hp = f.max_hp = 500
    b = arena(r, f, layout=BIG, first="r")
    pick(b, "multiattack")
    script(b, 15, *[15] * 3, *[10] * 20)   # the first tendril hits
    pick(b, "attack", "Tendril")
    pick(b, "target")
    assert f.conditions["grappled"]["by"] == "r" and f.conditions["restrained"]["save_dis"] == ("str",)
    for _ in range(3):
        pick(b, "attack", "Tendril")
        pick(b, "target")
    assert "Bite" in " ".join(labels(b, "attack")) and b.distance(r, f) == 5 and events(b, "reel")
    pick(b, "attack", "Bite")
    pick(b, "target")
    assert not r.economy.attack_queue


def test_a_tendril_can_be_broken_with_a_strength_check():
    r, f = mon("roper", (2, 2), "r"), fighter(5, at=(3, 2))
    b = arena(r, f, first="fighter")
    f.conditions["grappled"] = {"by": "r", "dc": 15}
    f.conditions["restrained"] = {"by": "r", "dc": 15}
    b.open_menu(f)
    script(b, 18, 20)   # disadvantage: the 18 counts
    pick(b, "ms_break_tendril")
    assert "grappled" not in f.conditions and "restrained" not in f.conditions


# ---------------------------------------------------------------- tarrasque
def test_reflective_carapace_turns_aside_or_reflects_spells():
    from dungeonbench_gym.dnd.monster_traits import tarrasque
    from dungeonbench_gym.dnd.verification import monster_traits_probes as monster_probes
    t, w, f = mon("tarrasque", (2, 2), "t"), pc("wizard", 5, (12, 8), "w"), fighter(at=(12, 3))
    w.hp = w.max_hp = 100
    b = arena(t, w, f, layout=BIG)
    bolt = monster_probes._bolt(w)
    hp = t.hp
    script(b, 3)   # 1-5: unaffected
    assert b.make_attack(w, bolt, t, melee=False) is False and t.hp == hp
    script(b, 6, 20, 5, 5)   # 6: the bolt turns back at the wizard (a critical: 2d10)
    assert b.make_attack(w, bolt, t, melee=False) is True and t.hp == hp and w.hp == 90
    script(b, 6, 2)   # a Magic Missile dart reflected: 1d4+1 to the caster
    w.economy.reaction = False   # (its reaction spent: no Shield against its own dart)
    b._dart(w, t, 0)
    assert w.hp == 87 and t.hp == hp
    script(b, 6)   # a line spell: the caster is caught instead
    assert tarrasque.carapace_hits(b, w, "lightning-bolt", [t, f]) == [f, w]
    assert tarrasque.carapace_hits(b, w, "fireball", [t, f]) == [t, f]   # not a line: no roll


# ---------------------------------------------------------------- rakshasa
def test_rakshasa_limited_magic_immunity():
    r, w, f = mon("rakshasa", (2, 2), "r"), pc("wizard", 5, (4, 2), "w"), fighter(at=(6, 4))
    b = arena(r, w, f, first="w")
    assert r not in b.spell_targets(w, "magic-missile") and r not in b.spell_targets(w, "fire-bolt")
    from dungeonbench_gym.dnd.areas import DIRECTIONS_8
    assert all(r not in b.area_hits(w, ("spell", "burning-hands", 1), d) for d in DIRECTIONS_8)
    assert any(r in b.area_hits(w, ("spell", "burning-hands", 7), d) for d in DIRECTIONS_8)   # above 6th level
    ally = pc("cleric", 5, (3, 3), "ally")
    ally.side = r.side
    b.creatures["ally"] = ally
    r.hp = 10
    assert r in b.spell_targets(ally, "cure-wounds")   # it lets a friend's spell in
    script(b, 3, 15)
    assert b.saving_throw(r, "wis", 12, magic=True)   # advantage against other magic


def test_a_destroyed_weapon_leaves_the_multiattack_and_battle_intact():
    rm, h = mon("rust-monster", (2, 2), "rm"), mon("knight", (3, 2), "k")
    h.side = "party"
    rm.hp = rm.max_hp = 10 ** 6
    b = arena(rm, h)
    weapon = h.multiattack[0]
    _hit_until(b, h, rm, weapon, 5)
    assert all(a.key != weapon for a in h.attacks) and weapon not in h.multiattack
    turn(b, "k")
    for _ in range(20):   # the knight plays on without its sword
        if b.decision is None or b.decision.actor != "k":
            break
        b.choose(heuristic.choose(b))


def test_an_opportunity_attack_uses_a_weapon_that_reaches():
    r, f = mon("roper", (2, 2), "r"), fighter(at=(12, 2))
    f.hp = f.max_hp = 500
    b = arena(r, f, layout=BIG, first="fighter")   # 50 ft from the roper: only a tendril reaches
    script(b, *[10] * 30)
    pick(b, "move")
    pick(b, "group", "row y=2")
    pick(b, "destination", "(14, 2)")
    assert b.decision.kind == "reaction" and b.decision.actor == "r"
    assert "with tendril" in labels(b, "reaction")[0]   # not the bite, which reaches 5 ft
    pick(b, "reaction", "tendril")
    assert events(b, "attack")[-1]["attack"] == "tendril"


# ---------------------------------------------------------------- a legendary spell
def test_lich_casts_a_cantrip_as_a_legendary_action_then_play_goes_on():
    lich, f, g = mon("lich", (2, 2), "lich"), fighter(5, at=(8, 2)), fighter(5, at=(8, 6), cid="g")
    f.hp = f.max_hp = g.hp = g.max_hp = 500
    b = arena(lich, f, g, layout=WIDE)
    b.order = ["fighter", "g", "lich"]
    b.round, b.turn_index, b.outcome = 0, -1, None
    b.next_turn()
    pick(b, "end_turn")
    assert b.decision.kind == "legendary"
    left = lich.resources["legendary_left"]
    pick(b, "legendary", "cantrip")
    assert b.decision.actor == "lich" and b.active is lich
    assert all(o.kind == "ms_leg_done" or (o.kind == "spell" and o.data[1] == 0) for o in b.decision.options)
    pick(b, "spell")
    while b.decision.kind != "action":
        b.choose(heuristic.choose(b))
    assert events(b, "cast")[-1]["creature"] == "lich" and kinds(b) == ["ms_leg_done"]
    pick(b, "ms_leg_done")
    assert b.decision.actor == "g" and lich.resources["legendary_left"] == left - 1   # g's turn, as before
    assert lich.economy.actions == 1   # its own turn's economy is untouched


def test_sphinx_ends_a_legendary_cast_without_casting():
    s, f = mon("gynosphinx", (2, 2), "s"), fighter(5, at=(8, 2))
    b = arena(s, f, layout=WIDE, first="fighter")
    pick(b, "end_turn")
    pick(b, "legendary", "cast-a-spell")
    pick(b, "ms_leg_done")
    assert "leg_cast" not in s.resources["ms"] and b.decision.actor == "s" and b.decision.kind == "action"
