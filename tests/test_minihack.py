"""MiniHack: BALROG's eight tasks, their action sets, item prompts, Boxoban on
our generated levels (solved through the env), official level files."""

import pickle

import numpy as np
import pytest

pytest.importorskip("minihack")

import gymnasium as gym  # noqa: E402

import dungeonbench_gym  # noqa: E402
from dungeonbench_gym.agents import make_agent  # noqa: E402
from dungeonbench_gym.games.minihack import boxoban  # noqa: E402
from dungeonbench_gym.games.minihack.env import TASKS, MiniHackEnv  # noqa: E402
from dungeonbench_gym.games.nethack.commands import COMMANDS, INDEX, KEYS  # noqa: E402

BALROG_TASKS = ["Boxoban-Hard", "Boxoban-Medium", "MazeWalk-9x9", "MazeWalk-15x15",
                "Corridor-R3", "CorridorBattle-Dark", "Quest-Easy", "Quest-Medium"]


def test_balrogs_eight_tasks_are_registered_with_100_steps():
    ids = dungeonbench_gym.ids("minihack")
    assert sorted(ids) == sorted(f"MiniHack-{t}-v0" for t in BALROG_TASKS)
    env = gym.make("dungeonbench_gym:DungeonBench/MiniHack-MazeWalk-9x9-v0")
    assert env.unwrapped.max_steps == 100 and env.action_space.n == len(COMMANDS)


@pytest.mark.parametrize("task", [t for t in TASKS if not t.startswith("Boxoban")])
def test_each_task_allows_exactly_its_upstream_action_set(task):
    import importlib
    module, name, allowed = TASKS[task]
    upstream = getattr(importlib.import_module(module), name)()   # upstream's defaults
    upstream_keys = {int(a) for a in upstream.actions}
    upstream.close()
    ours = {KEYS[i] for i in allowed}
    # every command we allow is one upstream allows; every upstream move or
    # command in our vocabulary is allowed
    assert ours <= upstream_keys
    vocabulary = {c.key for c in COMMANDS if c.kind == "command"}
    assert ours == upstream_keys & vocabulary


def _pick_up_everything_here(env):
    """'pick up', then every item of the menu, then confirm."""
    _, _, _, _, info = env.step(INDEX["pick up"])
    if info["decision"] == "menu":
        for option in [o for o in info["options"] if o.label.startswith("choose ")]:
            env.step(option.index)
        _, _, _, _, info = env.step(INDEX["continue"])
    return info


def test_quest_starts_with_autopickup_off_as_balrog_plays_it():
    """BALROG's minihack_kwargs set autopickup=False: the quest's items lie under the
    hero at the start and are carried only once picked up."""
    env = MiniHackEnv("Quest-Easy")
    env.reset(seed=0)
    carried = [t for t in env._obs["inv_strs"].tobytes().split(b"\0") if t]
    assert not any(b"wand" in t for t in carried)
    _pick_up_everything_here(env)
    carried = [t for t in env._obs["inv_strs"].tobytes().split(b"\0") if t]
    assert any(b"wand" in t for t in carried)


def test_minihack_hero_is_a_random_role_where_the_task_does_not_force_one():
    """BALROG passes character='@' (NetHack's random role): over a few seeds the starting
    kits differ, and each seed gives the same hero again."""
    kits = set()
    for seed in range(6):
        env = MiniHackEnv("MazeWalk-9x9")
        env.reset(seed=seed)
        kit = env._obs["inv_strs"].tobytes()
        again = MiniHackEnv("MazeWalk-9x9")
        again.reset(seed=seed)
        assert again._obs["inv_strs"].tobytes() == kit
        kits.add(kit)
    assert len(kits) >= 3


def test_quest_item_prompts_offer_the_wands_letter_and_it_is_accepted():
    env = MiniHackEnv("Quest-Easy")
    env.reset(seed=0)
    _pick_up_everything_here(env)
    inventory = env._obs["inv_strs"].tobytes().split(b"\0")
    letters = [chr(c) for c in env._obs["inv_letters"] if c]
    wand = next(letter for letter, text in zip(letters, [t for t in inventory if t])
                if b"wand" in text)
    _, _, _, _, info = env.step(INDEX["zap"])
    assert info["decision"] == "item"
    labels = {o.label for o in info["options"]}
    assert f"choose {wand}" in labels and "escape" in labels
    _, _, _, _, info = env.step(INDEX[f"choose {wand}"])
    assert not info["invalid_action"] and info["decision"] == "direction"
    for option in info["options"]:   # every direction answer is taken by the game
        copy = pickle.loads(pickle.dumps(env))
        _, _, _, _, after = copy.step(option.index)
        assert not after["invalid_action"] and after["decision"] != "direction"


