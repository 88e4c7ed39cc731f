"""Lasting spell areas (dnd/spell_zones.py): sight, silence, terrain, barriers, magic, gravity.

Every spell here is cast through the engine's own options (action -> point / direction), and the
checks read what the engine then does: attack modifiers, the spell and destination options,
damage taken while moving, positions and conditions.
"""

from dnd_helpers import WIDE, arena, events, mon, turn

from dungeonbench_gym.dnd import spell_zones, spellbook
from dungeonbench_gym.dnd.verification.arena import caster


def choose(b, kind, data):
    if b.decision.kind == "group" and kind == "destination":   # a long list: its row first
        choose(b, "group", ("key", f"row y={data[0][1]}"))
    for i, o in enumerate(b.decision.options):
        if o.kind == kind and o.data[:len(data)] == tuple(data):
            b.choose(i)
            return
    raise AssertionError(f"no {kind} {data} in {[o.label for o in b.decision.options]}")


def cast(b, key, where=None, level=None):
    """The active caster casts key (at its lowest level unless given), placed at grid point
    ``where`` (x, y) or in direction ``where`` (dx, dy, dz) when the spell asks for one."""
    opts = [o for o in b.decision.options if o.kind == "spell" and o.data[0] == key
            and (level is None or o.data[1] == level)]
    assert opts, f"{key} not offered: {[o.label for o in b.decision.options]}"
    b.choose(b.decision.options.index(opts[0]))
    d = b.decision
    if d.kind == "point_x":
        choose(b, "point_x", (where[0],))
        choose(b, "point_y", (where[1],))
        if b.decision.kind == "point_z":
            b.choose(0)
    elif d.kind == "direction":
        choose(b, "direction", (where,))


def never_save(b, *who):
    """Saving throws fail (only those of ``who`` when given; the others succeed)."""
    b.saving_throw = lambda t, *a, **k: bool(who) and t not in who


def wizard(key, at=(2, 5), cid="caster"):
    c = caster(key, level=17, cid=cid, at=at)
    return c


def bolt_reasons(b, c, t):
    return b.attack_modifiers(c, t, melee=False)[2]


# ---------------------------------------------------------------- sight
def test_darkness_gives_disadvantage_into_it_and_advantage_out_of_it():
    c = wizard("darkness")
    orc = mon("orc", (10, 5), "orc")
    b = arena(c, orc, layout=WIDE, first="caster")
    assert "target unseen (obscured)" not in bolt_reasons(b, c, orc)
    cast(b, "darkness", (11, 6))
    assert b.zones and spell_zones.inside(b, b.zones[0], orc) and not spell_zones.inside(b, b.zones[0], c)
    # SRD: inside heavily obscured darkness the orc is effectively blinded and unseen, so both
    # ways an attack has advantage and disadvantage (they cancel)
    for a, t in ((c, orc), (orc, c)):
        adv, dis, why = b.attack_modifiers(a, t, melee=False)
        assert adv and dis and "target unseen (obscured)" in why and "attacker unseen (obscured)" in why
    assert not spell_zones.sees(b, c, orc) and not spell_zones.sees(b, orc, c)


def test_darkness_between_two_creatures_blocks_their_sight_lines():
    c = wizard("darkness")
    orc = mon("orc", (12, 5), "orc")
    b = arena(c, orc, layout=WIDE, first="caster")
    cast(b, "darkness", (7, 6))   # a 15-ft sphere between them, touching neither
    assert not any(spell_zones.inside(b, b.zones[0], o) for o in (c, orc))
    why = b.attack_modifiers(c, orc, melee=False)[2]
    assert "target unseen (obscured)" in why and "attacker unseen (obscured)" in why
    c.pos, orc.pos = (2, 1, 0), (12, 1, 0)   # a sight line that passes north of it
    assert "target unseen (obscured)" not in bolt_reasons(b, c, orc)


