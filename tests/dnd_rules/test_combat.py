"""SRD 5.1 Combat, rule by rule: each test's docstring names the section and states the rule;
the dice are scripted and the outcome asserted exactly."""

import pytest
from dnd_helpers import (OPEN, Script, arena, cast, events, fighter, kinds, labels, mon, pc, pick, rogue, script,
                         spell_setup, target, turn)

from dungeonbench_gym.dnd.builders.pcs import build_pc
from dungeonbench_gym.dnd.dice import Roller
from dungeonbench_gym.dnd.engine import Battle
from dungeonbench_gym.dnd.grid import BattleMap
from dungeonbench_gym.dnd.scenario import parse_encounter
from dungeonbench_gym.core.errors import FileFormatError


def _ambush(*fighters, dice=(), **kw):
    """A battle whose pre-battle and initiative dice come from ``dice`` in order, then 10s."""
    roller = Roller(0)
    roller._int = Script(list(dice) + [10] * 200)
    return Battle(BattleMap.from_dict({"layout": OPEN}), list(fighters), roller=roller, **kw)


def _skip_to(b, cid):
    """End turns (choosing "end") until it is cid's turn."""
    for _ in range(20):
        if b.pending.get("actor") == cid:
            return
        pick(b, None, "End turn")
    raise AssertionError(f"never {cid}'s turn")


def test_surprised_creature_takes_no_turn_in_round_one():
    """Combat > The Order of Combat > Surprise
    A surprised creature can't move or take an action (a bonus action included) on its first turn
    of the combat: its first turn passes with nothing to choose."""
    f, g = fighter(5, at=(2, 2)), mon("goblin", (6, 2))
    b = _ambush(f, g, surprised=("goblin",))
    assert [e["creatures"] for e in events(b, "surprise")] == [["goblin"]]
    seen = []
    for _ in range(4):   # round 1 and the start of round 2
        seen.append((b.round, b.pending.get("actor")))
        if b.round == 2 and b.pending.get("actor") == "goblin":
            break
        pick(b, None, "End turn")
    assert (1, "goblin") not in seen and (2, "goblin") in seen
    assert "surprised" not in g.conditions


def test_surprised_creature_has_no_reaction_until_its_first_turn_ends():
    """Combat > The Order of Combat > Surprise
    A surprised creature can't take a reaction until its first turn ends: a foe leaving its reach
    before then provokes no opportunity attack; after that turn it may react again."""
    f, g = fighter(5, at=(3, 2)), mon("orc", (4, 2))
    b = _ambush(f, g, surprised=("orc",))
    turn(b, "fighter")
    assert "surprised" in g.conditions and not g.economy.reaction
    before = len(b.log)
    pick(b, "move")
    # walk away east->west: any destination two squares off leaves the orc's reach
    dest = next(i for i, o in enumerate(b.decision.options) if o.data and o.data[0][:2] == (1, 2))
    b.choose(dest)
    while b.decision.kind in ("route",):
        b.choose(0)
    assert not any(e.get("event") == "reaction" for e in b.log[before:])
    assert "opportunity" not in kinds(b)
    _skip_to(b, "orc")   # the orc's first turn was skipped (surprised): this is round 2
    assert b.round == 2 and g.economy.reaction


def test_a_hiding_side_surprises_those_whose_passive_perception_is_beaten():
    """Combat > The Order of Combat > Surprise
    When one side hides, each of its creatures makes a Dexterity (Stealth) check; a creature of
    the other side whose passive Wisdom (Perception) is lower than every such check notices no
    threat and is surprised. A member of a group can be surprised while the others are not."""
    rogue = build_pc("rogue", 5, "rogue", (2, 2, 0))
    dull, keen = fighter(5, at=(7, 2), cid="dull"), build_pc("cleric", 5, "keen", (7, 4, 0))
    dull.side = keen.side = "enemies"
    need_dull, need_keen = 10 + dull.mod("wis"), 10 + keen.mod("wis")
    assert need_keen > need_dull   # the cleric's Wisdom is the higher
    stealth_bonus = rogue.mod("dex") + rogue.prof
    natural = need_dull - stealth_bonus + 1   # beats the fighter's passive Perception, not the cleric's
    assert 1 <= natural <= 20 and natural + stealth_bonus <= need_keen
    b = _ambush(rogue, dull, keen, dice=(natural,), hiding="party")
    assert "surprised" in dull.conditions and "surprised" not in keen.conditions
    assert events(b, "stealth")[0]["checks"] == {"rogue": natural + stealth_bonus}


def test_a_stealth_check_equal_to_passive_perception_is_noticed():
    """Combat > The Order of Combat > Surprise
    The hider's check is compared with the passive Perception as with any passive check: the
    watcher notices the threat when its passive score meets or beats the Stealth total."""
    rogue = build_pc("rogue", 5, "rogue", (2, 2, 0))
    watcher = fighter(5, at=(7, 2), cid="watcher")
    watcher.side = "enemies"
    need = 10 + watcher.mod("wis")
    natural = need - (rogue.mod("dex") + rogue.prof)
    b = _ambush(rogue, watcher, dice=(natural,), hiding="party")
    assert "surprised" not in watcher.conditions and not events(b, "surprise")


def test_legendary_creature_has_no_legendary_action_while_surprised():
    """Monsters > Legendary Creatures > Legendary Actions
    A legendary creature can't use legendary actions while surprised: not until after its first
    turn in the combat. (Not surprised, it is offered one at the end of the fighter's turn.)"""
    for surprised in ((), ("unicorn",)):
        f = fighter(5, at=(4, 2))
        b = _ambush(f, mon("unicorn", (5, 2)), dice=(20, 1), surprised=surprised)   # the fighter first
        turn(b, "fighter")
        pick(b, None, "End turn")
        assert (b.pending.get("kind") == "legendary") == (not surprised), surprised


def test_thiefs_reflexes_gives_no_second_turn_when_surprised():
    """Classes > Rogue > Thief's Reflexes
    A 17th-level thief takes two turns in the first round of a combat, but not when it is
    surprised."""
    r = build_pc("rogue", 17, "rogue", (2, 2, 0))
    g = mon("goblin", (8, 6))
    b = _ambush(r, g, surprised=("rogue",))
    assert b.order.count("rogue") == 1
    b2 = _ambush(build_pc("rogue", 17, "rogue", (2, 2, 0)), mon("goblin", (8, 6)))
    assert b2.order.count("rogue") == 2


def test_an_encounter_file_declares_surprise_and_bad_ids_are_refused():
    """Combat > The Order of Combat > Surprise
    The GM determines who might be surprised: an encounter names the surprised creatures, or the
    side that hides; a name that is no combatant of the encounter is refused with the fix."""
    base = {"name": "t", "family": "duel", "round_limit": 3, "map": {"layout": OPEN},
            "objective": {"type": "defeat"},
            "party": [{"id": "f", "archetype": "fighter", "level": 3, "at": [2, 2]}],
            "enemies": [{"id": "g", "monster": "goblin", "at": [6, 2]}]}
    s = parse_encounter({**base, "surprise": {"surprised": ["g"]}})
    b = s.build(0)
    assert [e["creatures"] for e in events(b, "surprise")] == [["g"]]
    with pytest.raises(FileFormatError, match="surprise.surprised"):
        parse_encounter({**base, "surprise": {"surprised": ["nobody"]}})
    with pytest.raises(FileFormatError, match="hiding"):
        parse_encounter({**base, "surprise": {"hiding": "monsters"}})


# ==================================================================== Making an Attack
def _attack(b, attacker, target_cid, text=""):
    """From attacker's menu: the attack option (label containing text), then the target."""
    pick(b, "attack", text)
    target(b, target_cid)


