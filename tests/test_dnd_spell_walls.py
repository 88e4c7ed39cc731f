"""Walls raised mid-battle and enclosures (dnd/spell_walls.py), played through the engine's options."""

import pickle

from dnd_helpers import WIDE, arena, events, pick, turn

from dungeonbench_gym.dnd import spell_walls
from dungeonbench_gym.dnd.builders.monsters import monster_combatant
from dungeonbench_gym.dnd.grid import BattleMap, Cover
from dungeonbench_gym.dnd.verification import arena as probe_arena
from dungeonbench_gym.dnd.verification import coverage, spell_probe
from dungeonbench_gym.dnd.verification.arena import battle, caster


def cast_wall(b, key, point, d, level=None):
    """Cast through the real options: the spell, x, y of the anchor point, the direction."""
    opts = b.decision.options
    i = next(i for i, o in enumerate(opts) if o.kind == "spell" and o.data[0] == key
             and (level is None or o.data[1] == level))
    b.choose(i)
    for kind, want in (("point_x", point[0]), ("point_y", point[1]), ("direction", d)):
        assert b.decision.kind == kind, (kind, b.decision)
        b.choose(next(i for i, o in enumerate(b.decision.options) if o.data[0] == want))


def duel(key, foe_at=(9, 5), foe="orc", ally_at=None):
    """A wizard with one spell at (3, 5) on the wide map, a foe east of it; the wizard's turn."""
    c = caster(key, at=(3, 5))
    fighters = [c, monster_combatant(foe, "foe", "enemies", (*foe_at, 0))]
    if ally_at is not None:
        from dungeonbench_gym.dnd.builders.pcs import build_pc
        fighters.append(build_pc("fighter", 5, "ally", (*ally_at, 0)))
    return arena(*fighters, layout=WIDE, first="caster")


def test_with_cells_keeps_the_map_and_leaves_the_old_one_alone():
    m = BattleMap.from_dict({"name": "hall", "layout": ["#####", "#.^.#", "#####"],
                             "legend": {"^": {"hazard": "fire"}},
                             "heights": [[0] * 5, [0, 5, 5, 10, 0], [0] * 5]})
    n = m.with_cells({(3, 1): {"wall": True, "top": 10}, (0, 0): ".", (9, 9): {"wall": True}})
    assert n.name == "hall" and n is not m
    assert n.is_wall(3, 1) and not m.is_wall(3, 1) and not n.is_wall(0, 0)
    assert n.elevation_at(2, 1) == 5 and n.elevation_at(3, 1) == 10
    assert n.hazard_at(2, 1) == {"kind": "fire"}
    assert BattleMap.from_dict(n.to_dict()).layout == n.layout


def test_wall_of_force_blocks_movement_sight_and_a_fireball():
    b = duel("wall-of-force")
    c, foe = b.creatures["caster"], b.creatures["foe"]
    old = b.map
    before = b.map.reachable(c.pos, 1, 100)
    assert any(p[0] > 6 for p in before)
    assert b.map.can_see(c.cells, foe.cells)
    assert foe in b.area_hits(c, ("spell", "fireball", 3), (6, 5))   # before the wall: caught
    cast_wall(b, "wall-of-force", (6, 1), (0, 1, 0))
    assert b.map is not old and all(b.map.is_wall(6, y) for y in range(1, 11))
    assert c.concentration == "wall-of-force"
    # movement: nothing east of the wall is reachable any more
    assert not any(p[0] > 6 for p in b.map.reachable(c.pos, 1, 100))
    # sight and effect: total cover, no line of sight, no target
    assert b.cover(c, foe) == Cover.TOTAL
    assert not b.map.can_see(c.cells, foe.cells)
    # a Fireball centred on the wall's near face does not spread past it
    assert foe not in b.area_hits(c, ("spell", "fireball", 3), (6, 5))
    assert foe in b.area_hits(c, ("spell", "fireball", 3), (9, 6))   # one on the foe's side still works


def test_the_wall_vanishes_with_concentration():
    b = duel("wall-of-force")
    c = b.creatures["caster"]
    base = b.map
    cast_wall(b, "wall-of-force", (6, 1), (0, 1, 0))
    assert b.map.is_wall(6, 5)
    b.end_concentration(c)
    assert not b.map.is_wall(6, 5) and b.map.layout == base.layout
    assert "barriers" not in b.__dict__
    assert events(b, "wall_end")


