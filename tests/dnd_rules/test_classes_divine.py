"""SRD 5.1 class features of the cleric (Life Domain), the druid (Circle of the Land) and the bard
(College of Lore), feature by feature: each test's docstring names the feature as the coverage
table does (docs/dnd-coverage-classes.md) and states the rule; the dice are scripted and the outcome
asserted exactly."""

from dnd_helpers import arena as _arena, cast, events, kinds, labels, mon, pc, pick, script, target, turn

from dungeonbench_gym.dnd.builders.pcs import build_pc, long_rest, short_rest


def arena(*fighters, **kw):
    """The helpers' arena with every option listed flat (high-level casters have many)."""
    return _arena(*fighters, max_options=10 ** 6, **kw)


def _mod(c, ab):
    return (c.abilities[ab] - 10) // 2


# ==================================================================== Cleric
def test_cleric_spell_slots_and_wisdom_casting():
    """Classes > Cleric > Spellcasting: Cleric
    A cleric casts with Wisdom: its spell save DC is 8 + proficiency + Wis modifier and its spell
    attack bonus proficiency + Wis modifier; its slots follow the cleric table (1st level: two
    1st-level slots; 3rd: four 1st and two 2nd; 5th: 4/3/2), and casting a 1st-level spell spends
    one 1st-level slot."""
    for level, slots in ((1, (2,)), (3, (4, 2)), (5, (4, 3, 2)), (9, (4, 3, 3, 3, 1))):
        c = build_pc("cleric", level, "c", (2, 2, 0))
        assert c.resources["slots"][:len(slots)] == slots and not any(c.resources["slots"][len(slots):]), level
        assert c.resources["spell_dc"] == 8 + c.prof + _mod(c, "wis")
        assert c.resources["spell_attack"] == c.prof + _mod(c, "wis")
    c, o = pc("cleric", 1, (2, 2), "c"), mon("ogre", (4, 2))
    b = arena(c, o, first="c")
    script(b, 15, 2, 3, 4, 5)   # Guiding Bolt: a hit, 4d6
    cast(b, "guiding-bolt", 1)
    target(b, "ogre")
    assert o.hp == 59 - 14 and c.resources["slots"][0] == 1


def test_life_domain_spells_are_always_prepared_from_their_level():
    """Classes > Cleric > Domain Spells
    The Life Domain's spells come at cleric levels 1 (bless, cure wounds), 3 (lesser restoration,
    spiritual weapon), 5 (beacon of hope, revivify), 7 (death ward, guardian of faith) and 9 (mass
    cure wounds, raise dead); once gained they are always prepared and castable with a slot."""
    for level, has, lacks in ((1, ("bless", "cure-wounds"), ("spiritual-weapon",)),
                              (3, ("spiritual-weapon", "lesser-restoration"), ("revivify",)),
                              (5, ("revivify",), ("death-ward",)), (7, ("death-ward",), ("mass-cure-wounds",)),
                              (9, ("mass-cure-wounds",), ())):
        c = build_pc("cleric", level, "c", (2, 2, 0), spells=("sacred-flame",))
        assert set(has) <= set(c.spells) and not set(lacks) & set(c.spells), (level, c.spells)
    c = build_pc("cleric", 3, "c", (2, 2, 0), spells=("sacred-flame",))
    b = arena(c, mon("ogre", (4, 2)), first="c")
    assert any(o.kind == "spell" and o.data[0] == "spiritual-weapon" for o in b.decision.options)


def test_channel_divinity_uses_per_rest_grow_with_level():
    """Classes > Cleric > Channel Divinity (1/rest)
    From 2nd level a cleric channels divinity once between rests (twice from 6th, three times from
    18th); Turn Undead and the domain's effect draw on the same uses, and a short or long rest gives
    every use back."""
    for level, uses in ((1, 0), (2, 1), (5, 1), (6, 2), (17, 2), (18, 3)):
        c = build_pc("cleric", level, "c", (2, 2, 0))
        assert c.resources.get("channel_divinity", 0) == uses, level
        if uses:
            c.resources["channel_divinity"] = 0
            short_rest(c)
            assert c.resources["channel_divinity"] == uses
    # the same pool: after Preserve Life, no Turn Undead before a rest (1/rest at 2nd level)
    c, f, z = pc("cleric", 2, (2, 2), "c"), pc("fighter", 1, (2, 4), "f"), mon("zombie", (5, 2))
    b = arena(c, f, z, first="c")
    f.hp = 1
    b.forget_options()
    assert "turn_undead" in kinds(b)
    pick(b, "feature", "Preserve Life")
    assert c.resources["channel_divinity"] == 0
    turn(b, "c")
    assert "turn_undead" not in kinds(b) and not labels(b, "feature")


def test_channel_divinity_twice_between_rests_at_6th_level():
    """Classes > Cleric > Channel Divinity (2/rest)
    At 6th level the cleric may channel divinity twice before a rest: Turn Undead in one turn and
    again in the next, then no third time."""
    c, z = pc("cleric", 6, (2, 2), "c"), mon("ogre-zombie", (5, 2))   # CR 2: not destroyed at 6th
    b = arena(c, z, first="c")
    script(b, 20)   # a Wis save of 20 + (-2): passes at DC 15
    pick(b, "turn_undead")
    assert "turned" not in z.conditions and c.resources["channel_divinity"] == 1
    turn(b, "c")
    script(b, 20)
    pick(b, "turn_undead")
    assert c.resources["channel_divinity"] == 0
    turn(b, "c")
    assert "turn_undead" not in kinds(b)


def test_channel_divinity_three_times_between_rests_at_18th_level():
    """Classes > Cleric > Channel Divinity (3/rest)
    At 18th level the cleric has three uses of Channel Divinity between rests."""
    c, z = pc("cleric", 18, (2, 2), "c"), mon("ogre-zombie", (5, 2))
    b = arena(c, z, first="c")
    z.max_hp = z.hp = 500
    for left in (2, 1, 0):
        turn(b, "c")
        script(b, 20)
        pick(b, "turn_undead")
        assert c.resources["channel_divinity"] == left
    turn(b, "c")
    assert "turn_undead" not in kinds(b)