def test_an_attack_hits_when_its_total_meets_the_armour_class():
    """Combat > Making an Attack > Attack Rolls
    The d20 plus the attack's modifiers is compared with the target's AC: equal to it or above is a
    hit, one below is a miss. (A PC's longsword and a monster's scimitar alike.)"""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))   # longsword +5 vs AC 15; scimitar +4 vs AC 19
    b = arena(f, g, first="fighter")
    script(b, 10, 1)
    _attack(b, f, "goblin", "Longsword")
    assert events(b, "attack")[-1]["hit"] and g.hp == 7 - 4
    turn(b, "goblin")
    script(b, 14)
    _attack(b, g, "fighter", "Scimitar")
    assert not events(b, "attack")[-1]["hit"] and f.hp == f.max_hp
    script(b, 15, 2)
    b.make_attack(g, g.attack("scimitar"), f)
    assert events(b, "attack")[-1]["hit"] and f.hp == f.max_hp - 4


def test_the_attack_bonus_is_the_ability_modifier_plus_proficiency():
    """Combat > Making an Attack > Attack Rolls
    A character's weapon attack adds the Strength modifier for a melee weapon, Dexterity for a
    ranged one (a finesse weapon may use either), plus the proficiency bonus; a spell attack adds
    the spellcasting ability's modifier and the proficiency bonus."""
    f, r, w = fighter(1), rogue(1), pc("wizard", 1, (4, 4))
    assert f.attack("longsword").to_hit == f.mod("str") + f.prof
    assert r.attack("shortbow").to_hit == r.mod("dex") + r.prof
    assert r.attack("shortsword").to_hit == max(r.mod("str"), r.mod("dex")) + r.prof   # finesse
    assert w.resources["spell_attack"] == w.mod("int") + w.prof


def test_a_natural_20_hits_whatever_the_armour_class_and_is_a_critical_hit():
    """Combat > Making an Attack > Rolling 1 or 20
    A 20 on the attack's d20 hits whatever the modifiers and the AC are, and is a critical hit;
    for a monster's attack as for a character's."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    f.ac = 40
    b = arena(f, g, first="goblin")
    script(b, 20, 3, 4)   # scimitar 1d6+2, critical: 2d6+2
    _attack(b, g, "fighter", "Scimitar")
    e = events(b, "attack")[-1]
    assert e["hit"] and e["critical"] and f.hp == f.max_hp - (3 + 4 + 2)


def test_a_natural_1_misses_whatever_the_bonus():
    """Combat > Making an Attack > Rolling 1 or 20
    A 1 on the attack's d20 misses whatever the modifiers and the AC are."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    g.ac = 0
    b = arena(f, g, first="fighter")
    script(b, 1)
    _attack(b, f, "goblin", "Longsword")
    assert not events(b, "attack")[-1]["hit"] and g.hp == 7


