"""SRD 5.1 Classes, the skirmishers' features the engine plays (rogue, ranger, paladin): one
scenario each, written from the SRD's text; the dice are scripted and the outcome asserted exactly.
The first docstring line names the feature as docs/dnd-coverage-classes.md does."""

import pytest
from dnd_helpers import WIDE, arena, cast, events, kinds, labels, mon, pick, script, spell_setup, target, turn

from dungeonbench_gym.dnd.builders.pcs import build_pc, long_rest, short_rest
from dungeonbench_gym.dnd.items import equip
from dungeonbench_gym.dnd.state import AttackProfile, DamagePart, ability_mod

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
    with advantage, nor does a ranged spell attack (no weapon) with an ally beside the target; a
    magic finesse weapon (a +1 rapier) does get it."""
    r, o = _pc("rogue", 1, "r", (2, 2), weapons=("club", "shortbow")), mon("ogre", (3, 2), "o")
    o.conditions["prone"] = {}
    b = _b(r, o, first="r")
    _hit(b, "Club", 15, 3, 4, 5)
    assert o.hp == 59 - (4 + _mod(r, "str")) and not events(b, "sneak_attack")
    r, o, f = _pc("rogue", 1, "r", (2, 6)), mon("ogre", (3, 2), "o"), _pc("fighter", 1, "f", (4, 2))
    b = _b(r, o, f, first="r")
    bolt = AttackProfile("fire-bolt", "Fire Bolt", 5, (DamagePart("1d10", "fire"),), False, 0, 120, 120, spell=True)
    script(b, 15, 4, 5)
    b.make_attack(r, bolt, o, melee=False)
    assert o.hp == 59 - 4 and not events(b, "sneak_attack")
    r, o, f = equip(_pc("rogue", 1, "r", (2, 2)), ["rapier-plus-1"]), mon("ogre", (3, 2), "o"), _pc("fighter", 1, "f", (4, 2))
    b = _b(r, o, f, first="r")
    _hit(b, "Rapier, +1", 15, 4, 5)
    assert o.hp == 59 - (4 + 3 + 1 + 5) and events(b, "sneak_attack")


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
    take half the attack's damage (its whole damage, rounded down once); an unseen attacker gives
    no such choice."""
    r, o = _pc("rogue", 5, "r", (2, 2)), mon("ogre", (3, 2), "o")
    b = _b(r, o, first="o")
    _hit(b, "Greatclub", 18, 5, 6)
    pick(b, "reaction", "Uncanny Dodge")
    assert r.hp == r.max_hp - (5 + 6 + 4) // 2 and not r.economy.reaction
    r, p = _pc("rogue", 5, "r", (2, 2)), _pc("paladin", 2, "p", (3, 2), side="enemies")
    b = _b(r, p, first="p")   # a smiting paladin's hit: 1d8+3 slashing and 2d8 radiant, halved as one
    _hit(b, "Longsword", 18)
    pick(b, "reaction", "Uncanny Dodge")
    script(b, 4, 3, 2)
    pick(b, "reaction", "level-1 slot")
    assert r.hp == r.max_hp - (4 + 3 + 3 + 2) // 2
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
    success. A spell (Fireball) or a stat block's effect (a magmin's Death Burst: 2d6 fire, Dex
    DC 11) alike."""
    _evasion_cases("rogue", 7)
    for level, save, want in ((7, 19, 0), (7, 1, 5), (6, 19, 5)):   # Death Burst 6 + 5 = 11
        r, m = _pc("rogue", level, "r", (2, 2)), mon("magmin", (3, 2), "m")
        b = _b(r, m, mon("goblin", (12, 9), "g"), first="r")
        script(b, 6, 5, save)
        b.damage(m, m.hp, "cold")
        assert r.max_hp - r.hp == want, (level, save)


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
    for unseen in ("hidden", "invisible", "dark"):   # an unseen attacker gets no advantage either
        r, o = _pc("rogue", 18, "r", (2, 2)), mon("ogre", (3, 2), "o")
        if unseen != "dark":
            o.conditions[unseen] = {"ends_on_attack": True} if unseen == "invisible" else {}
        b = _b(r, o, first="o")
        if unseen == "dark":
            from dungeonbench_gym.dnd import lighting
            lighting.setup(b, "dark")   # the ogre's darkvision sees the rogue; the rogue sees nothing
            turn(b, "o")
        _hit(b, "Greatclub", 3, 18, 1, 1, 1, 1)
        assert _last_attack(b, "o")["total"] == 3 + 6, unseen


def test_stroke_of_luck_turns_a_miss_into_a_hit_once_per_rest():
    """Classes > Rogue > Stroke of Luck
    A 20th-level rogue whose attack misses a target within range may turn the miss into a hit,
    then not again until it finishes a short or long rest.
    Simplified: the engine spends it on the first miss without asking."""
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


# ==================================================================== Ranger
def _ranger(level, cid="r", at=(2, 2), **kw):
    return _pc("ranger", level, cid, at, **kw)


def test_ranger_archery_style_adds_2_to_ranged_weapon_attack_rolls():
    """Classes > Ranger > Fighting Style: Archery
    The archer adds 2 to its attack rolls with ranged weapons, not with melee weapons."""
    r, o = _ranger(2), mon("ogre", (8, 2), "o")
    b = _b(r, o, first="r")
    _hit(b, "Longbow", 10, 1)
    assert _last_attack(b, "r")["total"] == 10 + _mod(r, "dex") + r.prof + 2
    r, o = _ranger(2), mon("ogre", (3, 2), "o")
    b = _b(r, o, first="r")
    _hit(b, "Shortsword", 10, 1)
    assert _last_attack(b, "r")["total"] == 10 + _mod(r, "dex") + r.prof


def test_ranger_defense_style_adds_1_to_ac_while_wearing_armour():
    """Classes > Ranger > Fighting Style: Defense
    While the ranger wears armour its AC is 1 higher (leather armour 11 + Dex + 1); without armour
    the style adds nothing."""
    dex = _mod(_ranger(2), "dex")
    assert _ranger(2, style="defense").ac == 11 + dex + 1 and _ranger(2).ac == 11 + dex
    assert _ranger(2, style="defense", armor=None).ac == 10 + dex == _ranger(2, armor=None).ac


def test_ranger_dueling_style_adds_2_damage_with_a_one_handed_melee_weapon():
    """Classes > Ranger > Fighting Style: Dueling
    Wielding a melee weapon in one hand and no other weapon, the ranger adds 2 to its damage rolls
    with it (a longsword: 1d8 + Str + 2)."""
    r, o = _ranger(2, style="dueling", weapons=("longsword", "longbow")), mon("ogre", (3, 2), "o")
    b = _b(r, o, first="r")
    _hit(b, "Longsword", 15, 5)
    assert o.hp == 59 - (5 + _mod(r, "str") + 2)


def test_ranger_two_weapon_style_adds_the_modifier_to_the_off_hand_attack():
    """Classes > Ranger > Fighting Style: Two-Weapon Fighting
    When the ranger fights with two weapons, its bonus-action off-hand attack adds the ability
    modifier to the damage (without the style, a positive modifier is not added)."""
    for style, add in (("two_weapon_fighting", True), ("archery", False)):
        r, o = _ranger(2, style=style, weapons=("shortsword", "scimitar")), mon("ogre", (3, 2), "o")
        b = _b(r, o, first="r")
        _hit(b, "Attack with Shortsword", 1)   # a miss
        _hit(b, "Off-hand attack with Scimitar", 15, 3)
        assert o.hp == 59 - (3 + (_mod(r, "dex") if add else 0)), style


def test_ranger_spellcasting_slots_and_save_dc_follow_the_ranger_table():
    """Classes > Ranger > Spellcasting: Ranger
    The ranger casts from 2nd level with the half-caster slots of the Ranger table (2 first-level
    slots at 2nd ... 4/3/3/3/2 at 20th), Wisdom as its ability: save DC 8 + proficiency + Wis,
    attack + proficiency + Wis; casting a spell spends a slot of its level."""
    table = {1: (), 2: (2,), 3: (3,), 5: (4, 2), 9: (4, 3, 2), 13: (4, 3, 3, 1), 17: (4, 3, 3, 3, 1),
             20: (4, 3, 3, 3, 2)}
    for level, want in table.items():
        r = _ranger(level)
        assert tuple(n for n in r.resources.get("slots", ()) if n) == want, level
        if want:
            assert r.resources["spell_dc"] == 8 + r.prof + _mod(r, "wis")
            assert r.resources["spell_attack"] == r.prof + _mod(r, "wis")
    r, f = _ranger(2), _pc("fighter", 2, "f", (3, 2))
    f.hp = 5
    b = _b(r, f, mon("ogre", (12, 8), "o"), first="r")
    script(b, 6)
    pick(b, "spell", "Cure Wounds")
    target(b, "f")
    assert f.hp == 5 + 6 + _mod(r, "wis") and r.resources["slots"][0] == 1


def test_colossus_slayer_adds_1d8_to_a_wounded_target_once_per_turn():
    """Classes > Ranger > Hunter's Prey: Colossus Slayer
    A weapon hit on a creature below its hit point maximum deals an extra 1d8, once per turn: not
    against an unhurt creature, not twice in the ranger's turn, but again on another creature's
    turn (an opportunity attack)."""
    r, o = _ranger(5), mon("ogre", (8, 2), "o")
    b = _b(r, o, first="r")
    dex = _mod(r, "dex")
    _hit(b, "Longbow", 15, 4)   # the ogre is unhurt: no extra die
    assert o.hp == 59 - (4 + dex)
    _hit(b, "Longbow", 15, 4, 6)   # now wounded: + 1d8 (6)
    assert o.hp == 59 - 2 * (4 + dex) - 6
    o.hp = 40
    turn(b, "o")
    script(b, 15, 4, 6)
    b.make_attack(r, r.attack("longbow"), o, melee=False)
    assert o.hp == 40 - (4 + dex) - 6
    turn(b, "r")
    o.hp = 40
    _hit(b, "Longbow", 15, 4, 6)
    _hit(b, "Longbow", 15, 4)   # the second hit of the turn: none
    assert o.hp == 40 - 2 * (4 + dex) - 6


def test_giant_killer_reaction_attack_on_a_large_attacker_that_hits_or_misses():
    """Classes > Ranger > Hunter's Prey: Giant Killer
    When a Large or larger creature within 5 feet hits or misses the ranger with an attack, the
    ranger may use its reaction to attack it at once, if it can see it; a Medium attacker, or an
    invisible one, gives no such chance."""
    for d20 in (2, 18):   # a miss, then a hit
        r, o = _ranger(3, choices=("giant_killer",)), mon("ogre", (3, 2), "o")
        b = _b(r, o, first="o")
        _hit(b, "Greatclub", d20, 3, 3)
        assert any("Giant Killer" in x for x in labels(b, "reaction")), d20
        script(b, 15, 5)
        pick(b, "reaction", "with shortsword")
        assert o.hp == 59 - (5 + _mod(r, "dex")) and not r.economy.reaction
        assert b.decision.actor == "o"   # the ogre's turn goes on
    r, t = _ranger(3, choices=("giant_killer",)), mon("thug", (3, 2), "t")
    b = _b(r, t, first="t")
    pick(b, "multiattack")
    _hit(b, "Mace", 2)
    assert not any("Giant Killer" in x for x in labels(b)) and r.economy.reaction
    r, o = _ranger(3, choices=("giant_killer",)), mon("ogre", (3, 2), "o")
    o.conditions["invisible"] = {}   # a creature the ranger can't see
    b = _b(r, o, first="o")
    _hit(b, "Greatclub", 2, 2)
    assert not any("Giant Killer" in x for x in labels(b)) and r.economy.reaction


def test_horde_breaker_one_more_attack_on_a_creature_beside_the_first_target():
    """Classes > Ranger > Hunter's Prey: Horde Breaker
    Once on each of its turns, after a weapon attack the ranger may make another attack with the
    same weapon against a different creature within 5 feet of the first target (and in range);
    it spends no action, and is not offered twice in a turn."""
    r = _ranger(3, choices=("horde_breaker",))
    o1, o2, o3 = mon("orc", (8, 2), "o1"), mon("orc", (9, 2), "o2"), mon("orc", (12, 8), "o3")
    b = _b(r, o1, o2, o3, first="r")
    _hit(b, "Longbow", 2)   # a miss still opens the second attack
    pick(b, "attack", "Horde Breaker")
    assert [o.data[0] for o in b.decision.options if o.kind == "target"] == ["o2"]
    script(b, 18, 5)
    pick(b, "target", "o2")
    assert o2.hp == o2.max_hp - (5 + _mod(r, "dex"))
    assert not any("Horde Breaker" in x for x in labels(b))


def test_ranger_extra_attack_two_attacks_from_5th_level():
    """Classes > Ranger > Extra Attack
    From 5th level the Attack action makes two attacks; a 4th-level ranger makes one."""
    for level, n in ((4, 1), (5, 2)):
        r, o = _ranger(level), mon("ogre", (8, 2), "o")
        b = _b(r, o, first="r")
        made = 0
        while any(x.kind == "attack" and "Longbow" in x.label for x in b.decision.options) and made < 4:
            _hit(b, "Longbow", 1)
            made += 1
        assert made == n, level


def test_escape_the_horde_opportunity_attacks_on_the_ranger_have_disadvantage():
    """Classes > Ranger > Defensive Tactics: Escape the Horde
    Opportunity attacks against the ranger are made with disadvantage (two d20s, the lower counts):
    the ogre's 15 and 3 give 3 + 6."""
    r, o = _ranger(7, choices=("escape_the_horde",)), mon("ogre", (3, 2), "o")
    b = _b(r, o, first="r")
    pick(b, "move")
    dest = next(i for i, x in enumerate(b.decision.options) if x.kind == "destination" and x.data[0][:2] == (1, 2))
    b.choose(dest)
    script(b, 15, 3, 1, 1)
    while b.decision.kind == "reaction" and b.decision.actor == "o":
        pick(b, "reaction", "")   # the ogre takes its opportunity attack
    e = _last_attack(b, "o")
    assert e["total"] == 3 + 6 and not e["hit"]


