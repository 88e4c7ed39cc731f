"""Probes for the coverage table: each executable SRD class feature shown working in a small battle.

A probe builds PCs from :mod:`..builders.pcs`, plays the feature through the engine's real options
(``Battle.decision`` / ``Battle.choose``) with fixed dice, and raises ``AssertionError`` when the
option is missing or has no visible effect. :data:`PROBES` maps a feature key (the SRD index) to
its probe; :func:`probe` runs one, and :func:`coverage` makes the classes table from them.
"""

from __future__ import annotations

import functools

from .. import content, heuristic
from ..builders.pcs import arcane_recovery, build_pc, natural_recovery, short_rest
from ..content import load_json
from ..engine import Battle
from ..classes.barbarian import end_rage
from ..classes.paladin import save_bonus
from .feature_harness import (
    again as _again,
    attack as _attack,
    battle as _battle,
    has as _has,
    mod as _mod,
    mon as _mon,
    pc as _pc,
    pick as _pick,
    script_dice as _dice,
)


# ------------------------------------------------------------------ generic probes
def _asi(cls: str, level: int):
    def run():
        before, after = _pc(cls, level - 1), _pc(cls, level)
        gain = sum(after.abilities.values()) - sum(before.abilities.values())
        assert gain == 2, (cls, level, gain)   # +2 spread over abilities below 20
        b = _battle(after, _mon("ogre", (3, 2)), first="p")
        assert b.decision.actor == "p"
    return run


def _extra_attack(arch: str, level: int, n: int):
    def run():
        c = _pc(arch, level)
        b = _battle(c, _mon("ogre", (3, 2)), first="p")
        weapon = next(a for a in c.attacks if a.melee)
        _attack(b, f"Attack with {weapon.name}", 2, rest=1)
        assert c.economy.attacks_left == n - 1, (arch, level, c.economy.attacks_left)
    return run


def _spellcasting(arch: str, level: int, text: str):
    def run():
        c = _pc(arch, level)
        b = _battle(c, _mon("ogre", (4, 2)), first="p")
        c.hp -= 1   # a wounded caster can heal itself
        b.forget_options()
        _dice(b, 15)
        _pick(b, "spell", text)
        if b.decision.actor == "p" and b.decision.kind == "target":
            _pick(b, "target")
        assert any(e.get("event") == "cast" and e.get("creature") == "p" for e in b.log), arch
    return run


def _uses(arch: str, level: int, key: str, n):
    def run():
        c = _pc(arch, level)
        assert c.resources.get(key) == n, (key, c.resources.get(key), n)
    return run


def _smite_probe(level=2, arch="paladin", text="level-1 slot (+2d8"):
    def run():
        c, o = _pc(arch, level), _mon("ogre", (3, 2))
        b = _battle(c, o, first="p")
        _attack(b, "Longsword", 18)
        slots = c.resources["slots"][0]
        _dice(b, 4, 4, 4, 4)
        _pick(b, "reaction", text)
        assert c.resources["slots"][0] == slots - 1 and o.hp <= o.max_hp - (4 + 8)
    return run


def _rage_on(b: Battle) -> None:
    _pick(b, "feature", "Rage (bonus action")


# ------------------------------------------------------------------ feature probes
def _p_rage():
    c, o = _pc("barbarian", 1), _mon("ogre", (3, 2))
    b = _battle(c, o, first="p")
    _rage_on(b)
    _attack(b, "Greataxe", 15, 6)
    assert o.hp == 59 - (6 + _mod(c, "str") + 2) and b.modified_damage(c, 10, "piercing") == 5


def _p_unarmored(arch):
    def run():
        c = _pc(arch, 1)
        other = "con" if arch == "barbarian" else "wis"
        assert c.ac == 10 + _mod(c, "dex") + _mod(c, other)
        o = _mon("ogre", (3, 2))
        b = _battle(c, o, first="m")
        _attack(b, "Greatclub", c.ac - 6 - 1)   # one short of the AC: a miss
        assert c.hp == c.max_hp
    return run


def _p_reckless():
    c, o = _pc("barbarian", 2), _mon("ogre", (3, 2))
    b = _battle(c, o, first="p")
    _pick(b, "feature", "Reckless Attack")
    _attack(b, "Greataxe", 1, 16, 5)
    assert o.hp < 59 and b.attack_modifiers(o, c, True)[0]


def _p_danger_sense():
    c = _pc("barbarian", 2)
    b = _battle(c, _mon("ogre", (8, 2)))
    _dice(b, 1, 15)
    assert b.saving_throw(c, "dex", 15)


def _p_frenzy():
    c, o = _pc("barbarian", 3), _mon("ogre", (3, 2))
    b = _battle(c, o, first="p")
    _pick(b, "feature", "Rage with Frenzy")
    _attack(b, "Greataxe", 1)
    c.conditions["frenzied"]["round"] = b.round - 1   # as on a later turn of the rage
    c.economy.bonus = True
    b.forget_options()
    _attack(b, "Frenzy: attack with Greataxe", 15, 5)
    assert not c.economy.bonus and o.hp < 59
    end_rage(b, c, "probe")
    assert c.exhaustion == 1


def _p_fast_movement():
    assert _pc("barbarian", 5).speed == 40 and _pc("barbarian", 4).speed == 30
    b = _battle(_pc("barbarian", 5), _mon("ogre", (12, 8)), first="p")
    assert b.creatures["p"].economy.movement == 40


def _p_mindless_rage():
    c = _pc("barbarian", 6)
    b = _battle(c, _mon("ogre", (3, 2)), first="p")
    _rage_on(b)
    b.save_condition(b.creatures["m"], c, "frightened", "wis", 20, (10, None, None))
    assert "frightened" not in c.conditions


def _p_feral_instinct():
    c = _pc("barbarian", 7)
    b = _battle(c, _mon("ogre", (8, 2)))
    roll = next(e for e in b.log if e.get("what") == "initiative p")
    assert len(roll["rolls"]) == 2, roll


