"""SRD 5.1 Spellcasting ("What Is a Spell?", "Casting a Spell") and the spells Shield and
Counterspell, rule by rule: each test's docstring names the section and states the rule; the dice
are scripted and the outcome asserted exactly.

The caster (tests/dnd_helpers.spell_setup) is a level-5 wizard: Int +4, proficiency +3, so spell
attack +7 and save DC 15, 32 HP, Con save +2, AC 12, holding the spells under test with four slots
of every level. Foes: orc (AC 13, 15 HP, Dex +1, Con +3, Wis +0), ogre (AC 11, 59 HP, Dex -1).
"""

from dnd_helpers import WIDE, arena, cast, events, mon, pc, pick, script, spell_setup, target, turn

from dungeonbench_gym.dnd.verification.arena import caster


def place(b, x, y):
    pick(b, "point_x", f"x = {x}")
    pick(b, "point_y", f"Point ({x}, {y}")


def _wizard(*spells, at=(3, 5), cid="caster", level=5, side="party"):
    c = caster(spells[0], level, cid, at)
    c.spells = tuple(spells)
    c.side = side
    return c


def _setup(*spells, foes=(), allies=(), at=(3, 5), level=5):
    """A battle on the WIDE map with a wizard holding ``spells`` (four slots of every level); its turn."""
    c = _wizard(*spells, at=at, level=level)
    b = arena(c, *allies, *foes, layout=WIDE, first="caster")
    return b, c


def _spells(b):
    return [(o.data[0], o.data[1]) for o in b.decision.options if o.kind == "spell"]


# ================================================================ spell slots
def test_a_levelled_spell_expends_a_slot_of_its_level():
    """Spellcasting > What Is a Spell? > Spell Slots
    Casting a 1st-level spell with a 1st-level slot uses up that one slot and no other."""
    b, c = spell_setup("magic-missile", mon("ogre", (8, 5)))
    cast(b, "magic-missile", 1)
    script(b, 1, 1, 1)
    target(b, "ogre")
    target(b, "ogre")
    target(b, "ogre")
    assert c.resources["slots"] == (3,) + (4,) * 8


def test_a_spell_fits_any_slot_of_its_level_or_higher_and_none_lower():
    """Spellcasting > What Is a Spell? > Spell Slots
    A spell may fill a slot of its own level or any higher level, never a lower one: a 3rd-level
    spell is offered at levels 3 to 9 only."""
    b, _c = spell_setup("fireball", mon("ogre", (9, 5)))
    assert sorted(lv for k, lv in _spells(b) if k == "fireball") == [3, 4, 5, 6, 7, 8, 9]


def test_a_spent_slot_level_is_not_offered_and_no_slot_means_no_spell():
    """Spellcasting > What Is a Spell? > Spell Slots
    A caster can cast only as many levelled spells as it has slots: a slot level with none left is
    not offered, and with no slot of the spell's level or higher the spell cannot be cast."""
    b, c = spell_setup("fireball", mon("ogre", (9, 5)))
    c.resources["slots"] = (4, 4, 0, 1, 0, 0, 0, 0, 0)
    b.forget_options()
    assert [lv for k, lv in _spells(b) if k == "fireball"] == [4]
    c.resources["slots"] = (4, 4, 0, 0, 0, 0, 0, 0, 0)
    b.forget_options()
    assert not [k for k, _ in _spells(b) if k == "fireball"]


def test_an_upcast_spell_spends_the_higher_slot():
    """Spellcasting > What Is a Spell? > Casting a Spell at a Higher Level
    A spell cast with a higher slot fills that slot: the higher-level slot is the one expended."""
    b, c = spell_setup("magic-missile", mon("ogre", (8, 5)))
    cast(b, "magic-missile", 3)
    script(b, *[1] * 5)
    for _ in range(5):
        target(b, "ogre")
    assert c.resources["slots"] == (4, 4, 3) + (4,) * 6


def test_magic_missile_cast_higher_fires_one_more_dart_per_level():
    """Spellcasting > What Is a Spell? > Casting a Spell at a Higher Level
    A spell cast at a higher level takes that level and its stronger effect: Magic Missile with a
    2nd-level slot fires four darts (three, plus one per level above 1st)."""
    b, _c = spell_setup("magic-missile", mon("ogre", (8, 5)))
    cast(b, "magic-missile", 2)
    script(b, 1, 2, 3, 4)   # 1d4+1 each: 2 + 3 + 4 + 5
    darts = 0
    while b.decision.kind == "target":
        target(b, "ogre")
        darts += 1
    assert darts == 4 and b.creatures["ogre"].hp == 59 - 14


def test_fireball_cast_higher_rolls_one_more_die_per_level():
    """Spellcasting > What Is a Spell? > Casting a Spell at a Higher Level
    Fireball with a 5th-level slot deals 8d6 + 2d6 = 10d6 fire (one die per level above 3rd)."""
    b, _c = spell_setup("fireball", mon("ogre", (10, 5)))
    cast(b, "fireball", 5)
    script(b, *[1] * 10, 2)   # ten damage dice, then the ogre's Dex save (2 - 1 fails)
    place(b, 10, 5)
    assert b.creatures["ogre"].hp == 59 - 10


def test_cure_wounds_cast_higher_heals_one_more_die_per_level():
    """Spellcasting > What Is a Spell? > Casting a Spell at a Higher Level
    Cure Wounds heals 1d8 + the spellcasting modifier, and 1d8 more for each slot level above 1st."""
    ally = pc("fighter", 5, (4, 5), "ally")
    ally.hp = 1
    b, _c = spell_setup("cure-wounds", mon("ogre", (14, 9)), allies=(ally,))
    cast(b, "cure-wounds", 3)
    script(b, 2, 3, 4)   # 3d8 = 9, +4 Int
    target(b, "ally")
    assert ally.hp == 1 + 9 + 4


def test_a_cantrip_spends_no_slot():
    """Spellcasting > What Is a Spell? > Cantrips
    A cantrip is cast at will, at level 0, without a spell slot."""
    b, c = spell_setup("fire-bolt", mon("ogre", (8, 5)))
    assert _spells(b) == [("fire-bolt", 0)]
    cast(b, "fire-bolt")
    script(b, 15, 5, 5)
    target(b, "ogre")
    assert c.resources["slots"] == (4,) * 9 and [e["level"] for e in events(b, "cast")] == [0]


