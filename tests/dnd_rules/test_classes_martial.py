"""SRD 5.1 Classes, the martial ones (barbarian, fighter, monk): one scenario per class feature the
coverage table counts executable. Each test's docstring names the feature and states its rule; the
dice are scripted and the outcome asserted exactly."""

from dnd_helpers import arena, cast, events, kinds, labels, mon, pc, pick, script, spell_setup, target, turn

from dungeonbench_gym.dnd.builders.pcs import build_pc


def _attack(b, cid, text=""):
    """From the menu: the attack option whose label contains text, then the target cid."""
    pick(b, "attack", text)
    target(b, cid)


def _end(b):
    pick(b, None, "End turn")


def _skip_to(b, cid):
    """End turns until it is cid's turn (the rounds go on as in play)."""
    _end(b)
    for _ in range(20):
        if b.pending.get("actor") == cid:
            return
        _end(b)
    raise AssertionError(f"never {cid}'s turn")


def _rage(b, frenzy=False):
    pick(b, "feature", "Rage with Frenzy" if frenzy else "Rage (bonus")


# ==================================================================== Barbarian
def test_barbarian_unarmored_defense_is_10_plus_dex_plus_con():
    """Classes > Barbarian > Unarmored Defense
    Without armour a barbarian's AC is 10 + its Dexterity modifier + its Constitution modifier
    (a shield may still be added)."""
    for level in (1, 5, 20):
        c = pc("barbarian", level, (2, 2))
        assert c.ac == 10 + c.mod("dex") + c.mod("con"), level
    assert pc("barbarian", 1, (2, 2)).ac == 10 + 2 + 2
    assert build_pc("barbarian", 1, "b", (2, 2, 0), shield=True).ac == 10 + 2 + 2 + 2


def test_rage_adds_damage_to_strength_melee_attacks_only():
    """Classes > Barbarian > Rage
    While raging, a melee weapon attack made with Strength deals extra damage (+2 at 1st level, +3
    at 9th, +4 at 16th); a thrown weapon's ranged attack gets no bonus. Raging takes the bonus
    action; a 1st-level barbarian may rage twice."""
    for level, bonus in ((1, 2), (9, 3), (16, 4)):
        c, g = pc("barbarian", level, (2, 2)), mon("ogre", (3, 2))
        b = arena(c, g, first="barbarian")
        assert c.resources["rage"] == {1: 2, 9: 4, 16: 5}[level]
        _rage(b)
        assert "raging" in c.conditions and not c.economy.bonus
        assert c.resources["rage"] == {1: 2, 9: 4, 16: 5}[level] - 1
        script(b, 15, 5)   # greataxe 1d12 + Str
        _attack(b, "ogre", "Greataxe")
        assert g.hp == g.max_hp - (5 + c.mod("str") + bonus), level
        hp = g.hp
        script(b, 15, 15, 4)   # (disadvantage: a ranged attack with a foe beside it)
        b.make_attack(c, c.attack("handaxe-thrown"), g)   # a ranged attack (thrown)
        assert g.hp == hp - (4 + c.mod("str")), level


def test_rage_resists_bludgeoning_piercing_slashing():
    """Classes > Barbarian > Rage
    While raging the barbarian has resistance to bludgeoning, piercing and slashing damage (halved,
    rounded down), not to other types."""
    c = pc("barbarian", 1, (2, 2))
    b = arena(c, mon("goblin", (6, 6)), first="barbarian")
    _rage(b)
    for dtype, taken in (("bludgeoning", 4), ("piercing", 4), ("slashing", 4), ("fire", 9), ("poison", 9)):
        hp = c.hp
        b.damage(c, 9, dtype)
        assert hp - c.hp == taken, dtype
        c.hp = c.max_hp


def test_rage_gives_advantage_on_strength_saves():
    """Classes > Barbarian > Rage
    While raging the barbarian has advantage on Strength checks and Strength saving throws (not on
    other saves)."""
    c = pc("barbarian", 1, (2, 2))
    b = arena(c, mon("goblin", (6, 6)), first="barbarian")
    script(b, 3)
    assert not b.saving_throw(c, "str", 10)   # not raging: one d20
    _rage(b)
    script(b, 3, 15)
    assert b.saving_throw(c, "str", 10)       # raging: the higher of two
    script(b, 3)
    assert not b.saving_throw(c, "con", 10)   # another ability: one d20


def test_rage_ends_when_a_turn_passes_without_attacking_or_being_hurt():
    """Classes > Barbarian > Rage
    A rage ends early when the barbarian's turn ends and it has neither attacked a hostile creature
    nor taken damage since its last turn; an attack, or damage taken, keeps it going."""
    c, g = pc("barbarian", 1, (2, 2)), mon("goblin", (3, 2))
    b = arena(c, g, first="barbarian")
    _rage(b)
    script(b, 2)
    _attack(b, "goblin", "Greataxe")   # a miss still counts as attacking
    _end(b)
    assert "raging" in c.conditions
    turn(b, "barbarian")
    b.damage(c, 2, "fire")   # damage taken since its last turn
    _end(b)
    assert "raging" in c.conditions
    turn(b, "barbarian")
    _end(b)   # neither
    assert "raging" not in c.conditions
    assert events(b, "rage_end")[-1]["text"].endswith("(no attack and no damage this turn)")


def test_rage_lasts_one_minute_and_ends_when_unconscious():
    """Classes > Barbarian > Rage
    A rage lasts 1 minute (10 rounds) and ends early if the barbarian is knocked unconscious."""
    c, g = pc("barbarian", 1, (2, 2)), mon("goblin", (3, 2))
    b = arena(c, g, first="barbarian")
    _rage(b)
    start = b.round
    b.round = start + 9   # the tenth round after raging: still on
    b.start_turn(c)
    assert "raging" in c.conditions
    b.round = start + 10   # a minute later: over
    b.start_turn(c)
    assert "raging" not in c.conditions
    b2 = arena(pc("barbarian", 1, (2, 2)), mon("goblin", (3, 2)), first="barbarian")
    c2 = b2.creatures["barbarian"]
    _rage(b2)
    b2.damage(c2, c2.hp, "fire")
    assert not c2.conscious and "raging" not in c2.conditions


def test_rage_uses_are_limited_by_level():
    """Classes > Barbarian > Rage
    The number of rages before a long rest grows with level (2 at 1st, 3 at 3rd, 4 at 6th, 5 at
    12th, 6 at 17th, unlimited at 20th); with none left, Rage is not offered."""
    for level, n in ((1, 2), (3, 3), (6, 4), (12, 5), (17, 6)):
        assert pc("barbarian", level, (2, 2)).resources["rage"] == n, level
    c = pc("barbarian", 1, (2, 2))
    b = arena(c, mon("goblin", (6, 6)), first="barbarian")
    c.resources["rage"] = 0
    assert not any(label.startswith("Rage") for label in labels(b, "feature"))
    c20 = pc("barbarian", 20, (2, 2))
    b20 = arena(c20, mon("goblin", (6, 6)), first="barbarian")
    _rage(b20)
    assert c20.resources["rage"] == c20.resources["rage_max"]   # unlimited: nothing spent


def test_rage_gives_advantage_on_strength_checks():
    """Classes > Barbarian > Rage
    While raging the barbarian has advantage on Strength checks: its Athletics check to shove a
    creature rolls two d20s and keeps the higher (the defender rolls one)."""
    c, g = pc("barbarian", 1, (2, 2)), mon("orc", (3, 2))
    b = arena(c, g, first="barbarian")
    _rage(b)
    script(b, 2, 15, 10)   # the barbarian's two d20s (advantage), then the orc's
    pick(b, None, "Shove prone")
    target(b, "orc")
    e = events(b, "shove")[-1]
    assert e["success"] and "prone" in g.conditions
    assert e["text"].endswith(f"({15 + c.mod('str')} vs {10 + 3})")   # orc: Str (Athletics) +3


