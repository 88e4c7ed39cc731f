"""SRD 5.1 Classes, the skirmishers' features the engine plays (rogue, ranger, paladin): one
scenario each, written from the SRD's text; the dice are scripted and the outcome asserted exactly.
The first docstring line names the feature as docs/dnd-coverage-classes.md does."""

import pytest
from dnd_helpers import WIDE, arena, events, kinds, labels, mon, pick, script, target, turn

from dungeonbench_gym.dnd.builders.pcs import build_pc, long_rest, short_rest
from dungeonbench_gym.dnd.state import ability_mod

# a wall down column 7: a creature west of it is out of sight of one east of it (for Hide)
WALLED = ["#" * 16] + ["#" + "." * 6 + "#" + "." * 7 + "#"] * 10 + ["#" * 16]


def _mod(c, ab):
    return ability_mod(c.abilities[ab])


def _b(*cs, first=None, layout=WIDE):
    return arena(*cs, layout=layout, first=first, max_options=10 ** 6)


def _pc(arch, level, cid, at, **kw):
    return build_pc(arch, level, cid, (*at, 0), **kw)


def _hit(b, text, *dice):
    """The active creature's attack (label containing text) on the one target, dice scripted."""
    script(b, *dice)
    pick(b, "attack", text)
    if b.decision.kind == "target":
        pick(b, "target")


def _last_attack(b, who):
    return [e for e in events(b, "attack") if e["attacker"] == who][-1]


# ==================================================================== Rogue
def test_sneak_attack_with_advantage_adds_its_dice_to_a_finesse_hit():
    """Classes > Rogue > Sneak Attack
    Once per turn the rogue deals extra damage (1d6 at 1st level) to a creature it hits with a
    finesse or ranged weapon when it has advantage on the roll; no ally need be near."""
    r, o = _pc("rogue", 1, "r", (2, 2)), mon("ogre", (3, 2), "o")
    o.conditions["prone"] = {}   # a melee attack on a prone creature has advantage
    b = _b(r, o, first="r")
    _hit(b, "Shortsword", 15, 3, 4, 5)   # advantage 15/3; shortsword 4 + 3; Sneak Attack 5
    assert o.hp == 59 - (4 + 3 + 5) and events(b, "sneak_attack")


def test_sneak_attack_without_advantage_needs_an_ally_beside_the_target():
    """Classes > Rogue > Sneak Attack
    Without advantage the rogue still deals the extra damage when another enemy of the target,
    not incapacitated, is within 5 feet of it (and the rogue has no disadvantage); with no such
    ally, or with that ally incapacitated, there is no extra damage. Melee and ranged alike."""
    for weapon, rogue_at, ally, extra in (("Shortsword", (2, 2), None, 0),
                                          ("Shortsword", (2, 2), "awake", 5),
                                          ("Shortsword", (2, 2), "stunned", 0),
                                          ("Shortbow", (2, 6), "awake", 5)):
        r, o = _pc("rogue", 1, "r", rogue_at), mon("ogre", (3, 2), "o")
        others = []
        if ally:
            f = _pc("fighter", 1, "f", (4, 2))
            if ally == "stunned":
                f.conditions["stunned"] = {}
            others.append(f)
        b = _b(r, o, *others, first="r")
        _hit(b, weapon, 15, 4, 5)
        assert o.hp == 59 - (4 + 3 + extra), (weapon, ally)


def test_sneak_attack_needs_a_finesse_or_ranged_weapon():
    """Classes > Rogue > Sneak Attack
    The attack must use a finesse or a ranged weapon: a club (neither) gets no extra damage even
    with advantage."""
    r, o = _pc("rogue", 1, "r", (2, 2), weapons=("club", "shortbow")), mon("ogre", (3, 2), "o")
    o.conditions["prone"] = {}
    b = _b(r, o, first="r")
    _hit(b, "Club", 15, 3, 4, 5)
    assert o.hp == 59 - (4 + _mod(r, "str")) and not events(b, "sneak_attack")