def _chill_touch_damage(level):
    b, _c = spell_setup("chill-touch", mon("ogre", (8, 5)), level=level)
    cast(b, "chill-touch")
    dice = {1: 1, 4: 1, 5: 2, 10: 2, 11: 3, 17: 4}[level]
    script(b, 15, *[3] * dice)
    target(b, "ogre")
    return 59 - b.creatures["ogre"].hp


def test_cantrip_damage_grows_at_character_levels_5_11_and_17():
    """Spellcasting > What Is a Spell? > Cantrips
    A damage cantrip gains a die at the caster's 5th, 11th and 17th levels: Chill Touch deals 1d8,
    2d8, 3d8, 4d8."""
    assert [_chill_touch_damage(lv) for lv in (1, 4, 5, 10, 11, 17)] == [3, 3, 6, 6, 9, 12]


def test_a_monster_casters_cantrip_scales_with_its_spellcaster_level():
    """Spellcasting > What Is a Spell? > Cantrips
    A monster's cantrip uses its spellcaster level as a character's level: the mage (a 9th-level
    spellcaster) deals 2d10 with Fire Bolt."""
    m = mon("mage", (8, 5))
    f = pc("fighter", 5, (3, 5), "fighter")
    b = arena(f, m, layout=WIDE, first="mage")
    cast(b, "fire-bolt")
    script(b, 15, 4, 4)
    target(b, "fighter")
    assert f.hp == f.max_hp - 8


# ================================================================ casting time
def test_an_action_spell_takes_the_action():
    """Spellcasting > Casting a Spell > Casting Time
    A spell with a casting time of 1 action uses the caster's action: afterwards no action spell
    or Attack action is left."""
    b, c = spell_setup("fire-bolt", mon("ogre", (8, 5)))
    cast(b, "fire-bolt")
    script(b, 1)
    target(b, "ogre")
    assert c.economy.actions == 0 and not _spells(b)
    assert not [o for o in b.decision.options if o.kind == "attack"]


def test_after_a_bonus_action_spell_only_an_action_cantrip():
    """Spellcasting > Casting a Spell > Casting Time > Bonus Action
    Having cast a spell with a bonus action, the caster may cast no other spell that turn except a
    cantrip whose casting time is 1 action."""
    ally = pc("fighter", 5, (4, 5), "ally")
    ally.hp = 10
    b, c = _setup("healing-word", "fire-bolt", "magic-missile", foes=(mon("ogre", (9, 5)),), allies=(ally,))
    cast(b, "healing-word", 1)
    script(b, 1)
    target(b, "ally")
    assert c.economy.actions == 1
    assert {k for k, _ in _spells(b)} == {"fire-bolt"}


def test_after_a_levelled_action_spell_no_bonus_action_spell():
    """Spellcasting > Casting a Spell > Casting Time > Bonus Action
    A bonus-action spell can't follow a levelled action spell on the same turn (the action spell
    would then break the bonus-action rule), though the bonus action itself is unused."""
    ally = pc("fighter", 5, (4, 5), "ally")
    ally.hp = 10
    b, c = _setup("healing-word", "magic-missile", foes=(mon("ogre", (9, 5)),), allies=(ally,))
    cast(b, "magic-missile", 1)
    script(b, 1, 1, 1)
    for _ in range(3):
        target(b, "ogre")
    assert c.economy.bonus and not _spells(b)


def test_an_action_cantrip_then_a_bonus_action_spell_is_allowed():
    """Spellcasting > Casting a Spell > Casting Time > Bonus Action
    The one spell allowed beside a bonus-action spell is an action cantrip, in either order: cast the
    cantrip first and the bonus-action spell is still offered."""
    ally = pc("fighter", 5, (4, 5), "ally")
    ally.hp = 10
    b, _c = _setup("healing-word", "fire-bolt", foes=(mon("ogre", (9, 5)),), allies=(ally,))
    cast(b, "fire-bolt")
    script(b, 1)
    target(b, "ogre")
    assert _spells(b) == [("healing-word", lv) for lv in range(1, 10)]


def test_a_bonus_action_spell_needs_the_bonus_action():
    """Spellcasting > Casting a Spell > Casting Time > Bonus Action
    A bonus-action spell uses the turn's bonus action, so once that is spent no bonus-action spell
    is offered."""
    ally = pc("fighter", 5, (4, 5), "ally")
    ally.hp = 10
    b, c = _setup("healing-word", foes=(mon("ogre", (9, 5)),), allies=(ally,))
    c.economy.bonus = False
    b.forget_options()
    assert not _spells(b)


def test_a_reaction_spell_is_not_on_the_turn_menu():
    """Spellcasting > Casting a Spell > Casting Time > Reactions
    A reaction spell is cast only in answer to its trigger: Shield is not offered as an action."""
    b, _c = _setup("shield", "fire-bolt", foes=(mon("ogre", (9, 5)),))
    assert {k for k, _ in _spells(b)} == {"fire-bolt"}


# ================================================================ range
def test_a_target_beyond_the_spells_range_cannot_be_chosen():
    """Spellcasting > Casting a Spell > Spell Range
    A spell's target must be within its range: Sacred Flame (60 ft) reaches a foe 55 ft away, not
    one 65 ft away."""
    b, _c = spell_setup("sacred-flame", mon("orc", (14, 5), "far"), mon("orc", (12, 5), "near"), at=(1, 5))
    cast(b, "sacred-flame")
    assert [o.data for o in b.decision.options if o.kind == "target"] == [("near",)]


def test_a_touch_spell_reaches_only_an_adjacent_creature():
    """Spellcasting > Casting a Spell > Spell Range
    A touch spell targets only a creature the caster touches (within 5 ft): Cure Wounds is offered
    for the wounded ally beside the caster, not for one 10 ft away."""
    near, far = pc("fighter", 5, (4, 5), "near"), pc("fighter", 5, (5, 7), "far")
    near.hp = far.hp = 10
    b, _c = spell_setup("cure-wounds", mon("ogre", (14, 9)), allies=(near, far))
    cast(b, "cure-wounds", 1)
    assert [o.data for o in b.decision.options if o.kind == "target"] == [("near",)]