def test_darkness_ends_with_concentration_and_sight_returns():
    c = wizard("darkness")
    orc = mon("orc", (10, 5), "orc")
    b = arena(c, orc, layout=WIDE, first="caster")
    cast(b, "darkness", (11, 6))
    b.end_concentration(c)
    why = b.attack_modifiers(c, orc, melee=False)[2]
    assert "target unseen (obscured)" not in why and not spell_zones.live(b)


def test_blindsight_and_devils_sight_see_through_darkness_but_devils_sight_not_through_fog():
    c = wizard("darkness")
    c.spells = ("darkness", "fog-cloud")
    imp = mon("imp", (10, 5), "imp")                 # Devil's Sight
    dragon = mon("young-black-dragon", (10, 8), "dragon")   # blindsight 30 ft
    b = arena(c, imp, dragon, layout=WIDE, first="caster")
    cast(b, "darkness", (3, 6))                      # over the caster
    adv, dis, why = b.attack_modifiers(imp, c, melee=False)
    assert adv and not dis and why == ["attacker unseen (obscured)"]   # the imp sees into it, unseen
    assert "target unseen (obscured)" in bolt_reasons(b, dragon, c)    # 40+ ft: beyond its blindsight
    dragon.pos = (4, 5, 0)
    assert "target unseen (obscured)" not in bolt_reasons(b, dragon, c)   # within 30 ft
    b.zones.clear()
    c.economy.actions = 1
    c.concentration = None
    b.forget_options()
    cast(b, "fog-cloud", (3, 6))
    assert "target unseen (obscured)" in bolt_reasons(b, imp, c)   # fog is not darkness


def test_hiding_behind_fog_and_daylight_leaves_fog_but_ends_darkness():
    c = wizard("daylight")
    c.spells = ("daylight",)
    orc = mon("orc", (10, 5), "orc")
    b = arena(c, orc, layout=WIDE, first="caster")
    assert not any(o.kind == "spell" for o in b.decision.options)   # nothing to dispel yet
    low = {"spell": "darkness", "by": "orc", "level": 2, "dc": 10, "conc": False, "obscure": "dark",
           "cells": frozenset({(10, 5), (11, 5)}), "size": 5}
    high = dict(low, level=4, cells=frozenset({(12, 5)}))
    fog = dict(low, spell="fog-cloud", obscure="heavy", level=1, cells=frozenset({(10, 6)}))
    for z in (low, high, fog):
        spell_zones.add(b, z)
    b.forget_options()
    cast(b, "daylight", (11, 6))
    assert low not in b.zones and high in b.zones and fog in b.zones


def test_unseen_creature_inside_fog_may_hide():
    c = wizard("fog-cloud")
    orc = mon("orc", (10, 5), "orc")
    b = arena(c, orc, layout=WIDE, first="caster")
    assert not b.unseen(c)
    cast(b, "fog-cloud", (3, 6))
    assert b.unseen(c)


# ---------------------------------------------------------------- silence
def test_silence_stops_verbal_spells_inside_and_thunder_damage():
    c = wizard("silence")
    c.spells = ("silence", "fire-bolt", "thunderwave")
    orc = mon("orc", (8, 5), "orc")
    b = arena(c, orc, layout=WIDE, first="caster")
    cast(b, "silence", (3, 6))
    c.economy.actions = 1
    b.forget_options()
    assert not [o for o in b.decision.options if o.kind == "spell"]   # all have a verbal component
    hp = c.hp
    b.damage(c, 12, "thunder", magical=True, source="orc")
    assert c.hp == hp
    b.damage(orc, 5, "thunder", magical=True, source="caster")   # outside: hurt
    assert orc.hp == orc.max_hp - 5


