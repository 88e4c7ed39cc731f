"""SRD 5.1 Conditions (appendix A), Advantage and Disadvantage, Saving Throws and the ability-check
contests of battle, rule by rule: each test's docstring names the section and states the rule;
the dice are scripted and the outcome asserted exactly."""

from dnd_helpers import (
    WIDE, arena, cast, events, fighter, kinds, labels, mon, pc, pick, rogue, script, spell_setup, target, turn,
)

HIDE_MAP = ["##########", "#...#....#", "#...#....#", "#........#", "##########"]


def _d20s(b, what):
    """The recorded d20 rolls whose purpose starts with ``what``."""
    return [r for r in b.roller.log if r.get("what", "").startswith(what) and "advantage" in r]


def _mode(b, what="attack"):
    """How the last such d20 was rolled: "advantage", "disadvantage" or "none"."""
    return _d20s(b, what)[-1]["advantage"]


def _done(b):
    """Every scripted die was used."""
    assert b.roller._int.values == [], b.roller._int.values


def _duel(on_fighter=None, on_ogre=None, **detail):
    """A 1st-level fighter (longsword +5, 1d8+3; AC 19) beside an ogre (greatclub +6; AC 11, 59 HP)."""
    f, o = fighter(1, at=(2, 2)), mon("ogre", (3, 2))
    b = arena(f, o)
    if on_fighter:
        f.conditions[on_fighter] = dict(detail)
    if on_ogre:
        o.conditions[on_ogre] = dict(detail)
    return b, f, o


def _swing(b, c, key, t, *dice):
    script(b, *dice)
    out = b.make_attack(c, c.attack(key), t)
    _done(b)
    return out


# ================================================================ Blinded
def test_a_blinded_attacker_rolls_with_disadvantage():
    """Conditions > Blinded
    A creature that can't see makes its attack rolls at a disadvantage: the lower of two d20s
    stands, so a 15 and a 4 miss the ogre (4 + 5 < AC 11)."""
    b, f, o = _duel(on_fighter="blinded")
    assert _swing(b, f, "longsword", o, 15, 4) is False
    assert _mode(b) == "disadvantage" and o.hp == 59


def test_attacks_against_a_blinded_creature_have_advantage():
    """Conditions > Blinded
    Attack rolls against a creature that can't see have advantage: a 4 and a 15 keep the 15."""
    b, f, o = _duel(on_ogre="blinded")
    assert _swing(b, f, "longsword", o, 4, 15, 5) is True
    assert _mode(b) == "advantage" and o.hp == 59 - 8


def test_a_blinded_monster_attacking_a_pc_has_disadvantage():
    """Conditions > Blinded
    The same holds for a monster that can't see: its attack on a PC is rolled twice, the lower
    kept (18 and 2: 2 + 6 misses AC 19)."""
    b, f, o = _duel(on_ogre="blinded")
    assert _swing(b, o, "greatclub", f, 18, 2) is False
    assert _mode(b) == "disadvantage" and f.hp == f.max_hp


def test_blindness_from_a_spell_gives_attackers_advantage():
    """Conditions > Blinded
    A creature blinded by a spell (Blindness/Deafness, failed Con save) is attacked with
    advantage by the caster's ally."""
    ally = fighter(1, at=(5, 5), cid="ally")
    b, c = spell_setup("blindness-deafness", mon("ogre", (6, 5)), allies=(ally,))
    cast(b, "blindness-deafness", 2)
    script(b, 1)   # 1 + 3 fails the Con save
    target(b, "ogre")
    o = b.creatures["ogre"]
    assert "blinded" in o.conditions
    assert _swing(b, ally, "longsword", o, 3, 16, 4) is True
    assert _mode(b) == "advantage" and o.hp == 59 - 7


# ================================================================ Charmed
def test_a_charmed_monster_cannot_attack_its_charmer_but_may_attack_others():
    """Conditions > Charmed
    A charmed creature may not make an attack against the one who charmed it; other foes stay
    fair game."""
    f, r, o = fighter(1, at=(2, 2)), rogue(1, at=(3, 3)), mon("ogre", (3, 2))
    b = arena(f, r, o, first="ogre")
    o.conditions["charmed"] = {"by": "fighter"}
    b.forget_options()
    assert [t.cid for t in b.targets_for_attack(o, o.attack("greatclub"))] == ["rogue"]
    pick(b, "attack", "Greatclub")
    assert [x.data[0] for x in b.decision.options] == ["rogue"]


def test_a_charmed_caster_cannot_target_its_charmer_with_a_harmful_spell():
    """Conditions > Charmed
    A charmed creature can't aim a harmful ability or magical effect at its charmer: a charmed
    wizard may not cast Fire Bolt at the ogre that charmed it, only at another foe."""
    b, c = spell_setup("fire-bolt", mon("ogre", (6, 5)), mon("goblin", (6, 7)))
    c.conditions["charmed"] = {"by": "ogre"}
    b.forget_options()
    assert [t.cid for t in b.spell_targets(c, "fire-bolt")] == ["goblin"]


# ================================================================ Deafened
def test_a_deafened_creature_attacks_and_is_attacked_normally():
    """Conditions > Deafened
    Being unable to hear changes no attack roll, by it or against it, and no saving throw: one d20
    each."""
    b, f, o = _duel(on_fighter="deafened")
    assert _swing(b, f, "longsword", o, 6, 2) is True and _mode(b) == "none"
    assert _swing(b, o, "greatclub", f, 13, 1, 1) is True and _mode(b) == "none"
    script(b, 10)
    assert b.saving_throw(f, "dex", 11) and _mode(b, "save") == "none"


# ================================================================ Exhaustion
def test_exhaustion_level_1_gives_disadvantage_on_ability_checks():
    """Conditions > Exhaustion
    At level 1 a creature has disadvantage on ability checks: its Athletics check to shove is
    rolled twice, the lower kept (15 and 3: 3 + 5 = 8 loses to the goblin's 10 + 2)."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    b = arena(f, g, first="fighter")
    b.add_exhaustion(f)
    pick(b, "shove", "Shove prone")
    script(b, 15, 3, 10)
    target(b, "goblin")
    _done(b)
    assert events(b, "shove")[-1]["success"] is False and "prone" not in g.conditions
    assert _mode(b, "shove") == "disadvantage"


def test_exhaustion_levels_1_and_2_leave_attacks_and_saves_alone():
    """Conditions > Exhaustion
    Levels 1 and 2 touch ability checks and speed only: attack rolls and saving throws are rolled
    with one d20."""
    b, f, o = _duel()
    b.add_exhaustion(f, 2)
    assert _swing(b, f, "longsword", o, 6, 2) is True and _mode(b) == "none"
    script(b, 10)
    assert b.saving_throw(f, "dex", 11)
    _done(b)


def test_exhaustion_level_2_halves_speed():
    """Conditions > Exhaustion
    At level 2 the creature's speed is halved: a 30 ft walker has 15 ft to move on its turn."""
    f, o = fighter(1, at=(2, 2)), mon("ogre", (6, 5))
    b = arena(f, o)
    b.add_exhaustion(f, 2)
    turn(b, "fighter")
    assert b.speed(f) == 15 and f.economy.movement == 15
    assert "Move (15 ft left)" in labels(b, "move")