def test_an_area_spells_point_must_be_within_range():
    """Spellcasting > Casting a Spell > Spell Range
    For an area spell the target is the point where it erupts, which must lie within range:
    Shatter (60 ft) can be centred 55 ft away but not 65 ft away."""
    b, _c = spell_setup("shatter", mon("ogre", (14, 5)), at=(1, 5))
    cast(b, "shatter", 2)
    xs = [o.data[0] for o in b.decision.options if o.kind == "point_x"]
    assert 12 in xs and 14 not in xs


def test_once_cast_an_effect_is_not_bound_by_the_range():
    """Spellcasting > Casting a Spell > Spell Range
    After casting, the effect does not end when its target moves out of the spell's range: a
    blessed ally 60 ft away (Bless: 30 ft) stays blessed."""
    ally = pc("fighter", 5, (4, 5), "ally")
    b, c = spell_setup("bless", mon("ogre", (14, 9)), allies=(ally,))
    cast(b, "bless", 1)
    target(b, "ally")
    pick(b, "stop")
    ally.pos = (13, 1, 0)
    turn(b, "ally")
    assert "blessed" in ally.conditions and c.concentration == "bless"


def test_a_self_range_spell_affects_only_the_caster():
    """Spellcasting > Casting a Spell > Spell Range
    A spell with a range of self, such as Shield, affects only the caster: the ally beside it keeps
    its own AC."""
    f = _wizard("shield", cid="foe", at=(8, 5))
    ally = _wizard("fire-bolt", cid="buddy", at=(8, 6))
    o = mon("orc", (7, 5))
    b = arena(o, f, ally, layout=WIDE, first="orc")
    script(b, 10)   # 10 + 5 = 15 vs AC 12: a hit that Shield turns into a miss
    pick(b, "attack")
    target(b, "foe")
    pick(b, "reaction", "Cast Shield")
    assert b.armour_class(f) == 17 and b.armour_class(ally) == ally.ac


# ================================================================ components
def test_silence_stops_spells_with_a_verbal_component():
    """Spellcasting > Casting a Spell > Components > Verbal (V)
    A caster inside the area of Silence can't cast a spell with a verbal component (Fire Bolt, V S)."""
    foe = _wizard("silence", cid="foe", at=(10, 5), side="enemies")
    b, c = _setup("fire-bolt", foes=(foe,))
    assert _spells(b) == [("fire-bolt", 0)]
    turn(b, "foe")
    cast(b, "silence", 2)
    place(b, 3, 5)
    turn(b, "caster")
    assert not _spells(b)


# ================================================================ Shield
def _shield_duel():
    """The orc attacks a wizard holding Shield (AC 12) and a second orc stands by."""
    f = _wizard("shield", cid="foe", at=(8, 5))
    b = arena(mon("orc", (7, 5), "orc"), mon("orc", (9, 5), "orc2"), f, layout=WIDE, first="orc")
    return b, f


def test_shield_turns_the_triggering_hit_into_a_miss():
    """Spellcasting > Spells > Shield
    Cast as a reaction when an attack hits, Shield's +5 AC already counts against that attack: the
    orc's 15 against AC 12 becomes 15 against 17, a miss; the reaction and the lowest slot are spent."""
    b, f = _shield_duel()
    script(b, 10)
    pick(b, "attack")
    target(b, "foe")
    assert b.pending["reaction"] == "shield" and b.pending["actor"] == "foe"
    pick(b, "reaction", "Cast Shield")
    hit = events(b, "attack")[-1]
    assert (hit["total"], hit["ac"], hit["hit"]) == (15, 17, False)
    assert f.hp == f.max_hp and not f.economy.reaction and f.resources["slots"][0] == 3


def test_shield_lasts_until_the_start_of_the_casters_next_turn():
    """Spellcasting > Spells > Shield
    The +5 AC holds against every attack until the start of the caster's next turn, then ends."""
    b, f = _shield_duel()
    script(b, 10)
    pick(b, "attack")
    target(b, "foe")
    pick(b, "reaction", "Cast Shield")
    turn(b, "orc2")
    script(b, 11)   # 16 vs AC 17: the second orc misses too
    pick(b, "attack")
    target(b, "foe")
    assert events(b, "attack")[-1]["hit"] is False and b.armour_class(f) == 17
    turn(b, "foe")
    assert b.armour_class(f) == 12 and "shield" not in f.conditions


def test_shield_is_not_offered_without_a_reaction():
    """Spellcasting > Casting a Spell > Casting Time > Reactions
    A reaction spell needs the reaction: having spent it, the wizard is hit without a Shield
    decision."""
    b, f = _shield_duel()
    f.economy.reaction = False
    script(b, 10, 6)
    pick(b, "attack")
    target(b, "foe")
    assert b.pending.get("kind") != "reaction" and f.hp == f.max_hp - 6 - 3


def test_an_incapacitated_creature_cannot_cast_shield():
    """Spellcasting > Spells > Shield
    Casting Shield takes a reaction, which an incapacitated creature cannot take: a stunned wizard
    is hit without the choice."""
    b, f = _shield_duel()
    f.conditions["stunned"] = {}
    script(b, 10, 6)   # advantage against the stunned: the second d20 is scripted below
    b.roller._int.values.insert(1, 1)
    pick(b, "attack")
    target(b, "foe")
    assert b.pending.get("kind") != "reaction" and f.hp < f.max_hp


def _missile_at_shield(spells=("shield",)):
    f = _wizard(*spells, cid="foe", at=(8, 5), side="enemies")
    b, c = spell_setup("magic-missile", f)
    return b, c, f


def test_shield_can_be_cast_when_magic_missile_targets_you_and_stops_its_darts():
    """Spellcasting > Spells > Shield
    Shield's trigger includes being targeted by Magic Missile, and while it lasts the caster takes
    no damage from that spell: all three darts at the wizard deal nothing."""
    b, c, f = _missile_at_shield()
    cast(b, "magic-missile", 1)
    target(b, "foe")
    assert b.pending["reaction"] == "shield_missile" and b.pending["actor"] == "foe"
    pick(b, "reaction", "Cast Shield")
    script(b)   # no damage die is rolled for a stopped dart
    target(b, "foe")
    target(b, "foe")
    assert f.hp == f.max_hp and f.resources["slots"][0] == 3 and not f.economy.reaction
    assert len(events(b, "shield")) == 3