@pytest.mark.parametrize("task", ["Boxoban-Medium", "Boxoban-Hard"])
def test_boxoban_level_from_the_seed_is_solved_through_the_env(task):
    env = dungeonbench_gym.make(f"MiniHack-{task}-v0")
    _, info = env.reset(seed=5)
    rows = env.unwrapped._upstream._rows
    again = MiniHackEnv(task)
    again.reset(seed=5)
    assert again._upstream._rows == rows   # the seed picks the level
    chars = env.unwrapped._obs["chars"]
    assert (chars == ord("`")).sum() == 4 and (chars == ord("{")).sum() == 4
    solution = boxoban.solve(rows)
    moves = {"u": "north", "d": "south", "l": "west", "r": "east"}
    assert info["progress"] == 0.0 and len(solution.moves) <= 100
    for move in solution.moves:
        _, _, terminated, truncated, info = env.step(INDEX[moves[move]])
        assert not info["invalid_action"]
        if terminated or truncated:
            break
    assert terminated and info["success"] and info["progress"] == 1.0


def test_official_boxoban_files_replace_generated_ones(tmp_path):
    level = ("##########", "#@ $  .  #", "#        #", "# $    . #", "#        #",
             "#  $   . #", "#        #", "# $    . #", "#        #", "##########")
    folder = tmp_path / "medium" / "train"
    folder.mkdir(parents=True)
    boxoban.write_level_file([level], folder / "000.txt")
    env = MiniHackEnv("Boxoban-Medium", boxoban_dir=str(tmp_path))
    env.reset(seed=12345)
    assert env._upstream._rows == level


def test_baseline_solves_corridor_and_boxoban():
    wins = {}
    for env_id in ("MiniHack-Corridor-R3-v0", "MiniHack-Boxoban-Medium-v0"):
        env = dungeonbench_gym.make(env_id)
        wins[env_id] = 0
        for seed in range(3):
            agent = make_agent("baseline", "minihack")
            obs, info = env.reset(seed=seed)
            agent.reset(env, seed)
            while True:
                obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
                if terminated or truncated:
                    break
            wins[env_id] += info["success"]
    assert wins["MiniHack-Boxoban-Medium-v0"] == 3 and wins["MiniHack-Corridor-R3-v0"] >= 2


def test_text_and_masks_on_a_dark_corridor():
    env = dungeonbench_gym.make("MiniHack-CorridorBattle-Dark-v0", text=True)
    obs, info = env.reset(seed=0)
    assert [o.label for o in info["options"]] == [
        "north", "east", "south", "west", "northeast", "southeast", "southwest", "northwest"]
    assert np.flatnonzero(obs["action_mask"]).tolist() == [o.index for o in info["options"]]
    assert "Map (@ is you):" in info["text"]["short_term"]
    assert "Knight" in info["text"]["long_term"]   # the welcome message names the role


def test_nle_prompts_decline_questions_as_nle_does_under_balrog():
    """BALROG makes MiniHack with NLE's defaults: questions are declined by NLE unless
    they ask what to eat, whom to attack, a direction or whether to pray (NLE's
    SKIP_EXCEPTIONS); our own setting leaves every question to the agent."""
    ours = MiniHackEnv("Quest-Easy")
    balrog = MiniHackEnv("Quest-Easy", nle_prompts=True)
    decisions = {}
    for name, env in (("ours", ours), ("balrog", balrog)):
        env.reset(seed=0)
        _, _, _, _, throw = env.step(INDEX["throw"])      # seed 0's hero carries darts
        env.reset(seed=0)
        _, _, _, _, eat = env.step(INDEX["eat"])          # and food
        decisions[name] = (throw["decision"], eat["decision"])
    assert decisions["ours"] == ("item", "item")     # both questions reach the agent
    assert decisions["balrog"] == ("command", "item")   # "what to throw?" declined by NLE


def test_nle_prompts_press_through_a_pick_up_menu_as_nle_does():
    """With NLE's own handling (BALROG's), a menu is pressed through with space: picking
    up where two items lie picks nothing, where our default asks the agent."""
    balrog = MiniHackEnv("Quest-Easy", nle_prompts=True)
    balrog.reset(seed=0)
    _, _, _, _, info = balrog.step(INDEX["pick up"])
    carried = [t for t in balrog._obs["inv_strs"].tobytes().split(b"\0") if t]
    assert info["decision"] == "command" and not any(b"wand" in t for t in carried)
    ours = MiniHackEnv("Quest-Easy")
    ours.reset(seed=0)
    _, _, _, _, info = ours.step(INDEX["pick up"])
    assert info["decision"] == "menu"