def test_exhaustion_level_3_gives_disadvantage_on_attack_rolls():
    """Conditions > Exhaustion
    At level 3 attack rolls have disadvantage: a 16 and a 2 keep the 2, a miss."""
    b, f, o = _duel()
    b.add_exhaustion(f, 3)
    assert _swing(b, f, "longsword", o, 16, 2) is False
    assert _mode(b) == "disadvantage"


def test_exhaustion_level_3_gives_disadvantage_on_saving_throws():
    """Conditions > Exhaustion
    At level 3 saving throws have disadvantage too: a 15 and a 2 keep the 2, failing DC 5."""
    b, f, _o = _duel()
    b.add_exhaustion(f, 3)
    script(b, 15, 2)
    assert not b.saving_throw(f, "con", 7)
    _done(b)


def test_exhaustion_level_3_gives_disadvantage_on_death_saving_throws():
    """Conditions > Exhaustion
    A death saving throw is a saving throw, so level 3's disadvantage reaches it: a dying fighter's
    15 and 2 keep the 2, a failure."""
    b, f, o = _duel()
    b.add_exhaustion(f, 3)
    f.hp = 0
    f.conditions["unconscious"] = {}
    script(b, 15, 2)
    turn(b, "fighter")
    assert (f.death_successes, f.death_failures) == (0, 1) and _mode(b, "death save") == "disadvantage"
    _done(b)


def test_exhaustion_effects_accumulate():
    """Conditions > Exhaustion
    A creature suffers the effect of its level and of every lower level: at level 3 its speed is
    still halved and its ability checks still have disadvantage."""
    b, f, _o = _duel()
    b.add_exhaustion(f, 3)
    assert b.speed(f) == 15 and b.check_dis(f)


def test_exhaustion_level_4_halves_the_hit_point_maximum():
    """Conditions > Exhaustion
    At level 4 the hit point maximum is halved (current hit points fall with it)."""
    b, f, _o = _duel()
    full = f.max_hp
    b.add_exhaustion(f, 4)
    assert f.max_hp == full // 2 and f.hp == full // 2


def test_exhaustion_level_5_makes_speed_0():
    """Conditions > Exhaustion
    At level 5 speed falls to 0: the creature has no move on its turn."""
    f, o = fighter(1, at=(2, 2)), mon("ogre", (6, 5))
    b = arena(f, o)
    b.add_exhaustion(f, 5)
    turn(b, "fighter")
    assert b.speed(f) == 0 and "move" not in kinds(b)


def test_exhaustion_level_6_is_death():
    """Conditions > Exhaustion
    Level 6 kills the creature."""
    b, f, _o = _duel()
    b.add_exhaustion(f, 5)
    assert not f.dead
    b.add_exhaustion(f)
    assert f.dead and events(b, "death")[-1]["creature"] == "fighter"


# ================================================================ Frightened
def test_a_frightened_creature_attacks_with_disadvantage_while_it_sees_the_source():
    """Conditions > Frightened
    While the source of its fear is in its line of sight, a frightened creature has disadvantage on
    attack rolls (here against the source itself)."""
    b, f, o = _duel(on_fighter="frightened", by="ogre")
    assert _swing(b, f, "longsword", o, 17, 3) is False and _mode(b) == "disadvantage"


def test_a_frightened_creature_has_disadvantage_on_ability_checks_while_it_sees_the_source():
    """Conditions > Frightened
    Ability checks are made with disadvantage too while the source is in sight: the frightened
    fighter's Athletics check to grapple keeps the lower die (18 and 4: 4 + 5 = 9 loses to the
    goblin's 10 + 2)."""
    f, g, o = fighter(1, at=(2, 2)), mon("goblin", (3, 2)), mon("ogre", (6, 5))
    b = arena(f, g, o, first="fighter")
    f.conditions["frightened"] = {"by": "ogre"}
    pick(b, "shove", "Grapple")
    script(b, 18, 4, 10)
    target(b, "goblin")
    _done(b)
    assert _mode(b, "shove") == "disadvantage" and "grappled" not in g.conditions


def test_a_frightened_creature_out_of_sight_of_the_source_attacks_normally():
    """Conditions > Frightened
    The disadvantage holds only while the source of the fear is within line of sight: with a wall
    between them, the frightened fighter's attack on a goblin is rolled with one d20."""
    f, g, o = fighter(1, at=(2, 1)), mon("goblin", (3, 1)), mon("ogre", (6, 1))
    b = arena(f, g, o, layout=HIDE_MAP)
    f.conditions["frightened"] = {"by": "ogre"}
    assert not b.line_of_effect(f, o)
    assert _swing(b, f, "longsword", g, 12, 1) is True and _mode(b) == "none"


def test_a_frightened_monster_cannot_move_closer_to_the_source():
    """Conditions > Frightened
    A frightened creature can't willingly move nearer the source of its fear: every destination
    offered to a frightened goblin is at least as far from the fighter as it stands now."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (5, 4))
    b = arena(f, g, first="goblin")
    g.conditions["frightened"] = {"by": "fighter"}
    b.forget_options()
    pick(b, "move")
    here = b.distance(g, f)
    dests = [o.data[0] for o in b.decision.options if o.kind == "destination"]
    assert dests and all(b.distance_from(g, d, f) >= here for d in dests)
    assert any(b.distance_from(g, d, f) > here for d in dests)


def test_fear_from_a_spell_gives_disadvantage_on_attacks():
    """Conditions > Frightened
    A creature frightened by a spell (Fear: failed Wis save) attacks with disadvantage while the
    caster is in sight."""
    b, c = spell_setup("fear", mon("orc", (6, 5)))
    cast(b, "fear", 3)
    script(b, 1)   # 1 + 0 fails the Wis save
    pick(b, "direction", "Toward E ")
    orc = b.creatures["orc"]
    assert orc.conditions["frightened"]["by"] == "caster"
    orc.pos = (4, 5, 0)
    assert _swing(b, orc, "greataxe", c, 19, 2) is False and _mode(b) == "disadvantage"


# ================================================================ Grappled
def test_a_grappled_creature_has_speed_0_and_no_move():
    """Conditions > Grappled
    A grappled creature's speed becomes 0: on its turn it has no move."""
    f, o = fighter(1, at=(2, 2)), mon("ogre", (3, 2))
    b = arena(f, o)
    f.conditions["grappled"] = {"by": "ogre", "dc": 14}
    turn(b, "fighter")
    assert b.speed(f) == 0 and f.economy.movement == 0 and "move" not in kinds(b)


