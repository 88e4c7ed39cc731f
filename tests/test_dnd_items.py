"""Items (dnd/items.py): magic weapons and armour, worn items, potions, scrolls, wands, staffs, the
scenario ``items`` field, use between fights, underwater combat. Dice are scripted."""

import json
import pickle
from pathlib import Path

import pytest
from dnd_helpers import WIDE, arena, events, labels, mon, pc, pick, script, turn

from dungeonbench_gym.core.errors import FileFormatError
from dungeonbench_gym.dnd import heuristic, items
from dungeonbench_gym.dnd.content import convert_items
from dungeonbench_gym.dnd.dice import Roller
from dungeonbench_gym.dnd.scenario import parse_encounter
from dungeonbench_gym.dnd.verification import items_probes

EXECUTABLE = [r["key"] for r in items.coverage() if r["status"] == "executable"]


def kit(arch, keys, level=1, at=(2, 2), cid=None):
    return items.equip(pc(arch, level, at, cid), keys)


def item_option(b, key, text=""):
    for i, o in enumerate(b.decision.options):
        if o.kind in ("item", "potion") and o.data and o.data[0] == key and text in o.label:
            return i
    return None


def use(b, key, text=""):
    i = item_option(b, key, text)
    assert i is not None, f"{key} not offered: {labels(b)}"
    b.choose(i)


# ---------------------------------------------------------------- data and coverage
def test_converter_is_deterministic_and_matches_the_shipped_file(tmp_path):
    here = Path(convert_items.__file__).parent / "data"
    convert_items.main(["--out", str(tmp_path)])
    assert (tmp_path / "items.json").read_bytes() == (here / "items.json").read_bytes()


def test_items_json_holds_facts_not_prose():
    data = json.loads((Path(convert_items.__file__).parent / "data" / "items.json").read_text())["items"]
    allowed = {"key", "name", "kind", "rarity", "srd", "base", "bonus", "use", "wear", "charges", "recharge",
               "reason", "scope", "weapons", "extra", "slaying", "damage_type", "finesse"}
    for k, rec in data.items():
        assert set(rec) <= allowed, (k, set(rec) - allowed)
        assert "desc" not in rec and len(rec.get("reason", "")) < 80


def test_families_expand_per_base_item():
    assert items.item("longsword-plus-2") == {**items.item("longsword-plus-2"), "base": "longsword", "bonus": 2,
                                              "rarity": "rare"}
    assert items.item("plate-armor-plus-3")["rarity"] == "legendary"   # SRD: armour +3 is legendary
    assert items.item("spell-scroll-fireball")["use"] == {"kind": "scroll", "spell": "fireball", "level": 3,
                                                          "dc": 15, "attack": 7}
    assert items.item("potion-of-healing-supreme")["use"]["dice"] == "10d4+20"
    assert items.item("dragon-scale-mail-red")["wear"] == {"resist": ["fire"]}


def test_coverage_rows_and_target():
    rows = items.coverage()
    assert all({"key", "name", "status", "reason", "kind"} <= set(r) for r in rows)
    assert {r["status"] for r in rows} == {"executable", "out of scope", "not yet"}
    assert all(r["reason"] for r in rows if r["status"] != "executable")
    assert all(r["reason"] == "" for r in rows if r["status"] == "executable")
    assert len(EXECUTABLE) >= 275
    kinds = {items.item(k)["kind"] for k in EXECUTABLE}
    assert {"weapon", "armor", "shield", "ammunition", "potion", "scroll", "wand", "ring", "wondrous"} <= kinds


@pytest.mark.parametrize("key", EXECUTABLE)
def test_probe_every_executable_item(key):
    items_probes.probe(key)


def test_probe_rejects_what_the_engine_does_not_run():
    with pytest.raises(AssertionError):
        items_probes.probe("bag-of-holding")
    with pytest.raises(ValueError, match="not yet"):
        items.equip(pc("fighter", 1, (2, 2)), ["wand-of-web"])
    with pytest.raises(ValueError, match="only PCs"):
        items.equip(mon("goblin", (3, 2)), ["ring-of-protection"])
    with pytest.raises(KeyError, match="did you mean"):
        items.equip(pc("fighter", 1, (2, 2)), ["longsword-plus-4"])