def test_an_attacker_the_target_cannot_see_has_advantage():
    """Combat > Making an Attack > Unseen Attackers and Targets
    Attacking a creature that can't see you gives advantage: an invisible attacker rolls two d20s
    and keeps the higher."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    f.conditions["invisible"] = {}
    b = arena(f, g, first="fighter")
    script(b, 3, 12, 1)
    _attack(b, f, "goblin", "Longsword")
    e = events(b, "attack")[-1]
    assert e["hit"] and e["total"] == 12 + 5


def test_attacking_a_target_you_cannot_see_has_disadvantage():
    """Combat > Making an Attack > Unseen Attackers and Targets
    Attacking a creature you can't see (invisible, or hidden) gives disadvantage: two d20s, the
    lower kept."""
    for how in ("invisible", "hidden"):
        f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
        g.conditions[how] = {"stealth": 20}
        b = arena(f, g, first="fighter")
        script(b, 18, 9)
        _attack(b, f, "goblin", "Longsword")
        e = events(b, "attack")[-1]
        assert not e["hit"] and e["total"] == 9 + 5, how


def test_a_hidden_attacker_gives_its_place_away_when_it_attacks():
    """Combat > Making an Attack > Unseen Attackers and Targets
    A hidden attacker has advantage on its attack, and the attack, hit or miss, reveals where it
    is: the next attack has no such advantage."""
    r, g = rogue(1, at=(2, 2)), mon("goblin", (3, 2))
    r.conditions["hidden"] = {"stealth": 18}
    b = arena(r, g, first="rogue")
    script(b, 2, 1)   # two d20s (advantage), both miss
    _attack(b, r, "goblin", "Shortsword")
    assert "hidden" not in r.conditions
    assert b.attack_modifiers(r, g, True, r.attack("shortsword"))[:2] == (False, False)


def test_a_ranged_attack_beyond_normal_range_has_disadvantage_and_none_beyond_long_range():
    """Combat > Making an Attack > Ranged Attacks > Range
    A weapon with two ranges attacks with disadvantage beyond the normal range and can't attack a
    target beyond the long range."""
    layout = ["#" * 70, "#" + "." * 68 + "#", "#" * 70]
    r, near, far = rogue(1, at=(1, 1)), mon("goblin", (20, 1), "near"), mon("goblin", (66, 1), "far")
    b = arena(r, near, far, layout=layout)
    bow = r.attack("shortbow")   # 80/320 ft
    assert b.distance(r, near) == 95 and b.distance(r, far) == 325
    assert [t.cid for t in b.targets_for_attack(r, bow)] == ["near"]
    script(b, 19, 4)
    b.make_attack(r, bow, near)
    e = events(b, "attack")[-1]
    assert e["total"] == 4 + 5 and not e["hit"]


def test_a_ranged_attack_with_one_range_cannot_reach_beyond_it():
    """Combat > Making an Attack > Ranged Attacks > Range
    A ranged attack with a single range (a spell's) can't target a creature beyond that range, and
    has no long-range disadvantage within it."""
    layout = ["#" * 40, "#" + "." * 38 + "#", "#" * 40]
    w = pc("wizard", 1, (1, 1))
    near, far = mon("goblin", (25, 1), "near"), mon("goblin", (26, 1), "far")   # 120 ft, 125 ft
    b = arena(w, near, far, layout=layout, first="wizard")
    assert b.distance(w, near) == 120 and b.distance(w, far) == 125
    assert "fire-bolt" in w.spells
    assert [t.cid for t in b.spell_targets(w, "fire-bolt")] == ["near"]


def test_a_ranged_attack_next_to_a_hostile_creature_has_disadvantage():
    """Combat > Making an Attack > Ranged Attacks > Ranged Attacks in Close Combat
    A ranged attack (a weapon's or a spell's) has disadvantage while a hostile creature within 5 ft
    of the attacker can see it and isn't incapacitated; an incapacitated neighbour imposes none."""
    r, g, by = rogue(1, at=(2, 2)), mon("goblin", (7, 2)), mon("goblin", (3, 2), "by")
    b = arena(r, g, by)
    assert b.attack_modifiers(r, g, False, r.attack("shortbow"))[1]
    by.conditions["stunned"] = {}
    assert not b.attack_modifiers(r, g, False, r.attack("shortbow"))[1]
    del by.conditions["stunned"]
    w = pc("wizard", 1, (2, 4))
    b2 = arena(w, g, mon("goblin", (3, 4), "by2"), first="wizard")   # a fire bolt at the far goblin
    script(b2, 19, 4)
    cast(b2, "fire-bolt")
    target(b2, "goblin")
    e = events(b2, "attack")[-1]
    assert e["total"] == 4 + w.resources["spell_attack"] and not e["hit"]


def test_a_neighbour_that_cannot_see_the_archer_does_not_hamper_its_shot():
    """Combat > Making an Attack > Ranged Attacks > Ranged Attacks in Close Combat
    Only a hostile creature that can see the attacker imposes the disadvantage: a blinded
    neighbour does not, nor does any neighbour while the archer is invisible to it."""
    r, g, by = rogue(1, at=(2, 2)), mon("goblin", (7, 2)), mon("goblin", (3, 2), "by")
    by.conditions["blinded"] = {}
    b = arena(r, g, by)
    assert "hostile within 5 ft" not in b.attack_modifiers(r, g, False, r.attack("shortbow"))[2]
    del by.conditions["blinded"]
    r.conditions["invisible"] = {}
    assert "hostile within 5 ft" not in b.attack_modifiers(r, g, False, r.attack("shortbow"))[2]


def test_a_melee_attack_reaches_as_far_as_the_attackers_reach():
    """Combat > Making an Attack > Melee Attacks
    A melee attack reaches a target within the attacker's reach: 5 ft for most, farther for the
    attacks whose stat block says so (a hill giant's greatclub, 10 ft)."""
    f = fighter(1, at=(2, 2))
    giant, gob = mon("hill-giant", (4, 2)), mon("goblin", (2, 4))   # 10 ft from the fighter, each
    b = arena(f, giant, gob)
    assert b.distance(giant, f) == 10 and b.distance(gob, f) == 10
    assert [t.cid for t in b.targets_for_attack(giant, giant.attack("greatclub"))] == ["fighter"]
    assert b.targets_for_attack(gob, gob.attack("scimitar")) == []
    assert b.targets_for_attack(f, f.attack("longsword")) == []


def test_an_unarmed_strike_deals_one_plus_the_strength_modifier():
    """Combat > Making an Attack > Melee Attacks
    An unarmed strike hits for bludgeoning damage equal to 1 + the Strength modifier, and a
    character is proficient with it.
    Simplified: only monks carry an unarmed strike (with their Martial Arts die); other builds always hold a better weapon"""
    m = pc("monk", 1, (2, 2))
    a = m.attack("unarmed-strike")
    assert a.damage[0].type == "bludgeoning" and a.to_hit == max(m.mod("str"), m.mod("dex")) + m.prof


# ---- opportunity attacks
def _walk(b, to):
    """Move the active creature to the square ``to``: the cheapest route that provokes, if asked."""
    pick(b, "move")
    pick(b, "destination", f"Move to ({to[0]}, {to[1]})")
    if b.decision.kind == "route":
        b.choose(0)


def test_leaving_a_hostile_creatures_reach_provokes_an_opportunity_attack_before_it_leaves():
    """Combat > Making an Attack > Opportunity Attacks
    A creature that moves out of a hostile creature's reach lets it use its reaction for one melee
    attack against the mover, made just before the mover leaves: the mover is still in reach when
    the attack lands."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    b = arena(f, g, first="goblin")
    _walk(b, (6, 2))
    assert b.decision.kind == "reaction" and b.decision.actor == "fighter"
    assert g.pos[:2] == (3, 2)
    script(b, 15, 4)
    pick(b, "reaction", "Opportunity attack")
    assert events(b, "attack")[-1]["attacker"] == "fighter" and g.hp == 0 and g.dead
    assert not f.economy.reaction


def test_an_opportunity_attack_spends_the_one_reaction_of_the_round():
    """Combat > Making an Attack > Opportunity Attacks
    The opportunity attack uses the reactor's reaction: a second foe leaving its reach in the same
    round provokes nothing."""
    f, g, h = fighter(1, at=(2, 2)), mon("goblin", (3, 2)), mon("goblin", (3, 3), "goblin_2")
    b = arena(f, g, h, first="goblin")
    _walk(b, (6, 2))
    script(b, 2)
    pick(b, "reaction", "Opportunity attack")
    turn_order = b.order
    b.order = ["goblin_2"] + [o for o in turn_order if o != "goblin_2"]
    b.turn_index = -1
    b.next_turn()   # a new turn in the same round: the fighter's reaction is still spent
    _walk(b, (6, 4))
    assert h.pos[:2] == (6, 4) and len(events(b, "reaction")) == 1


def test_a_reach_weapon_provokes_when_the_mover_leaves_its_longer_reach():
    """Combat > Making an Attack > Opportunity Attacks
    Reach decides it: a hill giant (reach 10 ft) gets its attack when a creature leaves the 10 ft
    around it, not when it only steps from 5 ft to 10 ft away."""
    f, giant = fighter(1, at=(4, 2)), mon("hill-giant", (5, 2))
    layout = ["#" * 14] + ["#" + "." * 12 + "#"] * 6 + ["#" * 14]
    b = arena(f, giant, layout=layout, first="fighter")
    _walk(b, (3, 2))   # 5 ft -> 10 ft: still in reach
    assert b.decision.kind == "action" and not events(b, "reaction")
    _walk(b, (1, 2))   # 10 ft -> 20 ft
    assert b.decision.kind == "reaction" and b.decision.actor == "hill-giant"


def test_teleporting_away_provokes_no_opportunity_attack():
    """Combat > Making an Attack > Opportunity Attacks
    Teleportation (Misty Step) takes a creature out of a foe's reach without provoking."""
    w, g = pc("wizard", 3, (2, 2)), mon("goblin", (3, 2))
    b = arena(w, g, first="wizard")
    cast(b, "misty-step")
    dest = next(i for i, o in enumerate(b.decision.options) if o.data and tuple(o.data[0][:2]) == (7, 2))
    b.choose(dest)
    assert w.pos[:2] == (7, 2) and not events(b, "reaction") and b.decision.actor == "wizard"


def test_being_moved_by_a_shove_provokes_no_opportunity_attack():
    """Combat > Making an Attack > Opportunity Attacks
    A creature moved by someone else (shoved away) provokes no opportunity attack when it leaves a
    foe's reach."""
    f, g, r = fighter(1, at=(2, 2)), mon("goblin", (3, 2)), rogue(1, at=(2, 3))
    b = arena(f, g, r, first="fighter")
    pick(b, "shove", "Shove away")
    script(b, 15, 1)
    target(b, "goblin")
    assert g.pos[:2] == (4, 2) and b.distance(r, g) == 10
    assert b.decision.kind == "action" and not events(b, "reaction")


def test_no_opportunity_attack_on_a_mover_the_reactor_cannot_see():
    """Combat > Making an Attack > Opportunity Attacks
    Only a hostile creature the reactor can see provokes: an invisible goblin walks out of the
    fighter's reach freely."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    g.conditions["invisible"] = {}
    b = arena(f, g, first="goblin")
    _walk(b, (6, 2))
    assert g.pos[:2] == (6, 2) and not events(b, "reaction") and b.decision.actor == "goblin"


# ---- two-weapon fighting
def test_the_off_hand_attack_is_a_bonus_action_after_a_light_weapon_attack():
    """Combat > Making an Attack > Two-Weapon Fighting
    After attacking with a light melee weapon in the Attack action, the other light weapon attacks
    as a bonus action, and its damage has no positive ability modifier."""
    r, o = rogue(1, at=(2, 2)), mon("ogre", (3, 2))
    b = arena(r, o, first="rogue")
    assert not any("Off-hand" in x for x in labels(b))
    script(b, 15, 4)
    _attack(b, r, "ogre", "Shortsword")
    script(b, 15, 3)
    _attack(b, r, "ogre", "Off-hand attack with Dagger")
    assert o.hp == 59 - (4 + 3) - 3 and not r.economy.bonus
    assert not any("Off-hand" in x for x in labels(b))   # one bonus action


def test_the_off_hand_attack_keeps_a_negative_ability_modifier():
    """Combat > Making an Attack > Two-Weapon Fighting
    The off-hand attack's damage leaves out the ability modifier only when it is positive: a
    negative one still counts."""
    from dungeonbench_gym.dnd.model.weapons import weapon_profile
    weak = {"str": 6, "dex": 8, "con": 10, "int": 10, "wis": 10, "cha": 10}
    strong = dict(weak, str=16)
    assert weapon_profile("handaxe", weak, 2, True, None, two_weapons=True)[0].offhand[0].dice == "1d6-2"
    assert weapon_profile("handaxe", strong, 2, True, None, two_weapons=True)[0].offhand[0].dice == "1d6"


# ---- grappling and shoving
def test_a_grapple_replaces_one_attack_of_the_attack_action():
    """Combat > Making an Attack > Grappling
    A grapple is a special melee attack: with Extra Attack it takes one of the two attacks, and a
    won Athletics contest leaves the target grappled (speed 0)."""
    f, g = fighter(5, at=(2, 2)), mon("goblin", (3, 2))
    b = arena(f, g, first="fighter")
    pick(b, "shove", "Grapple")
    script(b, 10, 5)   # 10 + 7 vs 5 + 2 (the goblin's Acrobatics +6? its best)
    target(b, "goblin")
    assert events(b, "shove")[-1]["success"] == (17 > 5 + b._escape_bonus(g))
    assert g.conditions["grappled"]["by"] == "fighter"
    assert f.economy.attacks_left == 1 and any("Attack with Longsword" in x for x in labels(b))
    assert b.speed(g) == 0


def test_a_grapple_or_shove_reaches_only_a_target_at_most_one_size_larger():
    """Combat > Making an Attack > Grappling
    The grappled or shoved creature may be at most one size larger than the grappler: a Medium
    fighter can grapple a Large ogre, not a Huge giant."""
    f = fighter(1, at=(4, 2))
    ogre, giant = mon("ogre", (5, 2)), mon("hill-giant", (1, 2))
    layout = ["#" * 10] + ["#" + "." * 8 + "#"] * 6 + ["#" * 10]
    b = arena(f, ogre, giant, layout=layout)
    assert b.distance(f, ogre) == 5 and b.distance(f, giant) == 5
    for mode in ("grapple", "prone", "push"):
        assert "hill-giant" not in [t.cid for t in b._shove_targets(f, mode)], mode
    assert "ogre" in [t.cid for t in b._shove_targets(f, "grapple")]


def test_a_grapple_or_shove_reaches_5_ft_even_with_a_reach_weapon_in_hand():
    """Combat > Making an Attack > Grappling
    The target of a grapple or a shove must be within the grappler's reach. A reach weapon adds 5 ft
    to its wielder's reach only when attacking with that weapon (Weapons > Reach), and a grapple is
    made with a free hand, not the weapon: a fighter holding a 10-ft glaive may attack a goblin 10 ft
    away but not grapple or shove it; at 5 ft it may do both."""
    from dungeonbench_gym.dnd.model.weapons import weapon_profile
    f, g = fighter(1, at=(2, 2)), mon("goblin", (4, 2))
    glaive = weapon_profile("glaive", f.abilities, f.prof, True, None)[0]
    assert glaive.reach == 10
    f.attacks = [glaive]
    b = arena(f, g, first="fighter")
    assert b.distance(f, g) == 10 and any("Attack with Glaive" in x for x in labels(b))
    assert not [o for o in b.decision.options if o.kind == "shove"]
    g.pos = (3, 2, 0)
    turn(b, "fighter")
    assert {o.data[0] for o in b.decision.options if o.kind == "shove"} == {"prone", "push", "grapple"}


def test_a_grapple_contest_tie_changes_nothing():
    """Combat > Making an Attack > Grappling
    The grapple is an Athletics check contested by the target's Athletics or Acrobatics (its
    better): a tie leaves the target free."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    b = arena(f, g, first="fighter")
    mine, theirs = b.athletics(f), b._escape_bonus(g)
    pick(b, "shove", "Grapple")
    script(b, 10, 10 + mine - theirs)
    target(b, "goblin")
    assert "grappled" not in g.conditions and not events(b, "shove")[-1]["success"]