def test_a_grappled_creature_gains_nothing_from_bonuses_to_speed():
    """Conditions > Grappled
    No bonus to its speed helps a grappled creature: hasted and under Longstrider, it still has
    speed 0."""
    b, f, _o = _duel(on_fighter="grappled", by="ogre", dc=14)
    f.conditions["haste"] = {"speed_double": True, "ac": 2}
    f.conditions["longstrider"] = {"speed": 10}
    assert b.speed(f) == 0


def test_a_grapple_ends_when_the_grappler_is_incapacitated_by_a_spell():
    """Conditions > Grappled
    The grapple ends as soon as the grappler is incapacitated: an ogre holding the fighter is
    paralyzed by Hold Monster, and the fighter is free."""
    f = fighter(1, at=(7, 5))
    b, c = spell_setup("hold-monster", mon("ogre", (8, 5)), allies=(f,))
    f.conditions["grappled"] = {"by": "ogre", "dc": 14}
    cast(b, "hold-monster", 5)
    script(b, 1)
    target(b, "ogre")
    assert "paralyzed" in b.creatures["ogre"].conditions and "grappled" not in f.conditions
    assert b.speed(f) == 30


def test_a_grapple_ends_when_a_harpys_song_incapacitates_the_grappler():
    """Conditions > Grappled
    The grapple ends as soon as the grappler is incapacitated, whatever rule incapacitates it: a
    fighter holding a harpy fails its save against the Luring Song (charmed and incapacitated),
    and the harpy is free to fly."""
    f, h = fighter(1, at=(4, 5)), mon("harpy", (5, 5))
    b = arena(f, h, first="fighter")
    pick(b, "shove", "Grapple")
    script(b, 20, 1)
    target(b, "harpy")
    assert h.conditions["grappled"]["by"] == "fighter" and b.speed(h) == 0
    turn(b, "harpy")
    script(b, 1)   # the fighter's Wisdom save against DC 11
    pick(b, "ms_song")
    assert "incapacitated" in f.conditions and "charmed" in f.conditions
    assert "grappled" not in h.conditions and b.speed(h) > 0


def test_a_grapple_ends_when_the_grappler_drops_to_0_hit_points():
    """Conditions > Grappled
    A grappler knocked unconscious (0 hit points) is incapacitated, and its grapple ends."""
    f, r = fighter(1, at=(2, 2)), fighter(1, at=(5, 5), cid="foe")
    r.side = "enemies"
    b = arena(f, r)
    f.conditions["grappled"] = {"by": "foe", "dc": None}
    b.damage(r, r.hp, "slashing")
    assert "unconscious" in r.conditions or not r.conscious
    assert "grappled" not in f.conditions


def test_a_grapple_ends_when_the_grappler_is_stunned_by_a_monster_attack():
    """Conditions > Grappled
    The grapple also ends when a monster's action incapacitates the grappler: a ghoul's claws
    paralyze the fighter who holds a goblin."""
    f, gh, g = fighter(1, at=(2, 2)), mon("ghoul", (3, 2)), mon("goblin", (2, 3))
    b = arena(f, gh, g)
    g.conditions["grappled"] = {"by": "fighter", "dc": None}
    assert _swing(b, gh, "claws", f, 15, 1, 1, 2) is True   # 2 + 4 Con fails DC 10
    assert "paralyzed" in f.conditions and "grappled" not in g.conditions


def test_a_grapple_ends_when_the_grappled_creature_is_pushed_out_of_reach():
    """Conditions > Grappled
    An effect that carries the grappled creature out of the grappler's reach ends the grapple:
    Thunderwave pushes a goblin held by the caster's ally 10 ft away."""
    ally = fighter(1, at=(5, 4), cid="ally")
    b, c = spell_setup("thunderwave", mon("goblin", (5, 5)), allies=(ally,))
    g = b.creatures["goblin"]
    g.conditions["grappled"] = {"by": "ally", "dc": None}
    cast(b, "thunderwave", 1)
    script(b, 1, 1, 1)   # the goblin's Con save 1 fails; 2d8 = 2 thunder
    pick(b, "direction", "Toward E ")
    assert "grappled" not in g.conditions and b.distance(ally, g) > 5


def test_attacks_against_a_grappled_creature_are_rolled_normally():
    """Conditions > Grappled
    Being grappled changes no attack roll against the creature (only its speed): one d20."""
    b, f, o = _duel(on_ogre="grappled", by="fighter", dc=None)
    assert _swing(b, f, "longsword", o, 6, 2) is True and _mode(b) == "none"


# ================================================================ Incapacitated
def test_an_incapacitated_pc_gets_no_turn():
    """Conditions > Incapacitated
    An incapacitated creature can take no action (nor bonus action): its turn passes with nothing
    to choose."""
    f, o = fighter(1, at=(2, 2)), mon("ogre", (6, 5))
    b = arena(f, o)
    f.conditions["incapacitated"] = {}
    turn(b, "fighter")
    assert b.decision.actor == "ogre"


def test_an_incapacitated_pc_makes_no_opportunity_attack():
    """Conditions > Incapacitated
    An incapacitated creature takes no reactions: an ogre walking out of the fighter's reach is not
    offered to it as an opportunity attack."""
    f, o = fighter(1, at=(2, 2)), mon("ogre", (3, 2))
    b = arena(f, o, first="ogre")
    f.conditions["incapacitated"] = {}
    pick(b, "move")
    pick(b, "destination", "Move to (6, 2)")
    if b.decision.kind == "route":
        b.choose(0)
    assert b.decision.actor == "ogre" and not events(b, "reaction")


def test_incapacitation_ends_concentration():
    """Spellcasting > Casting a Spell > Concentration
    A concentrating caster that becomes incapacitated loses its concentration: a ghoul's claws
    paralyze a cleric holding Bless, and the blessing ends."""
    cl, gh = pc("cleric", 3, (2, 2)), mon("ghoul", (3, 2))
    b = arena(cl, gh, first="cleric")
    pick(b, "spell", "Bless")
    target(b, "cleric")
    while b.decision.kind == "target":
        pick(b, "stop")
    assert cl.concentration == "bless"
    script(b, 19, 1, 1, 1, 15, 1, 1)   # a hit, 2d4+2 = 4; concentration kept (d4 1, 15); the claws: d4 1, a 1 fails
    b.make_attack(gh, gh.attack("claws"), cl)
    assert "paralyzed" in cl.conditions and cl.concentration is None and "blessed" not in cl.conditions