def test_magic_missile_deals_no_damage_to_a_creature_already_shielded():
    """Spellcasting > Spells > Shield
    A creature that cast Shield earlier in the round takes no damage from Magic Missile; it is not
    asked again (its reaction is spent)."""
    b, c, f = _missile_at_shield()
    f.conditions["shield"] = {"until": "start_of_turn"}
    f.economy.reaction = False
    cast(b, "magic-missile", 1)
    script(b)
    for _ in range(3):
        target(b, "foe")
    assert f.hp == f.max_hp


def test_magic_missile_strikes_a_creature_that_lets_it_be():
    """Spellcasting > Spells > Shield
    Declining Shield, the wizard takes every dart (1d4+1 force each) and is asked only once per
    casting."""
    b, c, f = _missile_at_shield()
    cast(b, "magic-missile", 1)
    target(b, "foe")
    script(b, 1, 2, 3)
    pick(b, "reaction", "Let the magic missile")
    target(b, "foe")
    assert b.pending.get("kind") == "target"
    target(b, "foe")
    assert f.hp == f.max_hp - 9 and f.economy.reaction


def test_a_monster_caster_casts_shield_against_magic_missile():
    """Spellcasting > Spells > Shield
    A monster with Shield among its spells (the mage) may cast it when a PC's Magic Missile targets
    it, and takes no damage from the darts."""
    b, c = spell_setup("magic-missile", mon("mage", (8, 5)))
    m = b.creatures["mage"]
    cast(b, "magic-missile", 1)
    pick(b, "reaction", "Let")   # (the mage could counter it)
    target(b, "mage")
    assert b.pending["reaction"] == "shield_missile"
    pick(b, "reaction", "Cast Shield")
    target(b, "mage")
    target(b, "mage")
    assert m.hp == m.max_hp and "shield" in m.conditions


# ================================================================ Counterspell
def _counter_setup(dist_sq=8, foe_spells=("counterspell",), wall=False):
    foe = _wizard(*foe_spells, cid="foe", at=(1 + dist_sq, 5), side="enemies")
    layout = WIDE
    if wall:
        layout = [row if i not in (3, 4, 5, 6, 7) else row[:5] + "#" + row[6:] for i, row in enumerate(WIDE)]
    c = _wizard("fireball", "fire-bolt", at=(1, 5))
    b = arena(c, mon("ogre", (13, 9)), foe, layout=layout, first="caster")
    return b, c, foe


def test_counterspell_with_a_slot_at_least_the_spells_level_stops_it():
    """Spellcasting > Spells > Counterspell
    A creature within 60 ft that sees a spell being cast may counter it as a reaction; with a slot of
    the spell's level or higher the spell simply fails: Fireball at 3rd against a 3rd-level
    Counterspell. The caster's slot and action are spent all the same."""
    b, c, foe = _counter_setup()
    cast(b, "fireball", 3)
    assert b.pending["reaction"] == "counterspell" and b.pending["actor"] == "foe"
    pick(b, "reaction", "level-3 slot")
    assert events(b, "countered") and c.resources["slots"][2] == 3 and c.economy.actions == 0
    assert foe.resources["slots"][2] == 3 and not foe.economy.reaction
    assert foe.hp == foe.max_hp


def test_counterspell_with_a_lower_slot_needs_a_check_against_10_plus_the_level():
    """Spellcasting > Spells > Counterspell
    Against a spell of a higher level than its slot, the counterspeller makes a spellcasting ability
    check, DC 10 + the spell's level: Int +4 with 10 is 14, short of DC 15 for a 5th-level Fireball;
    with 11 it is 15 and stops it."""
    for d20, stopped in ((10, False), (11, True)):
        b, c, foe = _counter_setup()
        cast(b, "fireball", 5)
        script(b, d20, *[1] * 10, 1, 1)
        pick(b, "reaction", "level-3 slot")
        assert bool(events(b, "countered")) == stopped, d20
        if not stopped:   # the fireball goes ahead: its point is chosen next
            assert b.decision.kind == "point_x"


def test_counterspell_reaches_60_feet_only():
    """Spellcasting > Spells > Counterspell
    Counterspell's trigger is a creature within 60 ft casting a spell: a wizard 65 ft away is not
    asked."""
    b, _c, _foe = _counter_setup(dist_sq=13)
    cast(b, "fireball", 3)
    assert b.pending["kind"] != "reaction"
    b2, _c, _foe = _counter_setup(dist_sq=12)
    cast(b2, "fireball", 3)
    assert b2.pending["kind"] == "reaction"


def test_counterspell_needs_to_see_the_caster():
    """Spellcasting > Spells > Counterspell
    The counterspeller must see the creature casting: behind a wall it is not asked."""
    b, _c, _foe = _counter_setup(wall=True)
    cast(b, "fireball", 3)
    assert b.pending["kind"] != "reaction"


def test_a_counterspell_can_itself_be_countered():
    """Spellcasting > Spells > Counterspell
    Counterspell is a spell being cast, so the first caster's side may counter it in turn: the
    counter-counterspell stops the counterspell and the fireball goes ahead."""
    foe = _wizard("counterspell", cid="foe", at=(9, 5), side="enemies")
    friend = _wizard("counterspell", cid="friend", at=(3, 7))
    c = _wizard("fireball")
    b = arena(c, friend, mon("ogre", (13, 9)), foe, layout=WIDE, first="caster")
    cast(b, "fireball", 3)
    pick(b, "reaction", "level-3 slot")   # the foe counters
    assert b.pending["actor"] == "friend"
    pick(b, "reaction", "level-3 slot")   # the friend counters the counter
    assert not events(b, "countered") and b.decision.kind == "point_x"
    assert foe.resources["slots"][2] == 3 and friend.resources["slots"][2] == 3


def test_counterspell_takes_the_reaction_so_once_a_round():
    """Spellcasting > Spells > Counterspell
    Counterspell is cast with a reaction: having countered one spell, the wizard cannot counter the
    next before its reaction returns."""
    b, c, foe = _counter_setup()
    c.economy.actions = 2   # (an Action Surge)
    cast(b, "fireball", 3)
    pick(b, "reaction", "level-3 slot")
    cast(b, "fireball", 3)
    assert b.pending["kind"] != "reaction"