def test_turn_undead_turns_undead_within_30_feet_that_fail_a_wisdom_save():
    """Classes > Cleric > Channel Divinity: Turn Undead
    As an action, each undead within 30 feet makes a Wisdom save against the cleric's spell save DC;
    one that fails is turned (for a minute or until it takes damage): it can't take reactions, it
    must move away from the cleric, and it may only Dash or (with nowhere to go) Dodge. An undead
    farther than 30 feet, or one that saves, is unaffected; a living creature is never affected."""
    c = pc("cleric", 2, (2, 2), "c")
    z1, z2, z3, g = mon("zombie", (5, 2), "z1"), mon("zombie", (2, 5), "z2"), mon("zombie", (9, 6), "z3"), \
        mon("goblin", (3, 3), "g")
    b = arena(c, z1, z2, z3, g, first="c")
    dc = c.resources["spell_dc"]
    assert b.distance(c, z3) > 30
    script(b, dc - 1 - 0, 20)   # z1: 12 + 0 (Wis mod of a zombie is -2: 12 - 2 = 10 fails DC 13); z2 saves
    pick(b, "turn_undead")
    assert "turned" in z1.conditions and "turned" not in z2.conditions and "turned" not in z3.conditions
    assert "turned" not in g.conditions and c.economy.actions == 0 and c.resources["channel_divinity"] == 0
    turn(b, "z1")
    assert not z1.economy.reaction
    assert set(kinds(b)) <= {"move", "dash", "escape", "stand", "end_turn", "dodge"}
    assert "attack" not in kinds(b)
    # damage ends it
    b.damage(z1, 1, "radiant")
    assert "turned" not in z1.conditions


def test_destroy_undead_destroys_turned_undead_up_to_the_cr_threshold():
    """Classes > Cleric > Destroy Undead (CR 1/2 or below)
    From 5th level an undead that fails its save against Turn Undead is destroyed outright if its
    challenge rating is at or below the threshold (1/2 at 5th, 1 at 8th, 2 at 11th, 3 at 14th,
    4 at 17th); one above it is only turned."""
    for level, cr in ((5, 0.5), (8, 1), (11, 2), (14, 3), (17, 4)):
        assert build_pc("cleric", level, "c", (2, 2, 0)).resources["destroy_undead_cr"] == cr
    # at 5th: a zombie (CR 1/4) and a skeleton (1/4) are destroyed, a ghoul (CR 1) only turned
    for level, key, destroyed in ((5, "zombie", True), (5, "ghoul", False), (8, "ghoul", True),
                                  (8, "ogre-zombie", False), (11, "ogre-zombie", True),
                                  (11, "wight", False), (14, "wight", True), (17, "wight", True)):
        c, u = pc("cleric", level, (2, 2), "c"), mon(key, (5, 2), "u")
        b = arena(c, u, first="c")
        script(b, 1)
        pick(b, "turn_undead")
        assert u.dead == destroyed and ("turned" in u.conditions) == (not destroyed), (level, key)


def test_destroy_undead_cr_1_at_8th_level():
    """Classes > Cleric > Destroy Undead (CR 1 or below)
    At 8th level a ghoul (CR 1) failing its save against Turn Undead is destroyed; at 7th it is
    only turned."""
    for level, destroyed in ((7, False), (8, True)):
        c, u = pc("cleric", level, (2, 2), "c"), mon("ghoul", (5, 2), "u")
        b = arena(c, u, first="c")
        script(b, 1)
        pick(b, "turn_undead")
        assert u.dead == destroyed, level


def test_destroy_undead_cr_2_at_11th_level():
    """Classes > Cleric > Destroy Undead (CR 2 or below)
    At 11th level an ogre zombie (CR 2) failing its save is destroyed; at 10th it is only turned."""
    for level, destroyed in ((10, False), (11, True)):
        c, u = pc("cleric", level, (2, 2), "c"), mon("ogre-zombie", (5, 2), "u")
        b = arena(c, u, first="c")
        script(b, 1)
        pick(b, "turn_undead")
        assert u.dead == destroyed, level


def test_destroy_undead_cr_3_at_14th_level():
    """Classes > Cleric > Destroy Undead (CR 3 or below)
    At 14th level a wight (CR 3) failing its save is destroyed; at 13th it is only turned."""
    for level, destroyed in ((13, False), (14, True)):
        c, u = pc("cleric", level, (2, 2), "c"), mon("wight", (5, 2), "u")
        b = arena(c, u, first="c")
        script(b, 1)
        pick(b, "turn_undead")
        assert u.dead == destroyed, level


def test_destroy_undead_cr_4_at_17th_level():
    """Classes > Cleric > Destroy Undead (CR 4 or below)
    At 17th level a ghost (CR 4) failing its save is destroyed; at 16th it is only turned."""
    for level, destroyed in ((16, False), (17, True)):
        c, u = pc("cleric", level, (2, 2), "c"), mon("ghost", (5, 2), "u")
        b = arena(c, u, first="c")
        script(b, 1)
        pick(b, "turn_undead")
        assert u.dead == destroyed, level


def test_preserve_life_heals_up_to_half_the_maximum_never_undead_or_constructs():
    """Classes > Cleric > Channel Divinity: Preserve Life
    As an action and one use of Channel Divinity, the cleric restores five times its cleric level
    in hit points, divided among creatures within 30 feet; none is raised above half its hit point
    maximum, and undead and constructs get none.
    Simplified: the engine divides the pool for the cleric, among its own side only, the worst off
    (by fraction of hit points) first, each up to half its maximum."""
    c, f, w = pc("cleric", 2, (1, 1), "c"), pc("fighter", 1, (1, 3), "f"), pc("wizard", 1, (2, 1), "w")
    golem, far = pc("fighter", 1, (1, 2), "golem"), pc("fighter", 1, (8, 6), "far")
    golem.creature_type = "construct"
    b = arena(c, f, w, golem, far, mon("ogre", (8, 2)), first="c")
    f.hp, w.hp, golem.hp, far.hp = 1, 1, 1, 1
    assert b.distance(c, far) > 30
    b.forget_options()
    pick(b, "feature", "Preserve Life")   # pool 10: f to 6 (half of 12) takes 5, w to 4 (half of 8) takes 3
    assert (f.hp, w.hp, golem.hp, far.hp) == (6, 4, 1, 1)
    assert c.economy.actions == 0 and c.resources["channel_divinity"] == 0
    # a creature already at half its maximum or more gets nothing: Preserve Life is not offered
    c2, f2 = pc("cleric", 2, (2, 2), "c"), pc("fighter", 1, (2, 4), "f")
    b2 = arena(c2, f2, mon("ogre", (8, 2)), first="c")
    f2.hp = f2.max_hp // 2
    b2.forget_options()
    assert not any("Preserve Life" in x for x in labels(b2, "feature"))