def test_reckless_attack_grants_advantage_and_gives_it_to_attackers():
    """Classes > Barbarian > Reckless Attack
    Before its first attack of a turn the barbarian may attack recklessly: its melee weapon attacks
    with Strength have advantage this turn, and attack rolls against it have advantage until its
    next turn. Once it has attacked, the choice is no longer offered."""
    c, g = pc("barbarian", 2, (2, 2)), mon("orc", (3, 2))
    b = arena(c, g, first="barbarian")
    pick(b, "feature", "Reckless Attack")
    script(b, 3, 17, 6)   # advantage: 3 and 17, the 17 hits
    _attack(b, "orc", "Greataxe")
    e = events(b, "attack")[-1]
    assert e["hit"] and g.hp == 15 - (6 + c.mod("str"))
    turn(b, "orc")
    script(b, 2, 19, 5)   # the orc's greataxe with advantage against the reckless barbarian
    b.make_attack(g, g.attack("greataxe"), c)
    assert events(b, "attack")[-1]["hit"] and c.hp == c.max_hp - (5 + 3)
    turn(b, "barbarian")   # its next turn: attacks on it are normal again
    assert "reckless" not in c.conditions
    script(b, 2)
    _attack(b, "orc", "Greataxe")
    assert not events(b, "attack")[-1]["hit"]
    assert not any("Reckless" in label for label in labels(b))   # already attacked this turn


def test_danger_sense_gives_advantage_on_dex_saves_unless_blinded_deafened_or_incapacitated():
    """Classes > Barbarian > Danger Sense
    The barbarian has advantage on Dexterity saving throws against effects it can see (spells,
    traps); not while blinded, deafened or incapacitated."""
    c = pc("barbarian", 2, (2, 2))
    b = arena(c, mon("goblin", (6, 6)), first="barbarian")
    script(b, 4, 16)
    assert b.saving_throw(c, "dex", 15)
    for cond in ("blinded", "deafened", "incapacitated"):
        c.conditions[cond] = {}
        script(b, 4)
        assert not b.saving_throw(c, "dex", 15), cond
        del c.conditions[cond]
    script(b, 4)
    assert not b.saving_throw(c, "wis", 10)   # Dexterity saves only


def test_frenzy_gives_a_bonus_attack_on_later_turns_then_exhaustion():
    """Classes > Barbarian > Frenzy
    A berserker may rage in a frenzy: on each of its turns after the one it raged on, it may make
    one melee weapon attack as a bonus action; when the rage ends it suffers one level of
    exhaustion."""
    c, g = pc("barbarian", 3, (2, 2)), mon("ogre", (3, 2))
    b = arena(c, g, first="barbarian")
    _rage(b, frenzy=True)
    assert not any(label.startswith("Frenzy") for label in labels(b))   # not on the turn it rages
    script(b, 15, 6)
    _attack(b, "ogre", "Greataxe")
    _end(b)
    turn(b, "barbarian")
    b.round = 2
    b.forget_options()
    script(b, 15, 6)
    _attack(b, "ogre", "Greataxe")   # the Attack action
    script(b, 15, 4)
    pick(b, "attack", "Frenzy: attack with Greataxe")
    target(b, "ogre")
    assert not c.economy.bonus and g.hp == 59 - (6 + 3 + 2) * 2 - (4 + 3 + 2)
    assert c.exhaustion == 0
    _end(b)
    turn(b, "barbarian")
    _end(b)   # no attack, no damage: the rage ends
    assert "raging" not in c.conditions and c.exhaustion == 1


def test_extra_attack_gives_two_attacks_with_the_attack_action():
    """Classes > Barbarian > Extra Attack
    From 5th level the barbarian attacks twice, instead of once, whenever it takes the Attack
    action on its turn; at 4th level once."""
    for level, swings in ((4, 1), (5, 2)):
        c, g = pc("barbarian", level, (2, 2)), mon("ogre", (3, 2))
        b = arena(c, g, first="barbarian")
        script(b, *([15, 6] * swings))
        _attack(b, "ogre", "Greataxe")
        if swings == 2:
            _attack(b, "ogre", "Greataxe")
        assert len(events(b, "attack")) == swings
        assert not any(o.kind == "attack" and "Greataxe" in o.label for o in b.decision.options), level


def test_fast_movement_adds_10_feet_without_heavy_armour():
    """Classes > Barbarian > Fast Movement
    From 5th level a barbarian's speed is 10 feet higher while it wears no heavy armour."""
    assert pc("barbarian", 4, (2, 2)).speed == 30
    assert pc("barbarian", 5, (2, 2)).speed == 40
    assert build_pc("barbarian", 5, "b", (2, 2, 0), armor="plate-armor").speed == 30


def test_mindless_rage_bars_charm_and_fear_and_suspends_fear_already_there():
    """Classes > Barbarian > Mindless Rage
    A 6th-level berserker can't be charmed or frightened while raging; if it is frightened when it
    starts raging, the fear is suspended for the rage: its attacks are rolled without the
    frightened disadvantage while the rage lasts, and the fear resumes when the rage ends."""
    c, g = pc("barbarian", 6, (2, 2)), mon("orc", (3, 2))
    b = arena(c, g, first="barbarian")
    b.save_condition(g, c, "frightened", "wis", 13, (None, None, None))
    assert "frightened" in c.conditions
    _rage(b)
    script(b, 12, 6)   # one d20: the fear is suspended
    _attack(b, "orc", "Greataxe")
    assert events(b, "attack")[-1]["hit"]
    for cond in ("frightened", "charmed"):
        b.save_condition(g, c, cond, "wis", 13, (None, None, None))
        assert cond not in c.conditions, cond
    _skip_to(b, "barbarian")
    _end(b)   # a turn without attacking or being hurt: the rage ends, the old fear resumes
    assert "raging" not in c.conditions and c.conditions["frightened"]["by"] == "orc"
    c5 = pc("barbarian", 5, (2, 2), "b5")
    b5 = arena(c5, mon("orc", (3, 2)), first="b5")
    _rage(b5)
    b5.save_condition(b5.creatures["orc"], c5, "frightened", "wis", 13, (None, None, None))
    assert "frightened" in c5.conditions   # before 6th level rage does not protect


def test_feral_instinct_gives_advantage_on_initiative():
    """Classes > Barbarian > Feral Instinct
    From 7th level the barbarian rolls initiative with advantage."""
    from dungeonbench_gym.dnd.dice import Roller
    from dungeonbench_gym.dnd.engine import Battle
    from dungeonbench_gym.dnd.grid import BattleMap
    from dnd_helpers import OPEN, Script
    for level, dice, expected in ((7, (3, 18, 10), 18), (6, (3, 10), 3)):
        roller = Roller(0)
        roller._int = Script(list(dice) + [10] * 50)   # initiative in id order: barbarian, then goblin
        c = pc("barbarian", level, (2, 2))
        Battle(BattleMap.from_dict({"layout": OPEN}), [c, mon("goblin", (6, 6))], roller=roller)
        assert c.initiative == expected + c.dex_mod, level


