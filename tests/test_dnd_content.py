"""SRD content: the converted data loads, matches the SRD's numbers, carries no prose, and
re-converting the source gives the committed files byte for byte."""

import json
import os
from importlib import resources
from pathlib import Path

import pytest

from dungeonbench_gym.dnd import content
from dungeonbench_gym.dnd.content import (
    AttackSpec,
    ChoiceSpec,
    HealSpec,
    MultiattackSpec,
    SaveActionSpec,
    UseActionSpec,
)
from dungeonbench_gym.dnd.dice import parse

ROOT = Path(__file__).resolve().parents[1]
def _srd_source() -> Path:
    """The 5e-database JSON the data was converted from: $DUNGEONBENCH_SRD, or a
    shared/srd/5e-2014 folder beside the checkout or above it (the project's layout)."""
    if os.environ.get("DUNGEONBENCH_SRD"):
        return Path(os.environ["DUNGEONBENCH_SRD"])
    for folder in ROOT.parents:
        candidate = folder / "shared" / "srd" / "5e-2014"
        if candidate.is_dir():
            return candidate
    return ROOT.parent / "shared" / "srd" / "5e-2014"


SRD = _srd_source()
DATA = resources.files("dungeonbench_gym.dnd.content").joinpath("data")
CONVERTED = ("monsters", "spells", "equipment", "classes", "conditions")
# The SRD gives these no actions at all (the Shrieker only an alarm reaction); in a duel they take
# the standard actions (Dodge, Dash, ...) that every creature has.
NO_SRD_ACTIONS = {"frog", "sea-horse", "shrieker"}


# ---------------------------------------------------------------- monsters

def test_all_334_monsters_load():
    ms = content.monsters()
    assert len(ms) == 334
    assert all(m.key == k for k, m in ms.items())


def test_goblin():
    g = content.monster("goblin")
    assert (g.ac, g.hp, g.hit_dice, g.size, g.speed.walk) == (15, 7, "2d6", "small", 30)
    assert g.armor == ("leather-armor", "shield") and g.challenge_rating == 0.25 and g.xp == 50
    assert g.senses["darkvision"] == 60 and g.senses["passive_perception"] == 9
    scim = g.action("scimitar")
    assert isinstance(scim, AttackSpec) and scim.is_melee and not scim.is_ranged
    assert (scim.bonus, scim.reach, scim.targets) == (4, 5, 1)
    assert [(d.dice, d.type) for d in scim.damage] == [("1d6+2", "slashing")]
    bow = g.action("shortbow")
    assert bow.attack_type == "ranged_weapon" and (bow.range_normal, bow.range_long) == (80, 320)
    assert bow.damage[0].dice == "1d6+2" and bow.damage[0].type == "piercing"
    assert g.trait("nimble-escape").executable


def test_adult_red_dragon():
    d = content.monster("adult-red-dragon")
    assert (d.ac, d.hp, d.size, d.speed.fly, d.speed.climb) == (19, 256, "huge", 80, 40)
    assert d.saving_throws["dex"] == 6 and d.save_bonus("str") == 8
    assert [m.type for m in d.immunities] == ["fire"]
    breath = d.action("fire-breath")
    assert isinstance(breath, SaveActionSpec) and breath.executable
    assert (breath.save.ability, breath.save.dc, breath.save.half_on_success) == ("dex", 21, True)
    assert [(x.dice, x.type) for x in breath.save.damage] == [("18d6", "fire")]
    assert (breath.area.shape, breath.area.size) == ("cone", 60)
    assert breath.usage.type == "recharge" and breath.usage.min_roll == 5
    multi = d.action("multiattack")
    assert isinstance(multi, MultiattackSpec) and multi.executable
    assert [(r.action, r.count) for r in multi.alternatives[0]] == [
        ("frightful-presence", 1), ("bite", 1), ("claw", 2)]
    bite = d.action("bite")
    assert [(x.dice, x.type) for x in bite.damage] == [("2d10+8", "piercing"), ("2d6", "fire")]
    assert bite.reach == 10 and d.action("tail").reach == 15
    fear = d.action("frightful-presence")
    assert fear.save.conditions == ("frightened",) and fear.save.rounds == 10
    assert fear.save.repeat_save == "end_of_turn" and fear.area.size == 120 and fear.chosen_creatures
    assert d.legendary_actions_per_round == 3
    legendary = {a.key: a for a in d.legendary_actions}
    assert set(legendary) == {"detect", "tail-attack", "wing-attack"}
    assert [legendary[k].cost for k in ("detect", "tail-attack", "wing-attack")] == [1, 1, 2]
    assert legendary["tail-attack"].actions == ("tail",)
    wing = legendary["wing-attack"]
    assert (wing.save.dc, wing.save.ability, wing.save.conditions) == (22, "dex", ("prone",))
    assert wing.area.size == 10 and wing.save.damage[0].dice == "2d6+8" and not wing.save.half_on_success
    lr = d.trait("legendary-resistance")
    assert lr.executable and lr.params["uses_per_day"] == 3 and lr.usage.times == 3