def test_escaping_a_grapple_is_an_action_contested_by_the_grapplers_athletics():
    """Combat > Making an Attack > Grappling > Escaping a Grapple
    The grappled creature uses its action for Athletics or Acrobatics against the grappler's
    Athletics; it must beat it (a tie keeps it held), and the action is spent either way."""
    for mine, held in ((10, True), (11, False)):
        f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
        g.conditions["grappled"] = {"by": "fighter", "dc": None}
        b = arena(f, g, first="goblin")
        need = 10 + b.athletics(f) - b._escape_bonus(g)
        script(b, need + mine - 10, 10)
        pick(b, "escape")
        assert ("grappled" in g.conditions) == held and g.economy.actions == 0


def test_a_monsters_grapple_is_escaped_against_its_escape_dc():
    """Combat > Making an Attack > Grappling > Escaping a Grapple
    A monster's grappling attack sets an escape DC in its stat block: the grappled creature's check
    escapes when it meets the DC."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    f.conditions["grappled"] = {"by": "goblin", "dc": 13}
    b = arena(f, g, first="fighter")
    bonus = b._escape_bonus(f)
    script(b, 13 - bonus - 1)
    pick(b, "escape")
    assert "grappled" in f.conditions
    turn(b, "fighter")
    script(b, 13 - bonus)
    pick(b, "escape")
    assert "grappled" not in f.conditions


def test_a_won_shove_knocks_the_target_prone_or_pushes_it_5_ft():
    """Combat > Making an Attack > Shoving a Creature
    A shove is a special melee attack decided by an Athletics contest: the winner knocks the target
    prone or pushes it 5 ft straight away; a loss changes nothing."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    b = arena(f, g, first="fighter")
    pick(b, "shove", "Shove prone")
    script(b, 1, 20)
    target(b, "goblin")
    assert "prone" not in g.conditions
    turn(b, "fighter")
    pick(b, "shove", "Shove prone")
    script(b, 15, 1)
    target(b, "goblin")
    assert "prone" in g.conditions and g.pos[:2] == (3, 2)
    turn(b, "fighter")
    pick(b, "shove", "Shove away")
    script(b, 15, 1)
    target(b, "goblin")
    assert g.pos[:2] == (4, 2)


# ==================================================================== Cover
def _cover_scene(mid, *, between=None):
    layout = ["#######", "#.....#", f"#..{mid}..#", "#.....#", "#######"]
    r, g = rogue(1, at=(1, 2)), mon("goblin", (4, 2))
    extra = [between] if between else []
    return arena(r, g, *extra, layout=layout), r, g


def test_half_cover_from_a_low_wall_adds_2_to_the_targets_ac():
    """Combat > Cover
    A target behind an obstacle covering at least half of it (a low wall) has +2 AC against the
    attack."""
    b, r, g = _cover_scene("=")
    script(b, 10, 1)
    b.make_attack(r, r.attack("shortbow"), g)
    assert events(b, "attack")[-1]["ac"] == g.ac + 2


def test_three_quarters_cover_adds_5_to_the_targets_ac():
    """Combat > Cover
    A target about three-quarters covered (a thick pillar, an arrow slit) has +5 AC against the
    attack."""
    b, r, g = _cover_scene("O")
    script(b, 10, 1)
    b.make_attack(r, r.attack("shortbow"), g)
    assert events(b, "attack")[-1]["ac"] == g.ac + 5


def test_a_creature_in_the_way_gives_half_cover():
    """Combat > Cover
    A creature between the attacker and the target, friend or foe, is an obstacle giving half
    cover."""
    b, r, g = _cover_scene(".", between=mon("goblin", (3, 2), "shield_goblin"))
    script(b, 10, 1)
    b.make_attack(r, r.attack("shortbow"), g)
    assert events(b, "attack")[-1]["ac"] == g.ac + 2