def test_feral_instinct_lets_a_surprised_barbarian_act_if_it_rages_first():
    """Classes > Barbarian > Feral Instinct
    A surprised 7th-level barbarian that is not incapacitated acts normally on its first turn,
    provided it enters its rage before doing anything else on that turn: its menu then offers only
    Rage (and ending the turn); after raging it may move and attack."""
    from dungeonbench_gym.dnd.dice import Roller
    from dungeonbench_gym.dnd.engine import Battle
    from dungeonbench_gym.dnd.grid import BattleMap
    from dnd_helpers import OPEN, Script
    roller = Roller(0)
    roller._int = Script([20, 20, 1] + [10] * 50)   # the barbarian first
    c, g = pc("barbarian", 7, (2, 2)), mon("goblin", (3, 2))
    b = Battle(BattleMap.from_dict({"layout": OPEN}), [c, g], roller=roller, surprised=("barbarian",))
    assert b.pending.get("actor") == "barbarian"
    assert set(kinds(b)) == {"feature", "end_turn"} and any(label.startswith("Rage") for label in labels(b))
    _rage(b)
    assert "attack" in kinds(b) and "move" in kinds(b)


def test_brutal_critical_adds_weapon_dice_on_a_melee_critical():
    """Classes > Barbarian > Brutal Critical (1 die)
    On a critical hit with a melee attack the barbarian rolls one more weapon damage die (two from
    13th level, three from 17th), on top of the critical's doubled dice; a ranged critical gets
    none."""
    for level, more in ((9, 1), (13, 2), (17, 3)):
        c, g = pc("barbarian", level, (2, 2)), mon("troll", (3, 2))
        b = arena(c, g, first="barbarian")
        script(b, 20, 5, 5, *([1] * more))   # greataxe critical: 2d12, then the brutal dice
        _attack(b, "troll", "Greataxe")
        assert g.hp == g.max_hp - (10 + more + c.mod("str")), level
        hp = g.hp
        script(b, 20, 20, 3, 3)   # a thrown handaxe's critical (disadvantage: the troll is beside it)
        b.make_attack(c, c.attack("handaxe-thrown"), g)
        assert g.hp == hp - (6 + c.mod("str")), level


def test_intimidating_presence_frightens_until_the_end_of_the_next_turn():
    """Classes > Barbarian > Intimidating Presence
    With its action a 10th-level berserker frightens a creature within 30 feet that fails a Wisdom
    save (DC 8 + proficiency + Charisma) until the end of the barbarian's next turn; a creature that
    succeeds can't be frightened by it this way for 24 hours."""
    c, g, o = pc("barbarian", 10, (2, 2)), mon("orc", (5, 2)), mon("orc", (6, 2), "orc2")
    b = arena(c, g, o, first="barbarian")
    dc = 8 + c.prof + c.mod("cha")
    assert dc == 12
    pick(b, "feature", "Intimidating Presence")
    script(b, 5)   # orc: 5 + 1 (Wis) fails
    target(b, "orc")
    assert "frightened" in g.conditions and c.economy.actions == 0
    _skip_to(b, "orc")
    assert "frightened" in g.conditions
    _skip_to(b, "barbarian")   # its next turn
    pick(b, "feature", "Intimidating Presence")
    script(b, 15)   # orc2 succeeds
    target(b, "orc2")
    assert "frightened" not in o.conditions
    _end(b)
    assert "frightened" not in g.conditions   # the end of the barbarian's next turn
    _skip_to(b, "barbarian")
    pick(b, "feature", "Intimidating Presence")
    assert [opt.data for opt in b.decision.options if opt.kind == "target"] == [("orc",)]   # orc2 is immune


def test_relentless_rage_drops_to_1_hp_on_a_con_save_whose_dc_rises():
    """Classes > Barbarian > Relentless Rage
    A raging 11th-level barbarian dropped to 0 hit points (and not killed outright) makes a DC 10
    Constitution save and drops to 1 hit point instead on a success; each later use raises the DC
    by 5. Not raging, it falls."""
    c = pc("barbarian", 11, (2, 2))
    b = arena(c, mon("goblin", (6, 6)), first="barbarian")
    _rage(b)
    con = c.saves["con"]
    script(b, 10 - con)   # exactly DC 10
    b.damage(c, c.hp, "fire")
    assert c.hp == 1 and c.conscious
    script(b, 14 - con)   # DC 15: one short
    b.damage(c, 1, "fire")
    assert c.hp == 0 and not c.conscious
    c2 = pc("barbarian", 11, (2, 2), "b2")
    b2 = arena(c2, mon("goblin", (6, 6)), first="b2")
    b2.damage(c2, c2.hp, "fire")   # not raging: no save
    assert c2.hp == 0 and not events(b2, "save")


def test_retaliation_answers_damage_from_a_creature_within_5_feet():
    """Classes > Barbarian > Retaliation
    When a 14th-level berserker takes damage from a creature within 5 feet of it, it can use its
    reaction to make a melee weapon attack against that creature."""
    c, g = pc("barbarian", 14, (2, 2)), mon("ogre", (3, 2))
    b = arena(c, g, first="ogre")
    script(b, 15, 4, 4)
    pick(b, "attack", "Greatclub")
    target(b, "barbarian")
    assert b.pending["reaction"] == "retaliation" and b.pending["actor"] == "barbarian"
    script(b, 15, 6)
    pick(b, "reaction", "Retaliation: attack ogre with greataxe")
    assert g.hp == g.max_hp - (6 + c.mod("str")) and not c.economy.reaction
    b2 = arena(pc("barbarian", 14, (2, 2)), mon("goblin", (7, 2)), first="goblin")
    script(b2, 15, 3)   # a shortbow from 25 feet: no retaliation
    pick(b2, "attack", "Shortbow")
    target(b2, "barbarian")
    assert b2.pending.get("reaction") != "retaliation"


def test_persistent_rage_ends_only_when_unconscious_or_chosen():
    """Classes > Barbarian > Persistent Rage
    From 15th level the rage ends early only if the barbarian falls unconscious or chooses to end
    it: a turn without attacking or being hurt leaves it raging (a 14th-level one stops)."""
    for level, kept in ((14, False), (15, True)):
        c = pc("barbarian", level, (2, 2))
        b = arena(c, mon("goblin", (6, 6)), first="barbarian")
        _rage(b)
        _end(b)
        assert ("raging" in c.conditions) == kept, level


def test_indomitable_might_makes_a_strength_check_at_least_the_strength_score():
    """Classes > Barbarian > Indomitable Might
    From 18th level, a Strength check whose total is below the barbarian's Strength score counts as
    the score: shoving, and resisting a shove with Athletics."""
    c, g = pc("barbarian", 18, (2, 2)), mon("ogre", (3, 2))
    b = arena(c, g, first="barbarian")
    assert c.abilities["str"] == 20
    script(b, 1, 10)   # 1 + 5 = 6 counts as 20; the ogre's 10 + 4 = 14
    pick(b, None, "Shove prone")
    target(b, "ogre")
    assert events(b, "shove")[-1]["text"].endswith("(20 vs 14)") and "prone" in g.conditions
    turn(b, "ogre")
    b.forget_options()
    script(b, 15, 1)   # the ogre shoves: 15 + 4 = 19 against the barbarian's 20
    b._shove(g, c, "prone")
    assert events(b, "shove")[-1]["text"].endswith("(19 vs 20)") and "prone" not in c.conditions