def test_a_pc_may_counter_a_monster_casters_spell():
    """Spellcasting > Spells > Counterspell
    A monster's spell is a spell like any other: the mage's Fireball can be countered by a PC wizard."""
    m = mon("mage", (9, 5))
    w = _wizard("counterspell", cid="wiz", at=(3, 5))
    b = arena(w, m, layout=WIDE, first="mage")
    cast(b, "fireball", 3)
    assert b.pending["reaction"] == "counterspell" and b.pending["actor"] == "wiz"
    pick(b, "reaction", "level-3 slot")
    assert b.pending["actor"] == "mage"   # the mage may counter the counterspell in turn
    pick(b, "reaction", "Let")
    assert events(b, "countered") and m.resources["slots"][2] == 2


def test_a_monster_caster_may_counter_a_pcs_spell():
    """Spellcasting > Spells > Counterspell
    A monster with Counterspell among its spells (the mage) may counter a PC's spell."""
    b, c = _setup("fireball", foes=(mon("mage", (9, 5)),))
    cast(b, "fireball", 3)
    assert b.pending["reaction"] == "counterspell" and b.pending["actor"] == "mage"


# ================================================================ duration and concentration
def _blessing(*extra, foes=None, at=(3, 5)):
    """The wizard has blessed its ally (concentration); the ogre stands far off."""
    ally = pc("fighter", 5, (at[0] + 1, at[1]), "ally")
    b, c = _setup("bless", *extra, foes=foes or (mon("ogre", (13, 9)),), allies=(ally,), at=at)
    cast(b, "bless", 1)
    target(b, "ally")
    pick(b, "stop")
    assert c.concentration == "bless" and "blessed" in ally.conditions
    return b, c, ally


def test_a_concentration_spell_lasts_its_duration_then_ends():
    """Spellcasting > Casting a Spell > Duration > Concentration
    A concentration spell lasts as long as its duration says: Bless (up to 1 minute, 10 rounds)
    still holds 9 rounds on and ends when the tenth round after the casting begins."""
    b, c, ally = _blessing()
    start = b.round
    b.round = start + 9
    b.start_turn(c)
    assert c.concentration == "bless"
    b.round = start + 10
    b.start_turn(c)
    assert c.concentration is None and "blessed" not in ally.conditions


def test_casting_another_concentration_spell_ends_the_first():
    """Spellcasting > Casting a Spell > Duration > Concentration
    A caster concentrates on one spell at a time: casting a second concentration spell (Hold
    Monster) ends Bless."""
    b, c, ally = _blessing("hold-monster", foes=(mon("ogre", (8, 5)),))
    turn(b, "caster")
    cast(b, "hold-monster", 5)
    script(b, 20)
    target(b, "ogre")
    assert c.concentration == "hold-monster" and "blessed" not in ally.conditions


def test_a_spell_without_concentration_leaves_concentration_alone():
    """Spellcasting > Casting a Spell > Duration > Concentration
    Only another concentration spell breaks concentration: a cantrip does not."""
    b, c, ally = _blessing("fire-bolt", foes=(mon("ogre", (8, 5)),))
    turn(b, "caster")
    cast(b, "fire-bolt")
    script(b, 1)
    target(b, "ogre")
    assert c.concentration == "bless" and "blessed" in ally.conditions


def test_moving_does_not_break_concentration():
    """Spellcasting > Casting a Spell > Duration > Concentration
    Ordinary activity such as moving keeps concentration."""
    b, c, ally = _blessing()
    turn(b, "caster")
    pick(b, "move")
    b.choose(0)
    while b.decision.kind == "route":
        b.choose(0)
    assert c.concentration == "bless"


def test_damage_calls_for_a_dc_10_con_save_when_half_is_less():
    """Spellcasting > Casting a Spell > Duration > Concentration
    Taking damage, the concentrating caster makes a Constitution save, DC 10 when half the damage is
    less than 10: after 6 damage, 8 + 2 = 10 keeps Bless, 7 + 2 = 9 loses it."""
    for d20, kept in ((8, True), (7, False)):
        b, c, ally = _blessing()
        script(b, d20)
        b.damage(c, 6, "slashing", source="ogre")
        save = events(b, "save")[-1]
        assert "DC 10 CON" in save["text"] and (c.concentration == "bless") == kept, d20


def test_heavy_damage_sets_the_concentration_dc_at_half_the_damage():
    """Spellcasting > Casting a Spell > Duration > Concentration
    When half the damage is more than 10, the DC is half the damage: 30 damage sets DC 15, so
    13 + 2 = 15 keeps the spell and 12 + 2 = 14 loses it."""
    for d20, kept in ((13, True), (12, False)):
        b, c, _ally = _blessing()
        script(b, d20)
        b.damage(c, 30, "slashing", source="ogre")
        assert "DC 15 CON" in events(b, "save")[-1]["text"] and (c.concentration == "bless") == kept


def test_each_source_of_damage_calls_for_its_own_concentration_save():
    """Spellcasting > Casting a Spell > Duration > Concentration
    Damage from two sources means two saves: two orcs hit the wizard in turn, and the second save's
    failure ends the spell though the first succeeded."""
    b, c, ally = _blessing(foes=(mon("orc", (2, 5), "orc1"), mon("orc", (3, 4), "orc2")))
    turn(b, "orc1")
    script(b, 15, 1, 15)   # hit, 1 + 3 damage, save 17 vs DC 10
    pick(b, "attack")
    target(b, "caster")
    turn(b, "orc2")
    script(b, 15, 1, 2)    # hit, 4 damage, save 4 vs DC 10
    pick(b, "attack")
    target(b, "caster")
    assert [e["success"] for e in events(b, "save")] == [True, False]
    assert c.concentration is None and "blessed" not in ally.conditions


