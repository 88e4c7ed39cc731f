"""Trees and plants on the battle map (dnd/grid.py) and the spells that use them
(dnd/spell_plants.py): Tree Stride, Transport via Plants, Plant Growth, played through the
engine's own options."""

import pickle

import pytest
from dnd_helpers import WIDE, arena, cast, events, pick

from dungeonbench_gym.dnd import heuristic, items
from dungeonbench_gym.dnd.builders.monsters import monster_combatant
from dungeonbench_gym.dnd.builders.pcs import build_pc
from dungeonbench_gym.dnd.classes.druid import stride_map
from dungeonbench_gym.dnd.grid import OVERGROWN, PLANTS, TREE, BattleMap, Cover, MapError
from dungeonbench_gym.dnd.scenario import load_encounter
from dungeonbench_gym.dnd.verification import items_probes, spell_probe
from dungeonbench_gym.dnd.verification.arena import caster
from dungeonbench_gym.games.dnd import views
from dungeonbench_gym.dnd.rules import spell_data

# trees at (3, 2), (12, 2), (3, 8), (12, 8); undergrowth at x 6-9, y 4-6
GROVE = ["################",
         "#..............#",
         "#..T........T..#",
         "#..............#",
         "#.....;;;;.....#",
         "#.....;;;;.....#",
         "#.....;;;;.....#",
         "#..............#",
         "#..T........T..#",
         "#..............#",
         "#..............#",
         "################"]


def grove(key, at, *others, order=None, layout=GROVE, **kw):
    """dnd/spell_probe's wizard holding the one spell at `at` on the grove; it acts first."""
    c = caster(key, at=at)
    b = arena(c, *others, layout=layout, first="caster", **kw)
    if order:
        b.order = order
    return b, c


def foe(key, at, cid):
    return monster_combatant(key, cid, "enemies", (*at, 0))


def ally(at, cid="ally"):
    return build_pc("fighter", 5, cid, (*at, 0))


def end_turn(b):
    pick(b, "end_turn")


def near(pos, tree, feet=5):
    return max(abs(pos[0] - tree[0]), abs(pos[1] - tree[1])) * 5 <= feet


# ---------------------------------------------------------------- the map
def test_a_tree_is_not_entered_and_gives_three_quarters_cover():
    m = BattleMap.from_dict({"name": "wood", "layout": ["#######", "#.....#", "#..T..#", "#.....#", "#######"]})
    assert m.tree_cells == ((3, 2),) and m.flags_at(3, 2) & TREE and not m.is_passable(3, 2)
    assert (3, 2, 0) not in m.reachable((1, 2), 1, 30)
    assert m.reachable((1, 2), 1, 30).cost((5, 2)) == 20   # around the trunk, not through it
    assert m.cover([(1, 2)], [(5, 2)]) == Cover.THREE_QUARTERS   # SRD: "a thick tree trunk"
    assert m.can_see([(1, 2)], [(5, 2)])   # a tree blocks no sight
    thin = BattleMap.from_dict({"layout": ["#######", "#..t..#", "#######"],
                                "legend": {"t": {"tree": True, "cover": "half"}}})
    assert thin.cover([(1, 1)], [(5, 1)]) == Cover.HALF and not thin.is_passable(3, 1)


def test_undergrowth_is_difficult_terrain_and_plants():
    m = BattleMap.from_dict({"layout": GROVE})
    assert (6, 4) in m.plant_cells and len(m.plant_cells) == 12 and m.flags_at(6, 4) & PLANTS
    assert m.reachable((5, 5), 1, 30).cost((6, 5)) == 10
    assert not m.flags_at(5, 5) & (PLANTS | TREE)


@pytest.mark.parametrize("spec,message", [
    ({"tree": "yes"}, "legend 'x': 'tree' must be true or false"),
    ({"tree": True, "passable": True}, "legend 'x': a tree's trunk fills its square, so it cannot be passable"),
    ({"tree": True, "wall": True}, "legend 'x': a tree is not a wall; drop 'wall'"),
    ({"tree": True, "cover": "total"}, "legend 'x': a tree gives half or three_quarters cover"),
    ({"plants": True, "wall": True}, "legend 'x': 'plants' and 'overgrown' mark plants one walks through"),
    ({"overgrown": 1}, "legend 'x': 'overgrown' must be true or false"),
    ({"shrubs": True}, "legend 'x': unknown key 'shrubs'; expected one of wall, .*tree, plants, overgrown"),
])
def test_a_bad_plant_legend_names_the_map_the_character_and_the_fix(spec, message):
    with pytest.raises(MapError, match=f"map 'grove': {message}".replace("(", r"\(")):
        BattleMap.from_dict({"name": "grove", "layout": ["#x#"], "legend": {"x": spec}})


