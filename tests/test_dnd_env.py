"""The D&D encounter track: scenarios as data, replay, executable options, the Gym adapter."""

import pickle
import random

import numpy as np
import pytest

import dungeonbench_gym
from dungeonbench_gym.core.errors import FileFormatError
from dungeonbench_gym.dnd import heuristic
from dungeonbench_gym.dnd.scenario import (
    encounter_names,
    load_encounter,
    parse_encounter,
)
from dungeonbench_gym.games.dnd.env import N_OPTIONS, DnDEncounterEnv

SCENARIOS = encounter_names()


def play(battle, party_policy, rng=None):
    """Play to the end: the party by `party_policy` ("heuristic" or "random"), enemies by the heuristic."""
    choices = []
    while battle.outcome is None:
        d = battle.decision
        if party_policy == "random" and battle.creatures[d.actor].side == battle.party_side:
            i = rng.randrange(len(d.options))
        else:
            i = heuristic.choose(battle)
        choices.append(i)
        battle.choose(i)
    return choices


def test_scenarios_cover_the_families_and_objectives():
    assert len(SCENARIOS) >= 8
    families = {load_encounter(n).family for n in SCENARIOS}
    assert {"duel", "objective", "boss"} <= families
    assert {load_encounter(n).objective["type"] for n in SCENARIOS} == {"defeat", "reach", "survive", "protect", "interact", "hold"}


@pytest.mark.parametrize("name", SCENARIOS)
def test_replay_from_seed_and_choices_reproduces_the_event_log(name):
    s = load_encounter(name)
    b1 = s.build(seed=7)
    choices = play(b1, "random", random.Random(3))
    b2 = s.build(seed=7)
    for i in choices:
        b2.choose(i)
    assert b2.log == b1.log and b2.outcome == b1.outcome
    assert any("rolls" in e for e in b1.log)   # the rolls themselves are in the log


@pytest.mark.parametrize("name", SCENARIOS)
def test_random_walk_over_all_options_never_raises(name):
    """Every listed option is executable: random choices for both sides, many seeds."""
    s = load_encounter(name)
    rng = random.Random(0)
    for seed in range(8):
        b = s.build(seed)
        steps = 0
        while b.outcome is None:
            d = b.decision
            assert 1 <= len(d.options) <= N_OPTIONS
            b.choose(rng.randrange(len(d.options)))
            steps += 1
            assert steps < 5000
        assert b.outcome in ("win", "loss")


@pytest.mark.parametrize("name", SCENARIOS)
def test_heuristic_party_wins_some_seed_and_random_party_not_always(name):
    s = load_encounter(name)
    heuristic_wins = sum(_outcome(s, seed, "heuristic") == "win" for seed in range(6))
    random_wins = sum(_outcome(s, seed, "random") == "win" for seed in range(6))
    assert heuristic_wins >= 1
    assert random_wins < 6


def _outcome(s, seed, policy):
    b = s.build(seed)
    play(b, policy, random.Random(seed))
    return b.outcome


@pytest.mark.parametrize("name", SCENARIOS)
def test_tiny_option_budget_random_walk(name):
    """With N = 5 every big decision is split, several levels deep; all still executes."""
    s = load_encounter(name)
    rng = random.Random(5)
    for seed in range(3):
        b = s.build(seed, max_options=5)
        while b.outcome is None:
            assert 1 <= len(b.decision.options) <= 5
            b.choose(rng.randrange(len(b.decision.options)))


def test_small_option_budget_splits_decisions_and_still_finishes():
    s = load_encounter("ogre_bridge")
    rng = random.Random(1)
    b = s.build(seed=2, max_options=6)
    saw_group = False
    while b.outcome is None:
        d = b.decision
        assert len(d.options) <= 6
        saw_group |= d.kind == "group"
        b.choose(rng.randrange(len(d.options)))
    assert saw_group


# ----------------------------------------------------------------- malformed scenarios
GOOD = {
    "name": "T", "family": "duel", "round_limit": 5,
    "map": {"layout": ["#####", "#...#", "#...#", "#####"]},
    "objective": {"type": "defeat"},
    "party": [{"id": "f", "archetype": "fighter", "level": 1, "at": [1, 1]}],
    "enemies": [{"id": "g", "monster": "goblin", "at": [3, 2]}],
}


def _bad(**changes):
    import copy
    d = copy.deepcopy(GOOD)
    for k, v in changes.items():
        if v is None:
            d.pop(k)
        else:
            d[k] = v
    return d


def test_good_scenario_parses():
    s = parse_encounter(GOOD, "t.toml")
    assert s.build(0).decision is not None and s.seeds == (0, 1, 2)