def test_primal_champion_raises_strength_and_constitution_by_4_to_24():
    """Classes > Barbarian > Primal Champion
    At 20th level Strength and Constitution each rise by 4, to a maximum of 24 (hit points follow
    the new Constitution)."""
    c19, c20 = pc("barbarian", 19, (2, 2)), pc("barbarian", 20, (2, 2))
    assert (c19.abilities["str"], c19.abilities["con"]) == (20, 20)
    assert (c20.abilities["str"], c20.abilities["con"]) == (24, 24)
    assert c20.max_hp == 12 + 7 + 19 * (7 + 7)


# ==================================================================== Fighter
def _fighter(level=1, cid="fighter", at=(2, 2), **loadout):
    return build_pc("fighter", level, cid, (*at, 0), **loadout)


def test_archery_style_adds_2_to_ranged_weapon_attack_rolls():
    """Classes > Fighter > Fighting Style: Archery
    The Archery style gives +2 to attack rolls with ranged weapons (not with melee weapons): a
    longbow's 10 + 1 (Dex) + 2 (proficiency) + 2 meets a goblin's AC 15; without the style 13
    misses."""
    for style, hits in (("archery", True), ("defense", False)):
        f = _fighter(1, weapons=("longbow", "longsword"), style=style)
        g = mon("goblin", (8, 2))
        b = arena(f, g, first="fighter")
        script(b, 10, 4)
        _attack(b, "goblin", "Longbow")
        assert events(b, "attack")[-1]["hit"] == hits, style
        assert f.attack("longsword").to_hit == f.mod("str") + f.prof
    assert _fighter(1, weapons=("longbow",), style="archery").attack("longbow").to_hit == 1 + 2 + 2


def test_defense_style_adds_1_to_ac_while_wearing_armour():
    """Classes > Fighter > Fighting Style: Defense
    The Defense style gives +1 AC while the fighter wears armour: chain mail 16 + shield 2 + 1 =
    19; without armour it adds nothing (10 + 1 Dex + 2 shield = 13)."""
    assert _fighter(1, style="defense").ac == 19
    assert _fighter(1, style="dueling").ac == 18
    assert _fighter(1, style="defense", armor=None).ac == 13


def test_dueling_style_adds_2_damage_to_a_one_handed_melee_weapon():
    """Classes > Fighter > Fighting Style: Dueling
    Wielding a melee weapon in one hand and no other weapon, the fighter deals 2 more damage with
    it: a longsword (1d8 one-handed) hits for 5 + 3 + 2; a two-handed greatsword gets no bonus."""
    f, g = build_pc("fighter_dueling", 1, "fighter", (2, 2, 0)), mon("ogre", (3, 2))
    b = arena(f, g, first="fighter")
    script(b, 15, 5)
    _attack(b, "ogre", "Longsword")
    assert g.hp == 59 - (5 + 3 + 2)
    big = build_pc("fighter_dueling", 1, "big", (2, 2, 0), weapons=("greatsword",), shield=False)
    assert big.attack("greatsword").damage[0].dice == "2d6+3"


def test_great_weapon_fighting_rerolls_ones_and_twos_once_with_a_two_handed_weapon():
    """Classes > Fighter > Fighting Style: Great Weapon Fighting
    With a melee weapon held in two hands, a 1 or 2 on a damage die is rerolled and the new roll
    must be used even if it is a 1 or 2: a greatsword's 1 and 6 become 2 and 6 (8 + 3); a
    one-handed weapon with a shield rerolls nothing."""
    f, g = _fighter(1, style="great_weapon_fighting", weapons=("greatsword",), shield=False), mon("ogre", (3, 2))
    b = arena(f, g, first="fighter")
    script(b, 15, 1, 6, 2)
    _attack(b, "ogre", "Greatsword")
    assert g.hp == 59 - (2 + 6 + 3)
    f2, g2 = _fighter(1, style="great_weapon_fighting"), mon("ogre", (3, 2))
    b2 = arena(f2, g2, first="fighter")
    script(b2, 15, 1)
    _attack(b2, "ogre", "Longsword")
    assert g2.hp == 59 - (1 + 3)


def test_protection_style_imposes_disadvantage_on_an_attack_against_an_adjacent_ally():
    """Classes > Fighter > Fighting Style: Protection
    When a creature the fighter can see attacks a target other than the fighter within 5 feet of
    it, the fighter, wielding a shield, can use its reaction to impose disadvantage on the attack
    roll. Without a shield it can't.
    Simplified: the reaction is spent automatically on the first attack it can affect (no choice
    is offered)."""
    for shield, protected in ((True, True), (False, False)):
        f = _fighter(1, style="protection", shield=shield)
        w, g = pc("wizard", 1, (3, 3)), mon("goblin", (4, 3))
        b = arena(f, w, g, first="goblin")
        script(b, 18, 5, 4) if protected else script(b, 5, 4)   # protected: the lower d20 (5) misses
        _attack(b, "wizard", "Scimitar")
        assert not events(b, "attack")[-1]["hit"], shield
        assert f.economy.reaction == (not protected)


def test_two_weapon_fighting_style_adds_the_modifier_to_the_off_hand_attack():
    """Classes > Fighter > Fighting Style: Two-Weapon Fighting
    Fighting with two light melee weapons, the bonus-action attack with the off hand adds the
    ability modifier to its damage (without the style it adds none)."""
    for style, mod in (("two_weapon_fighting", 3), ("defense", 0)):
        f = _fighter(1, style=style, weapons=("shortsword", "scimitar"), shield=False)
        g = mon("ogre", (3, 2))
        b = arena(f, g, first="fighter")
        script(b, 15, 4)
        _attack(b, "ogre", "Shortsword")
        script(b, 15, 4)
        pick(b, "attack", "Off-hand attack with Scimitar")
        target(b, "ogre")
        assert g.hp == 59 - (4 + 3) - (4 + mod), style


def test_second_wind_heals_1d10_plus_level_once_as_a_bonus_action():
    """Classes > Fighter > Second Wind
    On its turn, as a bonus action, the fighter regains 1d10 + its fighter level hit points; once
    used, it must rest before using it again (it is not offered again)."""
    f = _fighter(5)
    b = arena(f, mon("goblin", (8, 6)), first="fighter")
    f.hp = 10
    script(b, 7)
    pick(b, "second_wind")
    assert f.hp == 10 + 7 + 5 and not f.economy.bonus and f.economy.actions == 1
    turn(b, "fighter")
    assert "second_wind" not in kinds(b)


def test_action_surge_gives_one_more_action_once_per_turn():
    """Classes > Fighter > Action Surge (1 use)
    On its turn the fighter can take one additional action; it has one use per rest at 2nd level
    and two from 17th (Action Surge (2 uses)), but only one on the same turn."""
    f, g = _fighter(2), mon("ogre", (3, 2))
    b = arena(f, g, first="fighter")
    script(b, 15, 1)
    _attack(b, "ogre", "Longsword")
    assert f.economy.actions == 0
    pick(b, "action_surge")
    script(b, 15, 1)
    _attack(b, "ogre", "Longsword")
    assert len(events(b, "attack")) == 2 and f.resources["action_surge"] == 0
    turn(b, "fighter")
    assert "action_surge" not in kinds(b)
    f17 = _fighter(17, "f17")
    b17 = arena(f17, mon("ogre", (3, 2)), first="f17")
    pick(b17, "action_surge")
    assert "action_surge" not in kinds(b17) and f17.resources["action_surge"] == 1   # once a turn
    turn(b17, "f17")
    pick(b17, "action_surge")
    assert f17.resources["action_surge"] == 0