def test_disciple_of_life_adds_two_plus_the_spell_level_to_healing_spells():
    """Classes > Cleric > Disciple of Life
    A healing spell of 1st level or higher restores 2 + the spell's level more hit points to each
    creature it heals: Cure Wounds at 1st level (1d8 + Wis) gives 3 more, cast with a 2nd-level slot
    (2d8 + Wis) 4 more."""
    for slot, dice_ in ((1, (5,)), (2, (5, 6))):
        c, f = pc("cleric", 3, (2, 2), "c"), pc("fighter", 5, (3, 2), "f")
        b = arena(c, f, mon("ogre", (8, 6)), first="c")
        f.hp = 1
        b.forget_options()
        script(b, *dice_)
        cast(b, "cure-wounds", slot)
        target(b, "f")
        assert f.hp == 1 + sum(dice_) + _mod(c, "wis") + 2 + slot, slot


def test_blessed_healer_heals_the_cleric_when_it_heals_another():
    """Classes > Cleric > Blessed Healer
    From 6th level, casting a healing spell of 1st level or higher on a creature other than itself
    gives the cleric 2 + the spell's level hit points too; healing only itself gives nothing more."""
    c, f = pc("cleric", 6, (2, 2), "c"), pc("fighter", 5, (3, 2), "f")
    b = arena(c, f, mon("ogre", (8, 6)), first="c")
    f.hp, c.hp = 1, 10
    b.forget_options()
    script(b, 3)
    cast(b, "healing-word", 1)
    target(b, "f")
    assert f.hp == 1 + 3 + _mod(c, "wis") + 3 and c.hp == 10 + 3
    turn(b, "c")
    script(b, 3)
    cast(b, "cure-wounds", 1)
    target(b, "c")
    assert c.hp == 13 + 3 + _mod(c, "wis") + 3   # its own Disciple of Life, no Blessed Healer on top


def test_supreme_healing_uses_each_healing_die_at_its_maximum():
    """Classes > Cleric > Supreme Healing
    From 17th level a healing spell's dice count at their highest: Cure Wounds with a 1st-level slot
    restores 8 + Wis (+ Disciple of Life's 3) without rolling its d8."""
    c, f = pc("cleric", 17, (2, 2), "c"), pc("fighter", 20, (3, 2), "f")
    b = arena(c, f, mon("ogre", (8, 6)), first="c")
    f.hp = 1
    b.forget_options()
    script(b)   # no die may be drawn
    cast(b, "cure-wounds", 1)
    target(b, "f")
    assert f.hp == 1 + 8 + _mod(c, "wis") + 3


def test_divine_strike_adds_radiant_once_on_each_of_the_clerics_turns():
    """Classes > Cleric > Divine Strike
    From 8th level, once on each of its own turns, a weapon hit of the cleric deals 1d8 radiant
    more (2d8 from 14th). A weapon hit on another creature's turn (an opportunity attack) gets
    none, and the second weapon hit of the same turn gets none."""
    for level, strike in ((8, (5,)), (14, (5, 6))):
        c, o = pc("cleric", level, (2, 2), "c"), mon("ogre", (3, 2))
        b = arena(c, o, first="c")
        script(b, 15, 3, *strike)
        pick(b, "attack", "Mace")
        target(b, "ogre")
        assert o.hp == 59 - (3 + _mod(c, "str") + sum(strike)), level
        script(b, 15, 4)   # a second weapon hit on the same turn: no more radiant
        b.make_attack(c, c.attack("mace"), o)
        assert o.hp == 59 - (3 + _mod(c, "str") + sum(strike)) - (4 + _mod(c, "str")), level
    # on the ogre's turn (an opportunity attack), the cleric having struck no one on its own turn
    c, o = pc("cleric", 8, (2, 2), "c"), mon("ogre", (3, 2))
    b = arena(c, o, first="ogre")
    script(b, 15, 3)
    b.make_attack(c, c.attack("mace"), o)
    assert o.hp == 59 - (3 + _mod(c, "str"))


# ==================================================================== Druid
def _forms(b):
    return {o.data[1] for o in b.decision.options if o.kind == "feature" and o.data[0] == "wild_shape_into"}


def test_druid_spell_slots_and_wisdom_casting():
    """Classes > Druid > Spellcasting: Druid
    A druid casts with Wisdom (save DC 8 + proficiency + Wis modifier, spell attack proficiency +
    Wis modifier) and has the druid table's slots: two 1st-level slots at 1st level, 4/2 at 3rd,
    4/3/2 at 5th; a levelled spell spends a slot of its level (Healing Word: 1d4 + Wis)."""
    for level, slots in ((1, (2,)), (3, (4, 2)), (5, (4, 3, 2)), (9, (4, 3, 3, 3, 1))):
        c = build_pc("druid", level, "d", (2, 2, 0))
        assert c.resources["slots"][:len(slots)] == slots and not any(c.resources["slots"][len(slots):]), level
        assert c.resources["spell_dc"] == 8 + c.prof + _mod(c, "wis")
        assert c.resources["spell_attack"] == c.prof + _mod(c, "wis")
    c, f = pc("druid", 1, (2, 2), "d"), pc("fighter", 1, (3, 2), "f")
    b = arena(c, f, mon("ogre", (8, 6)), first="d")
    f.hp = 1
    b.forget_options()
    script(b, 3)
    cast(b, "healing-word", 1)
    target(b, "f")
    assert f.hp == 1 + 3 + _mod(c, "wis") and c.resources["slots"][0] == 1