def test_multiattack_defense_plus_4_ac_against_the_same_attacker_after_a_hit():
    """Classes > Ranger > Defensive Tactics: Multiattack Defense
    Once a creature hits the ranger, its later attacks on the ranger this turn face +4 AC: the thug's
    second mace attack, a hit by 2 against the plain AC, misses."""
    r, t = _ranger(7), mon("thug", (3, 2), "t")
    b = _b(r, t, first="t")
    need = r.ac - t.attack("mace").to_hit
    pick(b, "multiattack")
    _hit(b, "Mace", 18, 2)
    hp = r.hp
    assert hp < r.max_hp
    _hit(b, "Mace", need + 2, 2)
    assert not _last_attack(b, "t")["hit"] and r.hp == hp


def test_steel_will_advantage_on_saves_against_being_frightened():
    """Classes > Ranger > Defensive Tactics: Steel Will
    The ranger has advantage on saving throws against being frightened (two d20s, the higher
    counts), a spell's fear (Fear, Phantasmal Killer) as any other; not on its other saves."""
    r = _ranger(7, choices=("steel_will",))
    b = _b(r, mon("ogre", (12, 8), "o"))
    dc = 10 + r.saves["wis"] + 1
    script(b, 2, 19)
    assert b.saving_throw(r, "wis", dc, condition="frightened") is True
    script(b, 2, 19)
    assert b.saving_throw(r, "wis", dc, condition="charmed") is False
    for key, level, frightened in (("fear", 7, False), ("fear", 6, True), ("phantasmal-killer", 7, False)):
        r = _ranger(level, at=(9, 5), side="enemies", choices=("steel_will",))
        b, _ = spell_setup(key, r, at=(3, 5))
        script(b, *([2, 19] * 3))   # with advantage the 19 counts; without, the 2
        cast(b, key)
        while b.decision.actor == "caster" and b.decision.kind != "action":
            b.choose(next(i for i, o in enumerate(b.decision.options) if "hits r" in o.label or o.data == ("r",)))
        assert ("frightened" in r.conditions) == frightened, (key, level)