def test_lich_legendary_actions():
    lich = content.monster("lich")
    la = {a.key: a for a in lich.legendary_actions}
    assert [(k, a.cost) for k, a in la.items()] == [
        ("cantrip", 1), ("paralyzing-touch", 2), ("frightening-gaze", 2), ("disrupt-life", 3)]
    assert not la["cantrip"].executable and la["cantrip"].reason
    assert isinstance(la["paralyzing-touch"], UseActionSpec)
    assert la["paralyzing-touch"].actions == ("paralyzing-touch",)
    gaze = la["frightening-gaze"]
    assert (gaze.save.ability, gaze.save.dc, gaze.targets, gaze.range) == ("wis", 18, 1, 10)
    assert gaze.save.conditions == ("frightened",)
    life = la["disrupt-life"]
    assert (life.save.ability, life.save.dc, life.save.half_on_success) == ("con", 18, True)
    assert life.save.damage[0].dice == "6d6" and life.save.damage[0].type == "necrotic"
    assert (life.area.shape, life.area.size) == ("emanation", 20)
    assert set(life.exempt_types) == {"construct", "undead"}
    touch = lich.action("paralyzing-touch")
    assert touch.attack_type == "melee_spell" and touch.bonus == 12
    assert touch.on_hit_saves[0].conditions == ("paralyzed",) and touch.on_hit_saves[0].dc == 18
    [sc] = lich.spellcasting
    assert (sc.dc, sc.attack_bonus, sc.caster_level, sc.slots[9]) == (20, 12, 18, 1)
    assert "fireball" in {s.spell for s in sc.spells}


def test_ogre_and_more_attacks():
    ogre = content.monster("ogre")
    club = ogre.action("greatclub")
    assert (club.bonus, club.damage[0].dice, club.damage[0].type) == (6, "2d8+4", "bludgeoning")
    jav = ogre.action("javelin")
    assert jav.attack_type == "melee_or_ranged_weapon" and (jav.reach, jav.range_normal, jav.range_long) == (5, 30, 120)
    # riders: poison save for half, grapple with restraint, versatile damage
    sword = content.monster("assassin").action("shortsword")
    [rider] = sword.on_hit_saves
    assert (rider.ability, rider.dc, rider.damage[0].dice, rider.half_on_success) == ("con", 15, "7d6", True)
    bite = content.monster("crocodile").action("bite")
    assert bite.on_hit_grapple.escape_dc == 12 and bite.on_hit_grapple.restrained
    spear = content.monster("guard").action("spear")
    assert spear.damage[0].dice == "1d6+1" and spear.alt_damage[0][0] == "two_handed"
    assert spear.alt_damage[0][1][0].dice == "1d8+1"
    spit = content.monster("guardian-naga").action("spit-poison")
    assert spit.damage == () and spit.on_hit_saves[0].damage[0].dice == "10d8"


def test_breath_weapon_choice_and_lines():
    brass = content.monster("adult-brass-dragon").action("breath-weapons")
    assert isinstance(brass, ChoiceSpec) and brass.usage.min_roll == 5
    fire, sleep = brass.options
    assert (fire.area.shape, fire.area.size, fire.area.width) == ("line", 60, 5)
    assert fire.save.damage[0].dice == "13d6"
    assert sleep.save.conditions == ("unconscious",) and sleep.area.shape == "cone"
    behir = content.monster("behir").action("lightning-breath")
    assert (behir.area.shape, behir.area.size, behir.area.width) == ("line", 20, 5)


def test_damage_modifiers_and_speeds():
    were = content.monster("werewolf-human")
    assert {m.type for m in were.immunities} == {"bludgeoning", "piercing", "slashing"}
    assert all(m.nonmagical_only and m.except_material == "silvered" for m in were.immunities)
    lich = content.monster("lich")
    assert {m.type for m in lich.immunities if not m.nonmagical_only} == {"poison"}
    assert "paralyzed" in lich.condition_immunities
    assert content.monster("ghost").speed.hover and content.monster("ghost").speed.fly == 40
    assert content.monster("giant-spider").speed.climb == 30


def test_parry_heal_and_multiattack_options():
    parry = content.monster("knight").reactions[0]
    assert parry.kind == "parry" and parry.ac_bonus == 2 and parry.executable
    heal = content.monster("unicorn").action("healing-touch")
    assert isinstance(heal, HealSpec) and heal.dice == "2d8+2" and heal.usage.times == 3
    captain = content.monster("bandit-captain").action("multiattack")
    assert [[(r.action, r.count, r.mode) for r in alt] for alt in captain.alternatives] == [
        [("scimitar", 2, "melee"), ("dagger", 1, "melee")], [("dagger", 2, "ranged")]]
    hydra = content.monster("hydra")
    [[ref]] = hydra.action("multiattack").alternatives
    assert ref.count is None and ref.count_from == "heads" and hydra.trait("multiple-heads").params["heads"] == 5