def test_wild_shape_at_2nd_level_beasts_of_cr_quarter_without_fly_or_swim():
    """Classes > Druid > Wild Shape (CR 1/4 or below, no flying or swim speed)
    From 2nd level, as an action, the druid takes the shape of a beast of CR 1/4 or lower that has
    neither a flying nor a swimming speed, twice between rests. The beast's hit points, AC, speed,
    Strength, Dexterity and Constitution and attacks replace its own; it keeps its Intelligence,
    Wisdom and Charisma and its saving throw proficiencies; it can't cast spells. It reverts as a
    bonus action (to the hit points it had before), or when the beast drops to 0 hit points, the
    damage beyond the beast's hit points carrying over to its own; a short rest gives the uses back."""
    c, o = pc("druid", 2, (2, 2), "d"), mon("ogre", (3, 2))
    b = arena(c, o, first="d")
    own_hp, own = c.hp, dict(c.abilities)
    pick(b, "feature", "Wild Shape")
    forms = _forms(b)
    assert "wolf" in forms and "ape" not in forms   # CR 1/4 yes, CR 1/2 no
    assert "constrictor-snake" not in forms and "giant-owl" not in forms   # CR 1/4 with a swim or fly speed
    pick(b, "feature", ": Wolf (")
    assert c.economy.actions == 0 and c.resources["wild_shape"] == 1
    assert (c.hp, c.max_hp, c.ac, c.creature_type) == (11, 11, 13, "beast")
    assert c.abilities == dict(own, str=12, dex=15, con=12)
    assert c.saves["wis"] == _mod(c, "wis") + c.prof and c.saves["int"] == _mod(c, "int") + c.prof
    turn(b, "d")   # its next turn in the wolf's shape: the wolf's bite, no spells
    assert not any(x.kind == "spell" for x in b.decision.options)
    assert any(x.kind == "attack" and "Bite" in x.label for x in b.decision.options)
    c.hp = 5
    pick(b, "feature", "Revert")   # a bonus action: back to the hit points it had
    assert c.hp == own_hp and c.abilities == own and not c.economy.bonus
    turn(b, "d")
    pick(b, "feature", "Wild Shape")
    pick(b, "feature", ": Wolf (")
    assert c.resources["wild_shape"] == 0
    b.damage(c, 11 + 3, "bludgeoning")   # 3 beyond the wolf's 11
    assert c.hp == own_hp - 3 and c.creature_type == "humanoid" and c.conscious
    turn(b, "d")
    assert not any("Wild Shape" in x for x in labels(b, "feature"))
    short_rest(c)
    assert c.resources["wild_shape"] == 2


def test_wild_shape_keeps_concentration_on_a_spell_cast_before():
    """Classes > Druid > Wild Shape (CR 1/4 or below, no flying or swim speed)
    Taking a beast's shape does not end the druid's concentration on a spell it cast before."""
    c, o = pc("druid", 3, (2, 2), "d"), mon("orc", (5, 2))
    b = arena(c, o, first="d")
    script(b, 1)
    cast(b, "hold-person", 2)
    target(b, "orc")
    assert "paralyzed" in o.conditions and c.concentration == "hold-person"
    turn(b, "d")
    pick(b, "feature", "Wild Shape")
    pick(b, "feature", ": Wolf (")
    assert c.concentration == "hold-person" and "paralyzed" in o.conditions


def test_wild_shape_at_4th_level_cr_half_and_swimmers_not_flyers():
    """Classes > Druid > Wild Shape (CR 1/2 or below, no flying speed)
    From 4th level the beast may be of CR 1/2 and may swim, but still not fly; CR 1 beasts wait
    until 8th level (a 7th-level druid is still limited to CR 1/2)."""
    for level in (4, 7):
        c = pc("druid", level, (2, 2), "d")
        b = arena(c, mon("ogre", (6, 2)), first="d")
        pick(b, "feature", "Wild Shape")
        forms = _forms(b)
        assert {"ape", "crocodile", "constrictor-snake"} <= forms, level
        assert not forms & {"giant-owl", "giant-eagle", "brown-bear", "giant-wasp"}, (level, forms)


def test_wild_shape_at_8th_level_cr_1_and_flyers():
    """Classes > Druid > Wild Shape (CR 1 or below)
    From 8th level the beast may be of CR 1 and may fly (a giant eagle, a brown bear); not CR 2."""
    c = pc("druid", 8, (2, 2), "d")
    b = arena(c, mon("ogre", (6, 2)), first="d")
    pick(b, "feature", "Wild Shape")
    forms = _forms(b)
    assert {"giant-eagle", "brown-bear", "giant-owl"} <= forms
    assert not forms & {"giant-boar", "polar-bear", "giant-elk"}
    pick(b, "feature", ": Giant Eagle (")
    assert c.fly == 80


def test_natural_recovery_regains_slots_up_to_half_the_druid_level_once_a_day():
    """Classes > Druid > Natural Recovery
    During a short rest the druid chooses expended slots to regain whose levels add up to at most
    half its druid level rounded up, none of 6th level or higher; then not again until a long rest.
    (At 4th level: one 2nd-level slot or two 1st-level slots; not a 1st and a 2nd.)"""
    from dungeonbench_gym.dnd.builders.pcs import natural_recovery
    import pytest
    c = build_pc("druid", 4, "d", (2, 2, 0))
    c.resources["slots"] = (2, 0) + c.resources["slots"][2:]
    with pytest.raises(ValueError):
        natural_recovery(c, (1, 2))
    assert natural_recovery(c, (1, 1)) == (1, 1) and c.resources["slots"][:2] == (4, 0)
    assert natural_recovery(c, (2,)) == ()   # once between long rests
    long_rest(c)
    c.resources["slots"] = (4, 0) + c.resources["slots"][2:]
    assert natural_recovery(c, (2,)) == (2,) and c.resources["slots"][:2] == (4, 1)
    d = build_pc("druid", 11, "d", (2, 2, 0))   # 6 levels, but a 6th-level slot is not allowed
    d.resources["slots"] = d.resources["slots"][:5] + (0,) + d.resources["slots"][6:]
    with pytest.raises(ValueError):
        natural_recovery(d, (6,))


def test_circle_spells_arctic_always_prepared_from_their_level():
    """Classes > Druid > Circle Spells
    The arctic circle's spells come at druid levels 3 (hold person, spike growth), 5 (sleet storm,
    slow), 7 (freedom of movement, ice storm) and 9 (commune with nature, cone of cold); once gained
    they are always prepared, whatever the druid chose to prepare."""
    for level, has, lacks in ((3, ("hold-person", "spike-growth"), ("slow",)),
                              (5, ("sleet-storm", "slow"), ("ice-storm",)),
                              (7, ("freedom-of-movement", "ice-storm"), ("cone-of-cold",)),
                              (9, ("cone-of-cold",), ())):
        c = build_pc("druid", level, "d", (2, 2, 0), spells=("thunderwave",))
        assert set(has) <= set(c.spells) and not set(lacks) & set(c.spells), (level, c.spells)
    c = build_pc("druid", 3, "d", (2, 2, 0), spells=("thunderwave",))
    b = arena(c, mon("orc", (5, 2)), first="d")
    assert any(o.kind == "spell" and o.data[0] == "hold-person" for o in b.decision.options)


