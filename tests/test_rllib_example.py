"""examples/train_rllib.py: the view RLlib's action-masking module reads, and a tiny PPO run on
Ray RLlib over a DungeonBench id that writes its figures."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import dungeonbench_gym  # noqa: F401 - registers the ids

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "train_rllib.py"


def _example():
    spec = importlib.util.spec_from_file_location("train_rllib", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("env_id", ["BabaIsAI-goto_win-v0", "DnD-Encounter-GoblinAmbush-v0"])
def test_the_view_carries_the_mask_and_every_other_key(env_id):
    view = _example().RLlibView(gym.make("DungeonBench/" + env_id))
    inner = view.env.observation_space
    obs, info = view.reset(seed=0)
    assert view.observation_space.contains(obs)
    mask = view.env.get_wrapper_attr("action_masks")()
    assert np.array_equal(obs["action_mask"] > 0, mask)
    rest = {k: s for k, s in inner.spaces.items() if k != "action_mask"}
    assert obs["observations"].shape == (gym.spaces.flatdim(gym.spaces.Dict(rest)),)
    obs2, *_ = view.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert view.observation_space.contains(obs2)


def test_a_tiny_rllib_run_trains_and_evaluates_with_masks(tmp_path):
    pytest.importorskip("ray.rllib")
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--iterations", "1", "--batch", "200",
                           "--eval-episodes", "3", "--out", str(out)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(out.read_text())
    assert doc["training"]["env_steps"] >= 200 and doc["ppo_rllib"]["episodes"] == 3
    assert 0.0 <= doc["ppo_rllib"]["mean_progress"] <= 1.0
    assert doc["ppo_rllib_sampled"]["episodes"] == 3
