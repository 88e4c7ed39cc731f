"""The Baba Is AI adapter: ids, mask, text, rendering, the solver agent, learning."""

import gymnasium as gym
import numpy as np
import pytest

import dungeonbench_gym
from dungeonbench_gym.games.babaisai.agent import BabaSolverAgent
from dungeonbench_gym.games.babaisai.env import BabaIsAIEnv, level_size
from dungeonbench_gym.games.babaisai.levels import LEVELS, make_level
from dungeonbench_gym.games.babaisai.rules import from_ascii, rules, step


def test_forty_ids_registered_with_balrog_settings():
    ids = dungeonbench_gym.ids("babaisai")
    assert sorted(ids) == sorted(f"BabaIsAI-{lv}-v0" for lv in LEVELS) and len(ids) == 40
    env = gym.make("dungeonbench_gym:DungeonBench/BabaIsAI-two_room-make_win-v0")
    assert env.unwrapped.max_steps == 100 and env.action_space.n == 5
    # centred on what IS YOU by default: twice the board less one, so any cell fits
    assert env.observation_space["grid"].shape == (20, 17, 25)
    board_view = gym.make("dungeonbench_gym:DungeonBench/BabaIsAI-two_room-make_win-v0",
                          view="board")
    assert board_view.observation_space["grid"].shape == (20, 9, 13)
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


def test_observation_planes_follow_the_rules_in_force_and_centre_on_you():
    text = """
B = @ . . .
. b . . . .
. . . . d .
D = $ . . .
. . . . . .
"""
    env = _env_on(text, view="you")
    grid = env._game_observation()["grid"]
    # this 8 x 7 board (the room plus its wall) gives a 13 x 15 view, baba in the middle
    assert grid.shape == (20, 13, 15)
    centre = (6, 7)

    def cells(plane):
        return {(int(r) - centre[0], int(c) - centre[1]) for r, c in zip(*np.nonzero(grid[plane]))}

    # offsets (dy, dx) from baba at x=2, y=2 of the board
    assert cells(0) == {(0, 0)}                       # the baba object itself
    assert cells(2) == {(1, 3)}                       # the door object
    assert cells(15) == {(0, 0)}                      # IS YOU: baba
    assert cells(16) == {(1, 3)}                      # IS WIN: the door, from "door is win"
    assert cells(17) == set()                         # nothing is stop
    assert cells(18) == {(-1, -1), (-1, 0), (-1, 1), (2, -1), (2, 0), (2, 1)}  # the 6 words
    border = grid[19]
    # the room is 6 x 5 inside a wall; the cell left of the room's first column is border
    assert border[centre[0], centre[1]] == 0 and border[centre[0], centre[1] - 2] == 1
    assert border[centre[0] - 1, centre[1] - 1] == 0 and border[centre[0] - 2, centre[1]] == 1
    assert int((border == 0).sum()) == 6 * 5

    assert env._game_observation()["rules"].tolist()[2] == [0, 1, 0, 0]
    # breaking "door is win" (baba walks down and pushes IS out of line) clears the win plane
    env.board = step(env.board, 3)[0]
    env.board = step(env.board, 3)[0]
    after = env._game_observation()
    assert after["grid"][16].sum() == 0 and after["rules"].tolist()[2] == [0, 0, 0, 0]
    assert after["grid"][10, centre[0] + 1, centre[1]] == 1   # IS now just below baba

    # the board view keeps absolute coordinates
    grid = _env_on(text, view="board")._game_observation()["grid"]
    assert grid[0, 2, 2] == 1 and grid[2, 3, 5] == 1 and grid[19, 0].all() and grid[19, :, 0].all()


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


BROKEN_YOU = """
. . . .
B = @ .
. . b .
"""


def test_breaking_you_resets_the_level_and_the_episode_goes_on():
    """BALROG's BabaIsAIWrapper: when no object IS YOU, it calls reset (a new
    layout) and the episode continues within the same step budget."""
    env = _env_on(BROKEN_YOU, text=True)
    _, _, terminated, truncated, info = env.step(1)  # baba pushes YOU up: "baba is you" breaks
    assert not terminated and not truncated and not info["success"]
    assert info["metrics"]["you_resets"] == 1 and not info["metrics"]["lost"]
    assert env.board.width == 8 and ("baba", "you") in rules(env.board)
    assert env.board != make_level("goto_win", 0)  # a fresh layout, not the first one
    assert "started again" in info["text"]["short_term"]
    assert env._steps == 1  # the step budget keeps counting
    _, _, _, _, info = env.step(0)
    assert info["metrics"]["you_resets"] == 1


def test_breaking_you_can_end_the_episode_lost_instead():
    env = _env_on(BROKEN_YOU, on_no_you="lose")
    _, _, terminated, _, info = env.step(1)
    assert terminated and not info["success"] and info["metrics"]["lost"]
    with pytest.raises(ValueError, match="on_no_you"):
        BabaIsAIEnv("goto_win", on_no_you="ignore")


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


def test_solver_agent_plays_the_certificate_when_the_search_is_capped():
    """With a search cap too small for a two-room make_win board, the agent
    falls back to the generator's certified plan for the layout and still wins."""
    env = BabaIsAIEnv("two_room-break_stop-make_win")
    obs, info = env.reset(seed=3)
    agent = BabaSolverAgent(max_states=50)
    agent.reset(env, 3)
    for _ in range(100):
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        if terminated or truncated:
            break
    assert info["success"]