# ---------------------------------------------------------------- magic weapons
def test_plus_one_weapon_adds_to_hit_and_damage():
    f = kit("fighter", ["longsword-plus-1"])
    a = f.attack("longsword-plus-1")
    assert (a.to_hit, a.damage[0].dice, a.spell) == (6, "1d8+4", True)
    assert "longsword" not in [x.key for x in f.attacks]   # the magic sword replaces the plain one


def test_plus_one_turns_a_miss_into_a_hit():
    for keys, hit in (([], False), (["longsword-plus-1"], True)):
        f = kit("fighter", keys)
        g = mon("goblin", (3, 2))   # AC 15
        b = arena(f, g, first="fighter")
        key = "longsword-plus-1" if keys else "longsword"
        script(b, 9, 4)   # 9 + 5 = 14 misses AC 15; 9 + 6 = 15 hits
        pick(b, "attack", f"Attack with {items.item(key)['name']}")
        pick(b, "target", "goblin")
        assert events(b, "attack")[-1]["hit"] is hit


def test_magic_weapon_overcomes_nonmagical_immunity():
    for keys, lost in (([], 0), (["longsword-plus-1"], 8)):
        f = kit("fighter", keys)
        w = mon("werewolf-human", (3, 2))   # immune to nonmagical slashing
        b = arena(f, w, first="fighter")
        script(b, 15, 4)
        pick(b, "attack", "Attack with Longsword")
        pick(b, "target", "werewolf")
        assert w.max_hp - w.hp == lost


def test_flame_tongue_adds_fire_on_a_hit():
    f = kit("fighter", ["flame-tongue"])
    g = mon("ogre", (3, 2))
    b = arena(f, g, first="fighter")
    script(b, 15, 4, 3, 5)   # hit; 1d8+3 = 7 slashing; 2d6 = 8 fire
    pick(b, "attack", "Flame Tongue")
    pick(b, "target", "ogre")
    assert g.max_hp - g.hp == 15
    assert [e["type"] for e in events(b, "damage")] == ["slashing", "fire"]


@pytest.mark.parametrize("foe,extra", [("red-dragon-wyrmling", True), ("ogre", False)])
def test_dragon_slayer_extra_damage_only_against_dragons(foe, extra):
    f = kit("fighter", ["dragon-slayer"])
    t = mon(foe, (3, 2))
    b = arena(f, t, first="fighter")
    script(b, 19, 4, *([1, 2, 3] if extra else []))   # 1d8+4 = 8; 3d6 = 6 more against a dragon
    pick(b, "attack", "Dragon Slayer")
    pick(b, "target", foe)
    assert t.max_hp - t.hp == (14 if extra else 8)


def test_sun_blade_deals_radiant_and_more_to_undead():
    f = kit("fighter", ["sun-blade"])
    a = f.attack("sun-blade")
    assert (a.to_hit, a.damage[0].type, a.finesse) == (7, "radiant", True)
    s = mon("skeleton", (3, 2))
    b = arena(f, s, first="fighter")
    script(b, 15, 1, 2)   # 1d8+5 = 6 radiant, +1d8 = 2 against undead
    pick(b, "attack", "Sun Blade")
    pick(b, "target", "skeleton")
    assert s.hp == max(0, s.max_hp - 8)


def test_magic_ammunition_is_a_separate_counted_shot():
    r = kit("rogue", ["arrow-plus-2*2"])
    key = "shortbow:arrow-plus-2"
    a = r.attack(key)
    assert (a.to_hit, a.damage[0].dice, r.resources["ammo_arrow-plus-2"]) == (7, "1d6+5", 2)
    g = mon("ogre", (7, 2))
    b = arena(r, g, first="rogue")
    script(b, 10, 1)
    pick(b, "attack", "with Arrow, +2")
    pick(b, "target", "ogre")
    assert r.resources["ammo_arrow-plus-2"] == 1 and r.resources["ammo_shortbow"] == 20