def test_every_monster_can_act():
    for m in content.monsters().values():
        if m.key in NO_SRD_ACTIONS:
            assert not m.actions
            continue
        assert any(a.executable for a in m.all_actions), m.key


def test_executable_records_are_complete():
    for m in content.monsters().values():
        keys = {a.key for a in m.actions}
        for section in (m.actions, m.legendary_actions, m.reactions, m.traits):
            assert len({a.key for a in section}) == len(section), m.key
        for a in m.all_actions:
            if not a.executable:
                assert a.reason, (m.key, a.key)
                continue
            if isinstance(a, AttackSpec):
                assert a.reach is not None or a.range_normal is not None, (m.key, a.key)
                assert a.damage or a.on_hit_saves or a.on_hit_grapple or a.on_hit_conditions, (m.key, a.key)
            elif isinstance(a, SaveActionSpec):
                assert a.save.dc > 0 and a.save.ability in content.ABILITIES
                assert a.area or a.targets or a.target_filter, (m.key, a.key)
                assert a.save.damage or a.save.conditions, (m.key, a.key)
            elif isinstance(a, MultiattackSpec):
                for alt, ok in zip(a.alternatives, a.alternatives_executable):
                    if ok:
                        assert all(r.action in keys for r in alt), (m.key, alt)
            elif isinstance(a, UseActionSpec):
                assert a.actions and set(a.actions) <= keys, (m.key, a.key)


def test_overlay_traits_apply_to_every_monster_that_has_them():
    effects = content.overlay()
    assert len(effects) >= 12
    for m in content.monsters().values():
        for t in m.traits:
            if t.key in effects:
                assert t.effect is not None and t.executable, (m.key, t.key)
    for m in content.monsters().values():
        keys = {a.key for a in m.actions}
        for t in m.traits:
            for ref in ("attack", "bonus_attack"):
                if ref in t.params:
                    assert t.params[ref] in keys, (m.key, t.key, t.params[ref])
    lion = content.monster("lion").trait("pounce").params
    assert (lion["min_distance"], lion["attack"], lion["bonus_attack"], lion["save"]["dc"]) == (20, "claw", "bite", 13)
    troll = content.monster("troll").trait("regeneration")
    assert troll.params["hp"] == 10 and troll.params["disabled_by"] == ["acid", "fire"]
    wolf = content.monster("wolf")
    assert wolf.trait("pack-tactics").effect["effect"] == "advantage_if_ally_within_5ft_of_target"
    assert content.monster("hobgoblin").trait("martial-advantage").params["extra_dice"] == "2d6"


# ---------------------------------------------------------------- spells, equipment, classes

def test_a_spell_without_at_higher_levels_does_its_own_level_with_a_higher_slot():
    """SRD Casting a Spell at a Higher Level: only a spell whose description says so grows with
    the slot; Divine Favor (1st level, 1d4 radiant) cast with a 3rd-level slot still adds 1d4, and
    no table entry exists below the spell's own level."""
    df = content.spell("divine-favor")
    assert df.damage_for(slot_level=3) == df.damage_for(slot_level=1) == "1d4"
    assert content.spell("fireball").damage_for(slot_level=2) is None


def test_fireball_and_cure_wounds():
    fb = content.spell("fireball")
    assert (fb.level, fb.school, fb.save_ability, fb.save_success, fb.damage_type) == (3, "evocation", "dex", "half", "fire")
    assert (fb.area.shape, fb.area.size) == ("sphere", 20) and (fb.range_kind, fb.range_feet) == ("feet", 150)
    assert fb.damage_for() == "8d6" and fb.damage_for(slot_level=5) == "10d6" and fb.damage_at_slot_level[9] == "14d6"
    assert fb.material and not fb.concentration and fb.casting_time == "action"
    cw = content.spell("cure-wounds")
    assert cw.heal_for() == "1d8" and cw.heal_for(3) == "3d8" and cw.heal_adds_modifier
    assert cw.range_kind == "touch" and "cleric" in cw.classes


def test_spell_facts():
    s = content.spells()
    assert len(s) == 319
    assert s["fire-bolt"].attack_type == "ranged" and s["fire-bolt"].damage_for(character_level=5) == "2d10"
    assert s["bless"].concentration and s["bless"].duration_rounds == 10
    assert s["shield"].casting_time == "reaction" and s["misty-step"].casting_time == "bonus_action"
    assert (s["lightning-bolt"].area.shape, s["lightning-bolt"].area.size, s["lightning-bolt"].area.width) == ("line", 100, 5)
    assert s["burning-hands"].area.shape == "cone" and s["thunderwave"].area.shape == "cube"
    assert s["raise-dead"].material_cost_gp == 500 and s["raise-dead"].material_consumed
    assert s["magic-missile"].damage_for(2) == "4d4+4"