def test_degrees_of_cover_do_not_add_up():
    """Combat > Cover
    Behind several obstacles only the most protective degree counts: a creature (half) and a low
    wall (half) still make half cover, +2 and not +4."""
    layout = ["########", "#......#", "#..=...#", "#......#", "########"]
    r, g, mid = rogue(1, at=(1, 2)), mon("goblin", (5, 2)), mon("goblin", (4, 2), "mid")
    b = arena(r, g, mid, layout=layout)
    script(b, 10, 1)
    b.make_attack(r, r.attack("shortbow"), g)
    assert events(b, "attack")[-1]["ac"] == g.ac + 2


def test_total_cover_bars_a_direct_attack_or_spell():
    """Combat > Cover
    A target completely concealed (behind a wall) can't be targeted directly, by an attack or by a
    spell."""
    layout = ["#######", "#..#..#", "#..#..#", "#..#..#", "#######"]
    w, g = pc("wizard", 1, (1, 2)), mon("goblin", (5, 2))
    b = arena(w, g, layout=layout, first="wizard")
    assert b.targets_for_attack(w, w.attack("dagger-thrown")) == []
    assert b.spell_targets(w, "fire-bolt") == []


def _dex_cover_scene(mid, *extra, caster_key="fireball", at=(1, 1)):
    """A room with a column of ``mid`` cells (low wall "=", thick pillar "O") at x = 7, rows 4-6;
    an orc (Dex +1, 15 HP) east of it at (8, 5); the spell_probe wizard (save DC 15) holding
    ``caster_key``, on its turn."""
    from dungeonbench_gym.dnd.verification.arena import caster
    layout = ["#" * 16] + ["#" + "." * 14 + "#"] * 3 + ["#......" + mid + "..." + "....#"] * 3 \
        + ["#" + "." * 14 + "#"] * 2 + ["#" * 16]
    c, o = caster(caster_key, 5, "caster", at), mon("orc", (8, 5))
    return arena(c, o, *extra, layout=layout, first="caster"), c, o


def _fireball_at(b, x, y, *dice):
    cast(b, "fireball", 3)
    script(b, *[1] * 8, *dice)   # 8d6 fire (8), then the saves
    pick(b, "point_x", f"x = {x}")
    pick(b, "point_y", f"Point ({x}, {y}")


def test_half_cover_adds_2_to_a_dexterity_save_against_an_area_from_the_far_side():
    """Combat > Cover > Half Cover
    Half cover gives +2 to Dexterity saving throws as well as to AC: an orc behind a low wall
    saves against a Fireball centred on the far side of the wall with 2 added (13 + 1 + 2 = 16
    beats DC 15), taking half the damage."""
    b, _c, o = _dex_cover_scene("=")
    _fireball_at(b, 6, 5, 13)
    save = events(b, "save")[-1]
    assert save["success"] and save["cover"] == 1 and "half cover" in save["text"]
    assert o.hp == 15 - 4


def test_three_quarters_cover_adds_5_to_a_dexterity_save_against_an_area_from_the_far_side():
    """Combat > Cover > Three-Quarters Cover
    Three-quarters cover gives +5 to Dexterity saving throws: an orc behind a thick pillar saves
    against a Fireball centred beyond it with 5 added (10 + 1 + 5 = 16 beats DC 15)."""
    b, _c, o = _dex_cover_scene("O")
    _fireball_at(b, 6, 5, 10)
    assert events(b, "save")[-1]["success"] and o.hp == 15 - 4


def test_no_cover_bonus_against_an_effect_from_the_same_side_of_the_cover():
    """Combat > Cover
    A target has cover only if the effect originates on the opposite side of the cover: a
    Fireball centred east of the orc, the low wall at its back, gives its Dex save nothing
    (13 + 1 = 14 fails DC 15)."""
    b, _c, o = _dex_cover_scene("=")
    _fireball_at(b, 11, 5, 13)
    save = events(b, "save")[-1]
    assert not save["success"] and "cover" not in save
    assert o.hp == 15 - 8


def test_a_creature_between_the_point_of_origin_and_the_target_gives_half_cover_to_its_dex_save():
    """Combat > Cover > Half Cover
    A creature, friend or foe, is an obstacle: a goblin standing between a Fireball's centre and
    the orc gives the orc +2 to its Dex save (the goblin, in the open, saves without a bonus)."""
    b, _c, o = _dex_cover_scene(".", mon("goblin", (7, 5), "shield_goblin"))
    _fireball_at(b, 6, 5, 13, 1)   # the orc's save, then the goblin's
    saves = {e["creature"]: e for e in events(b, "save")}
    assert "cover" not in saves["shield_goblin"] and saves["orc"]["cover"] == 1
    assert saves["orc"]["success"] and o.hp == 15 - 4


def test_cover_adds_nothing_to_a_save_of_another_ability():
    """Combat > Cover > Half Cover
    The cover bonus is to AC and Dexterity saving throws only: behind a low wall, an orc's
    Constitution save against Thunderwave from the far side gets no +2 (10 + 3 = 13 fails DC 15)."""
    b, c, o = _dex_cover_scene("=", caster_key="thunderwave", at=(5, 5))
    cast(b, "thunderwave", 1)
    script(b, 1, 1, 10)   # 2d8 thunder (2), then the orc's Con save
    pick(b, "direction", "Toward E ")
    save = events(b, "save")[-1]
    assert not save["success"] and "cover" not in save and o.hp == 15 - 2


def test_half_cover_counts_for_a_dex_save_against_a_breath_weapon():
    """Combat > Cover > Half Cover
    A monster's breath weapon originates at the monster: a fighter behind a low wall adds 2 to its
    Dexterity save against a red dragon wyrmling's Fire Breath (10 + 1 + 2 = 13 meets DC 13)."""
    layout = ["#" * 12] + ["#" + "." * 10 + "#"] * 3 + ["#.....=....#"] + ["#" + "." * 10 + "#"] * 3 + ["#" * 12]
    d, f = mon("red-dragon-wyrmling", (5, 4), "wyrmling"), fighter(5, at=(7, 4))
    b = arena(d, f, layout=layout, first="wyrmling")
    hp = f.hp
    pick(b, "save_action", "Fire Breath")
    script(b, *[1] * 7, 10)   # 7d6 fire (7), then the fighter's Dex save
    pick(b, "direction", "Toward E ")
    save = events(b, "save")[-1]
    assert save["creature"] == "fighter" and save["success"] and save["cover"] == 1
    assert f.hp == hp - 3


def test_half_cover_counts_for_a_single_target_dex_save_spell():
    """Combat > Cover > Half Cover
    A spell that makes one creature save originates at its caster: an orc behind a low wall adds 2
    to its Dexterity save against Disintegrate (13 + 1 + 2 = 16 beats DC 15) and takes nothing."""
    b, _c, o = _dex_cover_scene("=", caster_key="disintegrate", at=(5, 5))
    cast(b, "disintegrate", 6)
    script(b, 13, *[1] * 10)   # the orc's Dex save, then 10d6 + 40 (no damage on a success)
    target(b, "orc")
    save = events(b, "save")[-1]
    assert save["success"] and save["cover"] == 1 and o.hp == 15


def test_sacred_flame_ignores_cover():
    """Combat > Cover > Half Cover
    A spell may say its target gains no benefit from cover (Sacred Flame): behind a low wall the
    orc's Dexterity save against it gets no +2 (13 + 1 = 14 still fails DC 15)."""
    b, _c, o = _dex_cover_scene("=", caster_key="sacred-flame", at=(5, 5))
    cast(b, "sacred-flame")
    script(b, 13, 1, 1)   # the orc's Dex save, then 2d8 radiant (level 5)
    target(b, "orc")
    save = events(b, "save")[-1]
    assert not save["success"] and "cover" not in save and o.hp == 15 - 2