# ---------------------------------------------------------------- armour, shields, worn items
def test_magic_armour_and_shield_ac():
    assert kit("fighter", ["chain-mail-plus-2"]).ac == 21            # 16 + 2, shield 2, Defense 1
    assert kit("fighter", ["shield-plus-1"]).ac == 20
    assert kit("wizard", ["leather-armor"]).ac == 13                 # 11 + Dex 2 instead of 10 + 2
    assert kit("wizard", ["plate-armor-plus-1"]).ac == 19
    assert kit("wizard", ["shield-plus-3"]).ac == 17                 # 12 + 2 + 3
    assert kit("fighter", ["elven-chain"]).ac == 18                  # chain shirt 13 + Dex 1 + 1, shield 2, Defense 1


def test_foe_attacks_against_the_new_ac():
    f = kit("fighter", ["plate-armor-plus-3"])   # 18 + 3 + 2 + 1 = 24
    g = mon("goblin", (3, 2))
    b = arena(f, g, first="goblin")
    script(b, 19, 3)
    pick(b, "attack", "Scimitar")
    pick(b, "target", "fighter")
    ev = events(b, "attack")[-1]
    assert (ev["ac"], ev["hit"]) == (24, False)   # 19 + 4 = 23 misses


def test_ring_and_cloak_of_protection_stack():
    base = pc("fighter", 1, (2, 2))
    f = kit("fighter", ["ring-of-protection", "cloak-of-protection"])
    assert f.ac == base.ac + 2
    assert all(f.saves[ab] == base.saves[ab] + 2 for ab in f.saves)


def test_bracers_of_defense_need_no_armour_and_no_shield():
    assert kit("wizard", ["bracers-of-defense"]).ac == 14
    assert kit("fighter", ["bracers-of-defense"]).ac == 19


def test_resistance_items_halve_damage():
    f = kit("fighter", ["ring-of-resistance-fire"])
    b = arena(f, mon("goblin", (6, 6)), first="fighter")
    assert b.damage(f, 9, "fire") == 4 and b.damage(f, 4, "cold") == 4


def test_armor_of_invulnerability_resists_only_nonmagical_damage():
    f = kit("fighter", ["armor-of-invulnerability"])
    b = arena(f, mon("goblin", (6, 6)), first="fighter")
    assert b.damage(f, 6, "slashing") == 3
    assert b.damage(f, 6, "slashing", magical=True) == 6


def test_periapt_of_proof_against_poison():
    f = kit("fighter", ["periapt-of-proof-against-poison"])
    b = arena(f, mon("goblin", (6, 6)), first="fighter")
    assert b.damage(f, 12, "poison") == 0 and "poisoned" in f.condition_immunities


def test_belt_of_giant_strength_recompiles_attacks_and_saves():
    f = kit("fighter", ["belt-of-giant-strength-hill"])   # Str 16 -> 21: +3 -> +5
    a = f.attack("longsword")
    assert (f.abilities["str"], a.to_hit, a.damage[0].dice, f.saves["str"]) == (21, 7, "1d8+5", 7)
    # gauntlets (19) do nothing over a storm giant belt (29)
    g = kit("fighter", ["belt-of-giant-strength-storm", "gauntlets-of-ogre-power"])
    assert g.abilities["str"] == 29 and g.attack("longsword").to_hit == 2 + 9


def test_amulet_of_health_raises_hit_points_by_level():
    base = pc("wizard", 3, (2, 2))
    w = kit("wizard", ["amulet-of-health"], level=3)   # Con 14 -> 19: +2 -> +4
    assert (w.max_hp - base.max_hp, w.saves["con"] - base.saves["con"]) == (6, 2)


def test_headband_of_intellect_raises_spell_numbers():
    w = kit("wizard", ["headband-of-intellect"])   # Int 16 -> 19
    assert (w.resources["spell_dc"], w.resources["spell_attack"]) == (14, 6)


def test_ioun_stone_of_agility_moves_dex_weapons_and_ac():
    r = kit("rogue", ["ioun-stone-of-agility"])   # Dex 16 -> 18
    assert (r.attack("shortsword").to_hit, r.attack("shortbow").to_hit, r.ac) == (6, 6, 15)


def test_winged_boots_give_a_fly_speed():
    f = kit("fighter", ["winged-boots"])
    b = arena(f, mon("goblin", (7, 6)), first="fighter")
    pick(b, "move")
    assert f.fly == 30 and any("ft up" in o.label for o in b.destination_options(f))