def _crit_check(level, natural, crit):
    f, g = _fighter(level), mon("troll", (3, 2))
    b = arena(f, g, first="fighter")
    script(b, natural, 3, 3) if crit else script(b, natural, 3)
    _attack(b, "troll", "Longsword")
    e = events(b, "attack")[-1]
    assert e["hit"] and e["critical"] == crit, (level, natural)
    assert g.max_hp - g.hp == (6 if crit else 3) + f.mod("str"), (level, natural)


def test_improved_critical_scores_a_critical_on_19_or_20():
    """Classes > Fighter > Improved Critical
    From 3rd level a Champion's weapon attacks score a critical hit on a roll of 19 or 20 (the
    critical doubles the dice); an 18 is an ordinary hit, and a 2nd-level fighter's 19 too."""
    for level, natural, crit in ((2, 19, False), (3, 19, True), (3, 18, False)):
        _crit_check(level, natural, crit)


def test_superior_critical_scores_a_critical_on_18_to_20():
    """Classes > Fighter > Superior Critical
    From 15th level a Champion's weapon attacks score a critical hit on a roll of 18-20 (at 14th
    level an 18 is an ordinary hit)."""
    for level, natural, crit in ((15, 18, True), (14, 18, False), (15, 17, False)):
        _crit_check(level, natural, crit)


def test_extra_attack_gives_two_three_then_four_attacks():
    """Classes > Fighter > Extra Attack
    The Attack action makes two attacks from 5th level, three from 11th (Extra Attack (2)) and four
    from 20th (Extra Attack (3))."""
    for level, swings in ((4, 1), (5, 2), (11, 3), (20, 4)):
        f, g = _fighter(level), mon("adult-red-dragon", (3, 2))
        b = arena(f, g, first="fighter")
        for _ in range(swings):
            script(b, 1)
            _attack(b, "adult-red-dragon", "Longsword")
        assert len(events(b, "attack")) == swings, level
        assert not any(o.kind == "attack" for o in b.decision.options), level


def test_remarkable_athlete_adds_half_proficiency_to_untrained_str_dex_con_checks():
    """Classes > Fighter > Remarkable Athlete
    From 7th level a Champion adds half its proficiency bonus, rounded up, to Strength, Dexterity
    and Constitution checks that don't already use its proficiency bonus: initiative (a Dexterity
    check) and a Dexterity check to break free of a web; not its trained Athletics."""
    from dungeonbench_gym.dnd.dice import Roller
    from dungeonbench_gym.dnd.engine import Battle
    from dungeonbench_gym.dnd.grid import BattleMap
    from dnd_helpers import OPEN, Script
    for level, more in ((6, 0), (7, 2)):
        roller = Roller(0)
        roller._int = Script([10] * 50)
        f = _fighter(level)
        b = Battle(BattleMap.from_dict({"layout": OPEN}), [f, mon("goblin", (6, 6))], roller=roller)
        assert f.initiative == 10 + f.dex_mod + more, level
        assert b.athletics(f) == f.mod("str") + f.prof
        turn(b, "fighter")
        f.conditions["restrained"] = {"escape": ("dex", 10 + f.dex_mod + 2)}
        b.forget_options()
        script(b, 10)
        pick(b, "escape_web")
        assert events(b, "escape")[-1]["success"] == (more > 0), level


def test_indomitable_rerolls_a_failed_save_and_its_uses_grow():
    """Classes > Fighter > Indomitable (1 use)
    From 9th level the fighter can reroll a saving throw it fails and must use the new roll; one
    use per long rest at 9th, two at 13th (Indomitable (2 uses)), three at 17th (Indomitable (3
    uses)). The reroll is a new saving throw: it keeps the save's bonuses, and Bless's d4 is
    rolled again with it (not the first roll's d4 copied)."""
    for level, uses in ((9, 1), (13, 2), (17, 3)):
        assert _fighter(level).resources["indomitable"] == uses
    f = _fighter(9)
    b = arena(f, mon("goblin", (8, 6)), first="fighter")
    wis = f.saves["wis"]
    script(b, 5, 14 - wis)   # fails DC 15, the reroll 14 + Wis fails too: the new roll stands
    assert not b.saving_throw(f, "wis", 15) and f.resources["indomitable"] == 0
    script(b, 5)   # none left: the failure stands
    assert not b.saving_throw(f, "wis", 15)
    f2 = _fighter(9, "f2")
    b2 = arena(f2, mon("goblin", (8, 6)), first="f2")
    f2.conditions["blessed"] = {"by": "f2"}
    script(b2, 1, 5, 3, 12 - wis)   # Bless's d4 (1), then 5: fails; the reroll's own d4 (3): 12 + 3 = 15 succeeds
    assert b2.saving_throw(f2, "wis", 15) and b2.roller._int.values == []
    f3 = _fighter(9, "f3")
    b3 = arena(f3, mon("goblin", (8, 6)), first="f3")
    f3.conditions["blessed"] = {"by": "f3"}
    script(b3, 4, 5, 1, 13 - wis)   # a d4 of 4 first; the reroll's d4 is 1: 13 + 1 = 14 fails DC 15
    assert not b3.saving_throw(f3, "wis", 15) and b3.roller._int.values == []


def test_additional_fighting_style_gives_a_tenth_level_champion_a_second_style():
    """Classes > Fighter > Additional Fighting Style
    At 10th level a Champion takes a second fighting style: ours, with the Defense style and a
    shield, takes Protection (and keeps Defense's +1 AC)."""
    f9, f10 = _fighter(9), _fighter(10)
    assert "protection" not in f9.features
    assert "protection" in f10.features and f10.ac == 19
    w, g = pc("wizard", 1, (3, 3)), mon("goblin", (4, 3))
    b = arena(f10, w, g, first="goblin")
    script(b, 18, 5, 4)
    _attack(b, "wizard", "Scimitar")
    assert not events(b, "attack")[-1]["hit"] and not f10.economy.reaction


