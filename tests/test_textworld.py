"""TextWorld family: offline generation, admissible-command options, the walkthrough
oracle, copies mid-episode, and the conformance checks on the three ids.

Generating a Treasure Hunter game takes about a minute, so the tests use a pool of
one game per task (DUNGEONBENCH_TEXTWORLD_POOL=1), made once per session in the
session's fresh cache (conftest.py), and the generation test makes the fastest
task's game a second time in its own empty cache.
"""

from __future__ import annotations

import copy
import filecmp
import json
import os
import pickle
import re

import numpy as np
import pytest

pytest.importorskip("textworld")

import gymnasium as gym

from dungeonbench_gym.core.conformance import check_all, env_factory
from dungeonbench_gym.games.textworld import env as twenv
from dungeonbench_gym.games.textworld import games
from dungeonbench_gym.games.textworld.agent import WalkthroughAgent
from dungeonbench_gym.games.textworld.env import N_SLOTS, TextWorldEnv, select_slots

IDS = {"treasure_hunter": "TextWorld-TreasureHunter-v0", "cooking": "TextWorld-Cooking-v0",
       "coin_collector": "TextWorld-CoinCollector-v0"}


@pytest.fixture(scope="session")
def pool():
    """Game 0 of each task, in the session cache, with a pool of one game."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(games.POOL_ENV_VAR, "1")
        made = {task: games.game(task, 0) for task in games.TASKS}
        yield made


def _play_walkthrough(env, seed=0):
    agent = WalkthroughAgent()
    agent.reset(env, seed)
    obs, info = env.reset(seed=seed)
    infos = [info]
    while True:
        obs, _, term, trunc, info = env.step(agent.act(obs, info))
        infos.append(info)
        if term or trunc:
            return infos


# ----------------------------------------------------------------- generation
def test_generation_is_deterministic(pool, tmp_path, monkeypatch):
    """The same pool index gives byte-identical files from an empty cache."""
    first = pool["coin_collector"]
    monkeypatch.setenv("DUNGEONBENCH_CACHE_DIR", str(tmp_path))
    again = games.game("coin_collector", 0)
    assert again.path != first.path and again.path.startswith(str(tmp_path))
    assert (again.seed, again.walkthrough, again.max_score) == \
        (first.seed, first.walkthrough, first.max_score)
    assert filecmp.cmp(first.path, again.path, shallow=False)          # the .z8
    assert filecmp.cmp(first.json_path, again.json_path, shallow=False)
    assert games.game("coin_collector", 0) == again                    # cached now
    assert not [p for p in os.listdir(os.path.dirname(again.path)) if p.endswith(".tmp")]


def test_story_serial_is_the_seed_not_the_compile_date(pool):
    """Inform stamps the compile date as the serial; a pool built across midnight
    would then differ from one built the day before (a CI run once did)."""
    for game_file in pool.values():
        with open(game_file.path, "rb") as story:
            header = story.read(0x40)
        assert header[0x12:0x18] == f"{games.serial_number(game_file.seed) % 1_000_000:06d}".encode()


def test_pool_settings(pool):
    th = pool["treasure_hunter"]
    assert len(th.walkthrough) == games.TREASURE_HUNTER_WALKTHROUGH
    assert th.seed in games.candidate_seeds(0, "treasure_hunter")
    with open(th.path[:-3] + ".meta.json", encoding="utf-8") as handle:
        meta = json.load(handle)
    assert meta["settings"] == {"level": 30} and meta["textworld"].startswith("1.7")
    assert games.game_for_seed("cooking", 12345) == pool["cooking"]   # pool of one
    for game in pool.values():   # TextWorld's winning policy: the oracle's plan
        assert 0 < len(game.policy) <= min(80, len(game.walkthrough))
    with pytest.raises(ValueError):
        games.check_task("zork")


# BALROG's first game of each task, as its files in intelligent-go-explore's
# textworld/tw_games record them (the order BALROG registers them in)
BALROG_FIRST = {
    "coin_collector": ("level_220_seed_100", "Your objective is to pick up the coin from the floor "
                       "of the kitchenette.", ["go south", "go west", "go west", "go north",
                       "go west", "go north", "go north", "go north", "go west", "go south",
                       "go south", "go east", "go east", "go north", "go west", "go north",
                       "go east", "go east", "go north", "take coin"]),
    "treasure_hunter": ("seed_10033", "Your objective is to pick up the key from the safe.",
                        ["go east", "take keycard from table", "unlock hatch with keycard",
                         "open hatch", "go east", "open box",
                         "take Henderson's limited edition latchkey from box",
                         "unlock Henderson's limited edition hatch with Henderson's limited "
                         "edition latchkey", "open Henderson's limited edition hatch",
                         "go east", "go south", "open portal", "go east", "open gateway",
                         "go south", "go west", "go south", "go west", "open safe",
                         "take key from safe"]),
    "cooking": ("cooking_item5_seed_10980", "You are hungry! Let's cook a delicious meal. Check "
                "the cookbook in the kitchen for the recipe. Once done, enjoy your meal!",
                ["inventory", "go north", "examine cookbook", "go east",
                 "open sliding patio door", "go north", "go north", "take orange bell pepper"]),
}


def test_the_pool_opens_with_balrogs_own_games(pool):
    """Game 0 is BALROG's game 0, made again from the seeds it records: its name,
    objective and walkthrough are those of BALROG's file."""
    for task, (name, objective, walkthrough) in BALROG_FIRST.items():
        game = pool[task]
        assert game.name == name and isinstance(game.seed, dict)
        assert list(game.walkthrough[:len(walkthrough)]) == walkthrough
        with open(game.json_path, encoding="utf-8") as handle:
            data = json.load(handle)
        assert data["objective"] == objective
    assert len(pool["cooking"].walkthrough) == 65
    assert all(len(games.BALROG_GAMES[t]) == 25 for t in games.TASKS)
    # past BALROG's 25 the pool goes on with our own seeds
    assert list(games.candidate_seeds(25, "coin_collector")[:2]) == [25001, 25002]