def test_two_scenarios_under_one_path_keep_their_own_maps():
    """Maps are shared per scenario file; a second scenario read under the same name with another
    map (an edited file, an in-memory test scenario) must not get the first one's map."""
    small = parse_encounter(GOOD, "same.toml").build(0)
    wide = parse_encounter(_bad(map={"layout": ["#######", "#.....#", "#.....#", "#######"]}), "same.toml").build(0)
    assert (small.map.width, wide.map.width) == (5, 7)
    assert parse_encounter(GOOD, "same.toml").build(0).map.width == 5


@pytest.mark.parametrize("changes,field,says", [
    ({"round_limit": None}, "round_limit", "missing"),
    ({"round_limit": 0}, "round_limit", "not positive"),
    ({"family": "raid"}, "family", "not a scenario family"),
    ({"map": {"layout": ["#####", "#..#"]}}, "map", "columns"),
    ({"map": {"layout": ["#####", "#.X.#", "#####"]}}, "map", "unknown legend character"),
    ({"objective": {"type": "win"}}, "objective.type", "not an objective"),
    ({"objective": {"type": "reach", "cells": [[0, 0]]}}, "objective.cells", "not a passable square"),
    ({"objective": {"type": "protect", "creature": "g"}}, "objective.creature", "not a party member"),
    ({"objective": {"type": "hold", "cells": [[1, 1]]}}, "objective.rounds", "is missing"),
    ({"objective": {"type": "hold", "cells": [[1, 1]], "rounds": 9}}, "objective.rounds", "between 1 and round_limit"),
    ({"objective": {"type": "hold", "cells": [[1, 1]], "rounds": "3"}}, "objective.rounds", "whole number"),
    ({"objective": {"type": "hold", "cells": [], "rounds": 2}}, "objective.cells", "is empty"),
    ({"objective": {"type": "hold", "cells": [[0, 0]], "rounds": 2}}, "objective.cells", "not a passable square"),
    ({"enemies": [{"id": "g", "monster": "gobln", "at": [3, 2]}]}, "enemies[0].monster", "goblin"),
    ({"enemies": [{"id": "g", "monster": "goblin", "at": [1, 1]}]}, "enemies[0].at", "overlaps"),
    ({"enemies": [{"id": "g", "monster": "goblin", "at": [0, 0]}]}, "enemies[0].at", "does not fit"),
    ({"enemies": [{"id": "f", "monster": "goblin", "at": [3, 2]}]}, "enemies[0].id", "used twice"),
    ({"party": [{"id": "f", "archetype": "necromancer", "level": 1, "at": [1, 1]}]}, "party[0].archetype",
     "necromancer"),
    ({"party": [{"id": "f", "archetype": "fighter", "level": 21, "at": [1, 1]}]}, "party[0].level", "out of range"),
    ({"party": []}, "party", "empty"),
    ({"ambush": True}, "ambush", "not a known field"),
    ({"surprise": True}, "surprise", "must be a table"),
    ({"surprise": {"surprised": ["nobody"]}}, "surprise.surprised", "no combatant of this encounter"),
    ({"surprise": {"hiding": "monsters"}}, "surprise.hiding", "monsters"),
    ({"seeds": [1, -2]}, "seeds", "not a list of seeds"),
])
def test_malformed_scenarios_name_the_file_field_and_fix(changes, field, says):
    with pytest.raises(FileFormatError) as err:
        parse_encounter(_bad(**changes), "bad.toml")
    e = err.value
    assert e.path == "bad.toml" and e.field == field and says in str(e) and e.fix


def test_toml_syntax_error_names_the_file(tmp_path):
    p = tmp_path / "broken.toml"
    p.write_text('name = "x\n')
    with pytest.raises(FileFormatError) as err:
        load_encounter(p)
    assert "broken.toml" in str(err.value) and err.value.field == "(syntax)"


def test_unknown_encounter_name_lists_the_known_ones():
    with pytest.raises(FileFormatError, match="goblin_ambush"):
        load_encounter("no_such_fight")


# ----------------------------------------------------------------- the Gym adapter
def test_registered_ids_one_per_scenario():
    ids = [i for i in dungeonbench_gym.ids() if i.startswith("DnD-Encounter-")]
    assert len(ids) == len(SCENARIOS)
    for i in ids:
        assert dungeonbench_gym.REGISTRY[i].actions == N_OPTIONS