def test_wand_of_the_war_mage_adds_to_spell_attacks():
    w = kit("wizard", ["wand-of-the-war-mage-2"])
    b = arena(w, mon("goblin", (5, 2)), first="wizard")
    assert any(o.kind == "spell" and "Fire Bolt" in o.label and "+7" in o.label for o in b.decision.options)


# ---------------------------------------------------------------- potions
def test_inventory_healing_potion_is_an_action_option():
    f = kit("fighter", ["potion-of-healing-greater*2"], level=5)   # 44 HP
    f.hp = 2
    b = arena(f, mon("goblin", (7, 6)), first="fighter")
    assert item_option(b, "potion-of-healing-greater", "4d4+4, 2 left") is not None
    script(b, 1, 2, 3, 4)
    use(b, "potion-of-healing-greater")
    assert f.hp == 2 + (1 + 2 + 3 + 4 + 4)
    assert items.count(f, "potion-of-healing-greater") == 1 and f.economy.actions == 0
    assert item_option(b, "potion-of-healing-greater") is None   # no action left


def test_healing_potion_not_offered_at_full_hp():
    f = kit("fighter", ["potion-of-healing-common"])
    b = arena(f, mon("goblin", (7, 6)), first="fighter")
    assert item_option(b, "potion-of-healing-common") is None


def test_heuristic_drinks_an_inventory_potion_when_low():
    f = kit("fighter", ["potion-of-healing-superior"])
    f.resources["potions"] = 0
    f.resources["second_wind"] = 0
    f.hp = 2
    b = arena(f, mon("goblin", (7, 6)), first="fighter")
    i = heuristic.choose(b)
    assert b.decision.options[i].data == ("potion-of-healing-superior",)


def test_potion_of_giant_strength():
    f = kit("fighter", ["potion-of-giant-strength-fire"])
    b = arena(f, mon("goblin", (7, 6)), first="fighter")
    use(b, "potion-of-giant-strength-fire", "STR becomes 25")
    assert f.abilities["str"] == 25 and f.attack("longsword").to_hit == 9
    g = kit("fighter", ["belt-of-giant-strength-storm", "potion-of-giant-strength-hill"])
    b = arena(g, mon("goblin", (7, 6)), first="fighter")
    assert item_option(b, "potion-of-giant-strength-hill") is None   # no effect when already stronger


def test_potion_of_resistance():
    f = kit("fighter", ["potion-of-resistance-lightning"])
    b = arena(f, mon("goblin", (7, 6)), first="fighter")
    use(b, "potion-of-resistance-lightning")
    assert b.damage(f, 10, "lightning") == 5


def test_potion_of_heroism_temp_hp_and_bless():
    f = kit("fighter", ["potion-of-heroism"])
    g = mon("goblin", (3, 2))
    b = arena(f, g, first="fighter")
    use(b, "potion-of-heroism")
    assert f.temp_hp == 10 and "blessed" in f.conditions
    turn(b, "fighter")
    script(b, 4, 8, 3)   # bless 1d4 = 4 first, then d20 8: 8 + 5 + 4 = 17 hits AC 15; 1d8 = 3
    pick(b, "attack", "Longsword")
    pick(b, "target", "goblin")
    ev = events(b, "attack")[-1]
    assert (ev["total"], ev["hit"]) == (17, True)


def test_potion_of_speed_and_its_minute():
    f = kit("fighter", ["potion-of-speed"])
    b = arena(f, mon("goblin", (7, 6)), first="fighter")
    use(b, "potion-of-speed")
    assert (b.armour_class(f), b.speed(f), f.economy.movement) == (21, 60, 60)
    b.round += 9
    b.start_turn(f)   # 9 rounds later: still hasted
    assert b.armour_class(f) == 21
    b.round += 1
    b.start_turn(f)   # the minute is up at the start of its turn 10 rounds later
    assert (b.armour_class(f), b.speed(f)) == (19, 30) and "haste" not in f.conditions


def test_potion_of_flying():
    f = kit("fighter", ["potion-of-flying"])
    b = arena(f, mon("goblin", (7, 6)), first="fighter")
    use(b, "potion-of-flying", "fly 30 ft")
    assert f.fly == 30 and f.hover