def test_sneak_attack_is_refused_with_disadvantage_and_allowed_when_it_is_cancelled():
    """Classes > Rogue > Sneak Attack
    With disadvantage on the roll an ally beside the target does not open Sneak Attack. When
    advantage and disadvantage both apply the roll has neither, so the rogue does not have
    disadvantage: an ally beside the target then opens Sneak Attack (and, with no ally, the
    cancelled advantage does not)."""
    for prone, ally, extra in ((False, True, 0), (True, True, 5), (True, False, 0)):
        r, o = _pc("rogue", 1, "r", (2, 2)), mon("ogre", (3, 2), "o")
        r.conditions["poisoned"] = {}   # disadvantage on the rogue's attack rolls
        if prone:
            o.conditions["prone"] = {}   # advantage: the two cancel
        others = [_pc("fighter", 1, "f", (4, 2))] if ally else []
        b = _b(r, o, *others, first="r")
        if prone:
            _hit(b, "Shortsword", 15, 4, 5)   # one d20: neither advantage nor disadvantage
        else:
            _hit(b, "Shortsword", 15, 15, 4, 5)
        assert o.hp == 59 - (4 + 3 + extra), (prone, ally)


def test_sneak_attack_once_a_turn_but_again_on_another_creatures_turn():
    """Classes > Rogue > Sneak Attack
    The extra damage comes once per turn: a second hit on the rogue's own turn (its off-hand
    dagger) adds none, but a hit on another creature's turn (a reaction's attack) may add it
    again."""
    r, o, f = _pc("rogue", 1, "r", (2, 2)), mon("ogre", (3, 2), "o"), _pc("fighter", 1, "f", (4, 2))
    b = _b(r, o, f, first="r")
    _hit(b, "Shortsword", 15, 4, 5)
    assert o.hp == 59 - 12
    _hit(b, "Off-hand", 15, 2)   # the off-hand attack adds no ability modifier, and no Sneak Attack
    assert o.hp == 59 - 12 - 2
    turn(b, "o")
    script(b, 15, 4, 5)
    b.make_attack(r, r.attack("shortsword"), o, melee=True)   # e.g. an opportunity attack
    assert o.hp == 59 - 14 - 12 and len(events(b, "sneak_attack")) == 2


def test_sneak_attack_dice_grow_with_rogue_level():
    """Classes > Rogue > Sneak Attack
    The extra damage grows with the rogue's level: 1d6 at 1st, +1d6 at every odd level, 10d6 at
    19th (the Sneak Attack column of the Rogue table)."""
    for level in range(1, 21):
        assert _pc("rogue", level, "r", (2, 2)).resources["sneak_attack_dice"] == f"{(level + 1) // 2}d6", level
    r, o = _pc("rogue", 3, "r", (2, 2)), mon("ogre", (3, 2), "o")
    o.conditions["prone"] = {}
    b = _b(r, o, first="r")
    _hit(b, "Shortsword", 15, 3, 4, 5, 6)   # 2d6 at 3rd level: 5 + 6
    assert o.hp == 59 - (4 + 3 + 11)


def test_cunning_action_dash_disengage_or_hide_as_a_bonus_action():
    """Classes > Rogue > Cunning Action
    From 2nd level the rogue may Dash, Disengage or Hide as a bonus action on its turn, keeping its
    action; a 1st-level rogue has no such bonus action."""
    assert not {"cunning_dash", "cunning_disengage", "cunning_hide"} & set(
        kinds(_b(_pc("rogue", 1, "r", (2, 2)), mon("ogre", (12, 8), "o"), first="r")))
    r = _pc("rogue", 2, "r", (2, 2))
    b = _b(r, mon("ogre", (12, 8), "o"), first="r")
    pick(b, "cunning_dash")
    assert r.economy.movement == 2 * r.speed and not r.economy.bonus and r.economy.actions == 1
    r = _pc("rogue", 2, "r", (2, 2))
    b = _b(r, mon("ogre", (3, 2), "o"), first="r")
    pick(b, "cunning_disengage")
    assert r.economy.disengaged and not r.economy.bonus and r.economy.actions == 1
    r = _pc("rogue", 2, "r", (2, 2))
    b = _b(r, mon("scout", (11, 2), "s"), first="r", layout=WALLED)
    script(b, 19)
    pick(b, "cunning_hide")
    assert "hidden" in r.conditions and not r.economy.bonus and r.economy.actions == 1