def test_a_spells_area_damage_calls_for_a_concentration_save():
    """Spellcasting > Casting a Spell > Duration > Concentration
    Damage from a spell's area counts like any other: caught in a foe's Fireball, the wizard saves
    for its concentration after its Dexterity save."""
    foe = _wizard("fireball", cid="foe", at=(12, 5), side="enemies")
    b, c, ally = _blessing(foes=(foe,))
    turn(b, "foe")
    cast(b, "fireball", 3)
    pick(b, "reaction", "Let") if b.pending.get("reaction") else None
    script(b, *[2] * 8, 20, 1, 20, 1)   # 16 fire; the wizard and ally save; con save 1 + 2 fails
    place(b, 3, 5)
    assert c.concentration is None and "blessed" not in ally.conditions


def test_being_incapacitated_ends_concentration():
    """Spellcasting > Casting a Spell > Duration > Concentration
    A caster who becomes incapacitated loses concentration: paralyzed by a foe's Hold Person, the
    wizard's Bless ends."""
    foe = _wizard("hold-person", cid="foe", at=(8, 5), side="enemies")
    b, c, ally = _blessing(foes=(foe,))
    turn(b, "foe")
    cast(b, "hold-person", 2)
    script(b, 1)
    target(b, "caster")
    assert "paralyzed" in c.conditions
    assert c.concentration is None and "blessed" not in ally.conditions


def test_falling_unconscious_ends_concentration():
    """Spellcasting > Casting a Spell > Duration > Concentration
    Dropped to 0 hit points, the unconscious (incapacitated) wizard loses concentration."""
    b, c, ally = _blessing()
    b.damage(c, c.hp, "slashing", source="ogre")
    assert c.hp == 0 and not c.dead and c.concentration is None and "blessed" not in ally.conditions


def test_death_ends_concentration():
    """Spellcasting > Casting a Spell > Duration > Concentration
    A caster who dies loses concentration: a monster caster's spell ends with it. The mage's
    (concentration) Suggestion holds the fighter until the mage dies."""
    f = pc("fighter", 5, (3, 5), "fighter")
    m = mon("mage", (8, 5))
    b = arena(f, m, layout=WIDE, first="mage")
    cast(b, "suggestion", 2)
    script(b, 1)
    target(b, "fighter")
    assert "turned" in f.conditions and m.concentration == "suggestion"
    b.damage(m, m.hp, "force", source="fighter")
    assert m.dead and "turned" not in f.conditions


def test_a_monster_casters_concentration_is_checked_when_it_takes_damage():
    """Spellcasting > Casting a Spell > Duration > Concentration
    A monster concentrating on a spell saves like a PC: the mage (Con +0) hit for 8 fails its DC 10
    save on a 9 and the fighter is freed from its Suggestion; on a 10 it holds."""
    for d20, kept in ((10, True), (9, False)):
        f = pc("fighter", 5, (3, 5), "fighter")
        m = mon("mage", (8, 5))
        b = arena(f, m, layout=WIDE, first="mage")
        cast(b, "suggestion", 2)
        script(b, 1)
        target(b, "fighter")
        script(b, d20)
        b.damage(m, 8, "slashing", source="fighter")
        assert (m.concentration == "suggestion") == kept and ("turned" in f.conditions) == kept


# ================================================================ targets and areas
def test_a_creature_behind_total_cover_cannot_be_targeted():
    """Spellcasting > Casting a Spell > Targets > A Clear Path to the Target
    A spell's target needs a clear path: an orc behind a wall (total cover) is not offered to Fire
    Bolt while one in the open is."""
    layout = [row if i not in (3, 4, 5, 6, 7) else row[:6] + "#" + row[7:] for i, row in enumerate(WIDE)]
    c = _wizard("fire-bolt")
    b = arena(c, mon("orc", (9, 5), "hidden"), mon("orc", (5, 9), "open"), layout=layout, first="caster")
    cast(b, "fire-bolt")
    assert [o.data for o in b.decision.options if o.kind == "target"] == [("open",)]


def test_a_spell_for_a_creature_of_your_choice_can_target_yourself():
    """Spellcasting > Casting a Spell > Targets > Targeting Yourself
    A spell that targets a creature of the caster's choice may target the caster: the wounded wizard
    heals itself with Cure Wounds."""
    b, c = _setup("cure-wounds", foes=(mon("ogre", (13, 9)),))
    c.hp = 5
    b.forget_options()
    cast(b, "cure-wounds", 1)
    script(b, 4)
    target(b, "caster")
    assert c.hp == 5 + 4 + 4


def test_a_caster_inside_its_own_area_is_spared():
    """Spellcasting > Casting a Spell > Targets > Targeting Yourself
    A caster standing in its own spell's area would be caught like anyone else (Fireball centred
    beside the wizard would burn it too).
    Simplified: the engine never applies a creature's own area to itself (battle/targets.py
    area_hits), so a caster cannot hurt itself; its allies in the area are hit."""
    ally = pc("fighter", 5, (3, 6), "ally")
    b, c = spell_setup("fireball", mon("orc", (4, 5)), allies=(ally,), level=1)   # (no Sculpt Spells)
    cast(b, "fireball", 3)
    script(b, *[1] * 8, 1, 1)   # 8 fire; the orc and the ally fail their saves
    place(b, 4, 5)
    assert c.hp == c.max_hp and b.creatures["orc"].hp == 15 - 8 and ally.hp == ally.max_hp - 8


def test_a_sphere_reaches_its_radius_from_the_point_and_no_further():
    """Spellcasting > Casting a Spell > Areas of Effect > Sphere
    A sphere spreads its radius from the chosen point (a grid intersection), the point included:
    Fireball (20 ft) catches the orc in the square at the point and one whose square lies within
    20 ft of it, not one whose square starts 20 ft away."""
    b, _c = spell_setup("fireball", mon("orc", (8, 5), "o0"), mon("orc", (11, 5), "o20"), mon("orc", (12, 5), "o25"))
    cast(b, "fireball", 3)
    script(b, *[1] * 8, 1, 1)
    place(b, 8, 5)
    hp = {k: b.creatures[k].hp for k in ("o0", "o20", "o25")}
    assert hp == {"o0": 7, "o20": 7, "o25": 15}