def test_potion_of_invisibility_ends_when_attacking():
    f = kit("fighter", ["potion-of-invisibility"])
    g = mon("goblin", (3, 2))
    b = arena(f, g, first="fighter")
    use(b, "potion-of-invisibility")
    assert "invisible" in f.conditions
    adv, dis, _ = b.attack_modifiers(g, f, True)
    assert dis and not adv
    turn(b, "fighter")
    script(b, 10, 3, 3)
    pick(b, "attack", "Longsword")
    pick(b, "target", "goblin")
    assert "invisible" not in f.conditions


def test_potion_of_poison_hurts_the_drinker():
    f = kit("fighter", ["potion-of-poison"])
    b = arena(f, mon("goblin", (7, 6)), first="fighter")
    script(b, 1, 2, 3, 2)   # 3d6 = 6 poison; Con save 2 + 4 = 6 fails DC 13
    use(b, "potion-of-poison")
    assert f.hp == f.max_hp - 6 and "poisoned" in f.conditions


# ---------------------------------------------------------------- scrolls
def test_scroll_casts_without_spending_the_readers_slots():
    w = kit("wizard", ["spell-scroll-magic-missile"])
    g = mon("ogre", (6, 2))
    b = arena(w, g, first="wizard")
    slots = w.resources["slots"]
    use(b, "spell-scroll-magic-missile")
    script(b, 1, 2, 3)
    for _ in range(3):
        pick(b, "target", "ogre")
    assert g.max_hp - g.hp == (1 + 1) + (2 + 1) + (3 + 1)
    assert w.resources["slots"] == slots and items.count(w, "spell-scroll-magic-missile") == 0


def test_scroll_uses_its_own_save_dc():
    c = kit("cleric", ["spell-scroll-hold-person"], level=5)   # the cleric's own DC is 15; the scroll's 13
    g = mon("bandit", (3, 2))
    b = arena(c, g, first="cleric")
    script(b, 12)   # Wis save 12 + 0 = 12 fails DC 13
    use(b, "spell-scroll-hold-person")
    pick(b, "target", "bandit")
    save = [e for e in events(b, "save") if e["creature"] == "bandit"][-1]
    assert "DC 13" in save["text"] and "paralyzed" in g.conditions
    assert b.decision.actor == "cleric"   # its menu again: the scroll's numbers are settled
    assert c.resources["spell_dc"] == 15 and "item_cast" not in c.resources


def test_scroll_above_the_readers_level_needs_a_check():
    for roll, cast in ((2, False), (10, True)):   # DC 13: Int +3
        w = kit("wizard", ["spell-scroll-fireball"])
        g = mon("ogre", (6, 2))
        b = arena(w, g, first="wizard")
        assert item_option(b, "spell-scroll-fireball", "DC 13 check") is not None
        script(b, roll)
        use(b, "spell-scroll-fireball")
        assert (b.decision.kind == "point_x") is cast
        assert items.count(w, "spell-scroll-fireball") == 0


def test_scroll_needs_the_spell_on_the_class_list():
    f = kit("fighter", ["spell-scroll-fireball"])
    c = kit("cleric", ["spell-scroll-fireball"], at=(2, 4))
    b = arena(f, c, mon("ogre", (6, 2)), first="fighter")
    assert item_option(b, "spell-scroll-fireball") is None
    turn(b, "cleric")
    assert item_option(b, "spell-scroll-fireball") is None


# ---------------------------------------------------------------- wands and staffs
def test_wand_of_magic_missiles_spends_charges_for_higher_levels():
    f = kit("fighter", ["wand-of-magic-missiles"])
    g = mon("ogre", (6, 2))
    b = arena(f, g, first="fighter")
    lv = [o.data[1] for o in b.decision.options if o.kind == "item"]
    assert lv == [1, 2, 3, 4, 5, 6, 7]
    use(b, "wand-of-magic-missiles", "at level 3")
    script(b, 1, 1, 1, 1, 1)
    for _ in range(5):   # 3 + 2 darts
        pick(b, "target", "ogre")
    assert g.max_hp - g.hp == 10 and f.resources["charges"]["wand-of-magic-missiles"] == 4