def test_ranger_lands_stride_difficult_terrain_and_magical_plants():
    """Classes > Ranger > Land's Stride
    From 8th level nonmagical difficult terrain costs the ranger no extra movement, and it has
    advantage on saves against magically grown plants that hinder movement (Entangle)."""
    rubble = ["#" * 16] + ["#" + "," * 14 + "#"] * 10 + ["#" * 16]   # difficult terrain everywhere
    for level, squares in ((7, 3), (8, 6)):   # 30 ft of speed: 15 ft of rubble, or all 30
        r = _ranger(level)
        b = _b(r, mon("ogre", (12, 9), "o"), first="r", layout=rubble)
        pick(b, "move")
        far = max(o.data[0][0] for o in b.decision.options if o.kind == "destination" and o.data[0][1] == 2)
        assert far == 2 + squares, level
    for level, held in ((7, True), (8, False)):   # Entangle: a 2 and a 19, the 19 counts with advantage
        d = _pc("druid", 5, "d", (2, 2), side="enemies", spells=("entangle",))
        r = _ranger(level, at=(6, 2))
        b = _b(d, r, first="d")
        pick(b, "spell", "Entangle")
        pick(b, "point_x", "x = 6")
        script(b, 2, 19, 2, 2)
        pick(b, "point_y", "(6, 2)")
        assert ("restrained" in r.conditions) == held, level


def test_volley_one_ranged_attack_against_each_foe_within_10_ft_of_a_point():
    """Classes > Ranger > Multiattack: Volley
    As an action the ranger makes a ranged weapon attack, a separate roll each, against every
    creature within 10 feet of a point in range, spending a piece of ammunition per target; a
    creature farther from the point is not attacked.
    Simplified: the point is a creature's square (the one chosen as the centre), not any point."""
    r = _ranger(11, choices=("volley",))
    o1, o2, o3 = mon("orc", (8, 2), "o1"), mon("orc", (10, 2), "o2"), mon("orc", (12, 8), "o3")
    b = _b(r, o1, o2, o3, first="r")
    ammo = r.resources["ammo_longbow"]
    pick(b, "feature", "Volley")
    script(b, 18, 5, 18, 6)
    pick(b, "target", "centred on o1")
    hit = [e["target"] for e in events(b, "attack") if e["attacker"] == "r"]
    assert hit == ["o1", "o2"] and r.economy.actions == 0 and r.resources["ammo_longbow"] == ammo - 2
    dex = _mod(r, "dex")
    assert o1.max_hp - o1.hp == 5 + dex and o2.max_hp - o2.hp == 6 + dex and o3.hp == o3.max_hp