def _p_brutal(level, n):
    def run():
        c, o = _pc("barbarian", level), _mon("ogre", (3, 2))
        b = _battle(c, o, first="p")
        _attack(b, "Greataxe", 20, 1, 1, *([1] * n))
        assert o.hp == 59 - (2 + _mod(c, "str") + n), (o.hp, n)
    return run


def _p_relentless():
    c = _pc("barbarian", 11)
    b = _battle(c, _mon("ogre", (3, 2)), first="p")
    _rage_on(b)
    _dice(b, 15)
    b.damage(c, c.hp + 5, "fire")
    assert c.hp == 1


def _p_persistent():
    c = _pc("barbarian", 15)
    b = _battle(c, _mon("ogre", (8, 2)), first="p")
    _rage_on(b)
    _pick(b, "end_turn")
    assert "raging" in c.conditions


def _p_primal_champion():
    c, c19 = _pc("barbarian", 20), _pc("barbarian", 19)
    assert c.abilities["str"] == c19.abilities["str"] + 4 and c.abilities["str"] == 24


def _p_inspire(level, die):
    def run():
        bard, f, o = _pc("bard", level, "bard"), _pc("fighter", 1, "f", (3, 3)), _mon("ogre", (4, 3))
        b = _battle(bard, f, o, first="bard")
        _pick(b, "feature", "Bardic Inspiration")
        _pick(b, "target", f"Inspire f ({die})")
        assert f.conditions["inspired"]["die"] == die
    return run


def _p_font():
    c = _pc("bard", 5)
    c.resources["bardic_inspiration"] = 0
    short_rest(c)
    assert c.resources["bardic_inspiration"] > 0


def _p_superior_inspiration():
    c = _pc("bard", 20, "bard")
    c.resources["bardic_inspiration"] = 0
    _battle(c, _mon("ogre", (8, 2)))
    assert c.resources["bardic_inspiration"] == 1


def _p_channel_rest(level, n):
    def run():
        c = _pc("cleric", level)
        assert c.resources["channel_divinity"] == n
        c.resources["channel_divinity"] = 0
        short_rest(c)
        assert c.resources["channel_divinity"] == n
    return run


def _p_turn_undead():
    c, s = _pc("cleric", 2), _mon("zombie", (5, 2))
    b = _battle(c, s, first="p")
    _dice(b, 1)
    _pick(b, "turn_undead")
    assert "turned" in s.conditions


def _p_destroy(level, cr):
    def run():
        c = _pc("cleric", level)
        assert c.resources["destroy_undead_cr"] == cr
        s = _mon("skeleton", (5, 2))
        b = _battle(c, s, first="p")
        _dice(b, 1)
        _pick(b, "turn_undead")
        assert s.dead
    return run


def _p_cunning():
    c = _pc("rogue", 2)
    b = _battle(c, _mon("ogre", (8, 2)), first="p")
    _pick(b, "cunning_disengage")
    assert c.economy.disengaged and not c.economy.bonus


def _p_sneak():
    c, f, o = _pc("rogue", 1), _pc("fighter", 1, "f", (3, 4)), _mon("ogre", (3, 2))
    b = _battle(c, f, o, first="p")
    _attack(b, "Shortsword", 15, 3, 4)
    assert o.hp == 59 - (3 + _mod(c, "dex") + 4)


def _p_uncanny():
    c, o = _pc("rogue", 5), _mon("ogre", (3, 2))
    b = _battle(c, o, first="m")
    _attack(b, "Greatclub", 18, 5, 5)
    _pick(b, "reaction", "Uncanny Dodge")
    assert c.hp == c.max_hp - (5 + 5 + 4) // 2


def _p_evasion(arch, level):
    def run():
        c = _pc(arch, level, "p", (9, 6))
        w = _pc("wizard", 5, "w", (2, 2), side="enemies")
        b = _battle(c, w, first="w")
        _pick(b, "spell", "Fireball")
        _pick(b, "point_x", "x = 9")
        _dice(b, 6, 6, 6, 6, 6, 6, 6, 6, 19)
        _pick(b, "point_y", "(9, 6) (hits p")
        assert c.hp == c.max_hp
    return run


def _p_slippery_mind():
    c, c14 = _pc("rogue", 15), _pc("rogue", 14)
    assert c.saves["wis"] == c14.saves["wis"] + c.prof + (_mod(c, "wis") - _mod(c14, "wis"))


def _p_elusive():
    c, o = _pc("rogue", 18), _mon("ogre", (3, 2))
    b = _battle(c, o)
    c.conditions["prone"] = {}
    assert not b.attack_modifiers(o, c, True)[0]


def _p_stroke_of_luck():
    c, o = _pc("rogue", 20), _mon("ogre", (3, 2))
    b = _battle(c, o, first="p")
    _attack(b, "Shortsword", 1, rest=1)
    assert o.hp < 59 and c.resources["stroke_of_luck"] == 0


def _p_second_wind():
    c = _pc("fighter", 1)
    b = _battle(c, _mon("ogre", (8, 2)), first="p")
    c.hp = 1
    b.forget_options()
    _dice(b, 5)
    _pick(b, "second_wind")
    assert c.hp == 1 + 5 + 1


def _p_action_surge(level, n):
    def run():
        c = _pc("fighter", level)
        assert c.resources["action_surge"] == n
        b = _battle(c, _mon("ogre", (8, 2)), first="p")
        _pick(b, "action_surge")
        assert c.economy.actions == 2
    return run


def _p_indomitable(level, n):
    def run():
        c = _pc("fighter", level)
        assert c.resources["indomitable"] == n
        b = _battle(c, _mon("ogre", (8, 2)))
        _dice(b, 1, 20)
        assert b.saving_throw(c, "wis", 15) and c.resources["indomitable"] == n - 1
    return run


