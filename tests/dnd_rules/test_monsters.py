"""SRD 5.1 Monsters (the introduction's rules: legendary actions and resistance, recharge,
multiattack, innate spellcasting), rule by rule: each test's docstring names the section and states
the rule; the dice are scripted and the outcome asserted exactly."""

from dnd_helpers import WIDE, arena, cast, events, fighter, labels, mon, pick, script, spell_setup, turn

from dungeonbench_gym.dnd.verification.arena import caster


def _unicorn(at=(5, 5)):
    f = fighter(5, at=(4, 5))
    u = mon("unicorn", at)
    b = arena(f, u, layout=WIDE, first="fighter")
    return b, f, u


def test_a_legendary_action_comes_at_the_end_of_another_creatures_turn():
    """Monsters > Legendary Creatures > Legendary Actions
    A legendary action is taken only at the end of another creature's turn: the unicorn has none on
    its own menu, and is asked when the fighter's turn ends."""
    b, f, u = _unicorn()
    assert b.pending["kind"] == "action"
    pick(b, None, "End turn")
    assert b.pending["kind"] == "legendary" and b.pending["actor"] == "unicorn" and b.pending["after"] == "fighter"
    turn(b, "unicorn")
    assert not [o for o in b.decision.options if o.kind == "legendary"]


def test_only_one_legendary_action_at_a_time():
    """Monsters > Legendary Creatures > Legendary Actions
    One legendary action is used at a time: after the unicorn's Hooves at the end of the fighter's
    turn, the next turn begins with no second legendary action."""
    b, f, u = _unicorn()
    pick(b, None, "End turn")
    script(b, 1)   # the hooves miss
    pick(b, "legendary", "hooves")
    pick(b, "target")
    assert b.pending["kind"] == "action" and len(events(b, "legendary")) == 1


def test_a_legendary_action_costing_more_than_is_left_is_not_offered():
    """Monsters > Legendary Creatures > Legendary Actions
    An option costing several actions needs that many left: with 2 left the unicorn cannot Heal Self
    (3)."""
    b, f, u = _unicorn()
    u.hp -= 20
    u.resources["legendary_left"] = 2
    pick(b, None, "End turn")
    assert not [x for x in labels(b) if "heal-self" in x] and [x for x in labels(b) if "hooves" in x]


def test_spent_legendary_actions_return_at_the_start_of_its_turn():
    """Monsters > Legendary Creatures > Legendary Actions
    The creature regains its spent legendary actions at the start of its turn."""
    b, f, u = _unicorn()
    u.resources["legendary_left"] = 0
    turn(b, "unicorn")
    assert u.resources["legendary_left"] == 3


def test_no_legendary_action_while_incapacitated():
    """Monsters > Legendary Creatures > Legendary Actions
    An incapacitated legendary creature takes no legendary action: the stunned unicorn is not asked
    when the fighter's turn ends."""
    b, f, u = _unicorn()
    u.conditions["stunned"] = {}
    pick(b, None, "End turn")
    assert b.pending["kind"] != "legendary"


def test_legendary_resistance_turns_a_failed_save_into_a_success():
    """Monsters > Legendary Creatures > Legendary Resistance
    A creature with Legendary Resistance (3/day) may choose to succeed on a save it fails: the adult
    red dragon fails Hold Monster's save, succeeds instead and has 2 uses left."""
    c = caster("hold-monster", 9, "caster", (3, 5))
    d = mon("adult-red-dragon", (8, 5))
    b = arena(c, d, layout=WIDE, first="caster")
    cast(b, "hold-monster", 5)
    script(b, 1)
    pick(b, "target")
    assert "paralyzed" not in d.conditions and d.resources["legendary_resistance"] == 2
    assert events(b, "legendary_resistance")


def test_a_recharge_action_returns_on_its_die_roll_at_the_start_of_the_turn():
    """Monsters > Monster Statistics > Actions > Limited Usage
    A "Recharge 5-6" action, once used, rolls a d6 at the start of each of the monster's turns and
    is back on a 5 or 6: a 4 leaves the young red dragon's Fire Breath spent, a 5 restores it."""
    f = fighter(5, at=(2, 2))
    d = mon("young-red-dragon", (8, 5))
    b = arena(f, d, layout=WIDE, first="fighter")
    d.recharge["fire-breath"] = False
    script(b, 4)
    turn(b, "young-red-dragon")
    assert d.recharge["fire-breath"] is False
    script(b, 5)
    turn(b, "young-red-dragon")
    assert d.recharge["fire-breath"] is True