def test_lands_stride_ignores_nonmagical_difficult_terrain_and_resists_entangle():
    """Classes > Druid > Land's Stride
    From 6th level nonmagical difficult terrain costs the druid no extra movement (a 5th-level
    druid walks half as far through rubble), and it has advantage on saves against plants made
    magically to hinder movement, such as Entangle's."""
    from dungeonbench_gym.dnd.engine import Battle
    from dungeonbench_gym.dnd.grid import BattleMap
    layout = ["#" * 16] + ["#" + "," * 14 + "#"] * 10 + ["#" * 16]   # rubble everywhere
    far = {}
    for level in (5, 6):
        c = build_pc("druid", level, "d", (2, 2, 0))
        b = Battle(BattleMap.from_dict({"layout": layout}), [c, mon("ogre", (12, 9))], seed=0, max_options=10 ** 6)
        turn(b, "d")
        pick(b, "move")
        far[level] = max(o.data[0][0] for o in b.decision.options if o.kind == "destination" and o.data[0][1] == 2)
    assert far == {5: 2 + 3, 6: 2 + 6}
    for level, held in ((5, True), (6, False)):
        foe = build_pc("druid", 5, "foe", (2, 2, 0), side="enemies", spells=("entangle",))
        t = build_pc("druid", level, "d", (6, 2, 0))
        b = arena(foe, t, first="foe")
        pick(b, "spell", "Entangle")
        pick(b, "point_x", "x = 6")
        script(b, 2, 19, 2, 2)   # Str saves: 2 and 19, advantage keeps the 19
        pick(b, "point_y", "(6, 2)")
        assert ("restrained" in t.conditions) == held, level


def test_natures_sanctuary_beasts_must_save_to_attack_and_a_success_makes_them_immune():
    """Classes > Druid > Nature's Sanctuary
    From 14th level a beast or plant attacking the druid first makes a Wisdom save against the
    druid's spell save DC: on a failure the attack misses; on a success it attacks as usual and is
    immune to this for 24 hours. Other creatures attack normally.
    Simplified: a beast that fails loses the attack; the SRD lets it pick another target instead."""
    for level, safe in ((13, False), (14, True)):
        c, w = pc("druid", level, (2, 2), "d"), mon("wolf", (3, 2))
        b = arena(c, w, first="wolf")
        script(b, *((2,) if safe else (18, 4, 4, 20)))
        pick(b, "attack", "Bite")
        target(b, "d")
        assert (c.hp == c.max_hp) == safe, level
    c, w = pc("druid", 14, (2, 2), "d"), mon("wolf", (3, 2))
    b = arena(c, w, first="wolf")
    script(b, 20, 18, 4, 4, 20)   # the save succeeds: the bite is rolled (18 hits, 2d4+2 = 10; no prone)
    pick(b, "attack", "Bite")
    target(b, "d")
    hp = c.max_hp - 10
    assert c.hp == hp
    turn(b, "wolf")
    script(b, 18, 4, 4, 20)   # immune now: no save, the bite lands again
    pick(b, "attack", "Bite")
    target(b, "d")
    assert c.hp == hp - 10
    o = mon("orc", (2, 3))   # not a beast or plant: no save at all
    c2 = pc("druid", 14, (2, 2), "d")
    b = arena(c2, o, first="orc")
    script(b, 18, 6)
    pick(b, "attack", "Greataxe")
    target(b, "d")
    assert c2.hp == c2.max_hp - (6 + 3)


def test_archdruid_wild_shapes_without_limit_and_casts_without_components():
    """Classes > Druid > Archdruid
    At 20th level Wild Shape has no limit of uses, and the druid ignores the verbal and somatic
    components of its druid spells: it casts Thunderwave inside a Silence that stops a 19th-level
    druid."""
    c = pc("druid", 20, (2, 2), "d")
    b = arena(c, mon("ogre", (6, 2)), first="d")
    for _ in range(3):
        turn(b, "d")
        pick(b, "feature", "Wild Shape")
        pick(b, "feature", ": Wolf (")
        pick(b, "feature", "Revert")
    assert c.resources["wild_shape"] >= 99
    for level, can in ((19, False), (20, True)):
        c = pc("druid", level, (2, 2), "d")
        foe = build_pc("cleric", 5, "foe", (6, 2, 0), side="enemies", spells=("silence",))
        b = arena(c, foe, first="foe")
        cast(b, "silence")
        pick(b, "point_x", "x = 2")
        pick(b, "point_y", "(2, 2)")
        turn(b, "d")
        assert any(o.kind == "spell" and o.data[0] == "thunderwave" for o in b.decision.options) == can, level


def test_wild_shape_gives_the_beasts_senses():
    """Classes > Druid > Wild Shape (CR 1/4 or below, no flying or swim speed)
    The beast's statistics replace the druid's, its senses with them: as a giant wolf spider
    (blindsight 10 ft, darkvision 60 ft) the human druid sees in the dark, and loses it on reverting."""
    from dungeonbench_gym.dnd import lighting
    c = pc("druid", 2, (2, 2), "d")
    b = arena(c, mon("ogre", (6, 2)), first="d")
    assert lighting.darkvision(c) == 0 and lighting.senses(c)[0] == 0
    pick(b, "feature", "Wild Shape")
    pick(b, "feature", ": Giant Wolf Spider (")
    assert lighting.darkvision(c) == 60 and lighting.senses(c)[0] == 10
    pick(b, "feature", "Revert")
    assert lighting.darkvision(c) == 0 and lighting.senses(c)[0] == 0


# ==================================================================== Bard
def _inspire(b, ally):
    pick(b, "feature", "Bardic Inspiration")
    pick(b, "target", f"Inspire {ally} ")


def test_bard_spell_slots_and_charisma_casting():
    """Classes > Bard > Spellcasting: Bard
    A bard casts with Charisma (save DC 8 + proficiency + Cha modifier, spell attack proficiency +
    Cha modifier) and has the bard table's slots: two 1st-level slots at 1st level, three at 2nd,
    4/2 at 3rd, 4/3/2 at 5th."""
    for level, slots in ((1, (2,)), (2, (3,)), (3, (4, 2)), (5, (4, 3, 2)), (9, (4, 3, 3, 3, 1))):
        c = build_pc("bard", level, "bard", (2, 2, 0))
        assert c.resources["slots"][:len(slots)] == slots and not any(c.resources["slots"][len(slots):]), level
        assert c.resources["spell_dc"] == 8 + c.prof + _mod(c, "cha")
        assert c.resources["spell_attack"] == c.prof + _mod(c, "cha")
    c, f = pc("bard", 1, (2, 2), "bard"), pc("fighter", 1, (3, 2), "f")
    b = arena(c, f, mon("ogre", (8, 6)), first="bard")
    f.hp = 1
    b.forget_options()
    script(b, 3)
    cast(b, "healing-word", 1)
    target(b, "f")
    assert f.hp == 1 + 3 + _mod(c, "cha") and c.resources["slots"][0] == 1