def test_overgrown_plants_cost_4_ft_a_foot_and_are_not_also_difficult():
    m = BattleMap.from_dict({"layout": ["#######", "#..g..#", "#######"], "legend": {"g": {"overgrown": True}}})
    assert m.flags_at(3, 1) & (OVERGROWN | PLANTS) == OVERGROWN | PLANTS
    r = m.reachable((1, 1), 1, 60)
    assert r.cost((2, 1)) == 5 and r.cost((3, 1)) == 5 + 20 and r.cost((4, 1)) == 5 + 20 + 5
    # a difficult zone or an ally in the square adds nothing more (not cumulative, SRD)
    assert m.reachable((2, 1), 1, 60, difficult_extra=[(3, 1)]).cost((4, 1)) == 25
    assert m.reachable((2, 1), 1, 60, pass_through=[(3, 1)]).cost((4, 1)) == 25
    assert not m.can_step((2, 1), 1, 15, blocked_by=[(1, 1)]) and m.can_step((2, 1), 1, 20, blocked_by=[(1, 1)])
    # Land's Stride: instantaneous, so nonmagical plants: no extra cost
    assert stride_map(m).reachable((1, 1), 1, 60).cost((4, 1)) == 15


# ---------------------------------------------------------------- Tree Stride
def test_tree_stride_costs_10_ft_lands_by_another_tree_and_provokes_nothing():
    b, c = grove("tree-stride", (4, 2), foe("orc", (5, 2), "orc"), order=["caster", "orc"])
    assert not any(o.kind == "plants" for o in b.decision.options)   # not before the casting
    cast(b, "tree-stride", 5)
    assert c.concentration == "tree-stride" and c.resources["slots"][4] == 3
    pick(b, "plants", "Tree Stride")
    d = b.decision
    assert d.kind == "destination"
    spots = [o.data[0] for o in d.options]
    others = [(12, 2), (3, 8), (12, 8)]
    assert spots and all(any(near(p, t) for t in others) for p in spots)
    assert (4, 3, 0) not in spots   # beside the tree it entered only
    pick(b, "destination", "to (13, 9)")
    assert c.pos == (13, 9, 0) and c.economy.movement == 30 - 10
    assert b.decision.kind == "action" and b.decision.actor == "caster"   # no opportunity attack asked
    assert b.creatures["orc"].economy.reaction and events(b, "tree_stride")
    assert not any(o.kind == "plants" for o in b.decision.options)   # once a round
    end_turn(b)
    end_turn(b)   # the orc's turn
    assert b.round == 2 and b.decision.actor == "caster"
    assert any(o.kind == "plants" for o in b.decision.options)   # a new round: again


def test_tree_stride_needs_10_ft_of_movement_concentration_and_a_tree_within_500_ft():
    b, c = grove("tree-stride", (4, 2), foe("orc", (13, 10), "orc"))
    cast(b, "tree-stride")
    c.economy.movement = 5
    b.forget_options()
    assert "plants" not in {o.kind for o in b.decision.options}
    c.economy.movement = 10
    b.forget_options()
    assert "plants" in {o.kind for o in b.decision.options}
    c.pos = (7, 1, 0)   # no tree within 5 ft
    b.forget_options()
    assert "plants" not in {o.kind for o in b.decision.options}
    c.pos = (4, 2, 0)
    b.end_concentration(c)
    b.forget_options()
    assert "plants" not in {o.kind for o in b.decision.options}
    # a long wood: trees 290 ft and 515 ft from the one beside the caster
    row = "#" + "." * 108 + "#"
    trees = row[:2] + "T" + row[3:60] + "T" + row[61:105] + "T" + row[106:]
    long = ["#" * 110, row, trees, row, "#" * 110]
    c2 = caster("tree-stride", at=(3, 2))
    b2 = arena(c2, foe("orc", (50, 3), "orc"), layout=long, first="caster")
    cast(b2, "tree-stride")
    pick(b2, "plants")
    spots = [o.data[0] for o in b2.visible_options()]
    assert spots and all(near(p, (60, 2)) for p in spots)


