"""BabyAI family: seeded levels, missions, the mask rule, fallback, text, progress, the bot."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("minigrid")

from minigrid.core.world_object import Ball, Box, Door, Key, Wall  # noqa: E402

from dungeonbench_gym.games.babyai import TASKS, BabyAIEnv, legal_mask  # noqa: E402
from dungeonbench_gym.games.babyai.agent import BabyAIBotAgent  # noqa: E402
from dungeonbench_gym.games.babyai.text import VOCAB_SIZE, detokenize, tokenize  # noqa: E402

LEFT, RIGHT, FORWARD, PICKUP, DROP, TOGGLE = range(6)
IDS = {"goto": "BabyAI-GoTo-v0", "pickup": "BabyAI-Pickup-v0", "open": "BabyAI-Open-v0",
       "putnext": "BabyAI-PutNext-v0", "pick_up_seq_go_to": "BabyAI-PickUpSeqGoTo-v0"}
OBJ = r"(the|a) (red|green|blue|purple|yellow|grey) (key|ball|box)"
DOOR = r"(the|a) (red|green|blue|purple|yellow|grey) door"
MISSION_PATTERNS = {
    "goto": rf"go to {OBJ}",
    "pickup": rf"pick up {OBJ}",
    "open": r"open the ((yellow|green|blue|purple) )?door",
    "putnext": rf"put {OBJ} next to {OBJ}",
    "pick_up_seq_go_to": rf"pick up {OBJ}, then go to {OBJ}|go to {OBJ} after you pick up {OBJ}",
}


def layout(env: BabyAIEnv) -> tuple:
    lv = env.level
    return (lv.mission, lv.grid.encode().tobytes(), tuple(int(v) for v in lv.agent_pos),
            int(lv.agent_dir))


def constructed(front=None, carrying=None, pos=(3, 3), direction=0, task="goto", **kw):
    """An env whose room is emptied, with the agent at `pos` facing `direction`
    (0 = +x), `front` in the cell ahead and `carrying` in its hands."""
    env = BabyAIEnv(task, max_steps=64, **kw)
    env.reset(seed=0)
    lv = env.level
    for x in range(1, lv.grid.width - 1):
        for y in range(1, lv.grid.height - 1):
            lv.grid.set(x, y, None)
    lv.agent_pos, lv.agent_dir, lv.carrying = pos, direction, carrying
    if front is not None:
        d = [(1, 0), (0, 1), (-1, 0), (0, -1)][direction]
        fx, fy = pos[0] + d[0], pos[1] + d[1]
        lv.grid.set(fx, fy, front)
        front.cur_pos = (fx, fy)
    lv.instrs.reset_verifier(lv)
    return env


def refresh(env):
    """Turn away and back (both always legal) so the env recomputes its mask."""
    env.step(LEFT)
    return env.step(RIGHT)


# ------------------------------------------------------------------ seeding
@pytest.mark.parametrize("task", TASKS)
def test_same_seed_same_layout_and_trajectory(task):
    a, b = BabyAIEnv(task, max_steps=64), BabyAIEnv(task, max_steps=64)
    for seed in (0, 7, 123):
        oa, _ = a.reset(seed=seed)
        b.reset(seed=seed + 1)          # put b elsewhere first
        ob, _ = b.reset(seed=seed)
        assert layout(a) == layout(b)
        for k in ("image", "direction", "mission", "action_mask"):
            assert np.array_equal(oa[k], ob[k])
        rng = np.random.default_rng(seed)
        for _ in range(30):
            act = int(rng.integers(6))
            ra, rb = a.step(act), b.step(act)
            assert np.array_equal(ra[0]["image"], rb[0]["image"]) and ra[1:4] == rb[1:4]
            if ra[2] or ra[3]:
                break


@pytest.mark.parametrize("task", TASKS)
def test_different_seeds_vary_layout_and_mission(task):
    env = BabyAIEnv(task)
    missions, layouts = set(), set()
    for seed in range(20):
        env.reset(seed=seed)
        missions.add(env.mission)
        layouts.add(layout(env))
    assert len(layouts) == 20
    # "open" has five missions ("the door" or one of four door colours); the others 15 or more
    assert len(missions) >= (4 if task == "open" else 8)


def test_same_seed_same_layout_in_another_process():
    code = ("import json,hashlib; from dungeonbench_gym.games.babyai import BabyAIEnv\n"
            "e=BabyAIEnv('putnext'); out=[]\n"
            "for s in range(5):\n"
            "    e.reset(seed=s); out.append([e.mission, hashlib.sha1(e.level.grid.encode()"
            ".tobytes()).hexdigest()])\n"
            "print(json.dumps(out))")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={"PYTHONHASHSEED": str(h), "PATH": ""}).stdout
            for h in (1, 2)]
    assert runs[0] == runs[1]
    assert len({m for m, _ in json.loads(runs[0])}) > 1


@pytest.mark.parametrize("task", TASKS)
def test_mission_matches_task(task):
    env = BabyAIEnv(task)
    for seed in range(15):
        _, info = env.reset(seed=seed)
        assert re.fullmatch(MISSION_PATTERNS[task], env.mission), env.mission
        assert info["metrics"]["mission"] == env.mission and info["metrics"]["task"] == task
    others = [p for t, p in MISSION_PATTERNS.items() if t != task]
    assert not any(re.fullmatch(p, env.mission) for p in others)


def test_putnext_objects_distinct_and_apart():
    env = BabyAIEnv("putnext", num_dists=3)
    for seed in range(20):
        env.reset(seed=seed)
        instr = env.level.instrs
        assert (instr.desc_move.type, instr.desc_move.color) != \
            (instr.desc_fixed.type, instr.desc_fixed.color)
        assert not instr.objs_next()


def test_open_is_two_rooms_joined_by_a_locked_door_with_its_key_on_the_agents_side():
    """MixedTrainLocal's open: two 8x8 rooms (15x8), one locked door on the shared
    wall in yellow, green, blue or purple, its key and the agent in the other room;
    "open the door" or "open the <colour> door"; 64 steps per room."""
    env = BabyAIEnv("open")
    sides, named = set(), set()
    for seed in range(30):
        env.reset(seed=seed)
        grid, lv = env.level.grid, env.level
        assert (grid.width, grid.height) == (15, 8) and lv.max_steps == 128
        doors = [grid.get(x, y) for x in range(15) for y in range(8)
                 if grid.get(x, y) is not None and grid.get(x, y).type == "door"]
        assert len(doors) == 1 and doors[0].is_locked and doors[0].cur_pos[0] == 7
        door = doors[0]
        assert door.color in ("yellow", "green", "blue", "purple")
        keys = [grid.get(x, y) for x in range(15) for y in range(8)
                if grid.get(x, y) is not None and grid.get(x, y).type == "key"]
        assert len(keys) == 1 and keys[0].color == door.color
        agent_side = lv.agent_pos[0] > 7
        assert (keys[0].cur_pos[0] > 7) == agent_side
        sides.add(agent_side)
        named.add(env.mission == "open the door")
    assert sides == {True, False} and named == {True, False}


def test_held_out_pairs_never_appear_and_nothing_starts_next_to_the_agent():
    """Upstream keeps yellow box, red key, red door, green ball and grey door out of
    every mission, and places the agent before the objects (never beside it)."""
    for task in ("goto", "pickup", "putnext", "pick_up_seq_go_to"):
        env = BabyAIEnv(task)
        for seed in range(60):
            env.reset(seed=seed)
            assert not any(pair in env.mission for pair in
                           ("yellow box", "red key", "red door", "green ball", "grey door"))
            ax, ay = env.level.agent_pos
            grid = env.level.grid
            for x in range(1, grid.width - 1):
                for y in range(1, grid.height - 1):
                    if grid.get(x, y) is not None:
                        assert abs(x - ax) + abs(y - ay) >= 2, (task, seed)


def test_sequence_missions_take_both_forms():
    env = BabyAIEnv("pick_up_seq_go_to")
    forms = set()
    for seed in range(30):
        env.reset(seed=seed)
        forms.add("after you pick up" in env.mission)
        assert env.level.max_steps == 128
    assert forms == {True, False}


def test_unknown_task_is_a_clear_error():
    with pytest.raises(ValueError, match="pick_up_seq_go_to"):
        BabyAIEnv("gotoo")


# ----------------------------------------------------------------- mask rule
def test_mask_facing_empty_floor_with_empty_hands():
    env = constructed()
    assert legal_mask(env.level).tolist() == [1, 1, 1, 0, 0, 0]


def test_mask_drop_needs_something_carried_and_an_empty_front():
    assert legal_mask(constructed().level)[DROP] == 0
    assert legal_mask(constructed(carrying=Key("red")).level)[DROP] == 1
    assert legal_mask(constructed(front=Ball("blue"), carrying=Key("red")).level)[DROP] == 0


def test_mask_pickup_facing_ball():
    assert legal_mask(constructed(front=Ball("red")).level).tolist() == [1, 1, 0, 1, 0, 0]
    # hands full: nothing but turning
    assert legal_mask(constructed(front=Ball("red"), carrying=Key("red")).level).tolist() == \
        [1, 1, 0, 0, 0, 0]


def test_mask_box_can_be_picked_up_and_toggled():
    assert legal_mask(constructed(front=Box("green")).level).tolist() == [1, 1, 0, 1, 0, 1]


def test_mask_doors():
    locked = dict(front=Door("red", is_locked=True))
    assert legal_mask(constructed(**locked).level)[TOGGLE] == 0
    assert legal_mask(constructed(carrying=Key("blue"), **locked).level)[TOGGLE] == 0
    assert legal_mask(constructed(carrying=Key("red"), **locked).level)[TOGGLE] == 1
    assert legal_mask(constructed(carrying=Ball("red"), **locked).level)[TOGGLE] == 0
    closed = legal_mask(constructed(front=Door("red")).level)
    assert closed[TOGGLE] == 1 and closed[FORWARD] == 0
    inner_open = legal_mask(constructed(front=Door("red", is_open=True)).level)
    assert inner_open[FORWARD] == 1 and inner_open[TOGGLE] == 1
    # an open door in the outer wall leads off the grid: never walked through
    border_open = legal_mask(constructed(front=Door("red", is_open=True), pos=(6, 3)).level)
    assert border_open[FORWARD] == 0 and border_open[TOGGLE] == 1


def test_mask_facing_wall_only_turns():
    env = constructed(pos=(6, 3))          # wall at x = 7
    assert isinstance(env.level.grid.get(7, 3), Wall)
    assert legal_mask(env.level).tolist() == [1, 1, 0, 0, 0, 0]
    env = constructed(pos=(6, 3), carrying=Ball("red"))
    assert legal_mask(env.level).tolist() == [1, 1, 0, 0, 0, 0]


def test_mask_is_a_fresh_int8_array_and_matches_the_observation():
    env = BabyAIEnv("pickup", max_steps=64)
    obs, _ = env.reset(seed=3)
    m1, m2 = legal_mask(env.level), legal_mask(env.level)
    assert m1.dtype == np.int8 and m1 is not m2
    m1[:] = 0
    assert legal_mask(env.level).any()
    rng = np.random.default_rng(0)
    for _ in range(100):
        assert np.array_equal(obs["action_mask"], legal_mask(env.level))
        assert np.array_equal(env.action_masks(), obs["action_mask"].astype(bool))
        assert obs["action_mask"][:2].all()
        obs, _, term, trunc, _ = env.step(int(rng.integers(6)))
        if term or trunc:
            obs, _ = env.reset()


def _effect(level, action):
    """What an action changes in a copy of the level (None if nothing)."""
    lv = copy.deepcopy(level)
    front = tuple(int(v) for v in lv.front_pos)
    before = lv.grid.get(*front)
    state = (before, getattr(before, "is_open", None), getattr(before, "is_locked", None))
    pos, carrying = tuple(int(v) for v in lv.agent_pos), lv.carrying
    lv.step(action)
    after = lv.grid.get(*front)
    if action == FORWARD:
        return tuple(int(v) for v in lv.agent_pos) != pos
    if action in (PICKUP, DROP):
        return lv.carrying is not carrying
    return (after, getattr(after, "is_open", None), getattr(after, "is_locked", None)) != state


@pytest.mark.parametrize("task", TASKS)
def test_mask_matches_what_minigrid_would_do(task):
    """An action is legal exactly when stepping minigrid with it changes the state."""
    env = BabyAIEnv(task, num_dists=4, max_steps=64)
    rng = np.random.default_rng(1)
    checked = 0
    for seed in range(4):
        obs, _ = env.reset(seed=seed)
        for _ in range(40):
            mask = obs["action_mask"]
            for action in (FORWARD, PICKUP, DROP, TOGGLE):
                assert bool(mask[action]) == _effect(env.level, action), \
                    (task, seed, action, mask)
                checked += 1
            # mostly legal moves, sometimes any index
            legal = np.flatnonzero(mask)
            act = int(rng.choice(legal)) if rng.random() < 0.8 else int(rng.integers(6))
            obs, _, term, trunc, _ = env.step(act)
            if term or trunc:
                break
    assert checked > 100


# ------------------------------------------------------------------ fallback
def test_masked_out_action_runs_go_forward():
    env = constructed()                     # facing empty floor at (4, 3)
    refresh(env)
    _, _, _, _, info = env.step(PICKUP)      # masked out: nothing to pick up
    assert info["invalid_action"] is True
    assert tuple(int(v) for v in env.level.agent_pos) == (4, 3)
    assert info["metrics"]["invalid_actions"] == 1


def test_masked_out_action_runs_first_legal_when_forward_is_illegal():
    env = constructed(pos=(6, 3))           # facing the east wall
    refresh(env)
    assert env.level.agent_dir == 0
    _, _, _, _, info = env.step(DROP)        # masked out, and go forward is too
    assert info["invalid_action"] is True
    assert env.level.agent_dir == 3          # turn left ran
    assert tuple(int(v) for v in env.level.agent_pos) == (6, 3)
    _, _, _, _, info = env.step(LEFT)
    assert info["invalid_action"] is False and info["metrics"]["invalid_actions"] == 1


def test_on_invalid_raise():
    from dungeonbench_gym.core.errors import IllegalAction
    env = constructed(on_invalid="raise")
    refresh(env)
    with pytest.raises(IllegalAction):
        env.step(DROP)


# ---------------------------------------------------------------------- text
def test_text_after_picking_up():
    env = constructed(front=Ball("red"), text=True, task="goto")
    _, _, _, _, info = refresh(env)
    assert "a red ball 1 step forward" in info["text"]["long_term"].splitlines()
    assert "You carry" not in info["text"]["long_term"]
    _, _, _, _, info = env.step(PICKUP)
    lines = info["text"]["long_term"].splitlines()
    assert "You carry a red ball" in lines
    assert not any(line.startswith("a red ball") for line in lines)
    assert info["text"]["short_term"] == f"Your goal: {env.mission}"


def test_text_positions_and_walls():
    """BabyAI-Text's order (the fork's gen_graph): the walls straight ahead, left
    and right where nothing stands between, then objects column by column from
    the left, far to near; doors read "a <state> <colour> door"."""
    env = constructed(text=True, task="goto", pos=(3, 3), direction=0)
    env.level.grid.set(5, 0, Door("grey"))   # in the outer wall: 2 ahead, 3 to the left
    env.level.grid.set(5, 2, Key("blue"))    # 2 ahead, 1 to the left (facing +x, left is -y)
    env.level.grid.set(4, 4, Door("green"))  # 1 ahead, 1 to the right
    _, _, _, _, info = refresh(env)
    assert info["text"]["long_term"].splitlines() == [
        "a wall 4 steps forward",             # x = 7
        "a wall 3 steps left",                # y = 0, at the view's edge; right: y = 7 is 4 away
        "a closed grey door 3 steps left and 2 steps forward",
        "a blue key 1 step left and 2 steps forward",
        "a closed green door 1 step right and 1 step forward",
    ]
    open_door = Door("green", is_open=True)
    env.level.grid.set(4, 4, open_door)
    _, _, _, _, info = refresh(env)
    assert "a open green door 1 step right and 1 step forward" in info["text"]["long_term"]


def test_carried_object_comes_first():
    env = constructed(front=Ball("red"), text=True, task="goto")
    env.level.grid.set(6, 3, Key("blue"))
    refresh(env)
    _, _, _, _, info = env.step(PICKUP)
    assert info["text"]["long_term"].splitlines()[0] == "You carry a red ball"


def test_text_is_absent_in_tensor_mode():
    env = BabyAIEnv("goto")
    _, info = env.reset(seed=0)
    assert "text" not in info
    assert set(env.text_observation()) == {"long_term", "short_term"}


# ------------------------------------------------------------- observations
def test_observation_space_is_numeric_and_bounded():
    env = BabyAIEnv("putnext")
    space = env.observation_space
    assert space["image"].high.max() < 255 and space["image"].dtype == np.uint8
    assert space["image"].high[0, 0].tolist() == [10, 5, 2]
    assert space["mission"].high.max() == VOCAB_SIZE - 1
    for seed in range(5):
        obs, _ = env.reset(seed=seed)
        assert space.contains(obs)
        assert detokenize(obs["mission"]) == env.mission.replace(",", "")
        first = obs["mission"].copy()
        obs, *_ = env.step(LEFT)
        assert np.array_equal(obs["mission"], first)


def test_sb3_does_not_take_the_image_for_a_picture():
    pre = pytest.importorskip("stable_baselines3.common.preprocessing")
    env = BabyAIEnv("goto")
    assert not pre.is_image_space(env.observation_space["image"])


def test_tokenize_pads_and_marks_unknown_words():
    t = tokenize("go to the red ball")
    assert t.dtype == np.uint8 and len(t) == 16 and (t[5:] == 0).all() and (t[:5] > 1).all()
    assert tokenize("go to the zebra")[3] == 1


def test_gymnasium_checks_and_registry():
    from gymnasium.utils.env_checker import check_env
    for task, env_id in IDS.items():
        env = gym.make(f"dungeonbench_gym:DungeonBench/{env_id}")
        assert env.unwrapped.task == task
        assert env.unwrapped.max_steps == (64 if task in ("goto", "pickup") else 128)
        assert env.action_space.n == 6
        assert env.get_wrapper_attr("action_masks")().dtype == bool
    check_env(gym.make("dungeonbench_gym:DungeonBench/BabyAI-PickUpSeqGoTo-v0",
                       render_mode="ansi").unwrapped, skip_render_check=False)


def test_render_modes():
    env = BabyAIEnv("open", render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert len(text.splitlines()) >= 8 and text.splitlines()[0].count("#") >= 8
    assert env.mission in text
    env = BabyAIEnv("open", render_mode="rgb_array")
    env.reset(seed=2)
    frame = env.render()
    assert frame.shape == (256, 480, 3) and frame.dtype == np.uint8   # two 8x8 rooms, 32 px
    env = BabyAIEnv("goto", render_mode="rgb_array")
    env.reset(seed=2)
    assert env.render().shape == (256, 256, 3)


def test_pickled_env_continues_identically():
    import pickle
    env = BabyAIEnv("putnext", max_steps=64)
    env.reset(seed=3)
    env.step(LEFT)
    twin = pickle.loads(pickle.dumps(env))
    assert twin.mission == env.mission
    for action in (FORWARD, FORWARD, RIGHT, FORWARD, PICKUP, LEFT, FORWARD, DROP):
        a, b = env.step(action), twin.step(action)
        assert np.array_equal(a[0]["image"], b[0]["image"]) and a[1:4] == b[1:4]
        assert np.array_equal(a[0]["action_mask"], b[0]["action_mask"])


def test_step_limit_truncates():
    env = BabyAIEnv("goto", max_steps=5)
    env.reset(seed=0)
    for i in range(5):
        _, _, term, trunc, _ = env.step(LEFT)
    assert trunc and not term


# ---------------------------------------------------------- progress and bot
def test_progress_becomes_one_when_the_bot_solves():
    env = BabyAIEnv("pickup", max_steps=64)
    agent = BabyAIBotAgent()
    obs, info = env.reset(seed=5)
    agent.reset(env, 5)
    assert info["progress"] == 0.0 and info["success"] is False
    done = False
    while not done:
        before = info["progress"]
        obs, reward, term, trunc, info = env.step(agent.act(obs, info))
        done = term or trunc
        if not done:
            assert info["progress"] == 0.0 and reward == 0
    assert before == 0.0
    assert term and reward > 0
    assert info["progress"] == 1.0 and info["success"] is True and info["metrics"]["solved"]


@pytest.mark.parametrize("task", TASKS)
def test_bot_agent_success_rate(task):
    env = gym.make(f"dungeonbench_gym:DungeonBench/{IDS[task]}")
    agent = BabyAIBotAgent()
    results, invalid = [], 0
    for seed in range(20):
        obs, info = env.reset(seed=seed)
        agent.reset(env, seed)
        done = False
        while not done:
            action = agent.act(obs, info)
            assert obs["action_mask"][action], "the bot agent must play legal actions"
            obs, _, term, trunc, info = env.step(action)
            invalid += info["invalid_action"]
            done = term or trunc
        results.append(info["progress"])
    assert invalid == 0
    assert np.mean(results) >= 0.95, (task, np.mean(results))


def test_random_agent_is_worse_than_the_bot_on_putnext():
    from dungeonbench_gym.agents.base import RandomAgent
    env = BabyAIEnv("putnext", max_steps=64)
    agent = RandomAgent()
    wins = 0
    for seed in range(20):
        obs, info = env.reset(seed=seed)
        agent.reset(env, seed)
        done = False
        while not done:
            obs, _, term, trunc, info = env.step(agent.act(obs, info))
            done = term or trunc
        wins += info["success"]
    assert wins <= 5


def test_passthrough_runs_a_masked_action_as_a_wasted_step():
    """BALROG's BabyAI has no mask: a useless action is executed (a no-op step).
    on_invalid="passthrough" does the same instead of running the fallback."""
    env = constructed(front=Ball("red"), on_invalid="passthrough")
    refresh(env)
    before = (tuple(env.level.agent_pos), env.level.agent_dir)
    assert env.action_masks()[FORWARD] == 0           # the ball blocks the way
    _, _, _, _, info = env.step(FORWARD)
    assert info["invalid_action"]                      # still reported as masked out
    assert (tuple(env.level.agent_pos), env.level.agent_dir) == before   # not turned, not moved
    fallback = constructed(front=Ball("red"))
    refresh(fallback)
    fallback.step(FORWARD)                             # the fallback turns left instead
    assert fallback.level.agent_dir != before[1]


def test_passthrough_is_refused_where_a_game_cannot_execute_any_index():
    import gymnasium as gym
    with pytest.raises(ValueError, match="passthrough"):
        gym.make("dungeonbench_gym:DungeonBench/DnD-Encounter-GoblinAmbush-v0",
                 on_invalid="passthrough")