# ---------------------------------------------------------------- terrain
def test_spike_growth_is_difficult_terrain_and_hurts_per_5_ft():
    c = wizard("spike-growth")
    orc = mon("orc", (12, 5), "orc")
    b = arena(c, orc, layout=WIDE, first="caster")
    cast(b, "spike-growth", (11, 6))
    turn(b, "orc")
    reach = b.reach(orc)
    assert reach.costs[(10, 5, 0)] == 20   # two squares of difficult terrain
    hp = orc.hp
    dest = [i for i, o in enumerate(b.decision.options) if o.kind == "move"]
    b.choose(dest[0])
    choose(b, "destination", ((10, 5, 0),))
    moved = [e for e in events(b, "zone") if "moves through" in e["text"]]
    assert len(moved) == 2 and orc.hp < hp
    assert hp - orc.hp >= 4 or orc.dead


def test_sleet_storm_knocks_down_who_starts_a_turn_inside():
    c = wizard("sleet-storm")
    orc = mon("orc", (10, 5), "orc")
    b = arena(c, orc, layout=WIDE, first="caster")
    cast(b, "sleet-storm", (11, 6))
    never_save(b)
    turn(b, "orc")
    assert "prone" in orc.conditions
    assert "target unseen (obscured)" in bolt_reasons(b, c, orc)


def test_earthquake_prone_on_casting_and_at_the_end_of_the_casters_turns():
    c = wizard("earthquake")
    orc = mon("orc", (10, 5), "orc")
    b = arena(c, orc, layout=WIDE, first="caster")
    never_save(b, orc)
    cast(b, "earthquake", (11, 6))
    assert "prone" in orc.conditions and "prone" not in c.conditions
    del orc.conditions["prone"]
    b._end_of_turn_effects(c)
    assert "prone" in orc.conditions
    turn(b, "orc")
    assert b.reach(orc).costs[(8, 5, 0)] == 20   # difficult terrain
    never_save(b, c, orc)   # the caster is in the area too: its concentration may break
    b._end_of_turn_effects(c)
    assert c.concentration is None and not spell_zones.live(b)


def test_reverse_gravity_lifts_then_drops():
    c = wizard("reverse-gravity")
    orc = mon("orc", (10, 5), "orc")
    b = arena(c, orc, layout=WIDE, first="caster", max_altitude_ft=30)
    never_save(b)
    cast(b, "reverse-gravity", (11, 6))
    assert orc.pos[2] == 30 and "reversed" in orc.conditions
    assert b.speed(orc) == 0
    hurt = orc.max_hp - orc.hp
    assert hurt > 0   # it hit the ceiling
    b.end_concentration(c)
    b.falls()
    assert orc.pos[2] == 0 and "prone" in orc.conditions and orc.max_hp - orc.hp > hurt or orc.dead


# ---------------------------------------------------------------- barriers and magic
def test_antilife_shell_keeps_the_living_out_but_not_the_undead():
    c = wizard("antilife-shell")
    orc = mon("orc", (8, 5), "orc")
    zombie = mon("zombie", (8, 7), "zombie")
    b = arena(c, orc, zombie, layout=WIDE, first="caster")
    cast(b, "antilife-shell")
    turn(b, "orc")
    cells = spell_zones.cells(b, b.zones[0])
    assert not [p for p in b.reach(orc).destinations if (p[0], p[1]) in cells]
    turn(b, "zombie")
    assert [p for p in b.reach(zombie).destinations if (p[0], p[1]) in cells]
    orc.pos = (5, 5, 0)   # 15 ft away, outside: no melee through the barrier even with reach
    turn(b, "orc")
    greataxe = orc.attack("greataxe")._replace(reach=15)
    assert c not in b.targets_for_attack(orc, greataxe)
    zombie.pos = (5, 7, 0)
    assert c in b.targets_for_attack(zombie, zombie.attacks[0]._replace(reach=15))


