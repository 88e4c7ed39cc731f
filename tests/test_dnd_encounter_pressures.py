"""The encounter track's pressures happen through the engine, and a regression found while
balancing the Haunted Chapel (a frightened hero was offered Move with no square to move to)."""

from dnd_helpers import arena, fighter, kinds, turn

from dungeonbench_gym.dnd import heuristic
from dungeonbench_gym.dnd.scenario import load_encounter
from dungeonbench_gym.dnd.state import monster_combatant

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
    b._cache = None
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