def test_wand_of_fireballs_dc_15():
    f = kit("fighter", ["wand-of-fireballs"])
    g = mon("ogre", (6, 2))
    b = arena(f, g, layout=WIDE, first="fighter")
    use(b, "wand-of-fireballs", "at level 3")
    assert b.decision.kind == "point_x"
    pick(b, "point_x", "x = 7")
    script(b, *[1] * 8, 14)   # 8d6 = 8 rolled once; Dex save 14 - 1 = 13 fails DC 15
    pick(b, "point_y", "ogre")
    assert "DC 15" in [e for e in events(b, "save") if e["creature"] == "ogre"][-1]["text"]
    assert g.max_hp - g.hp == 8 and f.resources["charges"]["wand-of-fireballs"] == 6


def test_wand_of_paralysis_and_its_repeat_save():
    f = kit("fighter", ["wand-of-paralysis"])
    g = mon("ogre", (4, 2))
    b = arena(f, g, first="fighter")
    script(b, 5)   # Con 5 + 3 = 8 fails DC 15
    use(b, "wand-of-paralysis", "on ogre")
    assert "paralyzed" in g.conditions and f.resources["charges"]["wand-of-paralysis"] == 6
    script(b, 12)   # the ogre's turn passes; at its end it saves again: 12 + 3 = 15 frees it
    pick(b, "end_turn")
    assert "paralyzed" not in g.conditions
    assert any(e["creature"] == "ogre" and e["condition"] == "paralyzed" for e in events(b, "condition_end"))


def test_wand_of_binding_casts_hold_person_at_dc_17_for_two_charges():
    f = kit("fighter", ["wand-of-binding"])
    g = mon("bandit", (3, 2))
    b = arena(f, g, first="fighter")
    script(b, 16)   # 16 + 0 fails DC 17
    use(b, "wand-of-binding", "2 of 7 charges")
    pick(b, "target", "bandit")
    assert "paralyzed" in g.conditions and f.resources["charges"]["wand-of-binding"] == 5


def test_staff_of_healing_cure_wounds_one_charge_per_level():
    c = kit("cleric", ["staff-of-healing"], level=3)
    c.hp = 1
    b = arena(c, mon("goblin", (7, 6)), first="cleric")
    assert [o.data[1] for o in b.decision.options if o.kind == "item"] == [1, 2, 3, 4]
    script(b, 2, 3)
    use(b, "staff-of-healing", "at level 2")
    pick(b, "target", "cleric")
    assert c.hp == 1 + 2 + 3 + 3 and c.resources["charges"]["staff-of-healing"] == 8


def test_items_need_an_action():
    f = kit("fighter", ["wand-of-paralysis", "potion-of-speed"])
    b = arena(f, mon("ogre", (4, 2)), first="fighter")
    pick(b, "dodge")
    assert item_option(b, "wand-of-paralysis") is None and item_option(b, "potion-of-speed") is None


# ---------------------------------------------------------------- between fights, scenarios, pickling
def test_use_out_of_combat_heals_and_wakes():
    f = kit("fighter", ["potion-of-healing-common*2"])
    ally = pc("wizard", 1, (3, 3))
    ally.hp = 0
    ally.death_failures = 2
    r = Roller(0)
    r._int = lambda lo, hi, size=None: 3   # every d4 rolls 3
    assert items.use_out_of_combat(f, "potion-of-healing-common", ally, roller=r) == 8
    assert (ally.hp, ally.death_failures, items.count(f, "potion-of-healing-common")) == (8, 0, 1)
    with pytest.raises(ValueError):
        items.use_out_of_combat(f, "potion-of-speed")


def test_battle_with_items_pickles():
    f = kit("fighter", ["longsword-plus-1", "potion-of-healing-common", "wand-of-magic-missiles"])
    b = arena(f, mon("goblin", (5, 2)), first="fighter")
    b2 = pickle.loads(pickle.dumps(b))
    assert b2.creatures["fighter"].resources["items"] == f.resources["items"]
    assert [o.label for o in b2.decision.options] == [o.label for o in b.decision.options]


def _encounter(**party_extra):
    return {"name": "T", "family": "duel", "round_limit": 5, "map": {"layout": ["#####", "#...#", "#####"]},
            "objective": {"type": "defeat"},
            "party": [{"id": "f", "archetype": "fighter", "level": 1, "at": [1, 1], **party_extra}],
            "enemies": [{"id": "g", "monster": "goblin", "at": [3, 1]}]}