def test_whirlwind_attack_one_melee_attack_against_each_creature_within_5_ft():
    """Classes > Ranger > Multiattack: Whirlwind Attack
    As an action the ranger makes a melee attack, a separate roll each, against every creature
    within 5 feet of it; one farther away is not attacked."""
    r = _ranger(11)
    o1, o2, o3 = mon("orc", (3, 2), "o1"), mon("orc", (2, 3), "o2"), mon("orc", (12, 8), "o3")
    b = _b(r, o1, o2, o3, first="r")
    script(b, 18, 4, 2)   # o1 hit (4), o2 missed
    pick(b, "feature", "Whirlwind Attack")
    hit = [(e["target"], e["hit"]) for e in events(b, "attack") if e["attacker"] == "r"]
    assert hit == [("o1", True), ("o2", False)] and r.economy.actions == 0
    assert o1.max_hp - o1.hp == 4 + _mod(r, "dex") and o3.hp == o3.max_hp


def test_vanish_hide_as_a_bonus_action():
    """Classes > Ranger > Vanish
    From 14th level the ranger may take the Hide action as a bonus action, keeping its action; a
    13th-level ranger may not."""
    r = _ranger(13)
    b = _b(r, mon("scout", (11, 2), "s"), first="r", layout=WALLED)
    assert "cunning_hide" not in kinds(b)
    r = _ranger(14)
    b = _b(r, mon("scout", (11, 2), "s"), first="r", layout=WALLED)
    script(b, 19)
    pick(b, "cunning_hide", "Vanish")
    assert "hidden" in r.conditions and not r.economy.bonus and r.economy.actions == 1


def test_superior_hunters_defense_evasion():
    """Classes > Ranger > Superior Hunter's Defense: Evasion
    From 15th level (the default choice of our Hunter), against an effect whose Dexterity save
    halves the damage, the ranger takes none on a success and half on a failure; at 14th level a
    success still takes half."""
    _evasion_cases("ranger", 15)


def test_stand_against_the_tide_turns_a_missed_melee_attack_on_another_creature():
    """Classes > Ranger > Superior Hunter's Defense: Stand Against the Tide
    When a hostile creature misses the ranger with a melee attack, the ranger may use its reaction
    to make that creature repeat the same attack against another creature of the ranger's choice."""
    r = _ranger(15, choices=("stand_against_the_tide",))
    o, o2 = mon("ogre", (3, 2), "o"), mon("ogre", (3, 4), "o2")
    b = _b(r, o, o2, first="o")
    _hit(b, "Greatclub", 2)
    assert r.hp == r.max_hp
    script(b, 19, 6, 6)
    pick(b, "reaction", "against o2")
    assert o2.hp == 59 - (6 + 6 + 4) and not r.economy.reaction
    assert [(e["attacker"], e["target"]) for e in events(b, "attack")] == [("o", "r"), ("o", "o2")]


def test_ranger_uncanny_dodge_halves_a_hit():
    """Classes > Ranger > Superior Hunter's Defense: Uncanny Dodge
    When an attacker the ranger can see hits it, the ranger may use its reaction to halve the
    attack's damage against it (rounded down)."""
    r, o = _ranger(15, choices=("uncanny_dodge",)), mon("ogre", (3, 2), "o")
    b = _b(r, o, first="o")
    _hit(b, "Greatclub", 18, 5, 6)
    pick(b, "reaction", "Uncanny Dodge")
    assert r.hp == r.max_hp - (5 + 6 + 4) // 2 and not r.economy.reaction


def test_feral_senses_no_disadvantage_for_not_seeing_the_target():
    """Classes > Ranger > Feral Senses
    From 18th level the ranger's attack on a creature it can't see has no disadvantage for that:
    an invisible ogre 20 or 40 feet away, or any target while the ranger is blinded (a 17th-level
    ranger rolls two d20s and keeps the lower)."""
    for level, case, want in ((17, "invisible", 2), (18, "invisible", 15), (18, "far", 15), (18, "blinded", 15)):
        r, o = _ranger(level), mon("ogre", (10 if case == "far" else 6, 2), "o")
        if case == "blinded":
            r.conditions["blinded"] = {}
        else:
            o.conditions["invisible"] = {}
        b = _b(r, o, first="r")
        _hit(b, "Longbow", 15, 2, 1)
        assert _last_attack(b, "r")["total"] == want + r.attack("longbow").to_hit, (level, case)


def test_foe_slayer_adds_wisdom_once_on_each_of_the_rangers_turns():
    """Classes > Ranger > Foe Slayer
    Once on each of its turns the 20th-level ranger adds its Wisdom modifier to an attack against a
    favored enemy (an orc: humanoid); not on a second hit that turn, not on an attack made in
    another creature's turn, not against a creature that is no favored enemy (an ogre: giant).
    Simplified: the modifier always goes to the damage roll (the SRD lets the ranger choose the
    attack roll instead, before or after rolling)."""
    r, o = _ranger(20), mon("orc", (6, 2), "o")
    r.features = tuple(f for f in r.features if f != "colossus_slayer")   # (its 1d8 aside)
    b = _b(r, o, mon("ogre", (6, 6), "g"), first="r")
    o.hp = o.max_hp = 100
    dex, wis = _mod(r, "dex"), _mod(r, "wis")
    _hit(b, "Longbow", 15, 4)
    assert o.hp == 100 - (4 + dex + wis)
    script(b, 15, 4)
    pick(b, "attack", "Longbow")
    target(b, "o")
    assert o.hp == 100 - (4 + dex + wis) - (4 + dex)
    turn(b, "r")   # a new turn: the ogre is no favored enemy
    g = b.creatures["g"]
    script(b, 15, 4)
    pick(b, "attack", "Longbow")
    target(b, "g")
    assert g.hp == 59 - (4 + dex)
    r2, o2 = _ranger(20), mon("orc", (6, 2), "o")   # its first attack of the battle, on the orc's turn
    r2.features = tuple(f for f in r2.features if f != "colossus_slayer")
    o2.hp = o2.max_hp = 100
    b2 = _b(r2, o2, first="o")
    script(b2, 15, 4)
    b2.make_attack(r2, r2.attack("longbow"), o2, melee=False)
    assert o2.hp == 100 - (4 + dex)


