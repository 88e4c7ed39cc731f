"""The Baba Is AI adapter: ids, mask, text, rendering, the solver agent, learning."""

import gymnasium as gym
import numpy as np
import pytest

import dungeonbench_gym
from dungeonbench_gym.games.babaisai.agent import BabaSolverAgent
from dungeonbench_gym.games.babaisai.env import BabaIsAIEnv, level_size
from dungeonbench_gym.games.babaisai.levels import LEVELS
from dungeonbench_gym.games.babaisai.rules import from_ascii, step


def test_forty_ids_registered_with_balrog_settings():
    ids = dungeonbench_gym.ids("babaisai")
    assert sorted(ids) == sorted(f"BabaIsAI-{lv}-v0" for lv in LEVELS) and len(ids) == 40
    env = gym.make("dungeonbench_gym:DungeonBench/BabaIsAI-two_room-make_win-v0")
    assert env.unwrapped.max_steps == 100 and env.action_space.n == 5
    assert env.observation_space["grid"].shape == (15, 9, 13)
    assert level_size("goto_win") == (8, 8)


def _env_on(board_text, **kw):
    env = BabaIsAIEnv("goto_win", **kw)
    env.reset(seed=0)
    env.board = from_ascii(board_text)
    env._mask = env._game_mask()
    return env


BOARD = """
B = @ . . .
. b . . . .
. . . . d .
D = $ . . .
. . . . . .
. . . . . .
"""


def test_mask_marks_moves_that_change_the_board():
    env = _env_on("""
B = @ . .
b . . . .
""")
    # baba in the bottom-left corner of a 5x2 room, under the word BABA: left and down
    # meet the border, up would push BABA into it; only right moves anything
    mask = env.action_masks()
    assert mask.tolist() == [True, False, True, False, False]
    for action in range(1, 5):
        changed = step(env.board, action)[0] != env.board
        assert changed == mask[action]


def test_masked_move_runs_idle_and_is_counted():
    env = _env_on("""
b . .
. . .
B = @
D = $
""")
    assert not env.action_masks()[1] and not env.action_masks()[4]  # baba in the corner
    before = env.board
    _, _, _, _, info = env.step(1)
    assert env.board == before and info["invalid_action"]
    assert info["metrics"]["invalid_actions"] == 1


def test_text_in_balrog_form_relative_to_you():
    env = _env_on(BOARD, text=True)
    long_term, short_term = env._game_text()
    assert long_term.startswith("Active rules:\nbaba is you\ndoor is win\n\nObjects on the map:")
    assert "door 3 steps to the right and 1 step down" in long_term
    assert "rule `win` 1 step to the right and 2 steps down" in long_term
    assert short_term == "You control: baba."


def test_solver_agent_wins_in_the_shortest_number_of_steps():
    env = _env_on(BOARD)
    agent = BabaSolverAgent()
    agent.reset(env, 0)
    obs, info = env._observation(), env._info(False)
    for t in range(10):
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        if terminated:
            break
    assert info["success"] and info["progress"] == 1.0 and reward == 1.0
    assert t + 1 == 4  # right 3, down 1


def test_losing_you_ends_the_episode_unsolved():
    env = _env_on("""
. . . .
B = @ .
. . b .
""")
    _, _, terminated, _, info = env.step(1)  # baba pushes YOU up: "baba is you" breaks
    assert terminated and not info["success"] and info["metrics"]["lost"]


@pytest.mark.parametrize("mode", ["ansi", "rgb_array"])
def test_rendering(mode):
    env = BabaIsAIEnv("two_room-goto_win", render_mode=mode)
    env.reset(seed=3)
    frame = env.render()
    if mode == "ansi":
        assert len(frame.splitlines()) == 7 and "b" in frame
    else:
        assert frame.shape == (9 * 16, 13 * 16, 3) and frame.dtype == np.uint8


def test_solver_agent_searches_an_unsolvable_board_once(monkeypatch):
    from dungeonbench_gym.games.babaisai import agent as agent_module
    calls = []

    def no_plan(board, max_states):
        calls.append(board)
        return None

    monkeypatch.setattr(agent_module, "solve", no_plan)
    env = _env_on(BOARD)
    agent = BabaSolverAgent()
    agent.reset(env, 0)
    obs, info = env._observation(), env._info(False)
    for _ in range(5):
        action = agent.act(obs, info)
        assert action == 0
        obs, _, _, _, info = env.step(action)
    assert len(calls) == 1