def test_cooking_oven_has_no_door_as_in_balrogs_games(pool):
    """TextWorld 1.7 made the oven a closed container; BALROG's games (older
    TextWorld) have an open oven, and so do ours."""
    with open(pool["cooking"].json_path, encoding="utf-8") as handle:
        facts = json.load(handle)["world"]
    ovens = [f for f in facts if any(a["type"] == "oven" for a in f["arguments"])]
    assert ovens and not [f for f in ovens if f["name"] in ("closed", "open")]


def test_the_episode_seed_names_the_game(pool, monkeypatch):
    """reset(seed=s) plays game s % pool size, as BALROG's factory does when given
    a seed: with a pool of two, seeds 0, 1, 2 play games 0, 1, 0, and game 1 is
    BALROG's game 1."""
    monkeypatch.setenv(games.POOL_ENV_VAR, "2")
    env = TextWorldEnv("coin_collector")
    played = []
    for seed in (0, 1, 2):
        env.reset(seed=seed)
        played.append((env.game.index, env.game.name))
    env.close()
    names = [entry["name"] for entry in games.BALROG_GAMES["coin_collector"][:2]]
    assert played == [(0, names[0]), (1, names[1]), (0, names[0])]


def test_pool_size_variable(monkeypatch):
    monkeypatch.delenv(games.POOL_ENV_VAR, raising=False)
    assert games.pool_size() == games.POOL_SIZE == 25
    monkeypatch.setenv(games.POOL_ENV_VAR, "3")
    assert games.pool_size() == 3
    monkeypatch.setenv(games.POOL_ENV_VAR, "zero")
    with pytest.raises(ValueError):
        games.pool_size()


# -------------------------------------------------------------------- options
def test_options_are_the_admissible_commands(pool, monkeypatch):
    """Slots hold TextWorld's admissible commands, sorted; the mask marks them."""
    monkeypatch.setenv(games.POOL_ENV_VAR, "1")
    game = pool["cooking"]
    env = TextWorldEnv("cooking")
    raw = twenv.start(game.path)
    obs, info = env.reset(seed=0)
    state = raw.reset()
    agent = WalkthroughAgent()
    agent.reset(env, 0)
    for _ in range(15):
        admissible = sorted(state["admissible_commands"])
        labels = [o.label for o in info["options"]]
        assert labels == admissible
        assert [o.index for o in info["options"]] == list(range(len(labels)))
        assert all(o.kind == "command" for o in info["options"])
        assert np.flatnonzero(obs["action_mask"]).tolist() == list(range(len(labels)))
        assert obs["options"][len(labels):].sum() == 0 and obs["options"][:len(labels)].any(1).all()
        action = agent.act(obs, info)
        obs, _, term, _, info = env.step(action)
        state, _, _ = raw.step(labels[action])
        assert not term
    raw.close()
    env.close()