# ==================================================================== Paladin
def _pal(level, cid="p", at=(2, 2), **kw):
    return _pc("paladin", level, cid, at, **kw)


def _no_rider(b):
    if b.decision.kind == "reaction" and b.decision.actor == "p":
        pick(b, "reaction", "No rider")


def test_lay_on_hands_heals_from_a_pool_of_5_per_level_by_touch():
    """Classes > Paladin > Lay on Hands
    The paladin has a pool of 5 hit points per paladin level, refilled by a long rest; as an action
    it touches a creature and restores hit points from the pool, up to what remains (here: what the
    creature is missing). A creature out of reach is not offered; an undead or construct gets
    nothing from it.
    Simplified: the amount is not asked: as much as the creature is missing, or what the pool holds."""
    p, f, far = _pal(3), _pc("fighter", 3, "f", (3, 2)), _pc("fighter", 3, "far", (8, 8))
    z = mon("zombie", (2, 3), "z")
    z.side = "party"   # an undead ally
    z.hp -= 5
    b = _b(p, f, far, z, mon("goblin", (12, 9), "g"), first="p")
    f.hp -= 10
    far.hp -= 10
    assert p.resources["lay_on_hands"] == 15
    pick(b, "feature", "Lay on Hands")
    assert [o.data[0] for o in b.decision.options if o.kind == "target"] == ["f"]
    pick(b, "target", "on f")
    assert f.hp == f.max_hp and p.resources["lay_on_hands"] == 5 and p.economy.actions == 0
    long_rest(p)
    assert p.resources["lay_on_hands"] == 15


def test_divine_smite_slot_dice_cap_undead_bonus_and_critical():
    """Classes > Paladin > Divine Smite
    After hitting with a melee weapon attack the paladin may spend a spell slot for extra radiant
    damage: 2d8 with a 1st-level slot, +1d8 per slot level above 1st, at most 5d8; +1d8 more
    against an undead or a fiend; the dice double on a critical hit. A ranged (thrown) attack
    offers no smite; a magic weapon's melee hit does."""
    p, o = _pal(17), mon("ogre", (3, 2), "o")
    b = _b(p, o, first="p")
    _hit(b, "Longsword", 15)
    offered = [x for x in labels(b, "reaction") if "Divine Smite" in x]
    assert [x.split("(+")[1].split("d8")[0] for x in offered] == ["2", "3", "4", "5", "5"], offered
    script(b, 5, 3, 4, 4)   # longsword 5; (17th level: Improved Divine Smite 1d8 = 3); smite 2d8 = 8
    pick(b, "reaction", "level-1 slot")
    assert o.hp == 59 - (5 + _mod(p, "str")) - 3 - (4 + 4) and p.resources["slots"][0] == 3
    p, s = _pal(5), mon("skeleton", (3, 2), "s")
    s.hp = s.max_hp = 100
    b = _b(p, s, first="p")
    _hit(b, "Longsword", 15)
    script(b, 5, 1, 2, 3, 4)   # longsword 5; smite level 2 vs undead: 4d8
    pick(b, "reaction", "level-2 slot (+4d8")
    assert s.hp == 100 - (5 + _mod(p, "str")) - (1 + 2 + 3 + 4) and p.resources["slots"][1] == 1
    p, o = _pal(2), mon("ogre", (3, 2), "o")
    b = _b(p, o, first="p")
    _hit(b, "Longsword", 20)
    script(b, 5, 5, 1, 1, 1, 1)   # critical: 2d8 longsword, 4d8 smite
    pick(b, "reaction", "level-1 slot (+2d8")
    assert o.hp == 59 - (5 + 5 + _mod(p, "str")) - 4
    p, o = _pal(2), mon("ogre", (6, 2), "o")
    b = _b(p, o, first="p")
    _hit(b, "Javelin (thrown)", 15, 3)
    assert b.decision.kind == "action" and o.hp == 59 - (3 + _mod(p, "str"))
    p, o = equip(_pal(2), ["longsword-plus-1"]), mon("ogre", (3, 2), "o")   # a magic weapon is a weapon
    b = _b(p, o, first="p")
    _hit(b, "Longsword, +1", 15)
    script(b, 5, 4, 4)
    pick(b, "reaction", "level-1 slot (+2d8")
    assert o.hp == 59 - (5 + _mod(p, "str") + 1) - 8


def test_paladin_defense_style_adds_1_to_ac_while_wearing_armour():
    """Classes > Paladin > Fighting Style: Defense
    While the paladin wears armour its AC is 1 higher: chain mail 16 + shield 2 + 1 = 19."""
    assert _pal(2).ac == 19 and _pal(2, style="dueling").ac == 18


def test_paladin_dueling_style_adds_2_damage_with_a_one_handed_weapon():
    """Classes > Paladin > Fighting Style: Dueling
    Wielding a melee weapon in one hand (a longsword beside a shield) and no other weapon, the
    paladin adds 2 to its damage rolls with it."""
    p, o = _pal(2, style="dueling"), mon("ogre", (3, 2), "o")
    b = _b(p, o, first="p")
    _hit(b, "Longsword", 15, 5)
    _no_rider(b)
    assert o.hp == 59 - (5 + _mod(p, "str") + 2)


def test_paladin_great_weapon_fighting_rerolls_1s_and_2s_once():
    """Classes > Paladin > Fighting Style: Great Weapon Fighting
    A damage die of 1 or 2 for a melee weapon wielded in two hands is rolled again and the new roll
    stands, even a lower one (a greatsword: 2d6)."""
    for dice, want in (((1, 6, 5), 5 + 6), ((2, 6, 1), 1 + 6), ((3, 6), 3 + 6)):
        p = _pal(2, style="great_weapon_fighting", weapons=("greatsword",), shield=False)
        o = mon("ogre", (3, 2), "o")
        b = _b(p, o, first="p")
        _hit(b, "Greatsword", 15, *dice)
        _no_rider(b)
        assert o.hp == 59 - (want + _mod(p, "str")), dice