def test_bardic_inspiration_die_grows_and_uses_equal_the_charisma_modifier(monkeypatch):
    """Classes > Bard > Bardic Inspiration (d6)
    The bard's die is a d6, a d8 from 5th level, a d10 from 10th, a d12 from 15th; it has as many
    uses as its Charisma modifier (at least one: a bard of Charisma 8 still has one), all back after
    a long rest."""
    from dungeonbench_gym.dnd.model import archetypes
    for level, die in ((1, "1d6"), (4, "1d6"), (5, "1d8"), (9, "1d8"), (10, "1d10"), (14, "1d10"),
                       (15, "1d12"), (20, "1d12")):
        c = build_pc("bard", level, "bard", (2, 2, 0))
        assert c.resources["inspiration_die"] == die and c.resources["bardic_inspiration"] == _mod(c, "cha"), level
    c.resources["bardic_inspiration"] = 0
    long_rest(c)
    assert c.resources["bardic_inspiration"] == _mod(c, "cha")
    bard = archetypes.ARCHETYPES["bard"]
    monkeypatch.setitem(archetypes.ARCHETYPES, "bard", dict(bard, abilities=dict(bard["abilities"], cha=8)))
    assert build_pc("bard", 1, "bard", (2, 2, 0)).resources["bardic_inspiration"] == 1


def test_bardic_inspiration_a_bonus_action_for_another_creature_within_60_feet():
    """Classes > Bard > Bardic Inspiration (d6)
    As a bonus action the bard gives one creature other than itself within 60 feet a Bardic
    Inspiration die, spending one use; a creature holds only one such die at a time."""
    from dnd_helpers import WIDE
    c, f, far = pc("bard", 1, (1, 1), "bard"), pc("fighter", 1, (2, 1), "f"), pc("fighter", 1, (14, 10), "far")
    b = arena(c, f, far, mon("ogre", (8, 8)), layout=WIDE, first="bard")
    assert b.distance(c, far) > 60
    pick(b, "feature", "Bardic Inspiration")
    assert {o.data[0] for o in b.decision.options if o.kind == "target"} == {"f"}   # not itself, not far
    pick(b, "target", "Inspire f ")
    assert f.conditions["inspired"]["die"] == "1d6" and c.resources["bardic_inspiration"] == 2
    assert not c.economy.bonus and c.economy.actions == 1
    turn(b, "bard")
    assert not any("Bardic Inspiration" in x for x in labels(b, "feature"))   # f holds one; far is too far


def test_bardic_inspiration_die_adds_to_an_attack_a_save_or_a_check():
    """Classes > Bard > Bardic Inspiration (d6)
    The inspired creature may add the die, once, to an attack roll, a saving throw or an ability
    check after seeing the d20; then the die is gone: a missed longsword swing (4 + 5 = 9 against
    AC 11) becomes a hit with a 3, a failed Wisdom save (12 against 15) a success with a 4, a lost
    shove (5 + 5 against the orc's 10 + 5) a won one with a 6."""
    # the attack
    c, f, o = pc("bard", 1, (1, 1), "bard"), pc("fighter", 1, (2, 2), "f"), mon("ogre", (3, 2))
    b = arena(c, f, o, first="bard")
    _inspire(b, "f")
    turn(b, "f")
    script(b, 4, 3, 5)
    pick(b, "attack", "Longsword")
    target(b, "ogre")
    assert o.hp == 59 - (5 + _mod(f, "str")) and "inspired" not in f.conditions
    # the save
    c, f = pc("bard", 1, (1, 1), "bard"), pc("fighter", 1, (2, 2), "f")
    b = arena(c, f, mon("ogre", (8, 6)), first="bard")
    _inspire(b, "f")
    script(b, 12 - f.saves["wis"], 4)
    assert b.saving_throw(f, "wis", 15) and "inspired" not in f.conditions
    # the ability check (a shove: Athletics against the orc's Athletics)
    c, f, o = pc("bard", 1, (1, 1), "bard"), pc("fighter", 1, (2, 2), "f"), mon("orc", (3, 2))
    b = arena(c, f, o, first="bard")
    _inspire(b, "f")
    turn(b, "f")
    mine, theirs = b.athletics(f), b._escape_bonus(o)
    script(b, 10 + theirs - mine, 10, 6)   # a tie before the die
    pick(b, "shove", "Shove prone")
    target(b, "orc")
    assert "prone" in o.conditions and "inspired" not in f.conditions


def test_jack_of_all_trades_adds_half_proficiency_to_untrained_checks_and_initiative():
    """Classes > Bard > Jack of All Trades
    From 2nd level the bard adds half its proficiency bonus (rounded down) to every ability check
    that does not already include its proficiency: initiative (a Dexterity check) and an untrained
    Athletics shove (d20 10 - 1 + 1 beats the orc's 6 + 3 only with it)."""
    for level, bonus in ((1, 0), (2, 1), (5, 1), (9, 2), (13, 2), (17, 3)):
        c = pc("bard", level, (2, 2), "bard")
        b = arena(c, mon("ogre", (6, 2)))
        roll = next(e for e in b.log if e.get("what") == "initiative bard")
        assert roll["bonus"] == _mod(c, "dex") + bonus, level
    for level, won in ((1, False), (2, True)):
        c, o = pc("bard", level, (2, 2), "bard"), mon("orc", (3, 2))
        b = arena(c, o, first="bard")
        script(b, 10, 6)
        pick(b, "shove", "Shove prone")
        target(b, "orc")
        assert ("prone" in o.conditions) == won, level


def test_jack_of_all_trades_raises_passive_perception():
    """Classes > Bard > Jack of All Trades
    A passive Wisdom (Perception) score is 10 plus every bonus the check would have, so an untrained
    bard of 2nd level adds half its proficiency to it: a hiding rogue's Stealth of 12 surprises a
    1st-level bard (passive 11), not a 2nd-level one (passive 12, which notices a check it equals)."""
    from dungeonbench_gym.dnd.dice import Roller
    from dungeonbench_gym.dnd.engine import Battle
    from dungeonbench_gym.dnd.grid import BattleMap
    from dnd_helpers import OPEN, Script
    for level, surprised in ((1, True), (2, False)):
        r = build_pc("rogue", 1, "rogue", (1, 1, 0))
        bard = build_pc("bard", level, "bard", (7, 5, 0), side="enemies")
        roller = Roller(0)
        roller._int = Script([12 - (r.mod("dex") + r.prof)] + [10] * 50)
        b = Battle(BattleMap.from_dict({"layout": OPEN}), [r, bard], roller=roller, hiding="party")
        assert events(b, "stealth")[0]["checks"] == {"rogue": 12}
        assert ("surprised" in bard.conditions) == surprised, level