def test_a_dryad_strides_to_a_tree_within_60_ft_once_on_its_turn():
    wood = ["#" * 20, "#" * 1 + "." * 18 + "#", "#..T..........T..T.#", "#" + "." * 18 + "#", "#" * 20]
    d = foe("dryad", (4, 2), "dryad")
    b = arena(d, build_pc("fighter", 5, "fighter", (8, 3, 0)), layout=wood, first="dryad")
    assert "tree_stride" in d.features and "plant_magic" not in b.__dict__
    pick(b, "plants", "within 60 ft")
    spots = [o.data[0] for o in b.decision.options]
    assert spots and all(near(p, (14, 2)) for p in spots)   # the tree 55 ft away, not the one at 70 ft
    pick(b, "destination", "to (15, 1)")
    assert d.pos == (15, 1, 0) and d.economy.movement == 20
    assert not any(o.kind == "plants" for o in b.decision.options)


def test_tree_stride_is_not_offered_without_trees():
    for key in ("tree-stride", "transport-via-plants"):
        b = arena(caster(key, at=(3, 5)), foe("orc", (8, 5), "orc"), layout=WIDE, first="caster")
        assert not any(o.kind == "spell" for o in b.decision.options)


# ---------------------------------------------------------------- Transport via Plants
def test_transport_via_plants_takes_an_ally_through_until_the_casters_next_turn():
    b, c = grove("transport-via-plants", (4, 2), ally((4, 3)), ally((2, 3), "ally2"), foe("orc", (13, 10), "orc"),
                 order=["caster", "ally", "ally2", "orc"])
    cast(b, "transport-via-plants", 6)
    assert b.decision.kind == "destination"   # one tree within 10 ft: the other tree is the question
    assert {o.data[0][:2] for o in b.decision.options} == {(12, 2), (3, 8), (12, 8)}
    pick(b, "destination", "to the tree at (12, 8)")
    assert c.resources["slots"][5] == 3 and events(b, "plant_link")
    end_turn(b)
    assert b.decision.actor == "ally"
    pick(b, "plants", "Transport via Plants")
    a = b.creatures["ally"]
    assert all(near(o.data[0], (12, 8)) for o in b.decision.options)
    pick(b, "destination", "to (11, 8)")
    assert a.pos == (11, 8, 0) and a.economy.movement == 30 - 5
    assert b.decision.kind == "action" and not any(o.kind == "plants" for o in b.decision.options)
    end_turn(b)
    assert b.decision.actor == "ally2" and any(o.kind == "plants" for o in b.decision.options)
    end_turn(b)
    end_turn(b)   # the orc
    assert b.round == 2 and b.decision.actor == "caster" and events(b, "plant_link_end")
    end_turn(b)
    assert b.decision.actor == "ally"
    end_turn(b)
    assert b.decision.actor == "ally2" and not any(o.kind == "plants" for o in b.decision.options)


def test_transport_asks_for_the_near_tree_first_when_there_are_two():
    layout = [r if i != 3 else "#...T..........#" for i, r in enumerate(GROVE)]   # a second tree at (4, 3)
    b, c = grove("transport-via-plants", (4, 2), foe("orc", (13, 10), "orc"), layout=layout)
    cast(b, "transport-via-plants")
    assert sorted(o.data[0][:2] for o in b.decision.options) == [(3, 2), (4, 3)]
    pick(b, "destination", "Link the tree at (4, 3)")
    assert (3, 2) in {o.data[0][:2] for o in b.decision.options}   # any other tree, the near one too
    assert c.resources["slots"][5] == 4   # nothing paid until the link is made


# ---------------------------------------------------------------- Plant Growth
def test_plant_growth_overgrows_the_plants_but_not_other_squares_nor_beside_allies():
    b, c = grove("plant-growth", (2, 5), ally((5, 5)), foe("orc", (13, 5), "orc"))
    old = b.map
    cast(b, "plant-growth", 3)
    pick(b, "point_x", "x = 8")
    pick(b, "point_y", "Point (8, 5)")
    m = b.map
    assert m is not old and not old.flags_at(8, 5) & OVERGROWN
    assert all(m.flags_at(x, y) & OVERGROWN for x in (7, 8, 9) for y in (4, 5, 6))
    assert not any(m.flags_at(6, y) & OVERGROWN for y in (4, 5, 6))   # beside the ally: left out
    r = m.reachable((10, 5), 1, 60)
    assert r.cost((9, 5)) == 20 and r.cost((11, 5)) == 5 and r.cost((8, 5)) == 40
    assert m.reachable((5, 4), 1, 30).cost((6, 4)) == 10   # plain undergrowth: difficult only
    assert c.resources["slots"][2] == 3 and events(b, "plant_growth")
    assert "overgrown" in views.ansi_map(b.to_dict())
    assert pickle.loads(pickle.dumps(b)).map.flags_at(8, 5) & OVERGROWN


