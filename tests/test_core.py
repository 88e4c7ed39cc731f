"""The contract's core, tested on a toy env and on the registry loader."""

import functools
import textwrap

import gymnasium as gym
import numpy as np
import pytest

import dungeonbench_gym
from dungeonbench_gym.core import (ActionOutOfRange, EpisodeOver, FileFormatError, IllegalAction,
                                   UnknownEnvId, find_option, option_table, parse_registry_file, resolve_id)
from dungeonbench_gym.core.conformance import (ConformanceError, check_determinism,
                                               check_invalid_actions, check_play,
                                               check_process_boundary, check_spaces)
from toy_env import CounterEnv


def test_fallback_runs_and_is_counted():
    env = CounterEnv()
    obs, info = env.reset(seed=0)
    env.value = 0
    env._mask = env._game_mask()
    obs, _, _, _, info = env.step(2)  # 'down' at 0 is masked out
    assert info["invalid_action"] is True
    assert info["metrics"]["invalid_actions"] == 1
    assert env.value == 0  # the fallback 'wait' ran, not 'down'
    obs, _, _, _, info = env.step(1)
    assert info["invalid_action"] is False
    assert info["metrics"]["invalid_actions"] == 1


def test_fallback_uses_first_legal_when_default_is_masked():
    class NoWait(CounterEnv):
        def _game_mask(self):
            m = super()._game_mask()
            m[0] = 0
            return m

    env = NoWait()
    env.reset(seed=0)
    env.value = 0
    env._mask = env._game_mask()
    assert env.fallback_action() == 1


def test_on_invalid_raise_and_terminate():
    env = CounterEnv(on_invalid="raise")
    env.reset(seed=0)
    env.value, env._mask = 0, np.array([1, 1, 0, 0], np.int8)
    with pytest.raises(IllegalAction, match="masked out"):
        env.step(2)
    env = CounterEnv(on_invalid="terminate")
    env.reset(seed=0)
    env.value, env._mask = 0, np.array([1, 1, 0, 0], np.int8)
    _, _, terminated, _, info = env.step(3)
    assert terminated and info["invalid_action"]
    with pytest.raises(ValueError, match="on_invalid"):
        CounterEnv(on_invalid="ignore")


@pytest.mark.parametrize("bad", [4, -1, 2.5, "up", None])
def test_out_of_range_action_is_a_clear_error(bad):
    env = CounterEnv()
    env.reset(seed=0)
    with pytest.raises(ActionOutOfRange, match=r"0\.\.3"):
        env.step(bad)


def test_progress_is_a_running_maximum():
    env = CounterEnv()
    env.reset(seed=0)
    env.value = 0
    env._mask = env._game_mask()
    for _ in range(3):
        _, _, _, _, info = env.step(1)
    assert info["progress"] == pytest.approx(0.6)
    _, _, _, _, info = env.step(2)
    assert env.value == 2 and info["progress"] == pytest.approx(0.6)


def test_text_only_on_demand():
    _, info = CounterEnv().reset(seed=0)
    assert "text" not in info
    _, info = CounterEnv(text=True).reset(seed=0)
    assert info["text"]["short_term"] == "Reach 5, then finish."
    assert "counter shows" in info["text"]["long_term"]


def test_options_are_index_aligned_and_lazy():
    env = CounterEnv()
    obs, info = env.reset(seed=0)
    env.value = 5
    env._mask = env._game_mask()
    _, _, _, _, info = env.step(0)
    assert [o.index for o in info["options"]] == [0, 2, 3]
    assert info["options"].labels() == ["wait", "down", "finish"]
    import pickle
    assert pickle.loads(pickle.dumps(info["options"])) == list(info["options"])


def test_max_steps_truncates():
    env = CounterEnv(max_steps=3)
    env.reset(seed=0)
    outs = [env.step(0) for _ in range(3)]
    assert [o[3] for o in outs] == [False, False, True]


def test_step_outside_an_episode_is_a_clear_error():
    env = CounterEnv(max_steps=1)
    with pytest.raises(EpisodeOver, match="call reset"):
        env.step(0)
    env.reset(seed=0)
    env.step(0)  # truncated here
    with pytest.raises(EpisodeOver, match="episode is over"):
        env.step(0)
    env.reset()
    assert env.step(0)[3]  # a new episode steps again


@pytest.mark.parametrize("answer,label", [("2", "down"), (" Finish. ", "finish"),
                                          ("UP!", "up"), ("9", None), ("", None),
                                          ("-1", None), ("\u00b2", None), ("9" * 5000, None)])
def test_find_option(answer, label):
    opts = CounterEnv.option_table
    found = find_option(opts, answer)
    assert (found.label if found else None) == label


def test_find_option_keeps_case_and_symbols_where_labels_need_them():
    opts = option_table(["choose a", "choose A", "choose $", "choose -", "north"])
    assert find_option(opts, "choose A").index == 1 and find_option(opts, "choose a").index == 0
    assert find_option(opts, "Choose a") is None          # ambiguous: a or A
    assert find_option(opts, "choose $").index == 2 and find_option(opts, "choose -").index == 3
    assert find_option(opts, "NORTH.").index == 4


def test_conformance_passes_on_the_toy_env():
    make = functools.partial(CounterEnv, max_steps=50)
    check_spaces(make, expected_actions=4)
    check_play(make, steps=200)
    check_invalid_actions(make)
    check_determinism(make)
    check_process_boundary(make)