def test_paladin_protection_style_imposes_disadvantage_on_an_attack_on_an_ally():
    """Classes > Paladin > Fighting Style: Protection
    When a creature the paladin sees attacks another creature within 5 feet of the paladin, the
    paladin (wielding a shield) may use its reaction to give the attack disadvantage (19 and 1: the
    1 stands); without a shield it cannot."""
    for shield, protected in ((True, True), (False, False)):
        p = _pal(2, style="protection", shield=shield)
        w, o = _pc("wizard", 1, "w", (3, 3)), mon("ogre", (4, 3), "o")
        b = _b(p, w, o, first="o")
        _hit(b, "Greatclub", 19, 1, 1, 1)
        assert (not _last_attack(b, "o")["hit"]) == protected, shield
        assert p.economy.reaction != protected


def test_paladin_spellcasting_slots_and_dc_follow_the_paladin_table():
    """Classes > Paladin > Spellcasting: Paladin
    The paladin casts from 2nd level with the half-caster slots of the Paladin table, Charisma as
    its ability: save DC 8 + proficiency + Cha; casting a spell spends a slot of its level."""
    table = {1: (), 2: (2,), 3: (3,), 5: (4, 2), 9: (4, 3, 2), 13: (4, 3, 3, 1), 17: (4, 3, 3, 3, 1),
             20: (4, 3, 3, 3, 2)}
    for level, want in table.items():
        p = _pal(level)
        assert tuple(n for n in p.resources.get("slots", ()) if n) == want, level
        if want:
            assert p.resources["spell_dc"] == 8 + p.prof + _mod(p, "cha")
    p, f = _pal(2), _pc("fighter", 2, "f", (3, 2))
    f.hp = 5
    b = _b(p, f, mon("ogre", (12, 8), "o"), first="p")
    script(b, 6)
    pick(b, "spell", "Cure Wounds")
    target(b, "f")
    assert f.hp == 5 + 6 + _mod(p, "cha") and p.resources["slots"][0] == 1


def test_channel_divinity_one_use_back_on_a_short_rest():
    """Classes > Paladin > Channel Divinity
    The paladin channels divinity once (Sacred Weapon or Turn the Unholy), then not again until it
    finishes a short or long rest."""
    p, z = _pal(3), mon("zombie", (4, 2), "z")
    b = _b(p, z, first="p")
    assert p.resources["channel_divinity"] == 1
    pick(b, "feature", "Sacred Weapon")
    turn(b, "p")
    assert not any("Channel Divinity" in x for x in labels(b))
    short_rest(p)
    assert p.resources["channel_divinity"] == 1


def test_divine_health_immune_to_disease():
    """Classes > Paladin > Divine Health
    From 3rd level the paladin is immune to disease."""
    assert "diseased" in _pal(3).condition_immunities and "diseased" not in _pal(2).condition_immunities


def test_oath_spells_always_prepared_at_their_levels():
    """Classes > Paladin > Oath Spells
    The Oath of Devotion's spells are always prepared once the paladin reaches their level:
    protection from evil and good and sanctuary at 3rd, lesser restoration at 5th, beacon of hope
    and dispel magic at 9th, freedom of movement and guardian of faith at 13th, flame strike at 17th
    (zone of truth and commune have no effect on a battle); not before."""
    for level, have, lack in ((2, (), ("sanctuary",)), (3, ("protection-from-evil-and-good", "sanctuary"),
                                                        ("lesser-restoration",)),
                              (5, ("lesser-restoration",), ("dispel-magic", "beacon-of-hope")),
                              (9, ("beacon-of-hope", "dispel-magic"), ("freedom-of-movement", "guardian-of-faith")),
                              (13, ("freedom-of-movement", "guardian-of-faith"), ("flame-strike",)),
                              (17, ("flame-strike",), ())):
        spells = _pal(level).spells
        assert all(k in spells for k in have) and not any(k in spells for k in lack), level


def test_sacred_weapon_adds_charisma_to_attack_rolls_and_makes_the_weapon_magical():
    """Classes > Paladin > Channel Divinity: Sacred Weapon
    As an action the paladin spends its Channel Divinity: for 1 minute its attack rolls with the
    weapon (the one imbued, not a javelin it throws) add its Charisma modifier (at least +1), and a
    nonmagical weapon counts as magical (a gargoyle's resistance to nonmagical slashing no longer
    halves it). It ends if the paladin falls unconscious."""
    p, g = _pal(3), mon("gargoyle", (3, 2), "g")
    b = _b(p, g, first="p")
    pick(b, "feature", "Sacred Weapon")
    assert p.resources["channel_divinity"] == 0 and p.economy.actions == 0
    turn(b, "p")
    _hit(b, "Longsword", 10, 6)
    _no_rider(b)
    assert _last_attack(b, "p")["total"] == 10 + p.attack("longsword").to_hit + max(1, _mod(p, "cha"))
    assert g.hp == 52 - (6 + _mod(p, "str"))
    from dungeonbench_gym.dnd.classes import dispatch
    assert dispatch.attack_bonus(b, p, g, p.attack("javelin-thrown")) == 0   # another weapon: no bonus
    b.damage(p, p.hp, "bludgeoning")
    assert not p.conscious and "sacred_weapon" not in p.conditions


def test_sacred_weapon_and_holy_nimbus_shed_light_in_the_dark():
    """Classes > Paladin > Channel Divinity: Sacred Weapon
    The sacred weapon sheds bright light in a 20-foot radius and dim light 20 feet beyond (Holy
    Nimbus, at 20th level: 30 feet of bright light and 30 of dim): in a dark battle, creatures
    20, 35 and 45 feet off stand in bright light, dim light and darkness."""
    from dungeonbench_gym.dnd import lighting
    for level, feature, cells in ((3, "Sacred Weapon", (4, 7, 9)), (20, "Holy Nimbus", (6, 12, 14))):
        p = _pal(level, at=(1, 2))
        others = [mon("orc", (1 + n, 2), f"o{n}") for n in cells]
        b = _b(p, *others)
        lighting.setup(b, "dark")
        turn(b, "p")
        assert [lighting.level(b, o) for o in others] == [0, 0, 0]
        pick(b, "feature", feature)
        assert [lighting.level(b, o) for o in others] == [2, 1, 0], feature