def test_fast_hands_uses_an_object_with_the_cunning_action_bonus_action():
    """Classes > Rogue > Fast Hands
    A 3rd-level thief may Use an Object (drink a potion of healing: 2d4+2) as its Cunning Action
    bonus action, keeping its action; a 2nd-level rogue may not."""
    r2 = _pc("rogue", 2, "r", (2, 2))
    r2.hp = 1
    b = _b(r2, mon("ogre", (12, 8), "o"), first="r")
    assert not any("Fast Hands" in x for x in labels(b))
    r = _pc("rogue", 3, "r", (2, 2))
    r.hp = 1
    b = _b(r, mon("ogre", (12, 8), "o"), first="r")
    script(b, 2, 3)
    pick(b, "feature", "Fast Hands")
    assert r.hp == 1 + 2 + 3 + 2 and not r.economy.bonus and r.economy.actions == 1
    assert r.resources["potions"] == 0


def test_uncanny_dodge_halves_a_hit_from_an_attacker_the_rogue_sees():
    """Classes > Rogue > Uncanny Dodge
    From 5th level, when an attacker the rogue can see hits it, the rogue may use its reaction to
    take half the attack's damage (rounded down); an unseen attacker gives no such choice."""
    r, o = _pc("rogue", 5, "r", (2, 2)), mon("ogre", (3, 2), "o")
    b = _b(r, o, first="o")
    _hit(b, "Greatclub", 18, 5, 6)
    pick(b, "reaction", "Uncanny Dodge")
    assert r.hp == r.max_hp - (5 + 6 + 4) // 2 and not r.economy.reaction
    r, o = _pc("rogue", 5, "r", (2, 2)), mon("ogre", (3, 2), "o")
    o.conditions["invisible"] = {}
    b = _b(r, o, first="o")
    _hit(b, "Greatclub", 18, 18, 5, 6)   # (an unseen attacker has advantage)
    assert not any("Uncanny Dodge" in x for x in labels(b))
    assert r.hp == r.max_hp - (5 + 6 + 4) and r.economy.reaction


def _fireball_on(target, dice):
    w = _pc("wizard", 5, "w", (2, 2), side="enemies")
    b = _b(target, w, first="w")
    pick(b, "spell", "Fireball")
    pick(b, "point_x", f"x = {target.pos[0]}")
    script(b, *dice)
    pick(b, "point_y", f"({target.pos[0]}, {target.pos[1]}) (hits {target.cid}")
    return b