def test_a_cone_widens_from_the_caster_and_leaves_the_caster_out():
    """Spellcasting > Casting a Spell > Areas of Effect > Cone
    A cone starts at the caster (its point of origin, not part of the area) and widens as it goes:
    Burning Hands (15 ft) aimed east burns an orc 15 ft ahead and one 15 ft ahead 5 ft to the side,
    not one behind the caster, nor the caster."""
    b, c = spell_setup("burning-hands", mon("orc", (6, 5), "ahead"), mon("orc", (6, 6), "side"),
                       mon("orc", (2, 5), "behind"))
    cast(b, "burning-hands", 1)
    script(b, 1, 1, 1, 1, 1)   # 3 fire; two saves fail
    pick(b, "direction", "Toward E ")
    hp = {k: b.creatures[k].hp for k in ("ahead", "side", "behind")}
    assert hp == {"ahead": 12, "side": 12, "behind": 15} and c.hp == c.max_hp


def test_a_line_runs_straight_from_the_caster_for_its_length():
    """Spellcasting > Casting a Spell > Areas of Effect > Line
    A line runs from its point of origin (the caster, not included) straight for its length and
    width: Lightning Bolt (100 ft by 5 ft) east hits orcs on the caster's row, not one a row off."""
    b, c = spell_setup("lightning-bolt", mon("orc", (6, 5), "near"), mon("orc", (13, 5), "far"),
                       mon("orc", (8, 7), "off"), at=(3, 5))
    cast(b, "lightning-bolt", 3)
    script(b, *[1] * 8, 1, 1)
    pick(b, "direction", "Toward E ")
    hp = {k: b.creatures[k].hp for k in ("near", "far", "off")}
    assert hp == {"near": 7, "far": 7, "off": 15} and c.hp == c.max_hp


def test_a_cube_from_the_caster_does_not_include_the_caster():
    """Spellcasting > Casting a Spell > Areas of Effect > Cube
    A cube's point of origin lies on one of its faces and is not in the area: Thunderwave's 15-ft
    cube pushed out from the wizard hits the orc beside it, and not the wizard."""
    b, c = spell_setup("thunderwave", mon("orc", (4, 5)))
    cast(b, "thunderwave", 1)
    script(b, 1, 1, 1)   # 2d8 = 2; the orc's Con save fails
    pick(b, "direction", "Toward E ")
    assert b.creatures["orc"].hp == 13 and c.hp == c.max_hp


def test_a_cylinder_includes_its_centre_and_its_radius():
    """Spellcasting > Casting a Spell > Areas of Effect > Cylinder
    A cylinder's circle is centred on the point of origin, which is in the area: Flame Strike (10-ft
    radius) on an orc catches it and one 10 ft away, not one 15 ft away."""
    b, _c = spell_setup("flame-strike", mon("orc", (8, 5), "o0"), mon("orc", (9, 5), "o10"),
                        mon("orc", (10, 5), "o15"))
    cast(b, "flame-strike", 5)
    script(b, *[1] * 8, 1, 1)
    place(b, 8, 5)
    hp = {k: b.creatures[k].hp for k in ("o0", "o10", "o15")}
    assert hp["o0"] < 15 and hp["o10"] < 15 and hp["o15"] == 15


def test_total_cover_blocks_an_area_from_its_point_of_origin():
    """Spellcasting > Casting a Spell > Areas of Effect
    An area spreads in straight lines from its point of origin; a creature behind total cover from
    that point is not in it: a wall between the fireball's point and an orc 10 ft away shields it."""
    layout = [row if i not in (2, 3, 4, 5, 6, 7, 8) else row[:9] + "#" + row[10:] for i, row in enumerate(WIDE)]
    c = _wizard("fireball")
    b = arena(c, mon("orc", (8, 5), "front"), mon("orc", (10, 5), "behind"), layout=layout, first="caster")
    cast(b, "fireball", 3)
    script(b, *[1] * 8, 1)
    place(b, 8, 5)
    assert b.creatures["front"].hp == 7 and b.creatures["behind"].hp == 15


# ================================================================ saves, attacks, combining
def test_the_spell_save_dc_is_8_plus_ability_plus_proficiency():
    """Spellcasting > Casting a Spell > Spell Saving Throws
    The DC is 8 + spellcasting modifier + proficiency (8 + 4 + 3 = 15): the orc's Wis save of 14
    fails Hold Person's paralysis, 15 succeeds."""
    for d20, held in ((14, True), (15, False)):
        b, _c = spell_setup("hold-monster", mon("orc", (6, 5)))
        cast(b, "hold-monster", 5)
        script(b, d20)
        target(b, "orc")
        assert ("paralyzed" in b.creatures["orc"].conditions) == held, d20


def test_a_monster_spell_uses_its_stat_blocks_save_dc():
    """Spellcasting > Casting a Spell > Spell Saving Throws
    A monster caster's save DC is its stat block's (the mage: DC 14): the fighter's Wisdom save
    total of 13 fails Suggestion, 14 succeeds."""
    for total, held in ((13, True), (14, False)):
        f = pc("fighter", 5, (3, 5), "fighter")
        m = mon("mage", (8, 5))
        b = arena(f, m, layout=WIDE, first="mage")
        cast(b, "suggestion", 2)
        script(b, total - f.saves["wis"])
        target(b, "fighter")
        assert ("turned" in f.conditions) == held, total


def test_the_spell_attack_bonus_is_ability_plus_proficiency():
    """Spellcasting > Casting a Spell > Spell Attack Rolls
    A spell attack adds spellcasting modifier + proficiency (+7): 6 + 7 = 13 hits the orc's AC 13,
    5 + 7 = 12 misses."""
    for d20, hit in ((6, True), (5, False)):
        b, _c = spell_setup("fire-bolt", mon("orc", (8, 5)))
        cast(b, "fire-bolt")
        script(b, d20, 1, 1)
        target(b, "orc")
        assert events(b, "attack")[-1]["hit"] is hit and events(b, "attack")[-1]["total"] == d20 + 7


def test_a_ranged_spell_attack_beside_a_foe_has_disadvantage():
    """Spellcasting > Casting a Spell > Spell Attack Rolls
    A ranged spell attack made within 5 ft of a hostile creature that sees the caster and isn't
    incapacitated has disadvantage: Fire Bolt at the adjacent orc rolls two d20s and keeps the low."""
    b, _c = spell_setup("fire-bolt", mon("orc", (4, 5)))
    cast(b, "fire-bolt")
    script(b, 18, 2)
    target(b, "orc")
    a = events(b, "attack")[-1]
    assert a["total"] == 9 and a["hit"] is False