def test_scenario_items_field():
    s = parse_encounter(_encounter(items=["longsword-plus-1", "potion-of-healing-common*2"]))
    f = s.build(0).creatures["f"]
    assert f.attack("longsword-plus-1").to_hit == 6 and items.count(f, "potion-of-healing-common") == 2
    with pytest.raises(FileFormatError, match="items"):
        parse_encounter(_encounter(items=["longsword-plus-9"]))
    with pytest.raises(FileFormatError, match="not yet"):
        parse_encounter(_encounter(items=["wand-of-web"]))
    with pytest.raises(FileFormatError, match="items"):
        parse_encounter(_encounter(items="potion"))


def test_scenario_underwater_field():
    data = _encounter()
    assert parse_encounter(data).build(0).underwater is False
    data["underwater"] = True
    assert parse_encounter(data).build(0).underwater is True
    data["underwater"] = "yes"
    with pytest.raises(FileFormatError, match="underwater"):
        parse_encounter(data)


# ---------------------------------------------------------------- underwater combat
def test_underwater_melee_disadvantage_except_stabbing_weapons_and_swimmers():
    f = kit("fighter", [])
    r = pc("rogue", 1, (2, 3))
    g = mon("goblin", (3, 2))
    shark = mon("reef-shark", (1, 2))
    b = arena(f, r, g, shark, first="fighter")
    b.underwater = True
    assert b.attack_modifiers(f, g, True, f.attack("longsword"))[1]          # longsword: disadvantage
    assert not b.attack_modifiers(r, g, True, r.attack("shortsword"))[1]     # shortsword: none
    assert not b.attack_modifiers(shark, f, True, shark.attack("bite"))[1]   # a swimmer: none
    assert b.attack_modifiers(g, f, True, g.attack("scimitar"))[1]           # a goblin's scimitar
    b.underwater = False
    assert not b.attack_modifiers(f, g, True, f.attack("longsword"))[1]


def test_underwater_ranged_attacks():
    r = kit("rogue", ["crossbow-light"])
    g = mon("ogre", (12, 2))   # 50 ft: inside the shortbow's long range only... and the crossbow's normal range
    b = arena(r, g, layout=WIDE, first="rogue")
    bow, xbow = r.attack("shortbow"), r.attack("crossbow-light")
    b.underwater = True
    assert b.attack_range(r, bow, g) == "ranged"   # 50 ft < 80 ft normal range
    assert "underwater ranged" in b.attack_modifiers(r, g, False, bow)[2]
    assert "underwater ranged" not in b.attack_modifiers(r, g, False, xbow)[2]
    r.attacks = tuple(a._replace(range_normal=40) if a.key == "shortbow" else a for a in r.attacks)
    assert b.attack_range(r, r.attack("shortbow"), g) is None   # beyond normal range: it cannot hit
    b.underwater = False
    assert b.attack_range(r, r.attack("shortbow"), g) == "ranged"


def test_underwater_fire_resistance_does_not_stack():
    f = kit("fighter", ["ring-of-resistance-fire"])
    w = pc("wizard", 1, (2, 4))
    b = arena(f, w, mon("goblin", (7, 6)), first="fighter")
    b.underwater = True
    assert b.damage(w, 10, "fire") == 5 and b.damage(f, 10, "fire") == 5 and b.damage(w, 6, "cold") == 6


def test_random_play_with_a_full_kit_finishes():
    """Every item option a random player picks must run (scrolls, wands, potions, follow-ups)."""
    import numpy as np
    for seed in range(3):
        w = kit("wizard", ["spell-scroll-fireball", "wand-of-magic-missiles", "potion-of-speed",
                           "staff-of-fire", "potion-of-healing-common*2"], level=5, cid="w")
        c = kit("cleric", ["spell-scroll-spiritual-weapon", "staff-of-healing", "spell-scroll-bless",
                           "mace-plus-1"], level=5, at=(2, 4), cid="c")
        f = kit("fighter", ["wand-of-paralysis", "wand-of-binding", "potion-of-invisibility",
                            "longsword-plus-2", "potion-of-heroism"], level=5, at=(3, 3), cid="f")
        b = arena(w, c, f, mon("bandit-captain", (8, 5), "bc"), mon("ogre", (9, 2), "og"), layout=WIDE)
        rng = np.random.default_rng(seed)
        for _ in range(3000):
            if b.decision is None:
                break
            b.choose(int(rng.integers(len(b.decision.options))))
        assert b.decision is None
        assert all("item_cast" not in x.resources or b.outcome for x in (w, c, f))