def test_turn_the_unholy_turns_fiends_and_undead_that_fail_a_wisdom_save():
    """Classes > Paladin > Channel Divinity: Turn the Unholy
    As an action the paladin spends its Channel Divinity: each fiend or undead within 30 feet makes
    a Wisdom save against its spell save DC; one that fails is turned for a minute or until it takes
    damage; meanwhile it takes no reactions and does not attack (it flees, Dashes or Dodges). Other
    creatures, and those farther off, are not affected; nor is one that can neither see nor hear
    the paladin (a blinded, deafened zombie; a deafened imp that cannot see the invisible paladin),
    while one that only hears it (blinded) is."""
    p = _pal(3)
    z, i, g, far = mon("zombie", (4, 2), "z"), mon("imp", (5, 5), "i"), mon("goblin", (3, 3), "g"), \
        mon("zombie", (12, 8), "far")
    b = _b(p, z, i, g, far, first="p")
    script(b, 2, 19)   # the zombie fails, the imp succeeds (in the order of creatures)
    pick(b, "feature", "Turn the Unholy")
    assert "turned" in z.conditions and "turned" not in i.conditions
    assert "turned" not in g.conditions and "turned" not in far.conditions
    assert p.resources["channel_divinity"] == 0 and not z.economy.reaction
    turn(b, "z")   # its turn: no attack, only moving away (Dash) or Dodge
    assert not {"attack", "multiattack"} & set(kinds(b)) and not z.economy.reaction
    b.damage(z, 1, "slashing")
    assert "turned" not in z.conditions
    p = _pal(3)
    z1, z2 = mon("zombie", (4, 2), "z1"), mon("zombie", (2, 4), "z2")
    z1.conditions.update(blinded={}, deafened={})
    z2.conditions["blinded"] = {}
    b = _b(p, z1, z2, first="p")
    script(b, 2)   # only z2 saves (and fails)
    pick(b, "feature", "Turn the Unholy")
    assert "turned" not in z1.conditions and "turned" in z2.conditions and b.roller._int.values == []
    p, i = _pal(3), mon("imp", (4, 2), "i")
    p.conditions["invisible"] = {}
    i.conditions["deafened"] = {}
    b = _b(p, i, first="p")
    assert not any("Turn the Unholy" in label for label in labels(b))


def test_paladin_extra_attack_two_attacks_from_5th_level():
    """Classes > Paladin > Extra Attack
    From 5th level the Attack action makes two attacks; a 4th-level paladin makes one."""
    for level, n in ((4, 1), (5, 2)):
        p, o = _pal(level), mon("ogre", (3, 2), "o")
        b = _b(p, o, first="p")
        made = 0
        while any(x.kind == "attack" and "Longsword" in x.label for x in b.decision.options) and made < 4:
            _hit(b, "Longsword", 1)
            made += 1
        assert made == n, level


def test_aura_of_protection_adds_charisma_to_saves_within_10_ft_while_conscious():
    """Classes > Paladin > Aura of Protection
    From 6th level the paladin and friendly creatures within 10 feet add its Charisma modifier (at
    least +1) to their saving throws, while the paladin is conscious; a creature farther off does
    not."""
    p, near, far = _pal(6), _pc("wizard", 3, "near", (4, 2)), _pc("wizard", 3, "far", (5, 2))
    b = _b(p, near, far, mon("goblin", (12, 9), "g"))
    cha = max(1, _mod(p, "cha"))
    for who, bonus in ((near, cha), (far, 0), (p, cha)):
        need = 10 + who.saves["wis"] + bonus
        script(b, 10)
        assert b.saving_throw(who, "wis", need) is True, who.cid
        script(b, 10)
        assert b.saving_throw(who, "wis", need + 1) is False, who.cid
    p.hp = 0
    p.conditions["unconscious"] = {}
    script(b, 10)
    assert b.saving_throw(near, "wis", 10 + near.saves["wis"] + 1) is False


def test_aura_of_protection_counts_on_death_saves():
    """Classes > Paladin > Aura of Protection
    A death saving throw is a saving throw: a dying ally within 10 feet of the conscious paladin adds
    its Charisma modifier (a rolled 8 + 2 reaches 10, a success); one beyond the aura fails on 8."""
    for at, success in (((4, 2), True), ((5, 2), False)):
        p, w = _pal(6), _pc("wizard", 3, "w", at)
        assert max(1, _mod(p, "cha")) == 2
        b = _b(p, w, mon("goblin", (12, 9), "g"), first="p")
        w.hp = 0
        w.conditions["unconscious"] = {}
        script(b, *([8] * 5))
        turn(b, "w")
        assert (w.death_successes, w.death_failures) == ((1, 0) if success else (0, 1)), at


def _frighten_or_charm(b, t, cond):
    b.save_condition(b.creatures["g"], t, cond, "wis", 30, (10, None, None))
    return cond in t.conditions


def _spell_on_party(key, level, cond):
    """A wizard's spell (its save failed) on a paladin and a wizard beside it: (wizard, paladin) hit."""
    p = _pc("paladin", level, "p", (9, 5), side="enemies")
    w = _pc("wizard", 3, "w", (8, 5), side="enemies")
    b, _ = spell_setup(key, p, w, at=(3, 5))
    script(b, *([1] * 10))
    cast(b, key)
    while b.decision.actor == "caster" and b.decision.kind != "action":
        b.choose(next(i for i, o in enumerate(b.decision.options) if "hits p, w" in o.label or o.data == ("w",)))
    return cond in w.conditions, cond in p.conditions


def test_aura_of_devotion_no_charm_within_10_ft():
    """Classes > Paladin > Aura of Devotion
    From 7th level the paladin and friendly creatures within 10 feet can't be charmed while the
    paladin is conscious, whatever charms them (a monster's ability or a spell: Charm Person); a
    6th-level paladin's ally, or one farther off, can."""
    for level, at, charmed in ((7, (4, 2), False), (7, (5, 2), True), (6, (4, 2), True)):
        p, w = _pal(level), _pc("wizard", 3, "w", at)
        b = _b(p, w, mon("goblin", (12, 9), "g"))
        assert _frighten_or_charm(b, w, "charmed") == charmed, (level, at)
    assert _spell_on_party("charm-person", 7, "charmed") == (False, False)
    assert _spell_on_party("charm-person", 6, "charmed") == (True, False)


