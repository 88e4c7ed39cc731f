"""SRD 5.1 weapon properties on PC attack profiles (model.weapons.weapon_profile) and in the engine:
versatile, heavy, ammunition, loading, reach, two-handed, thrown, finesse."""

from dnd_helpers import arena, labels, mon, pc, pick
from dungeonbench_gym.dnd.builders.pcs import DEFAULT_AMMUNITION
from dungeonbench_gym.dnd.model.archetypes import ARCHETYPES
from dungeonbench_gym.dnd.model.weapons import weapon_profile


STR16 = {"str": 16, "dex": 12, "con": 15, "int": 10, "wis": 12, "cha": 8}   # Str +3, Dex +1
DEX16 = {"str": 10, "dex": 16, "con": 14, "int": 12, "wis": 12, "cha": 10}  # Str +0, Dex +3


def prof(key, abilities=STR16, style=None, **kw):
    return {a.key: a for a in weapon_profile(key, abilities, 2, True, style, **kw)}


def dice(a):
    return [p.dice for p in a.damage]


# ----------------------------------------------------------------- versatile
def test_versatile_longsword_uses_1d10_with_the_off_hand_free():
    assert dice(prof("longsword", off_hand_free=True)["longsword"]) == ["1d10+3"]
    assert dice(prof("longsword")["longsword"]) == ["1d8+3"]          # a shield in the other hand
    assert dice(prof("quarterstaff", off_hand_free=True)["quarterstaff"]) == ["1d8+3"]   # 1d6 (1d8)


def test_versatile_not_with_a_shield_or_two_weapons_and_dueling_keeps_one_hand():
    assert dice(pc("fighter", 1, (1, 1)).attack("longsword")) == ["1d8+3"]   # the fighter carries a shield
    # Dueling (+2 one-handed, SRD) is the better grip than 1d10: it stays one-handed
    assert dice(prof("longsword", style="dueling", off_hand_free=True)["longsword"]) == ["1d8+5"]
    # a non-versatile weapon ignores the free hand
    assert dice(prof("mace", off_hand_free=True)["mace"]) == ["1d6+3"]


def test_build_pc_gives_a_shieldless_single_weapon_pc_the_two_handed_die(monkeypatch):
    arch = dict(ARCHETYPES["fighter"], shield=False)
    monkeypatch.setitem(ARCHETYPES, "fighter_2h", arch)
    c = pc("fighter_2h", 1, (1, 1))
    assert dice(c.attack("longsword")) == ["1d10+3"] and c.ac == 16 + 1   # chain mail + Defense, no shield
    # the rogue fights with two light blades: its off hand is not free (no versatile grip anyway)
    assert dice(pc("rogue", 1, (1, 1)).attack("shortsword")) == ["1d6+3"]


# ----------------------------------------------------------------- heavy
def test_heavy_weapon_gives_a_small_attacker_disadvantage():
    f, g = pc("fighter", 1, (2, 2)), mon("ogre", (3, 2))
    b = arena(f, g, first="fighter")
    great = prof("greatsword")["greatsword"]
    assert great.heavy and not prof("longsword")["longsword"].heavy
    _, dis, _ = b.attack_modifiers(f, g, True, great)
    assert not dis                                      # Medium: no penalty
    f.size = "small"
    _, dis, reasons = b.attack_modifiers(f, g, True, great)
    assert dis and "heavy weapon, Small attacker" in reasons
    _, dis, _ = b.attack_modifiers(f, g, True, prof("longsword")["longsword"])
    assert not dis                                      # a Small creature with a non-heavy weapon


# ----------------------------------------------------------------- ammunition
def test_ammunition_is_counted_per_weapon_and_spent_per_attack():
    r, o = pc("rogue", 1, (1, 1)), mon("ogre", (8, 6))
    assert r.attack("shortbow").ammo == "ammo_shortbow" and r.resources["ammo_shortbow"] == DEFAULT_AMMUNITION == 20
    assert not r.attack("dagger").ammo and "ammo_dagger" not in r.resources   # thrown, not ammunition
    b = arena(r, o, first="rogue")
    pick(b, "attack", "Shortbow")
    pick(b, "target", "ogre")
    assert r.resources["ammo_shortbow"] == 19


def test_no_ammunition_left_no_attack_with_that_weapon():
    r, o = pc("rogue", 1, (1, 1)), mon("ogre", (8, 6))
    r.resources["ammo_shortbow"] = 0
    b = arena(r, o, first="rogue")
    assert not any("Shortbow" in s for s in labels(b, "attack"))
    assert any("Dagger (thrown)" in s for s in labels(b, "attack"))   # 30/120 ft: long range


# ----------------------------------------------------------------- loading
def _crossbow_fighter():
    f = pc("fighter", 5, (1, 1))   # Extra Attack, Action Surge
    f.attacks = f.attacks + tuple(weapon_profile("crossbow-light", f.abilities, f.prof, True, None))
    f.resources["ammo_crossbow-light"] = 20
    return f


def test_loading_one_shot_per_action_even_with_extra_attack():
    f, o = _crossbow_fighter(), mon("ogre", (8, 6))
    assert f.attack("crossbow-light").loading and f.attack("crossbow-light").ammo == "ammo_crossbow-light"
    b = arena(f, o, first="fighter")
    pick(b, "attack", "Crossbow, light")
    pick(b, "target", "ogre")
    assert f.economy.attacks_left == 1 and f.resources["ammo_crossbow-light"] == 19
    attacks = labels(b, "attack")
    assert not any("Crossbow" in s for s in attacks)     # the second attack: not with the crossbow
    assert any("Javelin (thrown)" in s for s in attacks)  # another weapon may make it
    pick(b, "attack", "Javelin (thrown)")
    pick(b, "target", "ogre")
    pick(b, "action_surge")                               # a new action: one more crossbow shot
    assert any("Crossbow, light" in s for s in labels(b, "attack"))


def test_a_weapon_without_loading_attacks_twice_with_extra_attack():
    f, o = pc("fighter", 5, (1, 1)), mon("ogre", (8, 6))
    b = arena(f, o, first="fighter")
    pick(b, "attack", "Javelin (thrown)")
    pick(b, "target", "ogre")
    assert any("Javelin (thrown)" in s for s in labels(b, "attack"))


# ----------------------------------------------------------------- reach, two-handed, thrown, finesse
def test_reach_weapon_reaches_10_ft_others_5():
    assert prof("glaive")["glaive"].reach == 10 and prof("longsword")["longsword"].reach == 5


def test_two_handed_weapon_gets_no_dueling_bonus():
    assert dice(prof("greatsword", style="dueling")["greatsword"]) == ["2d6+3"]
    assert dice(prof("longsword", style="dueling")["longsword"]) == ["1d8+5"]


def test_thrown_weapon_keeps_its_melee_ability_and_range():
    j = prof("javelin")["javelin-thrown"]
    assert (j.melee, j.range_normal, j.range_long, j.to_hit, dice(j)) == (False, 30, 120, 5, ["1d6+3"])
    d = prof("dagger", DEX16)["dagger-thrown"]   # finesse + thrown: Dex
    assert (d.range_normal, d.range_long, d.to_hit, dice(d)) == (20, 60, 5, ["1d4+3"])


def test_finesse_uses_the_better_of_str_and_dex():
    assert prof("rapier", DEX16)["rapier"].to_hit == 5 and dice(prof("rapier", DEX16)["rapier"]) == ["1d8+3"]
    assert prof("rapier", STR16)["rapier"].to_hit == 5   # Str +3 beats Dex +1
    assert prof("longsword", DEX16)["longsword"].to_hit == 2   # not finesse: Str +0