def test_the_wall_ends_when_concentration_drops_without_end_concentration():
    b = duel("wall-of-stone")
    c = b.creatures["caster"]
    cast_wall(b, "wall-of-stone", (6, 1), (0, 1, 0))
    c.concentration = None   # e.g. a spell's rider clearing it directly
    turn(b, "foe")
    assert not b.map.is_wall(6, 5)


def test_a_creature_in_the_line_is_pushed_to_the_far_side():
    b = duel("wall-of-force", foe_at=(6, 5), ally_at=(6, 7))
    cast_wall(b, "wall-of-force", (6, 1), (0, 1, 0))
    foe, ally = b.creatures["foe"], b.creatures["ally"]
    assert foe.pos[:2] == (7, 5)   # the caster's foe: away from the caster (who is west)
    assert ally.pos[:2] == (5, 7)  # its ally: toward the caster
    assert b.map.is_wall(6, 5) and b.map.is_wall(6, 7)


def test_wall_of_ice_hurts_those_it_pushes():
    b = duel("wall-of-ice", foe_at=(6, 5))
    foe = b.creatures["foe"]
    cast_wall(b, "wall-of-ice", (6, 1), (0, 1, 0))
    assert foe.pos[:2] == (7, 5) and foe.hp < foe.max_hp
    assert any(e.get("event") == "damage" and e.get("creature") == "foe" for e in b.log) or foe.dead


def test_a_wall_of_stone_section_destroyed_by_attacks_opens_its_cells():
    b = duel("wall-of-stone", foe_at=(9, 5))
    cast_wall(b, "wall-of-stone", (6, 1), (0, 1, 0))
    w = spell_walls.live(b)[0]
    assert len(w["panels"]) == 5 and all(p["hp"] == 180 for p in w["panels"])
    foe = b.creatures["foe"]
    foe.pos = (7, 5, 0)
    section = next(i for i, p in enumerate(w["panels"]) if [6, 5] in p["cells"])
    w["panels"][section]["hp"] = 1
    for _ in range(20):
        turn(b, "foe")
        opts = [o for o in b.decision.options if o.kind == "wall_panel"]
        assert opts, [o.label for o in b.decision.options]
        pick(b, "wall_panel", "(6, 5)")
        if not b.map.is_wall(6, 5):
            break
    assert not b.map.is_wall(6, 5) and b.map.is_wall(6, 1)
    assert events(b, "wall_breach")
    # the gap is a way through now
    assert any(p[0] < 6 for p in b.map.reachable(foe.pos, 1, 30))


def test_forcecage_holds_a_creature_apart_from_everyone():
    b = duel("forcecage", foe_at=(4, 5))
    c, foe = b.creatures["caster"], b.creatures["foe"]
    pick(b, "spell", "Forcecage")
    pick(b, "target", "foe")
    assert "enclosed" in foe.conditions
    assert b.cover(c, foe) == Cover.TOTAL and b.cover(foe, c) == Cover.TOTAL
    turn(b, "foe")   # the orc in the cage: no attack on the wizard beside it, no movement
    assert not any(o.kind == "attack" for o in b.decision.options if "caster" in o.label)
    assert b.speed(foe) == 0
    assert not b.targets_for_attack(foe, foe.attacks[0])
    assert not b._shove_targets(foe, "prone") and not b._shove_targets(foe, "grapple")
    c.spells = ("fireball",)
    assert foe not in b.area_hits(c, ("spell", "fireball", 3), (6, 6))
    turn(b, "caster")   # walking away from the caged orc provokes nothing
    pick(b, "move")
    probe_arena.choose(b, lambda o: o.kind == "destination" and o.data[0][:2] == (1, 5), "west")
    if b.decision.kind == "route":
        b.choose(0)
    assert b.decision.kind == "action" and b.decision.actor == "caster" and c.pos[:2] == (1, 5)