# ---------------------------------------------------------------- mounted combat
def _riders():
    from dungeonbench_gym.dnd.builders.monsters import monster_combatant
    f = pc("fighter", 1, (2, 2))
    h = monster_combatant("warhorse", "horse", "party", (3, 2, 0))
    dog = monster_combatant("mastiff", "dog", "party", (2, 3, 0))
    g = mon("goblin", (12, 8))
    return f, h, dog, g


def test_mounting_costs_half_speed_and_moves_the_mount_to_the_riders_initiative():
    f, h, dog, g = _riders()
    b = arena(f, h, dog, g, layout=WIDE, first="fighter")
    mounts = [o.data for o in b.decision.options if o.kind == "item" and o.data[0] == "mount"]
    assert mounts == [("mount", "horse")]   # a Medium mastiff is too small to carry a Medium rider
    pick(b, "item", "Mount horse")
    assert (f.pos, f.economy.movement) == (h.pos, 15)
    assert b.order.index("horse") == b.order.index("fighter") + 1
    assert "move" not in [o.kind for o in b.decision.options]                 # it rides, it does not walk
    assert not any(o.kind == "item" and o.data[0] == "dismount" for o in b.decision.options)   # once a move


def test_controlled_mount_moves_dashes_disengages_or_dodges_and_carries_its_rider():
    f, h, dog, g = _riders()
    b = arena(f, h, dog, g, layout=WIDE, first="fighter")
    pick(b, "item", "Mount horse")
    pick(b, "end_turn")
    assert b.decision.actor == "horse"
    assert {o.kind for o in b.decision.options} == {"move", "dash", "disengage", "dodge", "end_turn"}
    pick(b, "move")
    while b.decision.kind != "destination":
        b.choose(0)
    pick(b, "destination")
    while b.decision.kind == "route":
        b.choose(0)
    assert f.pos == h.pos != (3, 2, 0)


def test_dismount_lands_next_to_the_mount():
    f, h, dog, g = _riders()
    b = arena(f, h, dog, g, layout=WIDE, first="fighter")
    pick(b, "item", "Mount horse")
    turn(b, "fighter")
    pick(b, "item", "Dismount (costs 15 ft)")
    assert "mounted" not in f.conditions and "ridden" not in h.conditions and f.economy.movement == 15
    assert f.pos == (3, 1, 0) and not set(f.cells) & set(h.cells) and b.distance(f, h) == 5


def test_a_fallen_mount_throws_its_rider_prone():
    f, h, dog, g = _riders()
    b = arena(f, h, dog, g, layout=WIDE, first="fighter")
    pick(b, "item", "Mount horse")
    b.damage(h, 100, "slashing")
    turn(b, "fighter")
    assert "Stand up (costs 15 ft)" in labels(b)   # its menu: thrown off, on the ground
    assert "mounted" not in f.conditions and "prone" in f.conditions
    assert any(e.get("event") == "dismount" for e in b.log)


def test_rider_and_mount_give_each_other_no_cover():
    from dungeonbench_gym.dnd.grid import Cover
    f, h, dog, g = _riders()
    g.pos = (5, 2, 0)   # next to the horse's 2x2 space
    b = arena(f, h, dog, g, layout=WIDE, first="fighter")
    pick(b, "item", "Mount horse")
    assert b.cover(g, f) == Cover.NONE and b.cover(f, g) == Cover.NONE


@pytest.mark.parametrize("roll,thrown", [(8, True), (9, False)])
def test_a_rider_knocked_prone_saves_or_falls(roll, thrown):
    f, h, dog, g = _riders()
    b = arena(f, h, dog, g, layout=WIDE, first="fighter")
    pick(b, "item", "Mount horse")
    f.conditions["prone"] = {}
    turn(b, "fighter")
    script(b, roll)   # Dex save d20 + 1 against DC 10: 8 + 1 fails, 9 + 1 passes
    assert b.decision.actor == "fighter"   # its menu opens: the save is made
    assert ("mounted" not in f.conditions) is thrown and ("prone" in f.conditions) is thrown