def test_plant_growth_is_offered_only_where_the_map_has_plants_and_grows_the_walls_first_map():
    b = arena(caster("plant-growth", at=(3, 5)), foe("orc", (8, 5), "orc"), layout=WIDE, first="caster")
    assert not any(o.kind == "spell" for o in b.decision.options)
    from dungeonbench_gym.dnd.spell_walls import Barriers
    b, c = grove("plant-growth", (2, 5), foe("orc", (13, 5), "orc"))
    b.__dict__["barriers"] = walls = Barriers(b.map)   # a wall is up: the map it rebuilds from grows too
    cast(b, "plant-growth")
    pick(b, "point_x", "x = 8")
    pick(b, "point_y", "Point (8, 5)")
    assert walls.base.flags_at(8, 5) & OVERGROWN and b.map.flags_at(8, 5) & OVERGROWN


# ---------------------------------------------------------------- the planner
def test_the_planner_casts_plant_growth_ahead_of_foes_closing_in_across_plants():
    b, c = grove("plant-growth", (2, 5), foe("orc", (12, 5), "orc"), foe("orc", (12, 6), "orc2"))
    i = heuristic.choose(b)
    assert b.decision.options[i].data[0] == "plant-growth"
    b.choose(i)
    while b.decision.kind != "action":   # the point: x, then y
        b.choose(heuristic.choose(b))
    assert b.map.flags_at(9, 5) & OVERGROWN and events(b, "plant_growth")


def test_the_planner_strides_toward_the_goal_and_out_of_trouble():
    b, c = grove("tree-stride", (4, 2), foe("orc", (13, 5), "orc"), objective={"type": "reach", "cells": [[13, 9]]})
    cast(b, "tree-stride")
    i = heuristic.choose(b)
    assert b.decision.options[i].kind == "plants"
    b.choose(i)
    b.choose(heuristic.choose(b))
    assert near(c.pos, (12, 8)) and c.economy.movement == 20
    # badly hurt beside an orc: Tree Stride, then out to a far tree
    b, c = grove("tree-stride", (4, 2), foe("orc", (5, 2), "orc"))
    c.hp = c.max_hp * 45 // 100
    b.forget_options()
    assert b.decision.options[heuristic.choose(b)].data[0] == "tree-stride"
    b.choose(heuristic.choose(b))
    assert b.decision.options[heuristic.choose(b)].kind == "plants"
    b.choose(heuristic.choose(b))
    b.choose(heuristic.choose(b))
    assert min(b.distance(c, o) for o in b.enemies_of(c)) >= 30


# ---------------------------------------------------------------- scenarios, views, probes
def test_the_glade_has_trees_and_undergrowth_and_the_views_draw_them():
    b = load_encounter("unicorn_glade").build(0)
    assert len(b.map.tree_cells) == 6 and len(b.map.plant_cells) == 6
    state = b.to_dict()
    text = views.ansi_map(state)
    assert "T=tree" in text and ";=undergrowth" in text
    assert views.terrain(state).shape == (len(views.GRID_CHANNELS), views.GRID, views.GRID)
    img = views.rgb(state)
    assert img.shape == (8 * views.TILE, 16 * views.TILE, 3)
    x, y = b.map.tree_cells[0]
    assert tuple(img[y * views.TILE + 8, x * views.TILE + 8]) == views._TERRAIN_RGB["tree"]


@pytest.mark.parametrize("key", ["tree-stride", "transport-via-plants", "plant-growth"])
def test_the_probes_pass_for_the_spell_and_its_scroll(key):
    assert spell_data.mech(key)["mech"] == "plants"
    spell_probe.run_probe(key)
    assert items.status(f"spell-scroll-{key}") == ("executable", "")
    items_probes.probe(f"spell-scroll-{key}")


def test_druids_rangers_and_bards_get_the_spells_at_their_levels():
    spells = {(a, lv): set(build_pc(a, lv, "x", (0, 0, 0)).spells) for a, lv in
              (("druid", 4), ("druid", 5), ("druid", 9), ("druid", 11), ("ranger", 8), ("ranger", 9),
               ("ranger", 17), ("bard", 5))}
    mine = {"plant-growth", "tree-stride", "transport-via-plants"}
    assert spells[("druid", 4)] & mine == set() and spells[("druid", 5)] & mine == {"plant-growth"}
    assert spells[("druid", 9)] & mine == {"plant-growth", "tree-stride"} and mine <= spells[("druid", 11)]
    assert spells[("ranger", 8)] & mine == set() and spells[("ranger", 9)] & mine == {"plant-growth"}
    assert spells[("ranger", 17)] & mine == {"plant-growth", "tree-stride"}
    assert spells[("bard", 5)] & mine == {"plant-growth"}