# ==================================================================== Damage and Healing
def test_hit_points_lost_change_nothing_until_zero():
    """Combat > Damage and Healing > Hit Points
    Damage is subtracted from the current hit points, and a creature keeps all its capabilities
    until it drops to 0: a goblin left with 1 hit point still acts."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    b = arena(f, g, first="fighter")
    script(b, 15, 3)
    _attack(b, f, "goblin", "Longsword")
    assert g.hp == 7 - 6 and g.conscious
    turn(b, "goblin")
    assert b.decision.actor == "goblin" and any("Scimitar" in x for x in labels(b))


def test_a_damage_penalty_never_makes_damage_negative():
    """Combat > Damage and Healing > Damage Rolls
    A penalty can bring a damage roll down to 0, never below: the target loses nothing and gains
    nothing."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    g.hp = 3
    b = arena(f, g)
    feeble = f.attack("longsword")._replace(damage=(f.attack("longsword").damage[0]._replace(dice="1d4-6"),))
    script(b, 15, 2)
    assert b.make_attack(f, feeble, g)
    assert g.hp == 3


def test_an_area_spell_rolls_its_damage_once_for_every_target():
    """Combat > Damage and Healing > Damage Rolls
    A spell that damages several creatures at once rolls its damage a single time: every creature
    in a burning hands cone that fails its save takes the same amount."""
    g1, g2 = mon("ogre", (5, 4), "ogre_1"), mon("ogre", (5, 6), "ogre_2")
    b, c = spell_setup("burning-hands", g1, g2, at=(3, 5), level=1)
    cast(b, "burning-hands")
    script(b, 6, 5, 4, 2, 2)   # 3d6 once (15), then each ogre's Dex save (2 - 1: both fail)
    pick(b, "direction", "Toward E ")
    assert len([e for e in b.log if str(e.get("what", "")).startswith("damage")]) == 1
    assert g1.hp == g2.hp == 59 - 15


def test_a_critical_hit_doubles_every_damage_die_sneak_attack_included_not_the_modifier():
    """Combat > Damage and Healing > Critical Hits
    On a critical hit all the attack's damage dice are rolled twice, extra dice such as Sneak
    Attack's too; the modifier is added once."""
    r, o, f = rogue(1, at=(2, 2)), mon("ogre", (3, 2)), fighter(1, at=(4, 2))
    o.size = "medium"
    b = arena(r, o, f, first="rogue")
    script(b, 20, 1, 2, 3, 4)   # shortsword 2d6 (1, 2) + 3, Sneak Attack 2d6 (3, 4)
    _attack(b, r, "ogre", "Shortsword")
    assert events(b, "attack")[-1]["critical"] and o.hp == 59 - (1 + 2 + 3 + 3 + 4)


def test_a_monsters_critical_hit_doubles_its_dice():
    """Combat > Damage and Healing > Critical Hits
    A monster's critical hit rolls its attack's dice twice too: an ogre's greatclub (2d8 + 4) deals
    4d8 + 4."""
    f, o = fighter(5, at=(2, 2)), mon("ogre", (3, 2))
    f.max_hp = f.hp = 60
    b = arena(f, o, first="ogre")
    script(b, 20, 1, 2, 3, 4)
    _attack(b, o, "fighter", "Greatclub")
    assert f.hp == 60 - (1 + 2 + 3 + 4 + 4)


def test_resistance_halves_and_vulnerability_doubles_damage_of_their_type():
    """Combat > Damage and Healing > Damage Resistance and Vulnerability
    Damage of a type a creature resists is halved (rounded down); of a type it is vulnerable to,
    doubled: a wight halves a plain longsword's slashing, a skeleton takes double from a mace."""
    f, wight = fighter(1, at=(2, 2)), mon("wight", (3, 2))
    b = arena(f, wight, first="fighter")
    script(b, 19, 6)   # 6 + 3 = 9 slashing, halved: 4
    _attack(b, f, "wight", "Longsword")
    assert wight.hp == wight.max_hp - 4
    c, sk = pc("cleric", 1, (2, 2)), mon("skeleton", (3, 2))
    b2 = arena(c, sk, first="cleric")
    script(b2, 19, 3)   # 3 + 2 = 5 bludgeoning, doubled: 10
    _attack(b2, c, "skeleton", "Mace")
    assert sk.hp == 13 - 10


def test_resistance_and_vulnerability_come_after_the_other_modifiers():
    """Combat > Damage and Healing > Damage Resistance and Vulnerability
    Resistance and then vulnerability apply after every other change to the damage: a rogue
    vulnerable to slashing who halves a 7-damage hit with Uncanny Dodge takes (7 // 2) * 2 = 6,
    not 7."""
    r, g = rogue(5, at=(2, 2)), mon("goblin", (3, 2))
    r.vulnerable = (("slashing", False),)
    b = arena(r, g, first="goblin")
    script(b, 19, 5)   # scimitar 5 + 2 = 7
    _attack(b, g, "rogue", "Scimitar")
    pick(b, "reaction", "Uncanny Dodge")
    assert r.hp == r.max_hp - 6


def test_several_resistances_to_one_type_halve_it_once():
    """Combat > Damage and Healing > Damage Resistance and Vulnerability
    Several sources of resistance to the same damage count as one: a petrified creature (resistant
    to all damage) that also resists fire takes half, not a quarter."""
    f, w = fighter(1), mon("white-dragon-wyrmling", (3, 2))
    w.resist = (("fire", False),)
    w.conditions["petrified"] = {}
    b = arena(f, w)
    b.damage(w, 20, "fire")
    assert w.hp == w.max_hp - 10


def test_healing_cannot_raise_hit_points_above_the_maximum():
    """Combat > Damage and Healing > Healing
    Hit points regained are added to the current ones up to the hit point maximum; the excess is
    lost: 2 short of the maximum, a potion's 8 restores 2."""
    f = fighter(1, at=(2, 2))
    f.hp = f.max_hp - 2
    f.resources["potions"] = 1
    b = arena(f, mon("goblin", (7, 6)), first="fighter")
    script(b, 3, 3)
    pick(b, "potion")
    assert f.hp == f.max_hp and events(b, "heal")[-1]["amount"] == 2


def test_the_dead_regain_no_hit_points():
    """Combat > Damage and Healing > Healing
    A creature that has died can't regain hit points from healing."""
    f = fighter(1)
    b = arena(f, mon("goblin", (7, 6)))
    b.damage(f, f.hp + f.max_hp, "slashing")
    assert f.dead and b.heal(f, 10, "cure wounds") == 0 and f.hp == 0


def test_a_monster_dies_when_an_attack_drops_it_to_zero():
    """Combat > Damage and Healing > Monsters and Death
    A monster brought to 0 hit points dies at once, with no death saving throws."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    b = arena(f, g, first="fighter")
    script(b, 15, 8)
    _attack(b, f, "goblin", "Longsword")
    assert g.dead and g.hp == 0 and events(b, "death")[-1]["creature"] == "goblin"


def test_a_character_dropped_to_zero_falls_unconscious():
    """Combat > Damage and Healing > Falling Unconscious
    Damage that brings a character to 0 without killing it leaves it unconscious (and prone), not
    dead: a goblin's scimitar on a fighter with 3 hit points."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    f.hp = 3
    b = arena(f, g, first="goblin")
    script(b, 19, 6)
    _attack(b, g, "fighter", "Scimitar")
    assert f.hp == 0 and not f.dead and not f.conscious and "prone" in f.conditions
    assert f.incapacitated and events(b, "unconscious")