def test_multiattack_makes_the_attacks_its_stat_block_lists():
    """Monsters > Monster Statistics > Actions > Multiattack
    A creature with Multiattack makes the attacks its stat block lists on its turn: the young red
    dragon's bite and two claws."""
    f = fighter(5, at=(4, 5))
    d = mon("young-red-dragon", (5, 5))
    b = arena(f, d, layout=WIDE, first="young-red-dragon")
    pick(b, "multiattack")
    assert sorted(d.economy.attack_queue) == ["bite", "claw", "claw"]


def test_limited_magic_immunity_is_judged_by_the_slot_a_spell_is_cast_with():
    """Monsters > Rakshasa > Limited Magic Immunity
    A rakshasa can't be affected or detected by spells of 6th level or lower unless it wishes to be:
    a Fireball cast with a 3rd-level slot does not touch it, the same Fireball cast with a 7th-level
    slot does (a spell cast with a higher slot is a spell of that level)."""
    for level, hurt in ((3, False), (7, True)):
        b, c = spell_setup("fireball", mon("rakshasa", (9, 5), "rak"))
        rak = b.creatures["rak"]
        cast(b, "fireball", level)
        pick(b, "point_x", "x = 9")
        pick(b, "point_y", "Point (9, 5")
        assert (rak.hp < rak.max_hp) == hurt, (level, rak.hp)


def test_parry_needs_sight_of_the_attacker_in_darkness_too():
    """Monsters > Knight > Parry
    The knight adds 2 to its AC against one melee attack that would hit it, but only when it can
    see the attacker: in a lightless battle the knight (no darkvision) cannot see a fighter, so a
    hit inside the +2 window stands; in bright light the same roll is met with the reaction."""
    from dungeonbench_gym.dnd import lighting
    for dark in (True, False):
        f, k = fighter(1, at=(4, 5)), mon("knight", (5, 5))
        b = arena(f, k, first="fighter")
        if dark:
            lighting.setup(b, "dark")
            turn(b, "fighter")
        sword = next(a for a in f.attacks if a.melee)
        assert k.ac == 18 and k.resources["parry"] == 2
        # unseen attacker and unseen target in the dark: advantage and disadvantage cancel, one d20
        script(b, 18 - sword.to_hit, 4)   # a total of exactly 18: a hit that +2 AC would turn
        pick(b, "attack", "Longsword")
        target = next(i for i, o in enumerate(b.decision.options) if o.data == ("knight",))
        b.choose(target)
        asked = b.decision.kind == "reaction" and b.decision.actor == "knight"
        assert asked == (not dark), dark
        if dark:
            assert k.hp == k.max_hp - (4 + f.mod("str")) and k.economy.reaction


def test_androsphinx_second_roar_announces_paralysis_which_ends_concentration_and_grapples():
    """Monsters > Androsphinx > Roar
    The second roar: each creature within 500 feet that fails the Wisdom save is deafened and
    frightened, and while frightened it is paralyzed. Paralyzed, it is incapacitated, so its
    concentration ends and a creature it grapples is free; the conditions are announced as every
    rule announces them."""
    s, f = mon("androsphinx", (2, 2), "s"), fighter(5, at=(9, 6))
    g = mon("goblin", (10, 6), "g")
    f.hp = f.max_hp = 500
    b = arena(s, f, g, layout=WIDE, first="s")
    s.resources["ms"]["roars"] = 1
    f.concentration = "bless"
    g.conditions["grappled"] = {"by": f.cid, "dc": 13}
    script(b, 1, 20)   # the fighter fails, the goblin saves
    pick(b, "ms_roar", "Roar #2")
    assert {"deafened", "frightened", "paralyzed"} <= set(f.conditions)
    assert f.concentration is None and "grappled" not in g.conditions
    assert {"deafened", "frightened", "paralyzed"} <= {e["condition"] for e in events(b, "condition")
                                                       if e["creature"] == f.cid}