def test_weapons_and_armor():
    ls = content.weapon("longsword")
    assert ls.damage.dice == "1d8" and ls.two_handed_damage.dice == "1d10" and ls.has("versatile")
    assert ls.category == "martial" and ls.range_type == "melee"
    dagger = content.weapon("dagger")
    assert {"finesse", "light", "thrown"} <= dagger.properties and dagger.throw_range == (20, 60)
    assert content.weapon("shortbow").range_long == 320 and content.weapon("glaive").reach == 10
    assert {"heavy", "two-handed"} <= content.weapon("greataxe").properties
    plate = content.armor("plate-armor")
    assert (plate.base_ac, plate.str_minimum, plate.stealth_disadvantage, plate.ac(3)) == (18, 15, True, 18)
    assert content.armor("hide-armor").ac(4) == 14 and content.armor("leather-armor").ac(3) == 14
    assert content.shields()["shield"].ac_bonus == 2
    assert {p.heal for p in content.potions().values()} == {"2d4+2", "4d4+4", "8d4+8", "10d4+20"}
    assert len(content.weapons()) == 37 and len(content.armors()) == 12


def test_classes():
    cs = content.classes()
    assert {"fighter", "rogue", "cleric", "wizard"} <= set(cs) and len(cs) == 12
    f = content.class_spec("fighter")
    assert f.hit_die == 10 and f.saving_throws == ("str", "con")
    assert [lv.proficiency_bonus for lv in f.levels] == [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4 + [6] * 4
    assert {x.key for x in f.level(1).features} == {"fighter-fighting-style", "second-wind"}
    assert f.level(2).counters["action_surges"] == 1 and f.level(5).counters["extra_attacks"] == 1
    assert "fighter-fighting-style-defense" in f.feature_choices["fighter-fighting-style"]
    r = content.class_spec("rogue")
    assert [r.level(n).counters["sneak_attack"] for n in (1, 3, 5)] == ["1d6", "2d6", "3d6"]
    assert "cunning-action" in {x.key for x in r.features_up_to(2)}
    w = content.class_spec("wizard")
    assert w.spellcasting_ability == "int" and w.level(5).slots[:3] == (4, 3, 2) and w.level(1).cantrips_known == 3
    assert w.level(5).counters["arcane_recovery_levels"] == 3
    c = content.class_spec("cleric")
    assert c.level(2).counters["channel_divinity_charges"] == 1 and c.level(1).slots[0] == 2
    assert "life" in c.subclasses


def test_conditions():
    cond = content.conditions()
    assert len(cond) == 15 and {"prone", "grappled", "exhaustion", "unconscious"} <= set(cond)


# ---------------------------------------------------------------- the data itself

def _strings_and_keys(obj):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield ("key", k)
            yield from _strings_and_keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings_and_keys(v)
    elif isinstance(obj, str):
        yield ("str", obj)


@pytest.mark.parametrize("name", CONVERTED + ("overlay",))
def test_no_prose_in_data(name):
    data = json.loads(DATA.joinpath(f"{name}.json").read_text(encoding="utf-8"))
    for kind, s in _strings_and_keys(data):
        assert not (kind == "key" and s in ("desc", "description", "higher_level")), name
        assert len(s) <= 80, (name, s)


def test_every_dice_string_parses():
    def dice_strings(obj, key=None):
        if isinstance(obj, dict):
            for k, v in obj.items():
                if k in ("dice", "hit_dice", "hit_points_roll", "heal", "extra_dice") and isinstance(v, str):
                    yield v
                elif k in ("at_slot_level", "at_character_level", "heal_at_slot_level"):
                    yield from v.values()
                else:
                    yield from dice_strings(v, k)
        elif isinstance(obj, list):
            for v in obj:
                yield from dice_strings(v, key)
    n = 0
    for name in CONVERTED:
        for s in dice_strings(json.loads(DATA.joinpath(f"{name}.json").read_text(encoding="utf-8"))):
            parse(s)
            n += 1
    assert n > 1500


@pytest.mark.skipif(not (SRD / "5e-SRD-Monsters.json").exists(), reason="SRD source JSON not present")
def test_conversion_is_deterministic(tmp_path):
    from dungeonbench_gym.dnd.content.convert import main
    assert main(["--srd", str(SRD), "--out", str(tmp_path)]) == 0
    for name in CONVERTED:
        committed = DATA.joinpath(f"{name}.json").read_bytes()
        assert (tmp_path / f"{name}.json").read_bytes() == committed, f"{name}.json differs from a fresh conversion"