# ================================================================ Invisible
def test_an_invisible_attacker_has_advantage_and_is_attacked_with_disadvantage():
    """Conditions > Invisible
    A creature nobody can see attacks with advantage, and attacks against it have disadvantage."""
    b, f, o = _duel(on_fighter="invisible")
    assert _swing(b, f, "longsword", o, 2, 9, 1) is True and _mode(b) == "advantage"
    assert _swing(b, o, "greatclub", f, 20, 3) is False and _mode(b) == "disadvantage"


def test_an_invisible_monster_has_advantage_against_a_pc():
    """Conditions > Invisible
    The same for a monster: the invisible ogre's greatclub is rolled twice, the higher kept."""
    b, f, o = _duel(on_ogre="invisible")
    assert _swing(b, o, "greatclub", f, 3, 13, 1, 1) is True and _mode(b) == "advantage"


def test_see_invisibility_cancels_the_invisible_creatures_edge():
    """Conditions > Invisible
    Magic that lets a creature see the invisible removes both effects for it: one d20 either way."""
    b, f, o = _duel(on_ogre="invisible")
    f.conditions["see_invisibility"] = {"sees_invisible": True}
    assert _swing(b, f, "longsword", o, 6, 1) is True and _mode(b) == "none"
    assert _swing(b, o, "greatclub", f, 13, 1, 1) is True and _mode(b) == "none"


def test_blindsight_perceives_an_invisible_creature_within_its_range():
    """Conditions > Invisible
    An invisible creature can still be perceived by a special sense: a monster with blindsight
    attacks an invisible fighter within that range without disadvantage, and the fighter gets no
    advantage against it."""
    f, s = fighter(1, at=(2, 2)), mon("gray-ooze", (3, 2))   # blindsight 60 ft
    b = arena(f, s)
    f.conditions["invisible"] = {}
    assert _swing(b, s, "pseudopod", f, 19, 1, 1, 1) is True and _mode(b) == "none"
    assert _swing(b, f, "longsword", s, 12, 1) is True and _mode(b) == "none"


def test_invisibility_from_a_spell_gives_the_attack_advantage_and_then_ends():
    """Conditions > Invisible
    A creature made invisible by the Invisibility spell makes its attack with advantage; the
    attack ends the spell, so the next attack is rolled plainly."""
    f = fighter(1, at=(4, 5), cid="ally")
    b, c = spell_setup("invisibility", mon("ogre", (5, 6)), allies=(f,))
    cast(b, "invisibility", 2)
    target(b, "ally")
    o = b.creatures["ogre"]
    assert "invisible" in f.conditions
    assert _swing(b, f, "longsword", o, 1, 6, 1) is True and _mode(b) == "advantage"
    assert "invisible" not in f.conditions
    assert _swing(b, f, "longsword", o, 6, 1) is True and _mode(b) == "none"


# ================================================================ Paralyzed
def test_a_paralyzed_creature_fails_strength_and_dexterity_saves_without_a_roll():
    """Conditions > Paralyzed
    A paralyzed creature fails every Strength and Dexterity saving throw automatically: no die is
    rolled, even against DC 1."""
    b, _f, o = _duel(on_ogre="paralyzed")
    script(b)
    assert not b.saving_throw(o, "str", 1) and not b.saving_throw(o, "dex", 1)
    assert [e["success"] for e in events(b, "save")] == [False, False]


def test_a_paralyzed_creature_rolls_its_other_saves():
    """Conditions > Paralyzed
    Only Strength and Dexterity saves fail on their own: a Constitution or Wisdom save is rolled
    (a 10 + 3 meets DC 13)."""
    b, _f, o = _duel(on_ogre="paralyzed")
    script(b, 10)
    assert b.saving_throw(o, "con", 13)
    _done(b)


def test_a_melee_hit_within_5_ft_on_a_paralyzed_creature_is_critical():
    """Conditions > Paralyzed
    Attacks against a paralyzed creature have advantage, and a hit from an attacker within 5 ft is
    a critical hit: the longsword's dice double (2d8 + 3)."""
    b, f, o = _duel(on_ogre="paralyzed")
    assert _swing(b, f, "longsword", o, 2, 8, 4, 5) is True
    assert _mode(b) == "advantage" and events(b, "attack")[-1]["critical"] and o.hp == 59 - 12


def test_a_ranged_hit_from_within_5_ft_on_a_paralyzed_creature_is_critical():
    """Conditions > Paralyzed
    The critical comes from the attacker being within 5 ft, not from the attack being melee: a
    javelin thrown from the next square that hits is a critical hit (2d6 + 3)."""
    b, f, o = _duel(on_ogre="paralyzed")
    assert b.attack_range(f, f.attack("javelin-thrown"), o) != "melee"
    assert _swing(b, f, "javelin-thrown", o, 2, 8, 4, 5) is True
    assert events(b, "attack")[-1]["critical"] and o.hp == 59 - 12


def test_a_hit_from_beyond_5_ft_on_a_paralyzed_creature_is_not_critical():
    """Conditions > Paralyzed
    From farther than 5 ft a hit is an ordinary hit (still rolled with advantage): a javelin from
    20 ft does 1d6 + 3."""
    f, o = fighter(1, at=(1, 2)), mon("ogre", (5, 2))
    b = arena(f, o)
    o.conditions["paralyzed"] = {}
    assert _swing(b, f, "javelin-thrown", o, 2, 8, 4) is True
    assert _mode(b) == "advantage" and not events(b, "attack")[-1]["critical"] and o.hp == 59 - 7


def test_a_paralyzed_creature_cannot_move_or_act():
    """Conditions > Paralyzed
    Paralyzed, a creature is incapacitated and cannot move: its speed is 0 and its turn passes."""
    f, o = fighter(1, at=(2, 2)), mon("ogre", (6, 5))
    b = arena(f, o)
    o.conditions["paralyzed"] = {}
    assert b.speed(o) == 0 and o.incapacitated
    turn(b, "ogre")
    assert b.decision.actor == "fighter"


def test_a_ghouls_claws_paralyze_and_the_next_hit_within_5_ft_is_critical():
    """Conditions > Paralyzed
    Paralysis from a monster's attack (a ghoul's claws, failed DC 10 Con save) has the same
    effects: the fighter's next hit from the adjacent square is a critical hit."""
    f, gh = fighter(1, at=(2, 2)), mon("ghoul", (3, 2))
    b = arena(f, gh)
    assert _swing(b, gh, "claws", f, 15, 1, 1, 2) is True   # 2 + 4 = 6 fails DC 10
    assert "paralyzed" in f.conditions
    hp = f.hp
    assert _swing(b, gh, "bite", f, 1, 17, 1, 1, 1, 1) is True   # 17 + 2 meets AC 19; 4d6 + 2
    assert _mode(b) == "advantage" and events(b, "attack")[-1]["critical"] and f.hp == max(0, hp - 6)