def test_massive_damage_kills_when_the_rest_reaches_the_maximum():
    """Combat > Damage and Healing > Instant Death
    When damage drops a character to 0 and the damage left over equals or exceeds its hit point
    maximum, it dies outright: at 1 HP (maximum 8) a 9-damage hit kills, an 8-damage one does not."""
    for dmg, dead in ((9, True), (8, False)):
        w, o = pc("wizard", 1, (2, 2)), mon("ogre", (3, 2))
        w.hp = 1
        b = arena(w, o, first="ogre")
        script(b, 19, 1, dmg - 5)   # greatclub 2d8 + 4
        _attack(b, o, "wizard", "Greatclub")
        assert w.dead == dead and w.hp == 0, dmg


def _ally():
    """A conscious party member far off, so that one fighter down is not the party's defeat."""
    return rogue(1, at=(1, 6), cid="ally")


def _downed(f, g, b):
    b.damage(f, f.hp, "slashing")
    assert f.hp == 0 and not f.conscious


def test_a_death_save_of_10_or_more_succeeds_and_below_10_fails():
    """Combat > Damage and Healing > Death Saving Throws
    A creature that starts its turn at 0 hit points rolls a d20 with no modifier: 10 or more is a
    success, 9 or less a failure; its turn then passes."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (7, 6))
    b = arena(f, g, _ally())
    _downed(f, g, b)
    script(b, 10)
    turn(b, "fighter")
    assert (f.death_successes, f.death_failures) == (1, 0) and b.decision.actor != "fighter"
    script(b, 9)
    turn(b, "fighter")
    assert (f.death_successes, f.death_failures) == (1, 1)


def test_three_successes_stabilise_and_three_failures_kill():
    """Combat > Damage and Healing > Death Saving Throws
    The third success (not necessarily in a row) makes the creature stable; the third failure
    kills it."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (7, 6))
    b = arena(f, g, _ally())
    _downed(f, g, b)
    for roll in (12, 3, 15, 18):
        script(b, roll)
        turn(b, "fighter")
    assert f.stable and not f.dead and f.hp == 0
    f2, g2 = fighter(1, at=(2, 2)), mon("goblin", (7, 6))
    b2 = arena(f2, g2, _ally())
    _downed(f2, g2, b2)
    for roll in (2, 15, 5, 12, 9):
        script(b2, roll)
        turn(b2, "fighter")
    assert f2.dead


def test_a_stable_creature_makes_no_death_saves():
    """Combat > Damage and Healing > Stabilizing a Creature
    A stable creature stays unconscious at 0 hit points but rolls no more death saves."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (7, 6))
    b = arena(f, g, _ally())
    _downed(f, g, b)
    f.stable = True
    script(b)   # no die may be rolled
    turn(b, "fighter")
    assert f.hp == 0 and not f.conscious and f.stable and b.decision.actor != "fighter"


def test_a_natural_1_is_two_failures_and_a_natural_20_brings_the_creature_back():
    """Combat > Damage and Healing > Death Saving Throws > Rolling 1 or 20
    A 1 on a death save counts as two failures; a 20 restores 1 hit point, so the creature is
    conscious and takes its turn."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (7, 6))
    b = arena(f, g, _ally())
    _downed(f, g, b)
    script(b, 1)
    turn(b, "fighter")
    assert f.death_failures == 2 and not f.dead
    script(b, 20)
    turn(b, "fighter")
    assert f.hp == 1 and f.conscious and b.decision.actor == "fighter" and f.death_failures == 0


def test_becoming_stable_resets_the_death_save_counts():
    """Combat > Damage and Healing > Death Saving Throws
    Both counts go back to zero when the creature becomes stable: stabilised after two failures,
    a later hit costs it one failure, not its life."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (7, 6))
    b = arena(f, g, _ally())
    _downed(f, g, b)
    for roll in (5, 5, 10, 10, 10):
        script(b, roll)
        turn(b, "fighter")
    assert f.stable and (f.death_successes, f.death_failures) == (0, 0)
    b.damage(f, 1, "piercing")
    assert not f.dead and not f.stable and f.death_failures == 1


def test_regaining_hit_points_resets_the_death_save_counts():
    """Combat > Damage and Healing > Death Saving Throws
    Regaining any hit points wakes the creature and resets both counts to zero."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (7, 6))
    b = arena(f, g, _ally())
    _downed(f, g, b)
    for roll in (5, 12):
        script(b, roll)
        turn(b, "fighter")
    b.heal(f, 3, "healing word")
    assert f.conscious and (f.death_successes, f.death_failures) == (0, 0)


def test_damage_at_zero_is_a_failure_and_a_critical_hit_two():
    """Combat > Damage and Healing > Death Saving Throws > Damage at 0 Hit Points
    Any damage taken at 0 hit points is a death save failure; a ranged hit from afar is one, a
    melee hit from 5 ft (a critical hit on an unconscious creature) is two."""
    f, g, archer = fighter(1, at=(2, 2)), mon("goblin", (3, 2)), mon("goblin", (7, 2), "archer")
    f.max_hp = 30
    b = arena(f, g, archer, _ally())
    _downed(f, g, b)
    turn(b, "archer")
    script(b, 19, 1)   # unconscious (advantage) but prone at range (disadvantage): one d20; 1d6+2
    _attack(b, archer, "fighter", "Shortbow")
    assert f.death_failures == 1 and not events(b, "attack")[-1]["critical"]
    turn(b, "goblin")
    script(b, 4, 15, 1, 1)   # a hit from 5 ft is a critical hit: 2d6+2
    _attack(b, g, "fighter", "Scimitar")
    assert f.dead and events(b, "attack")[-1]["critical"]


def test_damage_at_zero_equal_to_the_maximum_kills_outright():
    """Combat > Damage and Healing > Death Saving Throws > Damage at 0 Hit Points
    Damage taken at 0 hit points that equals or exceeds the hit point maximum is instant death."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (7, 6))
    b = arena(f, g, _ally())
    _downed(f, g, b)
    b.damage(f, f.max_hp - 1, "slashing")
    assert not f.dead and f.death_failures == 1
    b.damage(f, f.max_hp, "slashing")
    assert f.dead


def test_a_stable_creature_that_takes_damage_is_dying_again():
    """Combat > Damage and Healing > Stabilizing a Creature
    Damage ends a creature's stability: it takes a failure and rolls death saves again on its next
    turn."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (7, 6))
    b = arena(f, g, _ally())
    _downed(f, g, b)
    f.stable = True
    b.damage(f, 2, "piercing")
    assert not f.stable and f.death_failures == 1
    script(b, 15)
    turn(b, "fighter")
    assert f.death_successes == 1


def test_spare_the_dying_stabilises_and_resets_the_counts():
    """Combat > Damage and Healing > Stabilizing a Creature
    A creature can be stabilised without healing (Spare the Dying): it stays at 0 hit points,
    unconscious, no longer rolls death saves, and its counts are back at zero."""
    f = fighter(1, at=(4, 5))
    b, c = spell_setup("spare-the-dying", mon("goblin", (12, 9)), at=(3, 5), allies=(f,))
    b.damage(f, f.hp, "slashing")
    f.death_failures = 2
    turn(b, "caster")
    cast(b, "spare-the-dying")
    target(b, "fighter")
    assert f.stable and f.hp == 0 and (f.death_successes, f.death_failures) == (0, 0)