def _song_of_rest(level, spend=True):
    from dungeonbench_gym.dnd.day import DayRun, load_day
    from dungeonbench_gym.dnd.verification.feature_harness import FixedDice
    run = DayRun(load_day("crypt_watch"), 0)
    bard = build_pc("bard", level, "bard", (1, 1, 0))
    run.party["bard"] = bard
    f = next(p for p in run.party.values() if p.cid != "bard")
    f.hp = 1
    f.resources.setdefault("hit_dice", f.level)
    f.resources.setdefault("hit_die", 8)
    run.phase, run._menu = "rest", None
    run.roller._int = FixedDice([2, 5], 5)   # the hit die 2, the song's die 5
    if spend:
        next(i for i, o in enumerate(run.decision.options) if o.kind == "hit_die" and o.data == (f.cid,))
        run.choose(next(i for i, o in enumerate(run.decision.options) if o.kind == "hit_die" and o.data == (f.cid,)))
    after_die = f.hp
    run.choose(next(i for i, o in enumerate(run.decision.options) if o.kind == "finish_rest"))
    return bard, f, after_die


def test_song_of_rest_adds_a_die_to_hit_dice_spent_in_a_short_rest():
    """Classes > Bard > Song of Rest (d6)
    From 2nd level, a friendly creature that regains hit points by spending Hit Dice in a short rest
    with the bard regains 1d6 more at the rest's end (1d8 from 9th level, 1d10 from 13th, 1d12 from
    17th); one that spent no Hit Die gains nothing from it."""
    for level, die in ((2, "1d6"), (9, "1d8"), (13, "1d10"), (17, "1d12")):
        bard, f, after_die = _song_of_rest(level)
        assert bard.resources["song_of_rest"] == die and f.hp == after_die + 5, level
    bard, f, after_die = _song_of_rest(2, spend=False)
    assert f.hp == after_die == 1


def test_song_of_rest_d8_at_9th_level():
    """Classes > Bard > Song of Rest (d8)
    At 9th level the song's extra hit points are 1d8 (an 8 is possible, not a 9)."""
    assert build_pc("bard", 8, "bard", (1, 1, 0)).resources["song_of_rest"] == "1d6"
    assert build_pc("bard", 9, "bard", (1, 1, 0)).resources["song_of_rest"] == "1d8"


def test_song_of_rest_d10_at_13th_level():
    """Classes > Bard > Song of Rest (d10)
    At 13th level the song's extra hit points are 1d10."""
    assert build_pc("bard", 12, "bard", (1, 1, 0)).resources["song_of_rest"] == "1d8"
    assert build_pc("bard", 13, "bard", (1, 1, 0)).resources["song_of_rest"] == "1d10"


def test_song_of_rest_d12_at_17th_level():
    """Classes > Bard > Song of Rest (d12)
    At 17th level the song's extra hit points are 1d12."""
    assert build_pc("bard", 16, "bard", (1, 1, 0)).resources["song_of_rest"] == "1d10"
    assert build_pc("bard", 17, "bard", (1, 1, 0)).resources["song_of_rest"] == "1d12"


def test_cutting_words_subtracts_the_die_from_an_attack_roll_as_a_reaction():
    """Classes > Bard > Cutting Words
    From 3rd level, when a creature the bard sees within 60 feet makes an attack roll, the bard may
    spend its reaction and one Bardic Inspiration to subtract the die from the roll before the hit
    is known: the ogre's 13 + 6 = 19 against the fighter's AC 19, less 4, misses. A creature immune
    to being charmed (a ghoul) is immune to it: nothing is offered."""
    bard, f, o = pc("bard", 3, (1, 1), "bard"), pc("fighter", 1, (3, 4), "f"), mon("ogre", (3, 3))
    b = arena(bard, f, o, first="ogre")
    script(b, 13)
    pick(b, "attack", "Greatclub")
    target(b, "f")
    assert b.decision.actor == "bard" and b.decision.kind == "reaction"
    script(b, 4)
    pick(b, "reaction", "Cutting Words")
    assert f.hp == f.max_hp and bard.resources["bardic_inspiration"] == 2 and not bard.economy.reaction
    bard, f, g = pc("bard", 3, (1, 1), "bard"), pc("fighter", 1, (3, 4), "f"), mon("ghoul", (3, 3))
    assert "charmed" in g.condition_immunities
    b = arena(bard, f, g, first="ghoul")
    script(b, 15, 3, 3, 20)   # claws +4: 19 hits AC 19 for 2d4 + 2; the Con save against paralysis
    pick(b, "attack", "Claws")
    target(b, "f")
    assert f.hp == f.max_hp - 8 and bard.resources["bardic_inspiration"] == 3 and bard.economy.reaction


def test_font_of_inspiration_gives_the_uses_back_after_a_short_rest():
    """Classes > Bard > Font of Inspiration
    From 5th level a short rest, not only a long one, gives back every spent Bardic Inspiration."""
    for level, back in ((4, False), (5, True)):
        c = build_pc("bard", level, "bard", (2, 2, 0))
        c.resources["bardic_inspiration"] = 0
        short_rest(c)
        assert (c.resources["bardic_inspiration"] == c.resources["bardic_inspiration_max"]) == back, level


def test_countercharm_gives_advantage_against_fear_and_charm_until_the_next_turn_ends():
    """Classes > Bard > Countercharm
    From 6th level, as an action, the bard performs until the end of its next turn: it and friendly
    creatures within 30 feet have advantage on saves against being frightened or charmed (not on
    other saves, not farther away). The performance ends early if the bard is incapacitated or
    silenced."""
    from dungeonbench_gym.dnd.engine import Battle
    from dungeonbench_gym.dnd.grid import BattleMap
    from dnd_helpers import WIDE
    bard, f, far = pc("bard", 6, (1, 1), "bard"), pc("fighter", 5, (2, 2), "f"), pc("fighter", 5, (12, 9), "far")
    b = arena(bard, f, far, mon("ogre", (8, 6)), layout=WIDE, first="bard")
    pick(b, "feature", "Countercharm")
    assert bard.economy.actions == 0
    need = 15 - f.saves["wis"]
    for who, cond, kept in ((f, "frightened", True), (f, "charmed", True), (bard, "charmed", True),
                            (f, None, False), (far, "frightened", False)):
        script(b, 3, need)
        ok = b.saving_throw(who, "wis", 15 - (bard.saves["wis"] - f.saves["wis"] if who is bard else 0),
                            condition=cond) if cond else b.saving_throw(who, "wis", 15)
        assert ok == kept, (who.cid, cond)
        b.roller._int.values.clear()
    turn(b, "ogre")   # still up on the ogre's turn
    script(b, 3, need)
    assert b.saving_throw(f, "wis", 15, condition="frightened")
    # incapacitated: the performance stops
    bard.conditions["stunned"] = {"by": "ogre"}
    script(b, 3, need)
    assert not b.saving_throw(f, "wis", 15, condition="frightened")
    b.roller._int.values.clear()
    del bard.conditions["stunned"]
    # the end of the bard's next turn ends it
    turn(b, "bard")
    pick(b, None, "End turn")
    script(b, 3, need)
    assert not b.saving_throw(f, "wis", 15, condition="frightened")