def test_resilient_sphere_encloses_on_a_failed_save_and_ends_with_concentration():
    for seed in range(12):
        b = duel("resilient-sphere", foe_at=(5, 5))
        b.roller = type(b.roller)(seed, log=b.log)
        c, foe = b.creatures["caster"], b.creatures["foe"]
        pick(b, "spell", "Resilient Sphere")
        pick(b, "target", "foe")
        if "enclosed" in foe.conditions:
            break
    else:
        raise AssertionError("the orc never failed its save")
    assert b.cover(c, foe) == Cover.TOTAL
    assert b.speed(foe) == foe.speed // 2   # it rolls the sphere at half speed
    b.end_concentration(c)
    assert "enclosed" not in foe.conditions and b.cover(c, foe) != Cover.TOTAL


def test_prismatic_wall_fails_across_a_creature_and_blinds_foes_near_it():
    b = duel("prismatic-wall", foe_at=(6, 5))
    c = b.creatures["caster"]
    use = ("spell", "prismatic-wall", 9, (6, 1))
    assert b.area_hits(c, use, (0, 1, 0)) == []   # across the orc: it would fail, so it hits no one
    assert [o.cid for o in b.area_hits(c, use, (1, 0, 0))] == ["foe"]   # eastward: the orc is within 20 ft
    cast_wall(b, "prismatic-wall", (6, 1), (0, 1, 0))
    assert events(b, "wall_fails") and not b.map.is_wall(6, 3)
    assert sum(b.creatures["caster"].resources["slots"]) == 4 * 9 - 1
    for seed in range(12):
        b = duel("prismatic-wall", foe_at=(9, 5))
        b.roller = type(b.roller)(seed, log=b.log)
        cast_wall(b, "prismatic-wall", (6, 1), (0, 1, 0))
        assert b.map.is_wall(6, 5)
        if "blinded" in b.creatures["foe"].conditions:
            break
    else:
        raise AssertionError("the orc was never blinded")


def test_passwall_opens_a_passage_and_ejects_those_in_it_when_it_ends():
    layout = ["#" * 16] + ["#" + "." * 14 + "#"] * 4 + ["######.#########"] + \
        ["#" + "." * 14 + "#"] * 5 + ["#" * 16]
    c = caster("passwall", at=(3, 3))
    foe = monster_combatant("orc", "foe", "enemies", (3, 9, 0))
    b = arena(c, foe, layout=layout, first="caster")
    assert b.map.is_wall(3, 5)
    cast_wall(b, "passwall", (3, 4), (0, 1, 0))
    assert not b.map.is_wall(3, 5) and b.map.is_wall(2, 5)
    assert (3, 6, 0) in b.map.reachable(c.pos, 1, 30)
    c.pos = (3, 5, 0)   # standing in the passage when it ends
    w = spell_walls.live(b)[0]
    w["until"] = b.round
    turn(b, "caster")
    assert b.map.is_wall(3, 5) and b.map.fits(c.pos[0], c.pos[1], 1)


def test_ice_devil_raises_its_wall_and_must_recharge():
    devil = monster_combatant("ice-devil", "devil", "enemies", (2, 2, 0))
    from dungeonbench_gym.dnd.builders.pcs import build_pc
    hero = build_pc("fighter", 5, "hero", (9, 3, 0))
    b = arena(devil, hero, layout=WIDE, first="devil")
    pick(b, "monster_wall")
    for kind, want in (("point_x", 6), ("point_y", 1), ("direction", (0, 1, 0))):
        assert b.decision.kind == kind
        b.choose(next(i for i, o in enumerate(b.decision.options) if o.data[0] == want))
    assert [y for y in range(1, 11) if b.map.is_wall(6, y)] == [1, 2, 3, 4, 5, 6]   # 30 ft
    assert not devil.resources["monster_wall"]["ready"]
    assert not any(o.kind == "monster_wall" for o in b.decision.options)
    w = spell_walls.live(b)[0]
    assert w["ac"] == 5 and w["panels"][0]["hp"] == 30
    devil.conditions["stunned"] = {}
    turn(b, "hero")
    assert not b.map.is_wall(6, 3)   # the devil is incapacitated: its wall is gone
    assert coverage.monster_parts("ice-devil")[4]["status"] == "executable"