def test_globe_of_invulnerability_stops_low_level_spells_from_outside():
    c = wizard("globe-of-invulnerability")
    foe = wizard("fire-bolt", at=(8, 5), cid="foe")
    foe.side = "enemies"
    foe.spells = ("fire-bolt", "fireball")
    b = arena(c, foe, layout=WIDE, first="caster")
    cast(b, "globe-of-invulnerability")
    turn(b, "foe")
    assert c not in spellbook.targets(b, foe, "fire-bolt")
    assert c not in spellbook.area_hits(b, foe, "fireball", (3, 6))


def test_antimagic_field_no_spells_inside():
    c = wizard("antimagic-field")
    c.spells = ("antimagic-field", "fire-bolt")
    orc = mon("orc", (8, 5), "orc")
    b = arena(c, orc, layout=WIDE, first="caster")
    cast(b, "antimagic-field")
    c.economy.actions = 1
    b.forget_options()
    assert not [o for o in b.decision.options if o.kind == "spell"]


def test_prismatic_spray_rays():
    c = wizard("prismatic-spray")
    orcs = [mon("orc", (5 + i, 5), f"orc{i}") for i in range(3)]
    b = arena(c, *orcs, layout=WIDE, first="caster")
    cast(b, "prismatic-spray", (1, 0, 0))
    rays = [e for e in events(b, "spell") if "ray" in e["text"]]
    assert len(rays) >= 3


def test_no_zone_no_change():
    c = wizard("fire-bolt")
    orc = mon("orc", (8, 5), "orc")
    b = arena(c, orc, layout=WIDE, first="caster")
    assert b.zones == [] and spell_zones.difficult_cells(b, orc) == ()


def test_a_spell_that_needs_sight_cannot_target_into_fog():
    c = wizard("fog-cloud")
    c.spells = ("fog-cloud", "hold-monster")
    orc = mon("orc", (10, 5), "orc")
    b = arena(c, orc, layout=WIDE, first="caster")
    assert orc in spellbook.targets(b, c, "hold-monster")
    cast(b, "fog-cloud", (11, 6))
    assert orc not in spellbook.targets(b, c, "hold-monster")
    c.economy.actions = 1
    b.forget_options()
    assert not [o for o in b.decision.options if o.kind == "spell" and o.data[0] == "hold-monster"]


# ---------------------------------------------------------------- monsters
def test_ink_cloud_only_underwater_hides_the_octopus_and_allows_a_bonus_dash():
    from dnd_helpers import fighter
    octo = mon("giant-octopus", (3, 3), "octo")
    f = fighter(5, (9, 3), "f")
    b = arena(octo, f, layout=WIDE, first="octo")
    assert not [o for o in b.decision.options if o.kind == "monster_zone"]   # not underwater
    b.underwater = True
    b.forget_options()
    choose(b, "monster_zone", ("ink-cloud",))
    assert "target unseen (obscured)" in bolt_reasons(b, f, octo)
    assert any(o.kind == "cunning_dash" for o in b.decision.options)
    assert not [o for o in b.decision.options if o.kind == "monster_zone"]   # once per battle
    for _ in range(11):   # 1 minute later the ink is gone
        b.round += 1
    assert "target unseen (obscured)" not in bolt_reasons(b, f, octo)


def test_darkness_aura_moves_with_the_darkmantle_and_ends_with_its_concentration():
    from dnd_helpers import fighter
    dm = mon("darkmantle", (3, 3), "dm")
    f = fighter(5, (10, 3), "f")
    b = arena(dm, f, layout=WIDE, first="dm")
    choose(b, "monster_zone", ("darkness-aura",))
    assert "target unseen (obscured)" in bolt_reasons(b, f, dm)
    assert "target unseen (obscured)" not in bolt_reasons(b, dm, f)   # blindsight 60 ft
    dm.pos = (9, 9, 0)
    assert spell_zones.inside(b, b.zones[0], dm) and (3, 3) not in spell_zones.cells(b, b.zones[0])
    b.end_concentration(dm)
    assert "target unseen (obscured)" not in bolt_reasons(b, f, dm)