def test_temporary_hit_points_are_lost_first():
    """Combat > Damage and Healing > Temporary Hit Points
    Damage comes off temporary hit points first and only the rest off hit points: 5 temporary and
    a 7-damage hit leave 0 temporary and 2 hit points lost."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (3, 2))
    f.temp_hp = 5
    b = arena(f, g, first="goblin")
    script(b, 19, 5)
    _attack(b, g, "fighter", "Scimitar")
    assert f.temp_hp == 0 and f.hp == f.max_hp - 2


def test_temporary_hit_points_may_exceed_the_maximum_and_healing_does_not_restore_them():
    """Combat > Damage and Healing > Temporary Hit Points
    Temporary hit points come on top of full hit points (False Life at full health), and healing
    restores hit points only, never temporary ones."""
    b, c = spell_setup("false-life", mon("goblin", (12, 9)), at=(3, 5))
    assert c.hp == c.max_hp and c.temp_hp == 0
    cast(b, "false-life")
    if b.decision.kind == "target":
        target(b, "caster")
    assert c.temp_hp > 0 and c.hp == c.max_hp
    gained = c.temp_hp
    b.damage(c, 2, "piercing")
    b.heal(c, 10, "cure wounds")
    assert c.temp_hp == gained - 2 and c.hp == c.max_hp


def test_temporary_hit_points_do_not_add_up():
    """Combat > Damage and Healing > Temporary Hit Points
    New temporary hit points replace, not join, those a creature has: with 10 and offered 6, it
    has 10 (or 6), never 16.
    Simplified: the creature always keeps the larger pool (the choice the SRD gives it; the smaller is never better)"""
    b, c = spell_setup("false-life", mon("goblin", (12, 9)), at=(3, 5))
    c.temp_hp = 30
    cast(b, "false-life")
    if b.decision.kind == "target":
        target(b, "caster")
    assert c.temp_hp == 30


def test_temporary_hit_points_at_zero_absorb_damage_but_do_not_wake():
    """Combat > Damage and Healing > Temporary Hit Points
    At 0 hit points, temporary hit points don't restore consciousness or stabilise, but they
    still absorb damage: a hit they absorb entirely costs no death save failure."""
    f, g = fighter(1, at=(2, 2)), mon("goblin", (7, 6))
    b = arena(f, g, _ally())
    _downed(f, g, b)
    f.temp_hp = 5
    assert not f.conscious and not f.stable
    b.damage(f, 4, "piercing")
    assert f.temp_hp == 1 and f.death_failures == 0
    b.damage(f, 3, "piercing")
    assert f.temp_hp == 0 and f.death_failures == 1


# ==================================================================== Underwater Combat
def _underwater(*fighters, layout=OPEN):
    b = arena(*fighters, layout=layout)
    b.underwater = True
    return b


def test_underwater_melee_has_disadvantage_without_a_swim_speed_or_a_thrusting_weapon():
    """Combat > Underwater Combat
    Under water a melee weapon attack has disadvantage unless the attacker has a swimming speed or
    the weapon is a dagger, javelin, shortsword, spear or trident."""
    f, r, sh, g = fighter(1, at=(2, 2)), rogue(1, at=(4, 2)), mon("sahuagin", (3, 3)), mon("goblin", (3, 2))
    b = _underwater(f, r, sh, g)
    assert "underwater melee" in b.attack_modifiers(f, g, True, f.attack("longsword"))[2]
    assert "underwater melee" not in b.attack_modifiers(r, g, True, r.attack("shortsword"))[2]
    assert "underwater melee" not in b.attack_modifiers(sh, f, True, sh.attack("claws"))[2]   # it swims
    assert "underwater melee" in b.attack_modifiers(g, f, True, g.attack("scimitar"))[2]


def test_underwater_ranged_attacks_miss_beyond_normal_range_and_have_disadvantage_within_it():
    """Combat > Underwater Combat
    Under water a ranged weapon attack can't hit beyond the weapon's normal range, and within it has
    disadvantage unless the weapon is a crossbow, a net, or thrown like a javelin."""
    layout = ["#" * 30, "#" + "." * 28 + "#", "#" + "." * 28 + "#", "#" * 30]
    r, f = rogue(1, at=(1, 1)), fighter(1, at=(1, 2))
    near, far = mon("goblin", (5, 1), "near"), mon("goblin", (22, 1), "far")   # 20 ft; 105 ft
    b = _underwater(r, f, near, far, layout=layout)
    assert [t.cid for t in b.targets_for_attack(r, r.attack("shortbow"))] == ["near"]
    assert "underwater ranged" in b.attack_modifiers(r, near, False, r.attack("shortbow"))[2]
    assert "underwater ranged" not in b.attack_modifiers(f, near, False, f.attack("javelin-thrown"))[2]


def test_creatures_under_water_resist_fire():
    """Combat > Underwater Combat
    Creatures fully immersed in water resist fire damage: a fire bolt's 9 deals 4."""
    w, o = pc("wizard", 1, (2, 2)), mon("ogre", (6, 2))
    b = _underwater(w, o)
    turn(b, "wizard")
    script(b, 15, 9)
    cast(b, "fire-bolt")
    target(b, "ogre")
    assert o.hp == 59 - 4


def test_a_monster_makes_the_opportunity_attack_on_a_character_leaving_its_reach():
    """Combat > Making an Attack > Opportunity Attacks
    The same rule from the other side: a fighter walking out of an orc's reach gives the orc its
    reaction attack, rolled before the fighter leaves."""
    f, o = fighter(1, at=(2, 2)), mon("orc", (3, 2))
    b = arena(f, o, first="fighter")
    _walk(b, (1, 5))
    assert b.decision.kind == "reaction" and b.decision.actor == "orc" and f.pos[:2] == (2, 2)
    script(b, 19, 6)   # greataxe 1d12 + 3
    pick(b, "reaction", "Opportunity attack")
    assert f.hp == f.max_hp - 9 and not o.economy.reaction and f.pos[:2] == (1, 5)


def test_healing_a_character_at_zero_ends_its_unconsciousness():
    """Combat > Damage and Healing > Falling Unconscious
    The unconsciousness of a character at 0 hit points ends as soon as it regains any hit points:
    healed by a spell, it is conscious again and takes its turn."""
    f = fighter(1, at=(4, 5))
    b, c = spell_setup("healing-word", mon("goblin", (12, 9)), at=(3, 5), allies=(f,))
    b.damage(f, f.hp, "slashing")
    turn(b, "caster")
    script(b, 3)
    cast(b, "healing-word")
    target(b, "fighter")
    assert f.conscious and f.hp == 3 + c.mod("int") and not f.incapacitated
    turn(b, "fighter")
    assert b.decision.actor == "fighter" and "stand" in kinds(b)   # still prone: it may stand up


def test_first_aid_stabilizes_a_dying_creature_on_a_dc_10_medicine_check():
    """Combat > Damage and Healing > Dropping to 0 Hit Points > Stabilizing a Creature
    A creature can spend its action on first aid for a dying creature within reach: a Wisdom
    (Medicine) check against DC 10; on a success the dying creature becomes stable (it makes no more
    death saves), on a failure nothing changes. A creature that is not dying is offered none."""
    for stable in (True, False):
        medic = fighter(5, at=(2, 2), cid="medic")
        down = fighter(5, at=(3, 2), cid="down")
        b = _ambush(medic, down, mon("goblin", (8, 6)))
        turn(b, "medic")
        assert "first_aid" not in kinds(b)   # nobody is dying yet
        down.hp, down.death_failures = 0, 1
        b.forget_options()
        bonus = b.medicine(medic)
        script(b, max(1, 10 - bonus) if stable else 2)   # a total of at least 10; or 2 + Wis, short of it
        pick(b, "first_aid", "Stabilize down")
        assert down.stable == stable and medic.economy.actions == 0
        assert down.death_failures == (0 if stable else 1)
        assert events(b, "first_aid")[-1]["success"] == stable