def test_a_battle_with_a_wall_pickles_and_plays_on():
    b = duel("wall-of-stone")
    cast_wall(b, "wall-of-stone", (6, 1), (0, 1, 0))
    b2 = pickle.loads(pickle.dumps(b))
    assert b2.map.is_wall(6, 5) and list(b2.barriers.base.layout) == WIDE
    b2.end_concentration(b2.creatures["caster"])
    assert not b2.map.is_wall(6, 5)


def test_point_and_reach_caches_follow_the_new_map():
    b = duel("wall-of-force")
    c = b.creatures["caster"]
    b._point_xs(c, {"use": ("spell", "wall-of-force", 5)})
    assert b.__dict__.get("_points_cache")
    cast_wall(b, "wall-of-force", (6, 1), (0, 1, 0))
    assert not b.__dict__.get("_points_cache")
    pick(b, "move")
    dests = [o.data[0] for o in b.decision.options if o.kind == "destination"]
    assert dests and not any(p[0] >= 6 for p in dests)


def test_the_probes_pass():
    for key in ("wall-of-force", "wall-of-stone", "wall-of-ice", "prismatic-wall", "passwall", "forcecage",
                "resilient-sphere"):
        spell_probe.run_probe(key)
    coverage.probe_monster("ice-devil")
    b = battle("wall-of-force")
    assert b.decision.kind == "action"


def test_a_broken_ice_section_leaves_frigid_air():
    b = duel("wall-of-ice", foe_at=(9, 5))
    cast_wall(b, "wall-of-ice", (6, 1), (0, 1, 0), level=7)
    w = spell_walls.live(b)[0]
    assert w["air"]["damage"] == "6d6" and w["air"]["save"] == "con"   # 5d6 + 1d6 at a 7th-level slot
    foe = b.creatures["foe"]
    foe.pos = (7, 5, 0)
    section = next(i for i, p in enumerate(w["panels"]) if [6, 5] in p["cells"])
    w["panels"][section]["hp"] = 1
    for _ in range(20):
        turn(b, "foe")
        pick(b, "wall_panel", "(6, 5)")
        if not b.map.is_wall(6, 5):
            break
    assert b.map.hazard_at(6, 5)["kind"] == "frigid air" and b.map.is_wall(6, 3)
    turn(b, "foe")
    hp = foe.hp
    pick(b, "move")
    probe_arena.choose(b, lambda o: o.kind == "destination" and o.data[0][:2] == (5, 5), "through the gap")
    if b.decision.kind == "route":
        b.choose(0)
    assert foe.pos[:2] == (5, 5) and foe.hp < hp
    assert any(e.get("event") == "hazard" and "frigid air" in e["text"] for e in b.log)
    b.end_concentration(b.creatures["caster"])   # the air goes with the rest of the wall
    assert b.map.hazard_at(6, 5) is None and not b.map.is_wall(6, 3)


def test_spirit_guardians_do_not_reach_into_a_forcecage():
    from dungeonbench_gym.dnd.builders.pcs import build_pc
    hurt = {}
    for caged in (False, True):
        cl = build_pc("cleric", 5, "cleric", (3, 5, 0))
        foe = monster_combatant("ogre", "foe", "enemies", (4, 5, 0))
        b = arena(cl, foe, layout=WIDE, first="cleric")
        pick(b, "spell", "Spirit Guardians")
        assert "spirit_guardians" in cl.conditions
        if caged:
            foe.conditions["enclosed"] = {"by": "someone", "spell": "forcecage", "enclosed": True, "speed_zero": True}
        turn(b, "foe")
        hurt[caged] = foe.max_hp - foe.hp
    assert hurt[False] > 0 and hurt[True] == 0


def test_no_misty_step_out_of_a_resilient_sphere():
    c = caster("misty-step", at=(3, 5))
    b = arena(c, monster_combatant("orc", "foe", "enemies", (9, 5, 0)), layout=WIDE, first="caster")
    assert any(o.kind == "spell" and o.data[0] == "misty-step" for o in b.decision.options)
    c.conditions["enclosed"] = {"by": "foe", "spell": "resilient-sphere", "enclosed": True, "speed_half": True}
    b.open_menu(c)
    assert not any(o.kind == "spell" and o.data[0] == "misty-step" for o in b.decision.options)