def test_conformance_catches_a_broken_env():
    class Decreasing(CounterEnv):
        def _game_mask(self):
            m = super()._game_mask()
            m[:] = 0  # all-zero mask: the contract forbids it
            return m

    with pytest.raises(ConformanceError, match="never all zero"):
        check_play(Decreasing, steps=5)

    with pytest.raises(ConformanceError, match="determinism"):
        check_determinism(Unseeded, steps=5)
    with pytest.raises(ConformanceError, match="documented N"):
        check_spaces(CounterEnv, expected_actions=5)


class Unseeded(CounterEnv):
    """Ignores the seed: each reset starts from a global counter (0, 1, 0, 1, ...)."""

    resets = 0

    def _game_reset(self, seed, options):
        super()._game_reset(seed, options)
        Unseeded.resets += 1
        self.value = Unseeded.resets % 2


# ------------------------------------------------------------------ registry files
def _write(tmp_path, body):
    path = tmp_path / "family.toml"
    path.write_text(textwrap.dedent(body))
    return path


GOOD = '''
family = "toy"
entry_point = "toy_env:CounterEnv"
metric = "value / 5"
actions = 4
max_steps = 20
[[envs]]
id = "Toy-Counter-v0"
'''


def test_registry_file_round_trip(tmp_path):
    [entry] = parse_registry_file(_write(tmp_path, GOOD))
    assert (entry.id, entry.actions, entry.max_steps) == ("Toy-Counter-v0", 4, 20)
    dungeonbench_gym.register_file(_write(tmp_path, GOOD))
    try:
        env = gym.make("DungeonBench/Toy-Counter-v0")
        assert env.unwrapped.max_steps == 20
        assert "Toy-Counter-v0" in dungeonbench_gym.ids("toy")
    finally:  # leave the registry as other tests expect it
        dungeonbench_gym.REGISTRY.pop("Toy-Counter-v0")
        gym.registry.pop("DungeonBench/Toy-Counter-v0")


@pytest.mark.parametrize("body,field,fix", [
    (GOOD.replace('family = "toy"', ""), "family", "name the family"),
    (GOOD.replace("actions = 4", "actions = -4"), "actions", "positive integer"),
    (GOOD.replace("actions = 4", 'actions = "four"'), "actions", "positive integer"),
    (GOOD.replace('"toy_env:CounterEnv"', '"toy_env.CounterEnv"'), "entry_point", "module:Class"),
    (GOOD.replace('id = "Toy-Counter-v0"', 'id = "Toy Counter"'), "envs[0].id", "-v<version>"),
    (GOOD.replace("max_steps = 20", "max_step = 20"), "max_step", "did you mean 'max_steps'"),
    (GOOD + "\n[[envs]]\nkwargs = {}\n", "envs[1].id", "give an id"),
    (GOOD.replace("[[envs]]", "[[envs]"), "(syntax)", "TOML syntax"),
    (GOOD + '\n[[envs]]\nid = "Toy-Counter-v0"\n', "envs[1].id", "its own id"),
    (GOOD + 'metric = 5\n', "envs[0].metric", 'metric = "..."'),
])
def test_malformed_registry_file_names_file_field_and_fix(tmp_path, body, field, fix):
    path = _write(tmp_path, body)
    with pytest.raises(FileFormatError) as err:
        parse_registry_file(path)
    message = str(err.value)
    assert str(path) in message and f"field '{field}'" in message and fix in message


def test_bad_kwargs_name_the_registry_file_and_field(tmp_path):
    path = _write(tmp_path, GOOD.replace('id = "Toy-Counter-v0"',
                                         'id = "Toy-Typo-v0"\nkwargs = { on_invalud = "raise" }'))
    dungeonbench_gym.register_file(path)
    try:
        with pytest.raises(FileFormatError) as err:
            dungeonbench_gym.make("Toy-Typo-v0")
        assert "field 'envs[0].kwargs.on_invalud'" in str(err.value)
        assert "did you mean 'on_invalid'" in str(err.value) and str(path) in str(err.value)
    finally:
        dungeonbench_gym.REGISTRY.pop("Toy-Typo-v0")
        gym.registry.pop("DungeonBench/Toy-Typo-v0")


def test_a_broken_user_registry_file_is_skipped_with_a_warning(tmp_path):
    import os
    import subprocess
    import sys
    (tmp_path / "bad.toml").write_text(GOOD.replace("actions = 4", "actions = 0"))
    code = "import dungeonbench_gym; print(len(dungeonbench_gym.ids()))"
    env = {**os.environ, "DUNGEONBENCH_ENVS_PATH": str(tmp_path)}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert int(res.stdout) == len(dungeonbench_gym.ids())
    assert "skipped registry file" in res.stderr and "bad.toml: field 'actions'" in res.stderr


def test_unknown_id_suggests_close_ids():
    with pytest.raises(UnknownEnvId, match="Did you mean Crafter-v0"):
        resolve_id("Crafter-v1")
    with pytest.raises(UnknownEnvId, match="dungeonbench-gym list"):
        dungeonbench_gym.make("NoSuchGame-v0")
    assert resolve_id("dungeonbench_gym:DungeonBench/Crafter-v0").id == "Crafter-v0"
