"""The encounter track's pressures happen through the engine, and a regression found while
balancing the Haunted Chapel (a frightened hero was offered Move with no square to move to).
The wave-2 encounters (countering a caster, gazes, underwater, a legendary boss) and days below."""

import tomllib
from dungeonbench_gym.dnd.builders.monsters import monster_combatant
from pathlib import Path

import pytest
from dnd_helpers import arena, fighter, kinds, script, turn

from dungeonbench_gym.dnd import heuristic, spell_counter
from dungeonbench_gym.dnd.day import DayRun, load_day
from dungeonbench_gym.dnd.grid import Cover
from dungeonbench_gym.dnd.scenario import load_encounter

CORRIDOR = ["#####", "#...#", "#####"]


def test_frightened_hero_with_every_square_closer_to_the_source_is_not_offered_move():
    # SRD Frightened: it can't willingly move closer to the source of its fear. At the dead end of
    # a corridor, the only free square is closer to the goblin, so there is nowhere to move.
    f = fighter(at=(1, 1))
    g = monster_combatant("goblin", "goblin", "enemies", (3, 1, 0))
    b = arena(f, g, layout=CORRIDOR)
    f.conditions["frightened"] = {"by": "goblin"}
    turn(b, "fighter")
    assert "move" not in kinds(b)
    del f.conditions["frightened"]   # without the fear the square next to the goblin is open
    b.forget_options()
    assert "move" in kinds(b)


def _events(name, seeds):
    s = load_encounter(name)
    out = []
    for seed in seeds:
        b = s.build(seed)
        while b.outcome is None:
            assert b.decision.options, (name, seed, b.pending)
            b.choose(heuristic.choose(b))
        out += b.log
    return out


def test_serpent_pit_snakes_grapple_and_restrain():
    texts = [e.get("text") or "" for e in _events("serpent_pit", [0, 1])]
    assert any("grappled" in t for t in texts)


def test_mouther_grotto_spittle_blinds():
    texts = [e.get("text") or "" for e in _events("mouther_grotto", [0, 1])]
    assert any("Blinding Spittle" in t for t in texts) and any("is blinded" in t for t in texts)


def test_wight_barrow_cursed_ground_bites():
    assert any(e.get("event") == "hazard" for e in _events("wight_barrow", [0, 1]))


# ================================================================== wave 2: four new pressures
# The wave-2 encounters put the rule they are about on their real maps (issue 4): an enemy mage
# that counters spells, gazes blocked only by total cover, underwater combat, and a legendary
# boss that only magic hurts. Each test builds the scenario file itself.
ROOT = Path(__file__).resolve().parents[1]
NEW = {"cult_sanctum": "CultSanctum", "medusa_gallery": "MedusaGallery", "sunken_shrine": "SunkenShrine",
       "mummy_lord_tomb": "MummyLordTomb"}
DAYS = {"sunken_temple": "SunkenTemple", "gorgon_road": "GorgonRoad"}


def _ids(toml_name: str) -> dict:
    data = tomllib.loads((ROOT / "envs" / toml_name).read_text())
    return {e["id"]: e["kwargs"] for e in data["envs"]}


def test_new_encounters_and_days_are_registered():
    enc, day = _ids("dnd.toml"), _ids("dnd_day.toml")
    for key, name in NEW.items():
        assert enc[f"DnD-Encounter-{name}-v0"] == {"scenario": key}
    for key, name in DAYS.items():
        assert day[f"DnD-Day-{name}-v0"] == {"day": key}


# ------------------------------------------------------------------ countering an enemy caster
def test_cult_sanctum_mage_counters_only_within_60_ft_in_sight():
    b = load_encounter("cult_sanctum").build(0)
    mage, wizard = b.creatures["mage"], b.creatures["wizard"]
    assert "counterspell" in mage.spells and mage.resources["slots"][2] == 3   # three 3rd-level slots
    # the party starts beyond the mage's 60 ft: its first spells cannot be countered
    for c in b.creatures.values():
        if c.side == "party":
            assert b.distance(mage, c) > spell_counter.RANGE_FT
            assert not spell_counter.can_counter(b, mage, c)
    wizard.pos = (5, 4, 0)                                   # 55 ft, open floor between them
    assert b.distance(mage, wizard) == 55 and spell_counter.can_counter(b, mage, wizard)
    mage.economy.reaction = False                            # its reaction spent: no second counter
    assert not spell_counter.can_counter(b, mage, wizard)


def test_cult_sanctum_counterspell_decision_opens_when_the_wizard_casts_in_range():
    b = load_encounter("cult_sanctum").build(0)
    wizard = b.creatures["wizard"]
    wizard.pos = (5, 4, 0)
    turn(b, "wizard")
    assert spell_counter.offer(b, wizard, "fireball", 3)
    assert b.pending["kind"] == "reaction" and b.pending["actor"] == "mage"
    counters = [o for o in b.decision.options if o.data[0] is True]
    assert sorted(o.data[1] for o in counters) == [3, 4, 5]   # one option per slot level it still has