def test_survivor_heals_5_plus_con_at_the_start_of_each_turn_at_half_hp_or_less():
    """Classes > Fighter > Survivor
    From 18th level, at the start of each of its turns the fighter regains 5 + its Constitution
    modifier hit points if it has no more than half its hit points left; not above half, and not
    at 0 hit points."""
    f = _fighter(18)
    b = arena(f, mon("goblin", (8, 6)), first="goblin")
    heal = 5 + f.mod("con")
    for hp, after in ((f.max_hp // 2, f.max_hp // 2 + heal), (f.max_hp // 2 + 1, f.max_hp // 2 + 1), (1, 1 + heal)):
        f.hp = hp
        b.start_turn(f)
        assert f.hp == after, hp
    f.hp = 0
    f.conditions["unconscious"] = {}
    b.start_turn(f)
    assert f.hp == 0


# ==================================================================== Monk
def _monk(level, cid="monk", at=(2, 2)):
    return pc("monk", level, at, cid)


def test_martial_arts_uses_dex_and_the_growing_die_and_gives_a_bonus_unarmed_strike():
    """Classes > Monk > Martial Arts
    A monk's unarmed strikes and monk weapons may use Dexterity instead of Strength and roll the
    martial arts die in place of their own damage (d4 at 1st level, d6 at 5th, d8 at 11th, d10 at
    17th); after taking the Attack action with an unarmed strike or a monk weapon, it may make one
    unarmed strike as a bonus action (not before attacking)."""
    for level, die in ((1, "1d4"), (5, "1d6"), (11, "1d8"), (17, "1d10")):
        m = _monk(level)
        ua = m.attack("unarmed-strike")
        assert ua.damage[0].dice == f"{die}+{m.mod('dex')}" and ua.to_hit == m.mod("dex") + m.prof, level
    m, g = _monk(1), mon("ogre", (3, 2))
    b = arena(m, g, first="monk")
    assert not any("Martial Arts" in label for label in labels(b))
    script(b, 15, 3)
    _attack(b, "ogre", "Shortsword")   # a monk weapon: Dex (+3), its own d6 beats the d4
    script(b, 15, 2)
    pick(b, "attack", "Martial Arts: unarmed strike")
    target(b, "ogre")
    assert g.hp == 59 - (3 + 3) - (2 + 3) and not m.economy.bonus


def test_monk_unarmored_defense_is_10_plus_dex_plus_wis():
    """Classes > Monk > Unarmored Defense
    Wearing no armour and no shield, a monk's AC is 10 + its Dexterity modifier + its Wisdom
    modifier."""
    for level in (1, 8, 20):
        m = _monk(level)
        assert m.ac == 10 + m.mod("dex") + m.mod("wis"), level
    assert _monk(1).ac == 10 + 3 + 2


def test_ki_points_equal_the_monk_level_and_set_the_save_dc():
    """Classes > Monk > Ki
    From 2nd level a monk has as many ki points as its monk level; a ki feature's save DC is
    8 + proficiency + Wisdom modifier."""
    assert "ki" not in _monk(1).resources
    for level in (2, 5, 20):
        m = _monk(level)
        assert m.resources["ki"] == level and m.resources["ki_dc"] == 8 + m.prof + m.mod("wis"), level


def test_flurry_of_blows_spends_1_ki_for_two_bonus_unarmed_strikes():
    """Classes > Monk > Flurry of Blows
    Right after taking the Attack action on its turn, the monk may spend 1 ki point to make two
    unarmed strikes as a bonus action."""
    m, g = _monk(2), mon("ogre", (3, 2))
    b = arena(m, g, first="monk")
    assert not any("Flurry" in label for label in labels(b))   # not before the Attack action
    script(b, 15, 3)
    _attack(b, "ogre", "Unarmed Strike")
    script(b, 15, 2)
    pick(b, "attack", "Flurry of Blows (bonus")
    target(b, "ogre")
    assert m.resources["ki"] == 1 and not m.economy.bonus
    script(b, 15, 4)
    pick(b, "attack", "Flurry of Blows: the second")
    target(b, "ogre")
    assert g.hp == 59 - (3 + 3) - (2 + 3) - (4 + 3) and m.resources["ki"] == 1
    assert not any("Flurry" in label for label in labels(b))


def test_patient_defense_takes_the_dodge_as_a_bonus_action_for_1_ki():
    """Classes > Monk > Patient Defense
    For 1 ki point the monk takes the Dodge action as a bonus action: attacks against it have
    disadvantage until its next turn, and its action is still free."""
    m, g = _monk(2), mon("orc", (3, 2))
    b = arena(m, g, first="monk")
    pick(b, "feature", "Patient Defense")
    assert m.resources["ki"] == 1 and not m.economy.bonus and m.economy.actions == 1
    turn(b, "orc")
    script(b, 19, 4)   # the lower d20 (4) misses
    b.make_attack(g, g.attack("greataxe"), m)
    assert not events(b, "attack")[-1]["hit"]


def test_step_of_the_wind_dashes_or_disengages_as_a_bonus_action_for_1_ki():
    """Classes > Monk > Step of the Wind
    For 1 ki point the monk takes the Disengage or the Dash action as a bonus action: Dash adds
    its speed to its movement this turn; Disengage stops opportunity attacks for the turn."""
    m = _monk(2)
    b = arena(m, mon("orc", (3, 2)), first="monk")
    before = m.economy.movement
    pick(b, "feature", "Step of the Wind: Dash")
    assert m.economy.movement == before + 40 and m.resources["ki"] == 1 and m.economy.actions == 1
    turn(b, "monk")
    pick(b, "feature", "Step of the Wind: Disengage")
    assert m.economy.disengaged and m.resources["ki"] == 0
    assert not any("Step of the Wind" in label for label in labels(b))


def test_unarmored_movement_raises_speed_with_level():
    """Classes > Monk > Unarmored Movement
    Without armour or a shield the monk's speed rises by 10 feet at 2nd level, 15 at 6th, 20 at
    10th, 25 at 14th and 30 at 18th."""
    for level, more in ((1, 0), (2, 10), (6, 15), (10, 20), (14, 25), (18, 30)):
        assert _monk(level).speed == 30 + more, level


def test_deflect_missiles_reduces_a_ranged_weapon_hit_by_1d10_plus_dex_plus_level():
    """Classes > Monk > Deflect Missiles
    When a ranged weapon attack hits the monk, it can use its reaction to reduce the damage by
    1d10 + its Dexterity modifier + its monk level. Not against a melee attack."""
    m, g = _monk(3), mon("goblin", (7, 2))
    b = arena(m, g, first="goblin")
    script(b, 18)
    _attack(b, "monk", "Shortbow")
    assert b.pending.get("reaction") == "deflect_missiles"
    script(b, 1, 6)   # the cut: 1 + 3 + 3 = 7; the arrow: 6 + 2 = 8
    pick(b, "reaction", "Deflect Missiles")
    assert m.hp == m.max_hp - 1 and not m.economy.reaction
    b2 = arena(_monk(3), mon("goblin", (3, 2)), first="goblin")
    script(b2, 18, 3)
    _attack(b2, "monk", "Scimitar")
    assert b2.pending.get("reaction") != "deflect_missiles"


def test_open_hand_technique_adds_prone_push_or_no_reactions_to_a_flurry_hit():
    """Classes > Monk > Open Hand Technique
    When a Way of the Open Hand monk hits with one of its Flurry of Blows attacks, it may impose one
    effect: a Dexterity save or be knocked prone; a Strength save or be pushed up to 15 feet away;
    or no reactions until the end of the monk's next turn. An ordinary unarmed hit offers none."""
    for choice in ("prone", "push", "no reactions"):
        m, g = _monk(3), mon("orc", (3, 2))
        b = arena(m, g, first="monk")
        script(b, 15, 1)
        _attack(b, "orc", "Unarmed Strike")
        assert not any(label.startswith("Open Hand") for label in labels(b))
        script(b, 15)   # a hit: the choice comes before the damage
        pick(b, "attack", "Flurry of Blows (bonus")
        target(b, "orc")
        script(b, 1, 2)   # the damage, then the orc's save fails (2 + 1)
        pick(b, "reaction", {"prone": "knock prone", "push": "push 15 ft",
                             "no reactions": "no reactions"}[choice])
        if choice == "prone":
            assert "prone" in g.conditions
        elif choice == "push":
            assert g.pos[:2] == (6, 2)
        else:
            assert not g.economy.reaction and "no_reactions" in g.conditions


def test_slow_fall_cuts_falling_damage_by_five_times_the_monk_level():
    """Classes > Monk > Slow Fall
    From 4th level the monk can use its reaction when it falls to reduce the falling damage by five
    times its monk level: 40 feet (4d6, all sixes: 24) hurts a 4th-level monk for 24 - 20 = 4;
    with its reaction spent it takes all 24."""
    for reaction, taken in ((True, 4), (False, 24)):
        m = _monk(4)
        b = arena(m, mon("goblin", (6, 6)), first="goblin")
        m.economy.reaction = reaction
        m.pos = (2, 2, 40)
        script(b, 6, 6, 6, 6)
        b.falls()
        assert m.max_hp - m.hp == taken, reaction


def test_monk_extra_attack_gives_two_attacks_from_5th_level():
    """Classes > Monk > Extra Attack
    From 5th level the monk attacks twice whenever it takes the Attack action on its turn."""
    for level, swings in ((4, 1), (5, 2)):
        m, g = _monk(level), mon("adult-red-dragon", (3, 2))
        b = arena(m, g, first="monk")
        for _ in range(swings):
            script(b, 1)
            _attack(b, "adult-red-dragon", "Unarmed Strike")
        assert len(events(b, "attack")) == swings
        assert not any(o.kind == "attack" and "Martial" not in o.label and "Flurry" not in o.label
                       for o in b.decision.options), level


def test_stunning_strike_spends_1_ki_for_a_con_save_or_stunned():
    """Classes > Monk > Stunning Strike
    When the monk hits with a melee weapon attack it may spend 1 ki point: the target makes a
    Constitution save against the ki DC or is stunned until the end of the monk's next turn. A
    ranged hit (a dart) offers nothing."""
    m, g = _monk(5), mon("ogre", (3, 2))
    b = arena(m, g, first="monk")
    script(b, 15)   # a hit: the choice comes before the damage
    _attack(b, "ogre", "Unarmed Strike")
    script(b, 1, 9)   # the damage, then 9 + 3 (Con) = 12 < DC 13
    pick(b, "reaction", "Stunning Strike")
    assert "stunned" in g.conditions and m.resources["ki"] == 4
    _end(b)   # the stunned ogre's turn passes: the monk's next turn
    assert b.pending.get("actor") == "monk" and b.round == 2 and "stunned" in g.conditions
    _end(b)
    assert "stunned" not in g.conditions
    m2, g2 = _monk(5, "m2"), mon("ogre", (6, 2))
    b2 = arena(m2, g2, first="m2")
    script(b2, 15, 1)
    _attack(b2, "ogre", "Dart")
    assert not any("Stunning" in label for label in labels(b2))


def test_ki_empowered_strikes_make_unarmed_strikes_magical():
    """Classes > Monk > Ki-Empowered Strikes
    From 6th level the monk's unarmed strikes count as magical for overcoming resistance to
    nonmagical attacks: a wight (resisting nonmagical bludgeoning) takes the full 4 + 4 at 6th
    level, half of it at 5th."""
    for level, taken in ((5, 4), (6, 8)):
        m, w = _monk(level), mon("wight", (3, 2))
        b = arena(m, w, first="monk")
        script(b, 18, 4)
        _attack(b, "wight", "Unarmed Strike")
        pick(b, "reaction", "No rider")   # (Stunning Strike is offered)
        assert w.max_hp - w.hp == taken, level


def test_wholeness_of_body_heals_three_times_the_level_once():
    """Classes > Monk > Wholeness of Body
    A 6th-level Open Hand monk can use its action to regain hit points equal to three times its
    monk level, once per long rest."""
    m = _monk(6)
    b = arena(m, mon("goblin", (6, 6)), first="monk")
    m.hp = 5
    pick(b, "feature", "Wholeness of Body")
    assert m.hp == 5 + 18 and m.economy.actions == 0
    turn(b, "monk")
    m.hp = 5
    b.forget_options()
    assert not any("Wholeness" in label for label in labels(b))


def test_monk_evasion_takes_nothing_on_a_dex_save_success_and_half_on_a_failure():
    """Classes > Monk > Evasion
    From 7th level, against an effect that allows a Dexterity save for half damage, the monk takes
    no damage on a success and half on a failure (a 6th-level monk: half and all)."""
    m7, m6 = _monk(7, "m7", (5, 5)), _monk(6, "m6", (4, 5))
    m7.side = m6.side = "enemies"
    b, c = spell_setup("burning-hands", m6, m7, at=(3, 5), level=1)
    cast(b, "burning-hands")
    script(b, 6, 5, 4, 20, 20)   # 15 fire; both succeed
    pick(b, "direction", "Toward E ")
    assert (m6.max_hp - m6.hp, m7.max_hp - m7.hp) == (7, 0)
    m6.hp, m7.hp = m6.max_hp, m7.max_hp
    turn(b, "caster")
    cast(b, "burning-hands")
    script(b, 6, 5, 4, 1, 1)   # both fail
    pick(b, "direction", "Toward E ")
    assert (m6.max_hp - m6.hp, m7.max_hp - m7.hp) == (15, 7)


def test_stillness_of_mind_ends_charm_or_fear_with_an_action():
    """Classes > Monk > Stillness of Mind
    From 7th level the monk can use its action to end an effect on itself that is causing it to be
    charmed or frightened; with neither, it is not offered.
    Simplified: one action ends both a charm and a fear at once, where the SRD ends one effect."""
    m, g = _monk(7), mon("orc", (3, 2))
    b = arena(m, g, first="monk")
    assert not any("Stillness" in label for label in labels(b))
    m.conditions["frightened"] = {"by": "orc"}
    m.conditions["charmed"] = {"by": "orc"}
    b.forget_options()
    pick(b, "feature", "Stillness of Mind")
    assert "frightened" not in m.conditions and "charmed" not in m.conditions and m.economy.actions == 0


def test_purity_of_body_makes_the_monk_immune_to_poison_and_disease():
    """Classes > Monk > Purity of Body
    From 10th level the monk is immune to disease and poison: poison damage does nothing, and it
    can't be poisoned."""
    m, g = _monk(10), mon("goblin", (3, 2))
    b = arena(m, g, first="monk")
    b.damage(m, 12, "poison")
    assert m.hp == m.max_hp
    b.save_condition(g, m, "poisoned", "con", 20, (None, None, None))
    assert "poisoned" not in m.conditions and "diseased" in m.condition_immunities
    m9 = _monk(9, "m9")
    b9 = arena(m9, mon("goblin", (3, 2)), first="m9")
    b9.damage(m9, 12, "poison")
    assert m9.hp == m9.max_hp - 12


def test_diamond_soul_gives_every_save_proficiency_and_a_ki_reroll():
    """Classes > Monk > Diamond Soul
    From 14th level the monk is proficient in every saving throw, and when it fails a save it can
    spend 1 ki point to reroll it, taking the new roll. The reroll is a new saving throw: a Bane
    on the monk rolls its d4 again for it."""
    m = _monk(14)
    for ability in ("str", "dex", "con", "int", "wis", "cha"):
        assert m.saves[ability] == m.mod(ability) + m.prof, ability
    b = arena(m, mon("goblin", (6, 6)), first="monk")
    ki = m.resources["ki"]
    script(b, 2, 15 - m.saves["int"])   # fails DC 15, the reroll meets it
    assert b.saving_throw(m, "int", 15) and m.resources["ki"] == ki - 1
    m.conditions["baned"] = {"by": "goblin"}   # a reroll is a new save: Bane's d4 is rolled again
    script(b, 1, 2, 3, 17 - m.saves["int"])   # 2 - 1 fails; the reroll's d4 is 3: 17 - 3 = 14 fails DC 15
    assert not b.saving_throw(m, "int", 15) and m.resources["ki"] == ki - 2 and b.roller._int.values == []


def test_quivering_palm_sets_vibrations_with_3_ki_and_an_action_ends_them():
    """Classes > Monk > Quivering Palm
    When a 17th-level Open Hand monk hits with an unarmed strike it can spend 3 ki points to start
    vibrations in the target; later it can use its action to end them: the target makes a
    Constitution save, dropping to 0 hit points on a failure and taking 10d10 necrotic damage on a
    success."""
    for fails in (True, False):
        m, g = _monk(17), mon("troll", (3, 2))
        b = arena(m, g, first="monk")
        script(b, 15, 1)
        _attack(b, "troll", "Unarmed Strike")
        pick(b, "reaction", "Quivering Palm")
        assert m.resources["ki"] == 14 and m.resources["quivering_palm_on"] == "troll"
        turn(b, "monk")
        hp = g.hp
        script(b, 1 if fails else 20, *([3] * 10))
        pick(b, "feature", "Quivering Palm: end")
        if fails:
            assert g.hp == 0
        else:
            assert g.hp == hp - 30
        assert m.economy.actions == 0


def test_empty_body_spends_4_ki_for_invisibility_and_resistance_but_force():
    """Classes > Monk > Empty Body
    From 18th level the monk can use its action and 4 ki points to become invisible for 1 minute,
    with resistance to all damage but force damage."""
    m = _monk(18)
    b = arena(m, mon("goblin", (6, 6)), first="monk")
    pick(b, "feature", "Empty Body")
    assert "invisible" in m.conditions and m.resources["ki"] == 14 and m.economy.actions == 0
    for dtype, taken in (("fire", 5), ("slashing", 5), ("force", 10)):
        hp = m.hp
        b.damage(m, 10, dtype)
        assert hp - m.hp == taken, dtype


def test_perfect_self_restores_4_ki_when_initiative_is_rolled_with_none_left():
    """Classes > Monk > Perfect Self
    At 20th level, when the monk rolls initiative with no ki points left, it regains 4; with some
    left it regains none."""
    from dungeonbench_gym.dnd.engine import Battle
    from dungeonbench_gym.dnd.grid import BattleMap
    from dnd_helpers import OPEN
    for ki, after in ((0, 4), (2, 2)):
        m = _monk(20)
        m.resources["ki"] = ki
        Battle(BattleMap.from_dict({"layout": OPEN}), [m, mon("goblin", (6, 6))], seed=0)
        assert m.resources["ki"] == after, ki


def test_flurry_of_blows_follows_any_attack_action_even_with_a_dart():
    """Classes > Monk > Flurry of Blows
    Flurry of Blows needs only that the monk took the Attack action this turn, whatever it attacked
    with: after throwing a dart (not a monk weapon, so no Martial Arts bonus strike) the monk may
    still spend 1 ki for two unarmed strikes."""
    m, g = _monk(2), mon("ogre", (3, 2))
    b = arena(m, g, first="monk")
    script(b, 15, 15, 3)   # a dart beside the ogre: disadvantage
    _attack(b, "ogre", "Dart")
    assert not any(label.startswith("Martial Arts") for label in labels(b))
    script(b, 15, 2)
    pick(b, "attack", "Flurry of Blows (bonus")
    target(b, "ogre")
    assert m.resources["ki"] == 1 and g.hp == 59 - (3 + 3) - (2 + 3)


def test_a_magic_weapon_is_a_weapon_for_rage_retaliation_and_deflect_missiles():
    """Classes > Barbarian > Rage
    Rage's damage bonus is for a melee weapon attack using Strength, Retaliation makes a melee
    weapon attack, and Deflect Missiles answers a ranged weapon attack: a magic weapon (a +1
    greataxe, a +1 longbow) is still a weapon for all three. A devil's Hurl Flame (a ranged spell
    attack) is not."""
    from dungeonbench_gym.dnd.items import equip
    c, g = equip(pc("barbarian", 1, (2, 2)), ["greataxe-plus-1"]), mon("ogre", (3, 2))
    b = arena(c, g, first="barbarian")
    _rage(b)
    script(b, 15, 5)   # +1 greataxe 1d12 + Str + 1, and Rage's +2
    _attack(b, "ogre", "Greataxe, +1")
    assert g.hp == g.max_hp - (5 + c.mod("str") + 1 + 2)
    c, g = equip(pc("barbarian", 14, (2, 2)), ["greataxe-plus-1"]), mon("ogre", (3, 2))
    b = arena(c, g, first="ogre")
    script(b, 15, 4, 4)
    pick(b, "attack", "Greatclub")
    target(b, "barbarian")
    assert b.pending["reaction"] == "retaliation"
    assert any("greataxe-plus-1" in label for label in labels(b, "reaction"))
    archer = equip(build_pc("fighter", 1, "archer", (7, 2, 0), side="enemies"), ["longbow-plus-1"])
    m = _monk(3)
    b = arena(m, archer, first="archer")
    script(b, 18)
    _attack(b, "monk", "Longbow, +1")
    assert b.pending.get("reaction") == "deflect_missiles"
    m, d = _monk(3), mon("barbed-devil", (7, 2))
    b = arena(m, d, first="barbed-devil")
    script(b, 18, 3, 3, 3)   # Hurl Flame: 3d6 fire
    _attack(b, "monk", "Hurl Flame")
    assert b.pending.get("reaction") != "deflect_missiles" and m.hp == m.max_hp - 9


def test_reckless_attack_gives_no_advantage_to_a_finesse_attack_made_with_dexterity():
    """Classes > Barbarian > Reckless Attack
    The advantage is on melee weapon attack rolls using Strength: a barbarian whose Dexterity is
    the better score attacks with a rapier (finesse) using Dexterity, so that roll has no
    advantage; the attacks against it still have advantage until its next turn. With Strength the
    better score, the same rapier attack uses Strength and has advantage."""
    from dungeonbench_gym.dnd.state import DamagePart
    c, g = build_pc("barbarian", 2, "barbarian", (2, 2, 0), weapons=("rapier",)), mon("orc", (3, 2))
    c.abilities.update(str=10, dex=18)   # the rapier now uses Dex: +2 prof +4 Dex
    c.attacks = [a._replace(to_hit=6, damage=(DamagePart("1d8+4", "piercing"),)) if a.key == "rapier" else a
                 for a in c.attacks]
    b = arena(c, g, first="barbarian")
    pick(b, "feature", "Reckless Attack")
    script(b, 3)   # one d20 (3): a miss
    _attack(b, "orc", "Rapier")
    d20 = [r for r in b.roller.log if r.get("what", "").startswith("attack barbarian")]
    assert not events(b, "attack")[-1]["hit"] and d20[-1]["advantage"] == "none"
    turn(b, "orc")
    script(b, 2, 19, 5)   # the orc's greataxe with advantage against the reckless barbarian
    b.make_attack(g, g.attack("greataxe"), c)
    assert events(b, "attack")[-1]["hit"] and c.hp == c.max_hp - (5 + 3)
    c2, g2 = build_pc("barbarian", 2, "barbarian", (2, 2, 0), weapons=("rapier",)), mon("orc", (3, 2))
    assert c2.mod("str") > c2.mod("dex")
    b2 = arena(c2, g2, first="barbarian")
    pick(b2, "feature", "Reckless Attack")
    script(b2, 3, 17, 6)   # advantage: 3 and 17, the 17 hits
    _attack(b2, "orc", "Rapier")
    assert events(b2, "attack")[-1]["hit"] and g2.hp == 15 - (6 + c2.mod("str"))
    from dungeonbench_gym.dnd.items import equip
    c3, g3 = equip(pc("barbarian", 2, (2, 2)), ["greataxe-plus-1"]), mon("orc", (3, 2))
    b3 = arena(c3, g3, first="barbarian")
    pick(b3, "feature", "Reckless Attack")
    script(b3, 3, 17, 6)   # a magic greataxe is a melee weapon using Strength: advantage
    _attack(b3, "orc", "Greataxe, +1")
    assert events(b3, "attack")[-1]["hit"] and g3.hp == 15 - (6 + c3.mod("str") + 1)