def test_aura_of_courage_no_fear_within_10_ft():
    """Classes > Paladin > Aura of Courage
    From 10th level the paladin and friendly creatures within 10 feet can't be frightened while the
    paladin is conscious; not beyond 10 feet, not once the paladin is unconscious."""
    for level, at, down, afraid in ((10, (4, 2), False, False), (10, (5, 2), False, True),
                                    (9, (4, 2), False, True), (10, (4, 2), True, True)):
        p, w = _pal(level), _pc("wizard", 3, "w", at)
        b = _b(p, w, mon("goblin", (12, 9), "g"))
        if down:
            p.hp = 0
            p.conditions["unconscious"] = {}
        assert _frighten_or_charm(b, w, "frightened") == afraid, (level, at, down)
    assert _spell_on_party("fear", 10, "frightened") == (False, False)   # a spell's fear too
    assert _spell_on_party("fear", 9, "frightened") == (True, True)


def test_improved_divine_smite_adds_1d8_radiant_to_every_melee_weapon_hit():
    """Classes > Paladin > Improved Divine Smite
    From 11th level every melee weapon hit deals an extra 1d8 radiant, added to a Divine Smite's
    dice when one is used; a thrown javelin gets none."""
    p, o = _pal(11), mon("ogre", (3, 2), "o")
    b = _b(p, o, first="p")
    o.hp = o.max_hp = 200
    _hit(b, "Longsword", 15)
    script(b, 4, 6)
    pick(b, "reaction", "No rider")
    assert o.hp == 200 - (4 + _mod(p, "str") + 6)
    turn(b, "p")
    _hit(b, "Longsword", 15)
    script(b, 4, 6, 1, 1)
    pick(b, "reaction", "level-1 slot (+2d8")
    assert o.hp == 200 - (4 + _mod(p, "str") + 6) * 2 - 2
    p, o = _pal(11), mon("ogre", (6, 2), "o")
    b = _b(p, o, first="p")
    _hit(b, "Javelin (thrown)", 15, 3)
    assert o.hp == 59 - (3 + _mod(p, "str"))


def test_cleansing_touch_ends_one_spell_per_use():
    """Classes > Paladin > Cleansing Touch
    From 14th level, as an action, the paladin ends one spell on itself or a willing creature it
    touches, a number of times equal to its Charisma modifier (at least once) per long rest: a
    creature under two hostile spells is rid of one of them per use.
    Simplified: which spell ends is not asked: one that incapacitates first (the player's obvious
    pick), then by name."""
    p, f = _pal(14), _pc("fighter", 5, "f", (3, 2))
    f.conditions["paralyzed"] = {"by": "o", "spell": "hold-person", "dc": 15, "repeat": "wis"}
    f.conditions["blinded"] = {"by": "o", "spell": "blindness-deafness", "dc": 15, "repeat": "con"}
    b = _b(p, f, mon("ogre", (12, 8), "o"), first="p")
    n = p.resources["cleansing_touch"]
    assert n == max(1, _mod(p, "cha"))
    pick(b, "feature", "Cleansing Touch")
    pick(b, "target", "hold-person")
    assert "paralyzed" not in f.conditions and "blinded" in f.conditions
    assert p.resources["cleansing_touch"] == n - 1 and p.economy.actions == 0
    long_rest(p)
    assert p.resources["cleansing_touch"] == n


def test_purity_of_spirit_protection_from_evil_and_good_always_on():
    """Classes > Paladin > Purity of Spirit
    From 15th level the paladin is always under protection from evil and good: aberrations,
    celestials, elementals, fey, fiends and undead have disadvantage on attack rolls against it
    (an ogre, a giant, has not)."""
    p, z, o = _pal(15), mon("zombie", (3, 2), "z"), mon("ogre", (2, 3), "o")
    b = _b(p, z, o, first="z")
    _hit(b, "Slam", 18, 3, 1)
    assert _last_attack(b, "z")["total"] == 3 + z.attack("slam").to_hit
    turn(b, "o")
    _hit(b, "Greatclub", 3, 1, 1)
    assert _last_attack(b, "o")["total"] == 3 + o.attack("greatclub").to_hit
    z2, p14 = mon("zombie", (3, 2), "z"), _pal(14)
    b = _b(p14, z2, first="z")
    _hit(b, "Slam", 18, 3, 1)
    assert _last_attack(b, "z")["total"] == 18 + z2.attack("slam").to_hit


def test_aura_improvements_auras_reach_30_ft_at_18th_level():
    """Classes > Paladin > Aura improvements
    At 18th level the paladin's auras (protection, devotion, courage) reach 30 feet instead of 10."""
    for level, at, inside in ((18, (8, 2), True), (18, (9, 2), False), (17, (4, 2), True), (17, (5, 2), False)):
        p, w = _pal(level), _pc("wizard", 3, "w", at)
        b = _b(p, w, mon("goblin", (12, 9), "g"))
        need = 10 + w.saves["wis"] + max(1, _mod(p, "cha"))
        script(b, 10)
        assert b.saving_throw(w, "wis", need) is inside, (level, at)
        assert _frighten_or_charm(b, w, "frightened") is not inside
        assert _frighten_or_charm(b, w, "charmed") is not inside


def test_holy_nimbus_sears_foes_that_start_their_turn_within_30_ft():
    """Classes > Paladin > Holy Nimbus
    At 20th level, as an action once per long rest, the paladin shines for a minute: each enemy
    that starts its turn within 30 feet (the bright light) takes 10 radiant damage; one farther off,
    or an ally, takes none. A long rest gives the use back."""
    p, o, far, f = _pal(20), mon("ogre", (5, 2), "o"), mon("ogre", (12, 8), "far"), _pc("fighter", 5, "f", (3, 3))
    b = _b(p, o, far, f, first="p")
    pick(b, "feature", "Holy Nimbus")
    assert p.resources["holy_nimbus"] == 0 and p.economy.actions == 0
    for cid in ("o", "far", "f"):
        turn(b, cid)
    assert o.hp == 59 - 10 and far.hp == 59 and f.hp == f.max_hp
    p.hp = 0   # the sunlight shines on for its minute, the paladin unconscious or not
    p.conditions["unconscious"] = {}
    turn(b, "o")
    assert o.hp == 59 - 20
    p.hp = 1
    del p.conditions["unconscious"]
    turn(b, "p")
    assert not any("Holy Nimbus" in x for x in labels(b))
    long_rest(p)
    assert p.resources["holy_nimbus"] == 1