def test_animated_armor_is_incapacitated_in_an_antimagic_field():
    c = wizard("antimagic-field")
    armor = mon("animated-armor", (3, 5), "armor")
    b = arena(c, armor, layout=WIDE, first="caster")
    cast(b, "antimagic-field")
    turn(b, "armor")
    assert "incapacitated" in armor.conditions and b.active is not armor


def test_no_opportunity_attack_from_a_creature_that_cannot_see_the_mover():
    from dnd_helpers import fighter
    for fog in (False, True):
        c = wizard("fog-cloud", at=(2, 9))
        f = fighter(5, (5, 5), "f")
        orc = mon("orc", (6, 5), "orc")
        b = arena(c, f, orc, layout=WIDE, first="caster")
        if fog:
            cast(b, "fog-cloud", (6, 5))
            assert spell_zones.inside(b, b.zones[0], orc)
        turn(b, "f")
        choose(b, "move", ())
        choose(b, "destination", ((2, 5, 0),))
        asked = b.decision is not None and b.decision.kind == "reaction" and b.decision.actor == "orc"
        assert asked != fog


def test_antilife_shell_ends_when_its_caster_presses_it_onto_a_living_creature():
    c = wizard("antilife-shell")
    orc = mon("orc", (8, 5), "orc")
    b = arena(c, orc, layout=WIDE, first="caster")
    cast(b, "antilife-shell")
    choose(b, "move", ())
    choose(b, "destination", ((6, 5, 0),))   # the orc, 10 ft off, would be inside
    assert c.concentration is None and not spell_zones.live(b)
    assert [e for e in events(b, "zone_end") if "pressed" in e["text"]]


def test_the_state_and_its_text_name_the_lasting_areas():
    from dungeonbench_gym.games.dnd.views import text
    c = wizard("spike-growth")
    orc = mon("orc", (12, 5), "orc")
    b = arena(c, orc, layout=WIDE, first="caster")
    assert b.to_dict()["zones"] == []
    cast(b, "spike-growth", (11, 6))
    zones = b.to_dict()["zones"]
    assert len(zones) == 1 and "spike-growth of caster" in zones[0] and "2d4 piercing per 5 ft moved" in zones[0]
    assert "Lasting area: spike-growth" in text(b.to_dict(), "t")[0]


def test_a_conjured_creature_in_an_antimagic_field_loses_its_turn():
    c = wizard("antimagic-field")
    wolf = mon("wolf", (3, 5), "wolf")
    wolf.resources["summoned_by"] = "druid"
    wolf.conditions["summoned"] = {"by": "druid", "spell": "conjure-animals"}
    orc = mon("orc", (3, 7), "orc")   # not conjured: acts
    b = arena(c, wolf, orc, layout=WIDE, first="caster")
    cast(b, "antimagic-field")
    turn(b, "wolf")
    assert "incapacitated" in wolf.conditions and b.active is not wolf and not wolf.dead
    turn(b, "orc")
    assert "incapacitated" not in orc.conditions and b.active is orc


def test_control_water_whirlpool_only_underwater_pulls_and_catches():
    c = wizard("control-water")
    near = mon("ogre", (9, 5), "near")    # in the vortex (25 ft around the point (8, 6))
    far = mon("orc", (14, 5), "far")      # within 25 ft of its edge: pulled 10 ft
    b = arena(c, near, far, layout=WIDE, first="caster")
    assert not [o for o in b.decision.options if o.kind == "spell"]   # no deep water on land
    b.underwater = True
    b.forget_options()
    cast(b, "control-water", (8, 6))
    z = b.zones[0]
    assert spell_zones.inside(b, z, near) and not spell_zones.inside(b, z, far)
    never_save(b, near, far)
    turn(b, "far")
    assert far.pos[:2] == (12, 5)
    turn(b, "near")
    assert "whirled" in near.conditions and b.speed(near) == 0 and near.hp < near.max_hp
    b.end_concentration(c)
    assert "whirled" not in near.conditions