def test_the_same_spell_twice_gives_its_benefit_once():
    """Spellcasting > Casting a Spell > Combining Magical Effects
    Two castings of one spell on a creature don't add up: an ally blessed by another caster is not a
    target for the wizard's Bless, and its attack roll gains a single d4."""
    ally = pc("fighter", 5, (4, 5), "ally")
    ally.conditions["blessed"] = {"by": "cleric", "spell": "bless"}
    b, _c = _setup("bless", foes=(mon("ogre", (5, 5)),), allies=(ally,))
    cast(b, "bless", 1)
    assert [o.data for o in b.decision.options if o.kind == "target"] == [("caster",)]
    turn(b, "ally")
    script(b, 3, 10, 1, 1)   # one d4 (3), then the d20, then damage
    pick(b, "attack")
    target(b, "ogre")
    a = events(b, "attack")[-1]
    assert a["total"] == 10 + ally.attacks[0].to_hit + 3


def test_different_spells_add_their_effects():
    """Spellcasting > Casting a Spell > Combining Magical Effects
    Effects of different spells combine while they overlap: Shield (+5) and Shield of Faith (+2)
    raise the wizard's AC 12 to 19."""
    b, c = _setup("shield-of-faith", foes=(mon("ogre", (13, 9)),))
    cast(b, "shield-of-faith", 1)
    target(b, "caster")
    c.conditions["shield"] = {"until": "start_of_turn"}
    assert b.armour_class(c) == 12 + 5 + 2


def test_heat_metal_disadvantage_lasts_until_the_start_of_the_casters_next_turn():
    """Spellcasting > Spells > Heat Metal
    A creature holding or wearing the heated metal that keeps it has disadvantage on attack rolls and
    ability checks until the start of the caster's next turn; on that turn a bonus action heats the
    metal again, which brings the disadvantage back."""
    b, c = spell_setup("heat-metal", mon("orc", (4, 5), "orc"))
    orc = b.creatures["orc"]
    cast(b, "heat-metal")
    target(b, "orc")
    assert orc.conditions["heated"]["attack_dis"]
    turn(b, "orc")   # the orc's turn: still heated while it attacks
    assert "heated" in orc.conditions
    turn(b, "caster")   # the start of the caster's next turn: it ends
    assert "heated" not in orc.conditions and c.concentration == "heat-metal"
    b.round += 1   # (turn() restarts the round count: make this a later round than the casting)
    b.forget_options()
    pick(b, "reheat")
    assert orc.conditions["heated"]["attack_dis"]


def test_a_caster_countering_a_counterspell_keeps_the_slot_of_its_own_spell():
    """Spellcasting > Casting a Spell > Spell Slots
    Casting a spell expends a slot of its level: a wizard whose spell is being countered may
    counter the counterspell only with a slot it still has besides the one its spell needs, so its
    last 3rd-level slot is not offered against the counterspell when its own spell is 3rd level."""
    from dungeonbench_gym.dnd import spell_counter
    w = _wizard("fireball", "counterspell", at=(3, 5))
    w.resources["slots"] = (0, 0, 1, 0, 0, 0, 0, 0, 0)   # one 3rd-level slot: the Fireball's
    mage = mon("mage", (9, 5), "mage")
    b = arena(w, mage, layout=WIDE, first="caster")
    stack = [("caster", "fireball", 3), ("mage", "counterspell", 3)]
    assert spell_counter._slots(w, stack) == [] and not spell_counter.can_counter(b, w, mage, stack)
    w.resources["slots"] = (0, 0, 2, 0, 0, 0, 0, 0, 0)
    assert spell_counter._slots(w, stack) == [3]


def test_bless_and_bane_change_death_saving_throws():
    """Spellcasting > Spells > Bless
    A death saving throw is a saving throw, and Bless lets a target add a d4 to every saving throw
    it makes (Bane makes it subtract one): a blessed dying ally's rolled 8 with a d4 of 2 reaches
    10, a success; a baned one's 11 less a d4 of 2 is 9, a failure. A natural 1 or 20 is still
    read off the d20 alone."""
    b, c, ally = _blessing()
    ally.hp = 0
    ally.conditions["unconscious"] = {}
    script(b, 2, 8)   # Bless's d4, then the death save's d20
    turn(b, "ally")
    assert (ally.death_successes, ally.death_failures) == (1, 0)
    script(b, 4, 1)   # 1 + 4 is still a natural 1: two failures
    turn(b, "ally")
    assert (ally.death_successes, ally.death_failures) == (1, 2)
    del ally.conditions["blessed"]
    ally.conditions["baned"] = {"by": "ogre"}
    ally.death_failures = 0
    script(b, 2, 11)   # Bane's d4, then the d20
    turn(b, "ally")
    assert (ally.death_successes, ally.death_failures) == (1, 1)


def test_eyebite_asleep_announces_unconscious_a_wild_shaped_druid_reverts_and_concentration_ends():
    """Spellcasting > Spells > Eyebite
    Asleep: a target that fails the Wisdom save falls unconscious. Being unconscious, it is
    incapacitated: it loses its concentration (Concentration) and, a druid in a beast's shape,
    returns to its own form (Wild Shape: it reverts when it falls unconscious). The condition is
    announced as "unconscious" like every other rule's."""
    from dungeonbench_gym.dnd.builders.pcs import build_pc
    d = build_pc("druid", 4, "d", (6, 5, 0), side="enemies")
    b, c = spell_setup("eyebite", d, level=11)
    turn(b, "d")
    pick(b, "feature", "Wild Shape")
    pick(b, "feature", ": Wolf (")
    assert d.creature_type == "beast" and "wild_shape_saved" in d.resources
    d.concentration = "bless"   # as if it kept a spell up from before its change
    turn(b, "caster")
    cast(b, "eyebite", 6)
    target(b, "d")
    script(b, 1)   # the Wisdom save fails
    b.choose(next(i for i, o in enumerate(b.decision.options) if o.data == ("asleep",)))
    assert "unconscious" in d.conditions and "prone" in d.conditions
    assert d.creature_type == "humanoid" and "wild_shape_saved" not in d.resources and d.concentration is None
    assert [e["condition"] for e in events(b, "condition") if e["creature"] == "d"] == ["unconscious"]