def _evasion_cases(arch, level):
    """(Dex save d20, level, damage taken) under an 8d6 = 47 Fireball, for a creature with Evasion
    from `level`: none on a success, half on a failure; one level lower, half on a success."""
    fire = (6, 6, 6, 6, 6, 6, 6, 5)
    for save, lv, want in ((19, level, 0), (1, level, 47 // 2), (19, level - 1, 47 // 2)):
        t = _pc(arch, lv, "t", (9, 6))
        _fireball_on(t, fire + (save,))
        assert t.max_hp - t.hp == want, (arch, lv, save)


def test_evasion_no_damage_on_a_dex_save_success_half_on_a_failure():
    """Classes > Rogue > Evasion
    From 7th level, against an effect whose Dexterity save halves the damage, the rogue takes none
    on a success and only half (rounded down) on a failure; a 6th-level rogue takes half on a
    success."""
    _evasion_cases("rogue", 7)


def test_evasion_still_halves_when_the_rogue_is_stunned():
    """Classes > Rogue > Evasion
    Evasion asks nothing more than a Dexterity save for half damage: a stunned rogue fails the
    save automatically and still takes only half."""
    t = _pc("rogue", 7, "t", (9, 6))
    t.conditions["stunned"] = {}
    _fireball_on(t, (6, 6, 6, 6, 6, 6, 6, 5))
    assert t.max_hp - t.hp == 47 // 2


def test_supreme_sneak_gives_advantage_on_stealth_after_moving_half_speed_or_less():
    """Classes > Rogue > Supreme Sneak
    From 9th level the thief has advantage on a Dexterity (Stealth) check when it has moved no more
    than half its speed this turn: two d20s, the higher counts; after a longer move (or at 8th
    level) the one d20 counts."""
    for level, moved, hidden in ((9, 0, True), (9, 15, True), (9, 20, False), (8, 0, False)):
        r, s = _pc("rogue", level, "r", (2, 2)), mon("scout", (11, 2), "s")
        b = _b(r, s, first="r", layout=WALLED)
        need = b.passive_perception(s)
        assert 2 + b.stealth(r) < need <= 19 + b.stealth(r)
        r.economy.moved = moved
        script(b, 2, 19)
        pick(b, "cunning_hide")
        assert ("hidden" in r.conditions) == hidden, (level, moved)


def test_reliable_talent_counts_a_low_d20_as_10_on_a_trained_check():
    """Classes > Rogue > Reliable Talent
    From 11th level an ability check that adds the proficiency bonus treats a d20 of 9 or lower as
    a 10 (the rogue's Stealth: it hides on a rolled 1 where the passive Perception is at most
    10 + its bonus)."""
    for level, hidden in ((10, False), (11, True)):
        r, s = _pc("rogue", level, "r", (2, 2)), mon("scout", (11, 2), "s")
        b = _b(r, s, first="r", layout=WALLED)
        need = b.passive_perception(s)
        assert 1 + b.stealth(r) < need <= 10 + b.stealth(r)
        script(b, 1, 1)   # (Supreme Sneak: both d20s)
        pick(b, "cunning_hide")
        assert ("hidden" in r.conditions) == hidden, level


def test_slippery_mind_adds_proficiency_to_wisdom_saves():
    """Classes > Rogue > Slippery Mind
    From 15th level the rogue is proficient in Wisdom saving throws: a Wisdom save adds its
    proficiency bonus (a 14th-level rogue adds only its Wisdom modifier)."""
    for level, prof in ((14, False), (15, True)):
        r = _pc("rogue", level, "r", (2, 2))
        b = _b(r, mon("ogre", (12, 8), "o"))
        total = 10 + _mod(r, "wis") + (r.prof if prof else 0)
        script(b, 10)
        assert b.saving_throw(r, "wis", total) is True
        script(b, 10)
        assert b.saving_throw(r, "wis", total + 1) is False


def test_thiefs_reflexes_second_turn_at_initiative_minus_10():
    """Classes > Rogue > Thief's Reflexes
    In the first round of a combat a 17th-level thief takes a second turn at its initiative minus
    10: after a creature whose count lies between the two, before one below both; from round 2 it
    takes one turn again."""
    r, g, o = _pc("rogue", 17, "r", (2, 2)), mon("goblin", (12, 8), "g"), mon("ogre", (12, 2), "o")
    b = _b(r, g, o)
    r.initiative, g.initiative, o.initiative = 20, 12, 8
    b.order = ["r", "g", "o"]
    turn(b, "r")
    seen = []
    for _ in range(8):
        seen.append((b.round, b.decision.actor))
        if b.round == 2 and b.decision.actor == "o":
            break
        pick(b, None, "End turn")
    assert seen == [(1, "r"), (1, "g"), (1, "r"), (1, "o"), (2, "r"), (2, "g"), (2, "o")], seen


def test_elusive_no_attack_roll_has_advantage_against_the_rogue():
    """Classes > Rogue > Elusive
    From 18th level no attack roll against the rogue has advantage while it is not incapacitated:
    the ogre's attack on it prone rolls one d20; incapacitated, the advantage returns (two d20s)."""
    r, o = _pc("rogue", 18, "r", (2, 2)), mon("ogre", (3, 2), "o")
    r.conditions["prone"] = {}
    b = _b(r, o, first="o")
    _hit(b, "Greatclub", 3, 1, 1)
    assert _last_attack(b, "o")["total"] == 3 + 6
    r, o = _pc("rogue", 18, "r", (2, 2)), mon("ogre", (3, 2), "o")
    r.conditions["prone"] = {}
    r.conditions["incapacitated"] = {}
    b = _b(r, o, first="o")
    _hit(b, "Greatclub", 3, 18, 1, 1)
    assert _last_attack(b, "o")["total"] == 18 + 6


def test_stroke_of_luck_turns_a_miss_into_a_hit_once_per_rest():
    """Classes > Rogue > Stroke of Luck
    A 20th-level rogue whose attack misses a target within range may turn the miss into a hit,
    then not again until it finishes a short or long rest."""
    r, o = _pc("rogue", 20, "r", (2, 2)), mon("ogre", (3, 2), "o")
    b = _b(r, o, first="r")
    _hit(b, "Shortsword", 1, 3)
    assert _last_attack(b, "r")["hit"] and o.hp == 59 - (3 + _mod(r, "dex"))
    assert r.resources["stroke_of_luck"] == 0
    turn(b, "r")
    _hit(b, "Shortsword", 1)
    assert not _last_attack(b, "r")["hit"]
    short_rest(r)
    assert r.resources["stroke_of_luck"] == 1