def test_slot_selection_keeps_the_walkthrough():
    admissible = [f"examine thing {i:03d}" for i in range(100)] + \
                 [f"take thing {i:03d}" for i in range(200)] + ["look", "inventory", "zap"]
    kept = select_slots(admissible, walkthrough=["examine thing 099", "take thing 199"])
    assert len(kept) == N_SLOTS and kept == sorted(kept)
    assert {"examine thing 099", "take thing 199", "look", "inventory"} <= set(kept)
    assert sum(c.startswith("examine") for c in kept) == 1   # examine goes first
    assert "take thing 000" in kept and "zap" not in kept      # then alphabetical
    assert select_slots(["b", "a", "a"]) == ["a", "b"]


def test_fallback_is_look(pool, monkeypatch):
    monkeypatch.setenv(games.POOL_ENV_VAR, "1")
    env = TextWorldEnv("coin_collector", text=True)
    _, info = env.reset(seed=0)
    look = [o.index for o in info["options"] if o.label == "look"]
    assert look and env.fallback_action() == look[0]
    _, _, _, _, info = env.step(N_SLOTS - 1)   # an empty slot
    assert info["invalid_action"] and info["metrics"]["invalid_actions"] == 1
    assert info["text"]["long_term"].startswith("-=")   # the room again
    env.close()


# ---------------------------------------------------------------- the oracle
@pytest.mark.parametrize("task", games.TASKS)
def test_walkthrough_agent_wins(pool, task, monkeypatch):
    monkeypatch.setenv(games.POOL_ENV_VAR, "1")
    env = gym.make(f"dungeonbench_gym:DungeonBench/{IDS[task]}", text=True)
    infos = _play_walkthrough(env)
    last = infos[-1]
    assert last["success"] and last["progress"] == 1.0
    assert last["metrics"]["won"] and last["metrics"]["steps"] <= 80
    assert last["metrics"]["invalid_actions"] == 0
    text = infos[0]["text"]
    assert "$$$$" not in text["long_term"] and text["short_term"].startswith("Objective:")
    assert not re.search(r"=-\d+/\d+$", text["long_term"])   # no status line
    env.close()


def test_progress_rises_with_score(pool, monkeypatch):
    monkeypatch.setenv(games.POOL_ENV_VAR, "1")
    env = TextWorldEnv("cooking", max_steps=80)
    infos = _play_walkthrough(env)
    scores = [i["metrics"]["score"] for i in infos]
    progress = [i["progress"] for i in infos]
    max_score = infos[0]["metrics"]["max_score"]
    assert max_score > 1 and scores[0] == 0 and progress[0] == 0.0
    assert len(set(scores)) > 3                     # several partial scores on the way
    for score, prog in zip(scores, progress):
        assert prog == pytest.approx(score / max_score)
    assert progress == sorted(progress) and progress[-1] == 1.0
    env.close()


def _balrogs_view(path: str, commands, glulx: bool) -> tuple[list[str], list[float]]:
    """What BALROG's TextWorldWrapper shows on this game file for these commands,
    from its definition: TextWorld's gym env with the infos of BALROG's config
    (objective, description, score, max_score, won), each observation split on
    the objective and its last part stripped; and the scores (its gym rewards).
    glulx: BALROG's file of this game is Glulx, whose interpreter prints no prompt
    and status line after a response (the Z-machine's last line)."""
    import textworld.gym
    infos = textworld.EnvInfos(objective=True, description=True, score=True,
                               max_score=True, won=True)
    gym_env = textworld.gym.make(textworld.gym.register_game(path, infos, max_episode_steps=80))

    def view(obs, info):
        if glulx:
            obs = re.sub(r"\n>[^\n]*\Z", "", obs.rstrip())
        return obs.split(info["objective"])[-1].strip()

    obs, info = gym_env.reset()
    texts, scores = [view(obs, info)], []
    for command in commands:
        obs, score, done, info = gym_env.step(command)
        texts.append(view(obs, info))
        scores.append(float(score))
        if done:
            break
    gym_env.close()
    return texts, scores