def test_hold_person_paralysis_fails_a_dexterity_save_from_a_spell():
    """Conditions > Paralyzed
    A humanoid paralyzed by Hold Person then fails a Dexterity save automatically: caught in a
    Fireball-like effect, it rolls no save."""
    c, g = pc("cleric", 3, (1, 1)), mon("bandit", (6, 3))
    b = arena(c, g, first="cleric")
    pick(b, "spell", "Hold Person at level 2")
    script(b, 1)
    target(b, "bandit")
    assert "paralyzed" in g.conditions
    script(b)
    assert not b.saving_throw(g, "dex", 2, magic=True)


# ================================================================ Petrified
def test_a_petrified_creature_resists_all_damage():
    """Conditions > Petrified
    A creature turned to stone has resistance to all damage: 9 slashing becomes 4."""
    b, _f, o = _duel(on_ogre="petrified")
    b.damage(o, 9, "slashing")
    b.damage(o, 9, "fire", magical=True)
    assert o.hp == 59 - 8


def test_a_petrified_creature_is_immune_to_poison():
    """Conditions > Petrified
    A petrified creature is immune to poison: poison damage does nothing to it."""
    b, _f, o = _duel(on_ogre="petrified")
    b.damage(o, 10, "poison")
    assert o.hp == 59


def test_a_petrified_creature_is_incapacitated_easy_to_hit_and_fails_str_saves():
    """Conditions > Petrified
    Petrified, a creature is incapacitated (no turn), attacks against it have advantage, and it
    fails Strength and Dexterity saves without rolling."""
    b, f, o = _duel(on_ogre="petrified")
    assert o.incapacitated and b.speed(o) == 0
    assert _swing(b, f, "longsword", o, 1, 6, 3) is True and _mode(b) == "advantage"
    script(b)
    assert not b.saving_throw(o, "str", 1)


# ================================================================ Poisoned
def test_a_poisoned_monster_attacks_with_disadvantage():
    """Conditions > Poisoned
    A poisoned creature has disadvantage on its attack rolls: the ogre's 19 and 3 keep the 3."""
    b, f, o = _duel(on_ogre="poisoned")
    assert _swing(b, o, "greatclub", f, 19, 3) is False and _mode(b) == "disadvantage"