def _p_crit(level, natural):
    def run():
        c, o = _pc("fighter", level), _mon("ogre", (3, 2))
        b = _battle(c, o, first="p")
        _attack(b, "Longsword", natural, 1, 1)
        assert any(e.get("event") == "attack" and e.get("critical") for e in b.log)
    return run


def _p_survivor():
    c = _pc("fighter", 18)
    b = _battle(c, _mon("ogre", (8, 2)))
    c.hp = 10
    b.order = ["p"] + [o for o in b.order if o != "p"]
    b.round, b.turn_index = 0, -1
    b.next_turn()
    assert c.hp == 10 + 5 + _mod(c, "con")


def _p_style(arch, style):
    def run():
        c = _pc(arch, 1)
        if style == "archery":
            bow = next(a for a in c.attacks if a.range_normal and not a.melee and a.ammo)
            assert bow.to_hit == _mod(c, "dex") + c.prof + 2
        elif style == "defense":
            assert c.ac == 19   # chain mail 16 + shield 2 + Defense 1
        else:
            d = _pc("fighter_dueling", 1)
            assert d.attack("longsword").damage[0].dice == "1d8+5"
    return run


def _p_martial_arts():
    c, o = _pc("monk", 1), _mon("ogre", (3, 2))
    b = _battle(c, o, first="p")
    assert not _has(b, "attack", "Martial Arts")
    _attack(b, "Shortsword", 1)
    _attack(b, "Martial Arts: unarmed strike", 15, 3)
    assert o.hp == 59 - (3 + _mod(c, "dex"))


def _p_flurry():
    c, o = _pc("monk", 2), _mon("ogre", (3, 2))
    b = _battle(c, o, first="p")
    _attack(b, "Shortsword", 1)
    _attack(b, "Flurry of Blows", 15, 2)
    _attack(b, "Flurry of Blows: the second", 15, 2)
    assert c.resources["ki"] == 1 and o.hp == 59 - 2 * (2 + _mod(c, "dex"))


def _p_patient():
    c = _pc("monk", 2)
    b = _battle(c, _mon("ogre", (8, 2)), first="p")
    _pick(b, "feature", "Patient Defense")
    assert c.dodging and c.resources["ki"] == 1


def _p_step():
    c = _pc("monk", 2)
    b = _battle(c, _mon("ogre", (8, 2)), first="p")
    _pick(b, "feature", "Step of the Wind: Disengage")
    assert c.economy.disengaged and c.resources["ki"] == 1


def _p_unarmored_movement():
    assert _pc("monk", 2).speed == 40 and _pc("monk", 1).speed == 30


def _p_deflect():
    c, g = _pc("monk", 3), _mon("goblin", (8, 2))
    b = _battle(c, g, first="m")
    _attack(b, "Shortbow", 19, 6)
    _dice(b, 10)
    _pick(b, "reaction", "Deflect Missiles")
    assert c.hp == c.max_hp


def _p_open_hand():
    c, o = _pc("monk", 3), _mon("ogre", (3, 2))
    b = _battle(c, o, first="p")
    _attack(b, "Shortsword", 1)
    _attack(b, "Flurry of Blows", 15)
    _dice(b, 2, 1)
    _pick(b, "reaction", "knock prone")
    assert "prone" in o.conditions


def _p_stunning():
    c, o = _pc("monk", 5), _mon("ogre", (3, 2))
    b = _battle(c, o, first="p")
    _attack(b, "Unarmed Strike", 15)
    _dice(b, 3, 1)
    _pick(b, "reaction", "Stunning Strike")
    assert "stunned" in o.conditions


def _p_ki_empowered():
    assert _pc("monk", 6).attack("unarmed-strike").spell and not _pc("monk", 5).attack("unarmed-strike").spell
    c, g = _pc("monk", 6), _mon("wight", (3, 2))   # resistant to nonmagical bludgeoning
    b = _battle(c, g, first="p")
    _attack(b, "Unarmed Strike", 15, 4)
    _pick(b, "reaction", "No rider")
    assert g.hp == g.max_hp - (4 + _mod(c, "dex"))


def _p_wholeness():
    c = _pc("monk", 6)
    b = _battle(c, _mon("ogre", (8, 2)), first="p")
    c.hp = 1
    b.forget_options()
    _pick(b, "feature", "Wholeness of Body")
    assert c.hp == 19


def _p_stillness():
    c = _pc("monk", 7)
    b = _battle(c, _mon("ogre", (8, 2)), first="p")
    c.conditions["charmed"] = {"by": "m"}
    b.forget_options()
    _pick(b, "feature", "Stillness of Mind")
    assert "charmed" not in c.conditions


def _p_purity():
    c = _pc("monk", 10)
    b = _battle(c, _mon("ogre", (8, 2)))
    assert b.damage(c, 9, "poison") == 0 and "poisoned" in c.condition_immunities


def _p_diamond():
    c = _pc("monk", 14)
    b = _battle(c, _mon("ogre", (8, 2)))
    assert c.saves["int"] == _mod(c, "int") + c.prof
    _dice(b, 1, 20)
    assert b.saving_throw(c, "cha", 15)


def _p_perfect_self():
    c = _pc("monk", 20)
    c.resources["ki"] = 0
    _battle(c, _mon("ogre", (8, 2)))
    assert c.resources["ki"] == 4


def _p_ki():
    c = _pc("monk", 5)
    assert c.resources["ki"] == 5
    c.resources["ki"] = 0
    short_rest(c)
    assert c.resources["ki"] == 5


def _p_lay_on_hands():
    c, f = _pc("paladin", 1), _pc("fighter", 1, "f", (3, 2))
    b = _battle(c, f, _mon("ogre", (10, 8)), first="p")
    f.hp = 2
    b.forget_options()
    _pick(b, "feature", "Lay on Hands")
    _pick(b, "target", "on f")
    assert f.hp == 7 and c.resources["lay_on_hands"] == 0