# ------------------------------------------------------------------ gaze: cover over damage
def test_medusa_gallery_party_starts_outside_both_gazes():
    b = load_encounter("medusa_gallery").build(0)
    for gazer in ("medusa", "basilisk"):
        g = b.creatures[gazer]
        assert g.resources["gaze"]["radius"] == 30
        assert all(b.distance(g, c) > 30 for c in b.creatures.values() if c.side == "party")


def test_medusa_gallery_wall_stub_blocks_the_basilisk_gaze_the_open_floor_does_not():
    b = load_encounter("medusa_gallery").build(0)
    bas, f = b.creatures["basilisk"], b.creatures["fighter"]
    f.pos = (11, 6, 0)                                      # 15 ft away, behind the stubs at x = 12
    assert b.distance(bas, f) == 15 and b.cover(bas, f) == Cover.TOTAL
    turn(b, "fighter")                                      # no save rolled (none scripted)
    assert "restrained" not in f.conditions
    b = load_encounter("medusa_gallery").build(0)
    bas, f = b.creatures["basilisk"], b.creatures["fighter"]
    f.pos = (11, 4, 0)                                      # 15 ft away in the open
    assert b.distance(bas, f) == 15 and b.cover(bas, f) == Cover.NONE
    script(b, 2)                                            # Con save 2 + 5 = 7 < DC 12
    turn(b, "fighter")
    assert f.conditions["restrained"]["petrify"]


# ------------------------------------------------------------------ underwater
def test_sunken_shrine_is_fought_under_water():
    b = load_encounter("sunken_shrine").build(0)
    assert b.underwater
    f, r, merrow, sahuagin = (b.creatures[k] for k in ("fighter", "rogue", "merrow_1", "sahuagin_1"))
    # SRD: no swimming speed -> disadvantage with a longsword, not with a shortsword
    assert "underwater melee" in b.attack_modifiers(f, merrow, True, f.attack("longsword"))[2]
    assert "underwater melee" not in b.attack_modifiers(r, merrow, True, r.attack("shortsword"))[2]
    # a swimmer's claws are fine; fire is resisted by anything fully immersed
    assert "underwater melee" not in b.attack_modifiers(sahuagin, f, True, sahuagin.attack("claws"))[2]
    assert b.damage(sahuagin, 10, "fire") == 5 and b.damage(sahuagin, 10, "cold") == 10


def test_sunken_shrine_water_costs_the_party_double_movement():
    b = load_encounter("sunken_shrine").build(0)
    f = b.creatures["fighter"]
    assert b.map.is_water(*f.pos[:2])
    x0 = f.pos[0]
    wading = b.map.reachable(f.pos, f.size, 30)                 # no swimming speed: 5 ft more a square
    swimming = b.map.reachable(f.pos, f.size, 30, swim_speed=30)
    assert max(p[0] for p in wading) - x0 == 3                  # 30 ft of movement, 15 ft of water
    assert max(p[0] for p in swimming) - x0 == 6


# ------------------------------------------------------------------ lair tempo: legendary boss
def test_mummy_lord_tomb_only_magic_weapons_hurt_the_lord():
    b = load_encounter("mummy_lord_tomb").build(0)
    lord, barb = b.creatures["mummy_lord"], b.creatures["barbarian"]
    assert lord.resources["legendary_left"] == 3
    magic, plain = barb.attack("greataxe-plus-1"), barb.attack("handaxe")
    assert magic.spell and not plain.spell                   # the +1 axe counts as magical
    assert b.damage(lord, 10, "slashing", magical=plain.spell) == 0
    assert b.damage(lord, 10, "slashing", magical=magic.spell) == 10
    assert b.damage(b.creatures["mummy_1"], 10, "fire") == 20   # why no fire caster is in the party
    assert not any(c.pc_class in ("wizard", "sorcerer", "warlock") for c in b.creatures.values()
                   if c.side == "party")


# ------------------------------------------------------------------ the two days
@pytest.mark.parametrize("key", sorted(DAYS))
def test_new_days_place_every_member_in_every_fight(key):
    day = load_day(key)
    assert 3 <= len(day.stages) <= 5 and 1 <= day.short_rests <= 2
    members = {p["id"] for p in day.party}
    run = DayRun(day, 0)
    assert set(run.party) == members
    assert {c.cid for c in run.battle.creatures.values() if c.side == "party"} == members
    for stage in day.stages:
        placed = {p["id"] for p in stage.scenario.party} | set(stage.place)
        assert members <= placed, (stage.scenario.key, members - placed)