@pytest.mark.parametrize("task", ["cooking", "coin_collector"])
def test_balrog_text_is_what_balrogs_wrapper_shows(pool, task, monkeypatch):
    """text_style="balrog": long_term is BALROG's text at every step of the
    walkthrough and of random admissible play, blank lines and all (the cooking
    games, Z-machine files for BALROG too, keep their prompt and status line;
    BALROG's Glulx games print none, so ours cut it), short_term is empty, and
    the score is BALROG's reward."""
    monkeypatch.setenv(games.POOL_ENV_VAR, "1")
    game = pool[task]
    env = TextWorldEnv(task, text=True, text_style="balrog", max_steps=80)
    rng = np.random.default_rng(5)
    for commands in (list(game.walkthrough), None):
        obs, info = env.reset(options={"game": 0})
        texts, scores, played = [info["text"]["long_term"]], [], []
        assert info["text"]["short_term"] == ""
        for n in range(30 if commands is None else len(commands)):
            command = (commands[n] if commands is not None
                       else info["options"][int(rng.integers(len(info["options"])))].label)
            obs, _, term, trunc, info = env.step(command)
            played.append(command)
            texts.append(info["text"]["long_term"])
            scores.append(float(info["metrics"]["score"]))
            if term or trunc:
                break
        expected_texts, expected_scores = _balrogs_view(game.path, played,
                                                        glulx=task != "cooking")
        assert texts == expected_texts
        assert scores == expected_scores
        prompt = re.compile(r"\n>[^\n]*-= .+ =-\d+/\d+\Z")
        assert all(bool(prompt.search(t)) == (task == "cooking") for t in texts[:-1])
    env.close()


# ----------------------------------------------------------------- copies
@pytest.mark.parametrize("style", twenv.TEXT_STYLES)
@pytest.mark.parametrize("via", ["snapshot", "replay", "deepcopy"])
def test_copies_mid_episode_continue_identically(pool, via, style, monkeypatch):
    monkeypatch.setenv(games.POOL_ENV_VAR, "1")
    env = TextWorldEnv("cooking", text=True, max_steps=80, text_style=style)
    agent = WalkthroughAgent()
    agent.reset(env, 0)
    obs, info = env.reset(seed=3)
    for _ in range(12):
        obs, _, _, _, info = env.step(agent.act(obs, info))
    if via == "deepcopy":
        clone = copy.deepcopy(env)
    else:
        blob = pickle.dumps(env)
        if via == "replay":       # as in another process: no snapshot to restore from
            twenv._SNAPSHOTS.clear()
        clone = pickle.loads(blob)
    assert clone._tw is not env._tw and clone.commands == env.commands
    assert (clone._tw_text is None) == (style == "ours")
    rng = np.random.default_rng(0)
    for _ in range(15):
        legal = np.flatnonzero(obs["action_mask"])
        action = int(rng.choice(legal))
        a, c = env.step(action), clone.step(action)
        for key in a[0]:
            assert np.array_equal(a[0][key], c[0][key])
        assert a[1:4] == c[1:4]
        assert a[4]["text"] == c[4]["text"] and a[4]["options"] == c[4]["options"]
        assert a[4]["metrics"] == c[4]["metrics"]
        obs = a[0]
        if a[2] or a[3]:
            break
    env.close()
    clone.close()


# ------------------------------------------------------------- conformance
@pytest.mark.parametrize("task", games.TASKS)
def test_conformance(pool, task, monkeypatch):
    """The project's checks, but MaskablePPO's, which test_maskable_ppo_learns runs with
    SB3's defaults (and tests/test_conformance.py for every id)."""
    monkeypatch.setenv(games.POOL_ENV_VAR, "1")
    ran = check_all(env_factory(f"DungeonBench/{IDS[task]}"), expected_actions=N_SLOTS,
                    skip=("maskable_ppo",))
    assert "determinism" in ran and "process_boundary" in ran


def test_maskable_ppo_learns(pool, monkeypatch):
    """MaskablePPO with SB3's defaults (2048-step rollouts, 10 epochs): ~40 s here."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    monkeypatch.setenv(games.POOL_ENV_VAR, "1")
    env = gym.make("dungeonbench_gym:DungeonBench/TextWorld-CoinCollector-v0")
    model = MaskablePPO("MultiInputPolicy", env, seed=0, device="cpu")
    model.learn(256)
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.get_wrapper_attr("action_masks")())
    assert obs["action_mask"][int(action)]
    env.close()