def test_countercharm_ends_when_the_bard_is_silenced():
    """Classes > Bard > Countercharm
    Inside a Silence the bard's performance can't be heard: no advantage for its friends."""
    bard, f = pc("bard", 6, (2, 2), "bard"), pc("fighter", 5, (3, 2), "f")
    foe = build_pc("cleric", 5, "foe", (7, 5, 0), side="enemies", spells=("silence",))
    b = arena(bard, f, foe, first="bard")
    pick(b, "feature", "Countercharm")
    turn(b, "foe")
    cast(b, "silence")
    pick(b, "point_x", "x = 2")
    pick(b, "point_y", "(2, 2)")
    need = 15 - f.saves["wis"]
    script(b, 3, need)
    assert not b.saving_throw(f, "wis", 15, condition="frightened")


def test_peerless_skill_adds_a_bardic_inspiration_die_to_the_bards_own_check():
    """Classes > Bard > Peerless Skill
    From 14th level the bard may spend one Bardic Inspiration to add the die to its own ability
    check after seeing the d20: its shove (5 + 1) against the orc's 10 + 3 wins with a 10, which a
    13th-level bard can't do."""
    for level, won in ((13, False), (14, True)):
        c, o = pc("bard", level, (2, 2), "bard"), mon("orc", (3, 2))
        b = arena(c, o, first="bard")
        n = c.resources["bardic_inspiration"]
        script(b, 5, 10, *((10,) if level >= 14 else ()))
        pick(b, "shove", "Shove prone")
        target(b, "orc")
        assert ("prone" in o.conditions) == won and c.resources["bardic_inspiration"] == n - won, level


def test_superior_inspiration_one_use_back_when_initiative_is_rolled_with_none_left():
    """Classes > Bard > Superior Inspiration
    At 20th level, rolling initiative with no Bardic Inspiration left gives one back; with some
    left, nothing changes."""
    for level, had, now in ((20, 0, 1), (20, 2, 2), (19, 0, 0)):
        c = pc("bard", level, (2, 2), "bard")
        c.resources["bardic_inspiration"] = had
        arena(c, mon("ogre", (6, 2)))
        assert c.resources["bardic_inspiration"] == now, (level, had)


def test_wild_shape_ends_when_the_druid_falls_unconscious():
    """Classes > Druid > Wild Shape (CR 1/4 or below, no flying or swim speed)
    The druid reverts to its own form by itself when it falls unconscious, not only at 0 hit
    points: a wolf-shaped druid put to sleep by Sleep is the sleeping druid, with its own hit points."""
    c, w = pc("druid", 2, (2, 2), "d"), build_pc("wizard", 1, "w", (6, 2, 0), side="enemies")
    b = arena(c, w, first="d")
    own_hp = c.hp
    pick(b, "feature", "Wild Shape")
    pick(b, "feature", ": Wolf (")
    turn(b, "w")
    script(b, 8, 8, 8, 8, 8)   # Sleep's 5d8: 40 hit points' worth
    cast(b, "sleep", 1)
    while b.decision.kind in ("point_x", "point_y"):
        pick(b, None, "(2, 2)" if b.decision.kind == "point_y" else "x = 2")
    assert "unconscious" in c.conditions
    assert c.creature_type == "humanoid" and c.hp == own_hp and "wild_shape_saved" not in c.resources


def test_turn_undead_affects_only_undead_that_can_see_or_hear_the_cleric():
    """Classes > Cleric > Channel Divinity: Turn Undead
    Only an undead that can see or hear the cleric makes the save: one both blinded and deafened
    within 30 feet is unaffected; one only blinded (it hears) and one only deafened (it sees) are
    turned when they fail. With no undead that can see or hear it, the cleric is not offered Turn
    Undead at all."""
    c = pc("cleric", 2, (2, 2), "c")
    z1, z2, z3 = mon("zombie", (4, 2), "z1"), mon("zombie", (2, 4), "z2"), mon("zombie", (4, 4), "z3")
    z1.conditions.update(blinded={}, deafened={})
    z2.conditions["blinded"] = {}
    z3.conditions["deafened"] = {}
    b = arena(c, z1, z2, z3, first="c")
    script(b, 2, 2)   # z2 and z3 fail; z1 rolls nothing
    pick(b, "turn_undead")
    assert "turned" not in z1.conditions and "turned" in z2.conditions and "turned" in z3.conditions
    assert b.roller._int.values == []
    c2, z = pc("cleric", 2, (2, 2), "c"), mon("zombie", (4, 2), "z")
    z.conditions.update(blinded={}, deafened={})
    b2 = arena(c2, z, first="c")
    assert "turn_undead" not in kinds(b2)


def test_cutting_words_needs_an_attacker_the_bard_can_see_and_that_can_hear_it():
    """Classes > Bard > Cutting Words
    The attacker must be a creature the bard can see: an invisible ogre's hit (its roll with
    advantage) is not offered to Cutting Words, though the bard is neither blinded nor far. And a
    creature that can't hear the bard is immune: a deafened ogre's hit is not offered either. A
    visible ogre that hears is (the control)."""
    for cond, offered in (("invisible", False), ("deafened", False), (None, True)):
        bard, f, o = pc("bard", 3, (1, 1), "bard"), pc("fighter", 1, (3, 4), "f"), mon("ogre", (3, 3))
        if cond:
            o.conditions[cond] = {}
        b = arena(bard, f, o, first="ogre")
        d20 = (13, 13) if cond == "invisible" else (13,)   # 13 + 6 = 19 hits AC 19
        script(b, *d20, *(() if offered else (5, 5)))   # unanswered, the greatclub's 2d8 + 4 follows
        pick(b, "attack", "Greatclub")
        target(b, "f")
        assert (b.decision.kind == "reaction" and b.decision.actor == "bard") is offered, cond
        if not offered:
            assert f.hp == 0 and bard.economy.reaction, cond   # 14 damage drops the 12-HP fighter