def _p_divine_health():
    assert "diseased" in _pc("paladin", 3).condition_immunities


def _p_sacred_weapon():
    c, o = _pc("paladin", 3), _mon("ogre", (3, 2))
    b = _battle(c, o, first="p")
    _pick(b, "feature", "Sacred Weapon")
    assert "sacred_weapon" in c.conditions and c.resources["channel_divinity"] == 0


def _p_aura(level, feet):
    def run():
        c = _pc("paladin", level)
        near = _pc("wizard", 1, "w", (2 + feet // 5, 2))
        far = _pc("wizard", 1, "w2", (2 + feet // 5 + 1, 2))
        b = _battle(c, near, far, _mon("ogre", (12, 8)))
        assert save_bonus(b, near, "wis") == max(1, _mod(c, "cha")) and save_bonus(b, far, "wis") == 0
    return run


def _p_aura_block(level, cond):
    def run():
        c, w = _pc("paladin", level), _pc("wizard", 1, "w", (3, 2))
        b = _battle(c, w, _mon("ogre", (12, 8)))
        b.save_condition(b.creatures["m"], w, cond, "wis", 20, (10, None, None))
        assert cond not in w.conditions
    return run


def _p_improved_smite():
    c, o = _pc("paladin", 11), _mon("ogre", (3, 2))
    b = _battle(c, o, first="p")
    _attack(b, "Longsword", 15)
    _dice(b, 3, 5)
    _pick(b, "reaction", "No rider")
    assert o.hp == 59 - (3 + _mod(c, "str") + 5)


def _p_colossus():
    c, o = _pc("ranger", 3), _mon("ogre", (8, 2))
    b = _battle(c, o, first="p")
    o.hp = 50
    _attack(b, "Longbow", 15, 4, 6)
    assert o.hp == 50 - (4 + _mod(c, "dex") + 6)


def _p_font_of_magic():
    c = _pc("sorcerer", 2)
    assert c.resources["sorcery_points"] == 2
    c3 = _pc("sorcerer", 3)
    b = _battle(c3, _mon("ogre", (6, 2)), first="p")
    _dice(b, 15)
    _pick(b, "spell", "Quickened Spell")
    _pick(b, "target")
    assert c3.resources["sorcery_points"] == 1 and c3.economy.actions == 1


def _p_draconic_resilience():
    c = _pc("sorcerer", 3)
    assert c.ac == 13 + _mod(c, "dex") and c.max_hp == 6 + _mod(c, "con") + 2 * (4 + _mod(c, "con")) + 3


def _p_restoration():
    c = _pc("sorcerer", 20)
    c.resources["sorcery_points"] = 0
    short_rest(c)
    assert c.resources["sorcery_points"] == 4


def _p_pact_magic():
    c = _pc("warlock", 5)
    assert c.resources["slots"] == (0, 0, 2, 0, 0, 0, 0, 0, 0)
    b = _battle(c, _mon("ogre", (4, 2)), first="p")
    _pick(b, "spell", "Burning Hands at level 3")
    c.resources["slots"] = (0,) * 9
    short_rest(c)
    assert c.resources["slots"][2] == 2


def _p_agonizing():
    c, o = _pc("warlock", 2), _mon("ogre", (6, 2))
    b = _battle(c, o, first="p")
    _dice(b, 15, 7)
    _pick(b, "spell", "Eldritch Blast")
    _pick(b, "target")
    assert o.hp == 59 - (7 + _mod(c, "cha"))


def _p_dark_blessing():
    c, g = _pc("warlock", 1), _mon("goblin", (3, 2))
    b = _battle(c, g, _mon("goblin", (10, 8), "g2"))
    b.damage(g, 30, "force", source="p")
    assert c.temp_hp == _mod(c, "cha") + 1


def _p_own_luck():
    c = _pc("warlock", 6)
    b = _battle(c, _mon("ogre", (8, 2)))
    _dice(b, 5, 10)
    assert b.saving_throw(c, "dex", 15) and c.resources["dark_ones_own_luck"] == 0


def _p_fiendish_resilience():
    c = _pc("warlock", 10)
    b = _battle(c, _mon("ogre", (8, 2)))
    assert b.modified_damage(c, 10, "slashing") == 5 and b.modified_damage(c, 10, "slashing", magical=True) == 10


def _p_natural_recovery():
    c = _pc("druid", 5)
    c.resources["slots"] = (4, 0, 0) + c.resources["slots"][3:]
    assert natural_recovery(c) == (3,) and c.resources["slots"][:3] == (4, 0, 1)   # 3 levels at druid 5
    assert natural_recovery(c) == ()   # once a day
    b = _battle(c, _mon("ogre", (4, 2)), first="p")
    assert _has(b, "spell", "Thunderwave at level 3")


def _p_arcane_recovery():
    c = _pc("wizard", 4)
    c.resources["slots"] = (0, 0) + c.resources["slots"][2:]
    assert arcane_recovery(c) == (2,)


def _p_channel_divinity_paladin():
    _p_sacred_weapon()
    c = _pc("paladin", 3)
    c.resources["channel_divinity"] = 0
    short_rest(c)
    assert c.resources["channel_divinity"] == 1


def _p_wild_shape(level, offered, not_offered):
    def run():
        c, o = _pc("druid", level), _mon("ogre", (3, 2))
        b = _battle(c, o, first="p")
        uses = c.resources["wild_shape"]
        _pick(b, "feature", "Wild Shape")
        names = [x.label for x in b.decision.options]
        assert any(f": {offered} (" in n for n in names), names
        assert not any(f": {not_offered} (" in n for n in names), names
        _pick(b, "feature", f": {offered} (")
        own = c.resources["wild_shape_saved"]["hp"]
        assert c.creature_type == "beast" and c.spells == () and c.max_hp < own + 100
        b.damage(c, c.hp + 3, "fire")   # the form drops; 3 carries over to the druid
        assert c.hp == own - 3 and c.creature_type == "humanoid"
        assert c.resources["wild_shape"] == (uses - 1 if uses < 99 else uses)
    return run


def _p_twinned():
    c, o1, o2 = _pc("sorcerer", 3), _mon("ogre", (6, 2), "o1"), _mon("ogre", (6, 6), "o2")
    b = _battle(c, o1, o2, first="p")
    _pick(b, "feature", "Twinned Spell (1 sorcery point): Fire Bolt")
    _pick(b, "target", "o1")
    _dice(b, 15, 5, 15, 6)
    _pick(b, "target", "o2")
    assert o1.hp == 59 - 5 and o2.hp == 59 - 6 and c.resources["sorcery_points"] == 2
    assert c.economy.actions == 0 and b.decision.actor == "p"


def _p_divine_strike():
    c, o = _pc("cleric", 8), _mon("ogre", (3, 2))
    b = _battle(c, o, first="p")
    _attack(b, "Mace", 15, 3, 5)
    assert o.hp == 59 - (3 + _mod(c, "str") + 5)
    assert _pc("cleric", 14).resources["divine_strike"] == "2d8"


def _p_cutting_words():
    bard, f, o = _pc("bard", 3, "bard"), _pc("fighter", 1, "f", (3, 4)), _mon("ogre", (3, 2))
    b = _battle(bard, f, o, first="m")
    _dice(b, 13)   # 13 + 6 = 19 hits the fighter's AC 19
    _pick(b, "attack", "Greatclub")
    _pick(b, "target", "Attack f with")
    assert b.decision.actor == "bard" and b.decision.kind == "reaction" and "hits f" in b.decision.prompt
    _dice(b, 4)
    _pick(b, "reaction", "Cutting Words")
    assert f.hp == f.max_hp and bard.resources["bardic_inspiration"] == 2 and not bard.economy.reaction


def _p_intimidate():
    c, o = _pc("barbarian", 10), _mon("ogre", (6, 2))
    b = _battle(c, o, first="p")
    _pick(b, "feature", "Intimidating Presence")
    _dice(b, 1)
    _pick(b, "target", "Frighten m")
    assert o.conditions["frightened"]["by"] == "p" and c.economy.actions == 0


def _p_purity_of_spirit():
    c, z = _pc("paladin", 15), _mon("zombie", (3, 2))
    b = _battle(c, z)
    assert b.attack_modifiers(z, c, True)[1] and not b.attack_modifiers(z, _pc("paladin", 14), True)[1]


def _p_holy_nimbus():
    c, o = _pc("paladin", 20), _mon("ogre", (5, 2))
    b = _battle(c, o, first="p")
    _pick(b, "feature", "Holy Nimbus")
    assert c.resources["holy_nimbus"] == 0
    _pick(b, "end_turn")
    assert o.hp == 59 - 10


def _build() -> dict:
    p: dict = {}
    asi_levels = {"fighter": (4, 6, 8, 12, 14, 16, 19), "rogue": (4, 8, 10, 12, 16, 19)}
    for cls in ("barbarian", "bard", "cleric", "druid", "fighter", "monk", "paladin", "ranger", "rogue",
                "sorcerer", "warlock", "wizard"):
        for i, lv in enumerate(asi_levels.get(cls, (4, 8, 12, 16, 19)), 1):
            p[f"{cls}-ability-score-improvement-{i}"] = _asi(cls, lv)
    p.update({
        "rage": _p_rage, "barbarian-unarmored-defense": _p_unarmored("barbarian"),
        "monk-unarmored-defense": _p_unarmored("monk"), "reckless-attack": _p_reckless,
        "danger-sense": _p_danger_sense, "frenzy": _p_frenzy, "fast-movement": _p_fast_movement,
        "mindless-rage": _p_mindless_rage, "feral-instinct": _p_feral_instinct,
        "brutal-critical-1-die": _p_brutal(9, 1), "brutal-critical-2-dice": _p_brutal(13, 2),
        "brutal-critical-3-dice": _p_brutal(17, 3), "relentless-rage": _p_relentless,
        "persistent-rage": _p_persistent, "primal-champion": _p_primal_champion,
        "barbarian-extra-attack": _extra_attack("barbarian", 5, 2),
        "paladin-extra-attack": _extra_attack("paladin", 5, 2),
        "ranger-extra-attack": _extra_attack("ranger", 5, 2), "monk-extra-attack": _extra_attack("monk", 5, 2),
        "extra-attack-1": _extra_attack("fighter", 5, 2), "extra-attack-2": _extra_attack("fighter", 11, 3),
        "extra-attack-3": _extra_attack("fighter", 20, 4),
        "spellcasting-bard": _spellcasting("bard", 1, "Healing Word"),
        "spellcasting-cleric": _spellcasting("cleric", 1, "Sacred Flame"),
        "spellcasting-druid": _spellcasting("druid", 1, "Healing Word"),
        "spellcasting-paladin": _spellcasting("paladin", 2, "Bless"),
        "spellcasting-ranger": _spellcasting("ranger", 2, "Cure Wounds"),
        "spellcasting-sorcerer": _spellcasting("sorcerer", 1, "Cast Fire Bolt"),
        "spellcasting-wizard": _spellcasting("wizard", 1, "Cast Fire Bolt"),
        "bardic-inspiration-d6": _p_inspire(1, "1d6"), "bardic-inspiration-d8": _p_inspire(5, "1d8"),
        "bardic-inspiration-d10": _p_inspire(10, "1d10"), "bardic-inspiration-d12": _p_inspire(15, "1d12"),
        "font-of-inspiration": _p_font, "superior-inspiration": _p_superior_inspiration,
        "channel-divinity-1-rest": _p_channel_rest(2, 1), "channel-divinity-2-rest": _p_channel_rest(6, 2),
        "channel-divinity-3-rest": _p_channel_rest(18, 3), "channel-divinity-turn-undead": _p_turn_undead,
        "destroy-undead-cr-1-2-or-below": _p_destroy(5, 0.5), "destroy-undead-cr-1-or-below": _p_destroy(8, 1),
        "destroy-undead-cr-2-or-below": _p_destroy(11, 2), "destroy-undead-cr-3-or-below": _p_destroy(14, 3),
        "destroy-undead-cr-4-or-below": _p_destroy(17, 4),
        "cunning-action": _p_cunning, "sneak-attack": _p_sneak, "uncanny-dodge": _p_uncanny,
        "rogue-evasion": _p_evasion("rogue", 7), "monk-evasion": _p_evasion("monk", 7),
        "superior-hunters-defense-evasion": _p_evasion("ranger", 15),
        "slippery-mind": _p_slippery_mind, "elusive": _p_elusive, "stroke-of-luck": _p_stroke_of_luck,
        "second-wind": _p_second_wind, "action-surge-1-use": _p_action_surge(2, 1),
        "action-surge-2-uses": _p_action_surge(17, 2), "indomitable-1-use": _p_indomitable(9, 1),
        "indomitable-2-uses": _p_indomitable(13, 2), "indomitable-3-uses": _p_indomitable(17, 3),
        "improved-critical": _p_crit(3, 19), "superior-critical": _p_crit(15, 18), "survivor": _p_survivor,
        "fighter-fighting-style-archery": _p_style("fighter_rogue", "archery"),
        "ranger-fighting-style-archery": _p_style("ranger", "archery"),
        "fighter-fighting-style-defense": _p_style("fighter", "defense"),
        "fighting-style-defense": _p_style("paladin", "defense"),
        "fighter-fighting-style-dueling": _p_style("fighter", "dueling"),
        "martial-arts": _p_martial_arts, "ki": _p_ki, "flurry-of-blows": _p_flurry,
        "patient-defense": _p_patient, "step-of-the-wind": _p_step, "unarmored-movement-1": _p_unarmored_movement,
        "deflect-missiles": _p_deflect, "open-hand-technique": _p_open_hand, "stunning-strike": _p_stunning,
        "ki-empowered-strikes": _p_ki_empowered, "wholeness-of-body": _p_wholeness,
        "stillness-of-mind": _p_stillness, "purity-of-body": _p_purity, "diamond-soul": _p_diamond,
        "perfect-self": _p_perfect_self,
        "lay-on-hands": _p_lay_on_hands, "divine-smite": _smite_probe(), "divine-health": _p_divine_health,
        "channel-divinity": _p_channel_divinity_paladin, "channel-divinity-sacred-weapon": _p_sacred_weapon,
        "aura-of-protection": _p_aura(6, 10), "aura-improvements": _p_aura(18, 30),
        "aura-of-devotion": _p_aura_block(7, "charmed"), "aura-of-courage": _p_aura_block(10, "frightened"),
        "improved-divine-smite": _p_improved_smite,
        "hunters-prey-colossus-slayer": _p_colossus,
        "metamagic-twinned-spell": _p_twinned, "cutting-words": _p_cutting_words,
        "intimidating-presence": _p_intimidate, "purity-of-spirit": _p_purity_of_spirit,
        "holy-nimbus": _p_holy_nimbus, "divine-strike": _p_divine_strike, "font-of-magic": _p_font_of_magic, "metamagic-quickened-spell": _p_font_of_magic,
        "draconic-resilience": _p_draconic_resilience, "sorcerous-restoration": _p_restoration,
        "pact-magic": _p_pact_magic, "eldritch-invocation-agonizing-blast": _p_agonizing,
        "dark-ones-blessing": _p_dark_blessing, "dark-ones-own-luck": _p_own_luck,
        "fiendish-resilience": _p_fiendish_resilience, "arcane-recovery": _p_arcane_recovery,
        "natural-recovery": _p_natural_recovery,
        "wild-shape-cr-1-4-or-below-no-flying-or-swim-speed": _p_wild_shape(2, "Wolf", "Ape"),
        "wild-shape-cr-1-2-or-below-no-flying-speed": _p_wild_shape(4, "Ape", "Giant Eagle"),
        "wild-shape-cr-1-or-below": _p_wild_shape(8, "Giant Eagle", "Giant Ape"),
        "archdruid": _p_wild_shape(20, "Brown Bear", "Giant Ape"),
    })
    return p


PROBES = _build()


# ------------------------------------------------------------------ fighting styles, Hunter's choices (wave 2)
def _p_great_weapon(arch: str, level: int):
    """A greatsword hit rolling a 1 and a 6: the 1 is rolled again (a 5) and the new roll stands."""
    def run():
        c = build_pc(arch, level, "p", (2, 2, 0), style="great_weapon_fighting", weapons=("greatsword",),
                     shield=False)
        o = _mon("ogre", (3, 2))
        b = _battle(c, o, first="p")
        _attack(b, "Greatsword", 15, 1, 6, 5, rest=1)
        if b.decision.kind == "reaction":   # a paladin's smite: not this time
            _pick(b, "reaction", "No rider")
        assert o.hp == 59 - (5 + 6 + _mod(c, "str")), o.hp
    return run


def _p_two_weapon(arch: str, level: int, weapons: tuple, off: str):
    """The off-hand attack adds the ability modifier."""
    def run():
        c = build_pc(arch, level, "p", (2, 2, 0), style="two_weapon_fighting", weapons=weapons)
        o = _mon("ogre", (3, 2))
        b = _battle(c, o, first="p")
        _attack(b, f"Attack with {content_name(weapons[0])}", 1, rest=1)   # a miss
        _attack(b, f"Off-hand attack with {off}", 15, 3)
        assert o.hp == 59 - (3 + _mod(c, "dex")), o.hp
    return run


def content_name(key: str) -> str:
    return content.weapon(key).name


def _p_defense_ranger():
    c = build_pc("ranger", 2, "p", (2, 2, 0), style="defense")
    assert c.ac == 11 + _mod(c, "dex") + 1   # leather armour + Defense
    o = _mon("ogre", (3, 2))
    b = _battle(c, o, first="m")
    _attack(b, "Greatclub", c.ac - 1 - 6, 5, 5)   # the total equals the AC without Defense: a miss
    assert c.hp == c.max_hp


def _p_dueling(arch: str, level: int, weapon: str):
    def run():
        c = build_pc(arch, level, "p", (2, 2, 0), style="dueling", weapons=(weapon,))
        o = _mon("ogre", (3, 2))
        b = _battle(c, o, first="p")
        _attack(b, f"Attack with {content_name(weapon)}", 15, 4, rest=1)
        if b.decision.kind == "reaction":
            _pick(b, "reaction", "No rider")
        a = c.attack(weapon)
        mod = max(_mod(c, "str"), _mod(c, "dex")) if a.finesse else _mod(c, "str")
        assert o.hp == 59 - (4 + mod + 2), o.hp
    return run


def _p_hunter_uncanny():
    c, o = build_pc("ranger", 15, "p", (2, 2, 0), choices=("uncanny_dodge",)), _mon("ogre", (3, 2))
    assert "evasion" not in c.features
    b = _battle(c, o, first="m")
    _attack(b, "Greatclub", 18, 5, 5)
    _pick(b, "reaction", "Uncanny Dodge")
    assert c.hp == c.max_hp - (5 + 5 + 4) // 2


PROBES.update({
    "fighter-fighting-style-great-weapon-fighting": _p_great_weapon("fighter", 1),
    "fighting-style-great-weapon-fighting": _p_great_weapon("paladin", 2),
    "fighter-fighting-style-two-weapon-fighting": _p_two_weapon("fighter_rogue", 1, ("shortsword", "dagger"), "Dagger"),
    "ranger-fighting-style-two-weapon-fighting": _p_two_weapon("ranger", 2, ("shortsword", "scimitar"), "Scimitar"),
    "ranger-fighting-style-defense": _p_defense_ranger,
    "ranger-fighting-style-dueling": _p_dueling("ranger", 2, "shortsword"),
    "fighting-style-dueling": _p_dueling("paladin", 2, "longsword"),
    "superior-hunters-defense-uncanny-dodge": _p_hunter_uncanny,
})


def _p_quivering_palm():
    c, o = _pc("monk", 17), _mon("ogre", (3, 2))
    b = _battle(c, o, first="p")
    ki = c.resources["ki"]
    _attack(b, "Attack with Unarmed Strike", 15, 5)
    _pick(b, "reaction", "Quivering Palm")
    assert c.resources["ki"] == ki - 3 and c.resources["quivering_palm_on"] == "m"
    _again(b, "p")
    _dice(b, 2)   # the ogre's Con save fails
    _pick(b, "feature", "Quivering Palm: end")
    assert o.hp == 0 and o.dead


def _p_empty_body():
    c, o = _pc("monk", 18), _mon("ogre", (3, 2))
    b = _battle(c, o, first="p")
    _pick(b, "feature", "Empty Body")
    assert "invisible" in c.conditions
    _again(b, "m")
    _attack(b, "Greatclub", 18, 18, 5, 5)   # disadvantage (an invisible target); damage halved
    assert c.hp == c.max_hp - (5 + 5 + 4) // 2


def _p_repelling_blast():
    c, o = build_pc("warlock", 2, "p", (2, 2, 0), choices=("repelling_blast",)), _mon("orc", (6, 2))
    b = _battle(c, o, first="p")
    _dice(b, 15, 5)
    _pick(b, "spell", "Eldritch Blast")
    _pick(b, "target")
    assert o.pos[:2] == (8, 2), o.pos


def _p_armor_of_shadows():
    c = build_pc("warlock", 2, "p", (2, 2, 0), choices=("armor_of_shadows",), armor=None)
    b = _battle(c, _mon("ogre", (9, 2)), first="p")
    assert b.armour_class(c) == 10 + _mod(c, "dex")
    _pick(b, "feature", "Armor of Shadows")
    assert b.armour_class(c) == 13 + _mod(c, "dex") and c.resources["slots"] == (2,) + (0,) * 8


def _p_fiendish_vigor():
    c = build_pc("warlock", 2, "p", (2, 2, 0), choices=("fiendish_vigor",))
    b = _battle(c, _mon("ogre", (9, 2)), first="p")
    _dice(b, 3)
    _pick(b, "feature", "Fiendish Vigor")
    assert c.temp_hp == 7


def _p_preserve_life():
    c, f = _pc("cleric", 2), _pc("fighter", 1, "f", (2, 4))
    b = _battle(c, f, _mon("ogre", (12, 2)), first="p")
    c.hp, f.hp = 3, 1
    b.forget_options()
    _pick(b, "feature", "Preserve Life")   # 10 HP: the fighter (1/12) up to 6, then the cleric up to 8
    assert (f.hp, c.hp) == (6, 8) and c.resources["channel_divinity"] == 0


PROBES.update({
    "quivering-palm": _p_quivering_palm, "empty-body": _p_empty_body,
    "eldritch-invocation-repelling-blast": _p_repelling_blast,
    "eldritch-invocation-armor-of-shadows": _p_armor_of_shadows,
    "eldritch-invocation-fiendish-vigor": _p_fiendish_vigor,
    "channel-divinity-preserve-life": _p_preserve_life,
})


def _p_steel_will():
    """A pit fiend's Fear Aura (Wis DC 21) at the start of the ranger's turn: advantage (5 and 19)."""
    for choices, frightened in (((), True), (("steel_will",), False)):
        c = build_pc("ranger", 7, "p", (2, 2, 0), choices=choices)
        b = _battle(c, _mon("pit-fiend", (4, 2)))
        _dice(b, 5, 19, rest=10)
        _again(b, "p")
        assert ("frightened" in c.conditions) == frightened, (choices, c.conditions)


PROBES["defensive-tactics-steel-will"] = _p_steel_will


def _p_heightened():
    """Hold Person on an orc: the save's d20s 19 and 3; heightened, the 3 stands (paralyzed)."""
    heightened = "Heightened Spell (3 sorcery points): cast Hold Person at level 2"
    for text, held in (("Cast Hold Person at level 2", False), (heightened, True)):
        c, o = _pc("sorcerer", 10), _mon("orc", (5, 2))
        b = _battle(c, o, first="p")
        sp = c.resources["sorcery_points"]
        _dice(b, 19, 3)
        _pick(b, "spell", text)
        _pick(b, "target")
        assert ("paralyzed" in o.conditions) == held, (text, o.conditions)
        assert c.resources["sorcery_points"] == sp - (3 if held else 0)


PROBES["metamagic-heightened-spell"] = _p_heightened


def _p_arcanum(level: int, key: str, name: str):
    """A Mystic Arcanum spell cast once without a slot (its placement or target as the planner picks),
    then not offered again before a long rest."""
    def run():
        c, o = _pc("warlock", level), _mon("ogre", (6, 2))
        b = _battle(c, o, _mon("ogre", (12, 8), "m2"), first="p")   # a second foe: the battle goes on
        slots = c.resources["slots"]
        _dice(b, 3, rest=4)
        _pick(b, "spell", f"Cast {name}")
        while b.decision.actor == "p" and b.decision.kind != "action":
            b.choose(heuristic.choose(b))
        assert any(e.get("event") == "cast" and e.get("spell") == key for e in b.log), key
        assert c.resources["innate"][key] == 0 and c.resources["slots"] == slots
        assert o.hp < o.max_hp or o.conditions or o.dead, key
        _again(b, "p")
        assert not _has(b, "spell", f"Cast {name}")
    return run


PROBES.update({
    "mystic-arcanum-6th-level": _p_arcanum(11, "circle-of-death", "Circle of Death"),
    "mystic-arcanum-7th-level": _p_arcanum(13, "finger-of-death", "Finger of Death"),
    "mystic-arcanum-8th-level": _p_arcanum(15, "power-word-stun", "Power Word Stun"),
    "mystic-arcanum-9th-level": _p_arcanum(17, "power-word-kill", "Power Word Kill"),
})


def _p_jack():
    """A bard's shove (Athletics untrained): d20 10 against the orc's 6 + 3; only with Jack of All
    Trades (+1 at proficiency +2) does it win the contest."""
    for level, won in ((1, False), (2, True)):
        c, o = _pc("bard", level), _mon("orc", (3, 2))
        b = _battle(c, o, first="p")
        _dice(b, 10, 6)
        _pick(b, "shove", "Shove prone")
        _pick(b, "target")
        assert ("prone" in o.conditions) == won, (level, o.conditions)


def _p_remarkable():
    """Bursting a web (a Str check, DC 12) with Str 20: a d20 of 5 needs Remarkable Athlete's +2."""
    for level, free in ((6, False), (7, True)):
        c = _pc("fighter", level)
        b = _battle(c, _mon("ogre", (9, 2)), first="p")
        c.conditions["restrained"] = {"by": "m", "escape": ("str", 12)}
        b.forget_options()
        _dice(b, 5)
        _pick(b, "escape_web")
        assert ("restrained" not in c.conditions) == free, level


PROBES.update({"jack-of-all-trades": _p_jack, "remarkable-athlete": _p_remarkable})


def _p_careful():
    """A Careful Fireball on a fighter and an ogre: the fighter succeeds without a roll (half of
    8d6 = 24), the ogre rolls (a 2: fails, 48)."""
    c, f, o = _pc("sorcerer", 17), _pc("fighter", 5, "f", (9, 6)), _mon("ogre", (10, 6))
    b = _battle(c, f, o, first="p")
    sp = c.resources["sorcery_points"]
    _pick(b, "spell", "Careful Spell (1 sorcery point): cast Fireball at level 3")
    _pick(b, "point_x", "x = 9")
    _dice(b, 6, 6, 6, 6, 6, 6, 6, 6, 2)
    _pick(b, "point_y", "(9, 6) (hits")
    fire = 48 + max(0, _mod(c, "cha"))   # the red sorcerer's Elemental Affinity adds Cha to a fire spell
    assert f.hp == f.max_hp - fire // 2 and o.hp == max(0, 59 - fire), (f.hp, o.hp)
    assert c.resources["sorcery_points"] == sp - 1


PROBES["metamagic-careful-spell"] = _p_careful


# the subclass and later features (dnd/classes/): their probes live in subclass_probes.py
from .subclass_probes import probes as _subclass_probes

PROBES.update(_subclass_probes())


# ================================================================ coverage
@functools.cache
def _srd_rows() -> tuple:
    return tuple(load_json("class_features"))


@functools.cache
def _status() -> dict:
    return dict(load_json("class_feature_status"))


def coverage() -> list[dict]:
    """One row per SRD class feature: executable (a probe shows it through the engine), out of
    scope (with the reason) or not yet; grouped by class, subclass and level."""
    rows = []
    for r in _srd_rows():
        st = _status().get(r["key"])
        if r["key"] in PROBES:
            status, reason = "executable", ""
        elif st is not None:
            status, reason = st["status"], st["reason"]
        else:
            status, reason = "not yet", "not yet: no rule or probe for it"
        kind = "subclass" if r["subclass"] else "option" if r["parent"] else "class"
        rows.append({"key": r["key"], "name": r["name"], "class": r["class"], "subclass": r["subclass"],
                     "level": r["level"], "kind": kind, "status": status, "reason": reason})
    return rows


def probe(key: str) -> None:
    """Make the feature happen through the engine's options; AssertionError if it cannot."""
    if key not in PROBES:
        raise AssertionError(f"class feature {key!r} is not executable: {_status().get(key, 'no probe')}")
    PROBES[key]()