def test_a_poisoned_creature_has_disadvantage_on_ability_checks():
    """Conditions > Poisoned
    A poisoned creature also makes its ability checks with disadvantage: a poisoned fighter's
    grapple check (17 and 2: 2 + 5 = 7) loses to the goblin's 10 + 2."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    b = arena(f, g, first="fighter")
    f.conditions["poisoned"] = {}
    pick(b, "shove", "Grapple")
    script(b, 17, 2, 10)
    target(b, "goblin")
    _done(b)
    assert _mode(b, "shove") == "disadvantage" and "grappled" not in g.conditions


def test_a_poisoned_creature_defends_in_a_contest_with_disadvantage():
    """Conditions > Poisoned
    The disadvantage holds for the check it makes to resist: a poisoned goblin resisting a shove
    keeps the lower die (19 and 1: 1 + 2 = 3 loses to the fighter's 5 + 5)."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    b = arena(f, g, first="fighter")
    g.conditions["poisoned"] = {}
    pick(b, "shove", "Shove prone")
    script(b, 5, 19, 1)
    target(b, "goblin")
    _done(b)
    assert _mode(b, "resist") == "disadvantage" and "prone" in g.conditions


def test_a_quasits_claws_poison_and_the_poisoned_creature_attacks_with_disadvantage():
    """Conditions > Poisoned
    Poison from a monster's attack (a quasit's claws, failed DC 10 Con save) gives the victim
    disadvantage on its attack rolls."""
    f, q = fighter(1, at=(2, 2)), mon("quasit", (3, 2))
    b = arena(f, q)
    assert _swing(b, q, "claw", f, 15, 1, 1, 1, 2) is True   # 2 + 4 Con fails DC 10
    assert "poisoned" in f.conditions
    assert _swing(b, f, "longsword", q, 18, 4) is False and _mode(b) == "disadvantage"


def test_a_poisoned_creature_saves_normally():
    """Conditions > Poisoned
    Poison touches attack rolls and ability checks, not saving throws: one d20."""
    b, f, _o = _duel(on_fighter="poisoned")
    script(b, 6)
    assert b.saving_throw(f, "con", 10) and _mode(b, "save") == "none"


# ================================================================ Prone
def test_a_prone_attacker_has_disadvantage():
    """Conditions > Prone
    A creature lying prone makes its attack rolls with disadvantage."""
    b, f, o = _duel(on_fighter="prone")
    assert _swing(b, f, "longsword", o, 17, 2) is False and _mode(b) == "disadvantage"


def test_a_melee_attack_from_within_5_ft_on_a_prone_creature_has_advantage():
    """Conditions > Prone
    An attacker within 5 ft of a prone creature has advantage."""
    b, f, o = _duel(on_ogre="prone")
    assert _swing(b, f, "longsword", o, 2, 9, 1) is True and _mode(b) == "advantage"


def test_a_ranged_attack_from_afar_on_a_prone_creature_has_disadvantage():
    """Conditions > Prone
    From farther than 5 ft the attack on a prone creature has disadvantage."""
    f, o = fighter(1, at=(1, 2)), mon("ogre", (5, 2))
    b = arena(f, o)
    o.conditions["prone"] = {}
    assert _swing(b, f, "javelin-thrown", o, 19, 3) is False and _mode(b) == "disadvantage"


def test_a_reach_attack_from_10_ft_on_a_prone_creature_has_disadvantage():
    """Conditions > Prone
    The distance decides, not whether the attack is melee: a dragon's bite with 10 ft reach on a
    prone fighter 10 ft away has disadvantage."""
    f, d = fighter(1, at=(2, 2)), mon("young-red-dragon", (4, 2))
    b = arena(f, d)
    f.conditions["prone"] = {}
    assert b.distance(d, f) == 10 and b.attack_range(d, d.attack("bite"), f) == "melee"
    assert _swing(b, d, "bite", f, 18, 3) is False and _mode(b) == "disadvantage"


def test_a_ranged_attack_from_the_next_square_on_a_prone_foe_rolls_one_die():
    """Conditions > Prone
    A ranged attacker within 5 ft of a prone creature has advantage from the prone rule and
    disadvantage from shooting with a hostile creature next to it: one of each cancels, one d20."""
    b, f, o = _duel(on_ogre="prone")
    assert _swing(b, f, "javelin-thrown", o, 6, 1) is True and _mode(b) == "none"


def test_standing_up_costs_half_the_speed_and_a_prone_creature_cannot_stand_at_speed_0():
    """Conditions > Prone
    Standing up takes half the creature's speed; with speed 0 (grappled as well) it cannot stand."""
    f, o = fighter(1, at=(2, 2)), mon("ogre", (6, 5))
    b = arena(f, o)
    f.conditions["prone"] = {}
    turn(b, "fighter")
    pick(b, "stand")
    assert f.economy.movement == 15 and "prone" not in f.conditions
    f.conditions["prone"] = {}
    f.conditions["grappled"] = {"by": "ogre", "dc": 14}
    turn(b, "fighter")
    assert "stand" not in kinds(b)


def test_a_prone_creature_must_stand_before_it_moves():
    """Conditions > Prone
    A prone creature's only way to move is to crawl (or stand up first).
    Simplified: crawling (each foot costs one extra) is not offered; a prone creature stands up
    (half its speed) and then moves."""
    f, o = fighter(1, at=(2, 2)), mon("ogre", (6, 5))
    b = arena(f, o)
    f.conditions["prone"] = {}
    turn(b, "fighter")
    assert "move" not in kinds(b) and "stand" in kinds(b)
    pick(b, "stand")
    assert "Move (15 ft left)" in labels(b, "move")


def test_a_wolfs_bite_knocks_prone_and_the_next_melee_attack_has_advantage():
    """Conditions > Prone
    Knocked prone by a monster's attack (a wolf's bite, failed DC 11 Str save), the fighter is
    attacked with advantage by the wolf beside it."""
    f, w = fighter(1, at=(2, 2)), mon("wolf", (3, 2))
    b = arena(f, w)
    assert _swing(b, w, "bite", f, 15, 1, 1, 2) is True   # 2 + 5 fails DC 11
    assert "prone" in f.conditions
    assert _swing(b, w, "bite", f, 3, 15, 1, 1, 19) is True and _mode(b) == "advantage"


# ================================================================ Restrained
def test_a_restrained_creature_has_speed_0():
    """Conditions > Restrained
    A restrained creature's speed is 0 and no bonus raises it."""
    b, f, _o = _duel(on_fighter="restrained")
    f.conditions["haste"] = {"speed_double": True}
    assert b.speed(f) == 0


def test_a_restrained_creature_attacks_with_disadvantage_and_is_attacked_with_advantage():
    """Conditions > Restrained
    Its own attack rolls have disadvantage; attack rolls against it have advantage."""
    b, f, o = _duel(on_fighter="restrained")
    assert _swing(b, f, "longsword", o, 18, 2) is False and _mode(b) == "disadvantage"
    assert _swing(b, o, "greatclub", f, 2, 15, 1, 1) is True and _mode(b) == "advantage"


def test_a_restrained_creature_has_disadvantage_on_dex_saves_only():
    """Conditions > Restrained
    Dexterity saves have disadvantage (18 and 2 keep 2); a Strength save is rolled once."""
    b, _f, o = _duel(on_ogre="restrained")
    script(b, 18, 2)
    assert not b.saving_throw(o, "dex", 5)
    script(b, 9)
    assert b.saving_throw(o, "str", 13) and _mode(b, "save") == "none"
    _done(b)


def test_a_constrictor_snakes_grapple_restrains_and_the_victim_is_attacked_with_advantage():
    """Conditions > Restrained
    Restrained by a monster's attack (a giant constrictor snake's Constrict: grappled and
    restrained, escape DC 16), the fighter has speed 0 and the snake's bite has advantage."""
    f, s = fighter(1, at=(2, 2)), mon("giant-constrictor-snake", (3, 2))
    b = arena(f, s)
    assert _swing(b, s, "constrict", f, 15, 1, 1) is True
    assert "restrained" in f.conditions and "grappled" in f.conditions and b.speed(f) == 0
    assert _swing(b, s, "bite", f, 2, 15, 1, 1) is True and _mode(b) == "advantage"


def test_web_restrains_and_gives_attackers_advantage():
    """Conditions > Restrained
    Restrained by a spell (Web: failed Dex save), the orc is attacked with advantage and makes
    Dexterity saves with disadvantage."""
    ally = fighter(1, at=(7, 5), cid="ally")
    b, _c = spell_setup("web", mon("orc", (8, 5)), allies=(ally,))
    cast(b, "web", 2)
    pick(b, "point_x", "x = 8")
    script(b, 3)   # 3 + 1 fails the Dex save
    pick(b, "point_y", "Point (8, 5")
    orc = b.creatures["orc"]
    assert "restrained" in orc.conditions
    assert _swing(b, ally, "longsword", orc, 1, 12, 1) is True and _mode(b) == "advantage"


# ================================================================ Stunned
def test_a_stunned_creature_gets_no_turn_and_cannot_move():
    """Conditions > Stunned
    A stunned creature is incapacitated and can't move: speed 0, its turn passes."""
    f, o = fighter(1, at=(2, 2)), mon("ogre", (6, 5))
    b = arena(f, o)
    o.conditions["stunned"] = {}
    assert b.speed(o) == 0
    turn(b, "ogre")
    assert b.decision.actor == "fighter"


def test_a_stunned_creature_fails_str_and_dex_saves_and_is_attacked_with_advantage():
    """Conditions > Stunned
    It fails Strength and Dexterity saves automatically, and attacks against it have advantage."""
    b, f, o = _duel(on_ogre="stunned")
    script(b)
    assert not b.saving_throw(o, "dex", 1) and not b.saving_throw(o, "str", 1)
    assert _swing(b, f, "longsword", o, 1, 9, 1) is True and _mode(b) == "advantage"


def test_a_hit_within_5_ft_on_a_stunned_creature_is_not_automatically_critical():
    """Conditions > Stunned
    Unlike paralysis, stunning makes no hit critical: a longsword hit from the next square does
    1d8 + 3."""
    b, f, o = _duel(on_ogre="stunned")
    assert _swing(b, f, "longsword", o, 3, 15, 5) is True
    assert not events(b, "attack")[-1]["critical"] and o.hp == 59 - 8


def test_stunning_strike_stuns_and_the_next_attack_has_advantage():
    """Conditions > Stunned
    Stunned by a class feature (a monk's Stunning Strike, failed Con save), the ogre is attacked
    with advantage by the monk's ally and cannot take its turn."""
    m, o, f = pc("monk", 5, (2, 2)), mon("ogre", (3, 2)), fighter(1, at=(4, 3))
    b = arena(m, o, f, layout=WIDE, first="monk")
    script(b, 15)
    pick(b, "attack", "Unarmed Strike")
    pick(b, "target")
    script(b, 3, 2)
    pick(b, "reaction", "Stunning Strike")
    assert "stunned" in o.conditions
    assert _swing(b, f, "longsword", o, 1, 9, 1) is True and _mode(b) == "advantage"


# ================================================================ Unconscious
def test_dropping_to_0_hit_points_leaves_a_pc_unconscious_and_prone():
    """Conditions > Unconscious
    An unconscious creature drops what it holds and falls prone: a fighter brought to 0 hit points
    is prone and incapacitated."""
    b, f, _o = _duel()
    b.damage(f, f.hp, "slashing")
    assert f.hp == 0 and not f.dead and "prone" in f.conditions and f.incapacitated


def test_a_melee_hit_on_an_unconscious_pc_within_5_ft_is_critical():
    """Conditions > Unconscious
    Attacks against an unconscious creature have advantage and a hit from within 5 ft is a
    critical hit: a dying fighter takes two death-save failures from the ogre's greatclub."""
    b, f, o = _duel()
    b.damage(f, f.hp, "slashing")
    assert _swing(b, o, "greatclub", f, 10, 15, 1, 1, 1, 1) is True
    assert _mode(b) == "advantage" and events(b, "attack")[-1]["critical"] and f.death_failures == 2


def test_an_unconscious_creature_fails_dex_saves():
    """Conditions > Unconscious
    An unconscious creature fails Strength and Dexterity saves with no roll."""
    b, f, _o = _duel()
    b.damage(f, f.hp, "slashing")
    script(b)
    assert not b.saving_throw(f, "dex", 1) and not b.saving_throw(f, "str", 1)


def test_a_ranged_attack_from_afar_on_an_unconscious_creature_rolls_one_die():
    """Conditions > Unconscious
    The unconscious creature lies prone: from farther than 5 ft, advantage (unconscious) and
    disadvantage (prone) cancel, and the attack is rolled with one d20; the hit is not critical."""
    f, o = fighter(1, at=(1, 2)), mon("ogre", (5, 2))
    b = arena(f, o)
    o.conditions["unconscious"] = {}
    o.conditions["prone"] = {}
    assert _swing(b, f, "javelin-thrown", o, 7, 4) is True
    assert _mode(b) == "none" and not events(b, "attack")[-1]["critical"] and o.hp == 59 - 7


def test_sleep_leaves_its_victims_unconscious_prone_and_open_to_critical_hits():
    """Conditions > Unconscious
    Put to sleep by a spell (Sleep), a goblin is unconscious and prone; a melee hit from beside it
    is a critical hit."""
    w, f, g = pc("wizard", 1, (1, 1)), fighter(1, at=(5, 4)), mon("goblin", (6, 4))
    b = arena(w, f, g, first="wizard")
    pick(b, "spell", "Sleep")
    pick(b, "point_x", "x = 6")
    script(b, 2, 2, 2, 2, 2)   # 10 hit points: the goblin (7), not the fighter (12)
    pick(b, "point_y", "Point (6, 4)")
    assert "unconscious" in g.conditions and "prone" in g.conditions and f.conscious
    assert _swing(b, f, "longsword", g, 1, 12, 1, 1) is True   # 12 + 5 hits AC 15; 2d8 + 3
    assert events(b, "attack")[-1]["critical"] and g.hp == 7 - 5


def test_an_unconscious_creature_makes_no_opportunity_attack():
    """Conditions > Unconscious
    Unconscious, a creature is incapacitated and takes no reactions: the goblin walks away from the
    sleeping ogre unchallenged."""
    g, o = mon("goblin", (3, 2)), fighter(1, at=(2, 2), cid="sleeper")
    g.side, o.side = "enemies", "party"
    b = arena(o, g, first="goblin")
    o.conditions["unconscious"] = {"asleep": True}
    pick(b, "move")
    pick(b, "destination", "Move to (6, 2)")
    if b.decision.kind == "route":
        b.choose(0)
    assert b.decision.actor == "goblin" and not events(b, "reaction")


# ================================================================ Advantage and Disadvantage
def test_several_sources_of_advantage_still_roll_two_dice():
    """Combat > Making an Attack > Advantage and Disadvantage
    Advantage from several circumstances does not add up: a blinded, restrained, prone target is
    attacked with exactly two d20s, the higher kept."""
    b, f, o = _duel()
    o.conditions.update(blinded={}, restrained={}, prone={})
    assert _swing(b, f, "longsword", o, 1, 6, 1) is True
    assert _d20s(b, "attack")[-1]["rolls"] == [1, 6]


def test_one_advantage_and_one_disadvantage_cancel():
    """Combat > Making an Attack > Advantage and Disadvantage
    With at least one reason for each, the roll has neither: one d20 (a blinded attacker against a
    restrained target)."""
    b, f, o = _duel(on_fighter="blinded")
    o.conditions["restrained"] = {}
    assert _swing(b, f, "longsword", o, 6, 1) is True and _mode(b) == "none"


def test_many_advantages_and_one_disadvantage_still_cancel():
    """Combat > Making an Attack > Advantage and Disadvantage
    The count does not matter: three reasons for advantage and one for disadvantage still leave a
    single d20."""
    b, f, o = _duel(on_fighter="poisoned")
    o.conditions.update(blinded={}, restrained={}, stunned={})
    assert _swing(b, f, "longsword", o, 6, 1) is True and _mode(b) == "none"


def test_advantage_and_disadvantage_on_a_save_cancel():
    """Combat > Making an Attack > Advantage and Disadvantage
    The same for saving throws: a restrained creature with Magic Resistance makes a magical
    Dexterity save with one d20."""
    f, m = fighter(1, at=(2, 2)), mon("rakshasa", (3, 2))
    b = arena(f, m)
    m.conditions["restrained"] = {}
    script(b, 12)
    b.saving_throw(m, "dex", 10, magic=True)
    _done(b)
    assert _mode(b, "save") == "none"


def test_disadvantage_on_a_save_keeps_the_lower_die():
    """Combat > Making an Attack > Advantage and Disadvantage
    With disadvantage two d20s are rolled and the lower is used, even when the other would have
    succeeded."""
    b, f, _o = _duel(on_fighter="restrained")
    script(b, 20, 3)
    assert not b.saving_throw(f, "dex", 10)


# ================================================================ Saving Throws
def test_a_saving_throw_that_equals_the_dc_succeeds():
    """Combat > Saving Throws
    A save succeeds when the d20 plus the modifier reaches the DC: 8 + 5 (the fighter's proficient
    Strength save) meets DC 13."""
    b, f, _o = _duel()
    script(b, 8)
    assert b.saving_throw(f, "str", 13)
    script(b, 7)
    assert not b.saving_throw(f, "str", 13)


def test_a_saving_throw_adds_proficiency_only_when_proficient():
    """Combat > Saving Throws
    The save's modifier is the ability modifier plus the proficiency bonus when the creature is
    proficient in that save: a 1st-level fighter adds +5 to Strength saves but only +1 to
    Dexterity saves."""
    b, f, _o = _duel()
    assert f.saves["str"] == f.mod("str") + f.prof and f.saves["dex"] == f.mod("dex")
    script(b, 9)
    assert not b.saving_throw(f, "dex", 11)


def test_a_natural_20_on_a_save_is_not_an_automatic_success():
    """Combat > Saving Throws
    Saving throws have no automatic success: a 20 + 1 still fails DC 22."""
    b, f, _o = _duel()
    script(b, 20)
    assert not b.saving_throw(f, "dex", 22)


def test_a_natural_1_on_a_save_is_not_an_automatic_failure():
    """Combat > Saving Throws
    Nor automatic failure: a 1 + 5 meets DC 6."""
    b, f, _o = _duel()
    script(b, 1)
    assert b.saving_throw(f, "str", 6)


def test_a_monster_saves_with_its_stat_block_bonus():
    """Combat > Saving Throws
    A monster adds its listed saving throw bonus (a young red dragon's +9 Constitution)."""
    f, d = fighter(1, at=(2, 2)), mon("young-red-dragon", (4, 2))
    b = arena(f, d)
    script(b, 8)
    assert b.saving_throw(d, "con", 17)
    script(b, 7)
    assert not b.saving_throw(d, "con", 17)


# ================================================================ contests: grapple and shove
def test_a_grapple_is_a_contest_won_by_the_higher_total():
    """Combat > Making an Attack > Grappling
    A grapple pits the grappler's Strength (Athletics) against the target's Athletics or
    Acrobatics; the higher total grapples (12 + 5 beats 10 + 2)."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    b = arena(f, g, first="fighter")
    pick(b, "shove", "Grapple")
    script(b, 12, 10)
    target(b, "goblin")
    _done(b)
    assert g.conditions["grappled"]["by"] == "fighter" and b.speed(g) == 0


def test_a_tied_contest_leaves_things_as_they_were():
    """Combat > Making an Attack > Contests in Combat
    When both totals are equal, the contest changes nothing: a shove at 7 + 5 against the goblin's
    10 + 2 leaves it standing."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    b = arena(f, g, first="fighter")
    pick(b, "shove", "Shove prone")
    script(b, 7, 10)
    target(b, "goblin")
    assert events(b, "shove")[-1]["success"] is False and "prone" not in g.conditions


def test_the_defender_uses_the_better_of_athletics_and_acrobatics():
    """Combat > Making an Attack > Shoving a Creature
    The target of a shove chooses Athletics or Acrobatics: a rogue resists with its Acrobatics
    (+5), not its Strength (+0): 10 + 5 beats the fighter's 9 + 5."""
    f, r = fighter(1, at=(2, 2)), rogue(1, at=(3, 2))
    r.side = "enemies"
    b = arena(f, r, first="fighter")
    pick(b, "shove", "Shove prone")
    script(b, 9, 10)
    target(b, "rogue")
    assert "prone" not in r.conditions


def test_a_creature_more_than_one_size_larger_cannot_be_shoved_or_grappled():
    """Combat > Making an Attack > Grappling
    The target may be at most one size larger than the grappler: a Medium fighter may grapple a
    Large ogre but not a Huge snake."""
    f, o = fighter(1, at=(2, 2)), mon("ogre", (3, 2))
    b = arena(f, o, first="fighter")
    assert [t.cid for t in b._shove_targets(f, "grapple")] == ["ogre"]
    f2, s = fighter(1, at=(2, 2)), mon("giant-constrictor-snake", (3, 2))
    b2 = arena(f2, s, first="fighter")
    assert b2._shove_targets(f2, "grapple") == [] and "shove" not in kinds(b2)


def test_escaping_a_pcs_grapple_is_a_contest_against_the_grapplers_athletics():
    """Combat > Making an Attack > Grappling > Escaping a Grapple
    To escape, the grappled creature uses its action for Athletics or Acrobatics against the
    grappler's Athletics; it escapes on the higher total (a tie holds it)."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    b = arena(f, g)
    g.conditions["grappled"] = {"by": "fighter", "dc": None}
    turn(b, "goblin")
    script(b, 8, 5)   # 8 + 2 = 10 ties the fighter's 5 + 5
    pick(b, "escape")
    assert "grappled" in g.conditions
    turn(b, "goblin")
    script(b, 9, 5)
    pick(b, "escape")
    assert "grappled" not in g.conditions


def test_the_grapplers_disadvantage_applies_to_its_side_of_the_escape_contest():
    """Combat > Making an Attack > Contests in Combat
    Each side of a contest rolls its own check with its own advantage or disadvantage: a poisoned
    grappler holds on with the lower of two dice (18 and 1: 1 + 5 = 6 < 8 + 2)."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    b = arena(f, g)
    g.conditions["grappled"] = {"by": "fighter", "dc": None}
    f.conditions["poisoned"] = {}
    turn(b, "goblin")
    script(b, 8, 18, 1)
    pick(b, "escape")
    _done(b)
    assert "grappled" not in g.conditions


def test_escaping_a_monsters_grapple_meets_its_escape_dc():
    """Combat > Making an Attack > Grappling > Escaping a Grapple
    A monster's grapple names an escape DC: the check escapes when its total reaches it."""
    f, s = fighter(1, at=(2, 2)), mon("giant-constrictor-snake", (3, 2))
    b = arena(f, s)
    f.conditions["grappled"] = {"by": s.cid, "dc": 16}
    turn(b, "fighter")
    script(b, 10)   # 10 + 5 = 15 < 16
    pick(b, "escape")
    assert "grappled" in f.conditions
    turn(b, "fighter")
    script(b, 11)
    pick(b, "escape")
    assert "grappled" not in f.conditions


def test_shoving_a_grappled_creature_away_ends_the_grapple():
    """Conditions > Grappled
    The grapple also ends when the grappled creature is moved out of the grappler's reach by
    another's shove."""
    f, o, g = fighter(1, at=(2, 2)), mon("ogre", (2, 4)), mon("goblin", (3, 2))
    b = arena(f, o, g, first="fighter")
    g.conditions["grappled"] = {"by": "ogre", "dc": 13}
    o.pos = (3, 3, 0)
    pick(b, "shove", "Shove away")
    script(b, 15, 2)
    target(b, "goblin")
    assert g.pos[:2] == (4, 2) and "grappled" not in g.conditions