@pytest.mark.parametrize("name", SCENARIOS)
def test_env_mask_matches_options_and_metrics(name):
    env = DnDEncounterEnv(name, text=True)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(300):
        legal = np.flatnonzero(obs["action_mask"])
        assert [o.index for o in info["options"]] == legal.tolist()
        assert obs["options"][:, 0].sum() == len(legal)
        assert info["text"]["short_term"].count("\n") == len(legal)
        obs, _r, term, trunc, info = env.step(int(rng.choice(legal)))
        if term or trunc:
            break
    m = info["metrics"]
    for key in ("win", "party_hp_fraction", "survivors", "rounds", "decisions", "options_mean",
                "options_max", "invalid_actions"):
        assert key in m
    assert 0 <= m["party_hp_fraction"] <= 1 and m["options_max"] <= N_OPTIONS


def test_env_only_surfaces_party_decisions():
    env = DnDEncounterEnv("goblin_ambush")
    env.reset(seed=3)
    for _ in range(60):
        d = env.battle.decision
        if d is None:
            break
        assert env.battle.creatures[d.actor].side == "party"
        env.step(0 if d.kind != "action" else len(d.options) - 1)


def test_heuristic_party_through_the_env_wins_with_reward_one():
    env = DnDEncounterEnv("goblin_ambush")
    for seed in range(10):
        env.reset(seed=seed)
        while True:
            _obs, r, term, trunc, info = env.step(heuristic.choose(env.battle))
            if term or trunc:
                break
        if info["success"]:
            assert r == 1.0 and info["progress"] == 1.0 and info["metrics"]["win"] == 1.0
            return
    pytest.fail("the heuristic party never won 10 seeds of goblin_ambush")


def test_pickled_env_continues_identically():
    env = DnDEncounterEnv("wyrmling_lair")
    env.reset(seed=5)
    rng = np.random.default_rng(1)
    for _ in range(15):
        env.step(int(rng.choice(env.legal_actions())))
    twin = pickle.loads(pickle.dumps(env))
    for _ in range(40):
        a = int(rng.choice(env.legal_actions()))
        o1, r1, t1, u1, _i1 = env.step(a)
        o2, r2, t2, _u2, _i2 = twin.step(a)
        assert all(np.array_equal(o1[k], o2[k]) for k in o1) and r1 == r2 and t1 == t2
        if t1 or u1:
            break
    assert env.battle.log == twin.battle.log


def test_ansi_render_draws_the_map_with_a_legend():
    env = DnDEncounterEnv("ogre_bridge", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "F=fighter" in text and "o=ogre" in text and "#=wall" in text
    assert "#" * 18 in text.splitlines()   # the map's first row


def test_state_dict_holds_the_whole_tactical_state():
    env = DnDEncounterEnv("kobold_warren")
    env.reset(seed=0)
    d = env.battle.to_dict()
    assert {"map", "combatants", "initiative", "objective", "decision", "round"} <= set(d)
    assert d["objective"]["type"] == "reach" and len(d["combatants"]) == 8


def test_rgb_render_is_a_top_down_picture():
    env = DnDEncounterEnv("wyrmling_lair", render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    m = env.battle.map
    assert img.shape == (m.height * 16, m.width * 16, 3) and img.dtype == np.uint8
    w = env.battle.creatures["wyrmling"]
    x, y = w.pos[0] * 16 + 8, w.pos[1] * 16 + 8
    assert tuple(img[y, x]) == (200, 50, 50)   # an enemy disc


def test_progress_is_the_win_and_the_heuristic_party_baseline_wins():
    import gymnasium as gym

    from dungeonbench_gym.agents import make_agent

    agent = make_agent("baseline", "dnd")
    env = gym.make("DungeonBench/DnD-Encounter-KoboldWarren-v0")
    wins = 0
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        agent.reset(env, seed)
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
            done = terminated or truncated
            assert info["progress"] in (0.0, 1.0)
            assert 0.0 <= info["metrics"]["objective_progress"] <= 1.0
        wins += info["success"]
        assert info["progress"] == float(info["success"])
    assert wins >= 2
    env.close()


@pytest.mark.parametrize("env_id, words", [
    ("DnD-Encounter-WatchtowerHold-v0", "for 3 rounds in a row (held 0 so far)"),
    ("DnD-Encounter-GateLever-v0", "use the lever at"),
])
def test_the_text_states_every_kind_of_objective(env_id, words):
    import gymnasium as gym

    env = gym.make(f"DungeonBench/{env_id}", text=True)
    _, info = env.reset(seed=0)
    text = info["text"]["long_term"] + info["text"]["short_term"]
    assert words in text and "defeat all enemies" not in text
    env.close()
