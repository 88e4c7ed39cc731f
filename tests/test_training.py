"""MaskablePPO trains on a registered env exactly as gymnasium.make returns it."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """
import gymnasium as gym, numpy as np
from sb3_contrib import MaskablePPO
env = gym.make("dungeonbench_gym:DungeonBench/" + ENV_ID)
model = MaskablePPO("MultiInputPolicy", env, n_steps=512, batch_size=128, seed=0, device="cpu")
model.learn(total_timesteps=2000)
assert model.num_timesteps >= 2000, model.num_timesteps
obs, info = env.reset(seed=1)
for _ in range(50):
    action, _ = model.predict(obs, action_masks=obs["action_mask"])  # or env.get_wrapper_attr("action_masks")()
    assert obs["action_mask"][action] == 1
    obs, r, term, trunc, info = env.step(action)
    assert not info["invalid_action"]
print("trained", model.num_timesteps)
"""


@pytest.mark.parametrize("env_id", ["Crafter-v0", "MiniHack-Corridor-R3-v0"])
def test_maskable_ppo_trains_2k_steps_without_custom_code(tmp_path, env_id):
    script = f"ENV_ID = {env_id!r}\n" + SCRIPT
    res = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.split()[-1] == "2048"


def test_maskable_ppo_beats_the_random_masked_agent_on_baba_goto_win(tmp_path):
    """The example trains from a plain gymnasium.make (8 envs, 50k steps, about a
    minute here), then both agents play the same 100 unseen seeds."""
    out = tmp_path / "baba.json"
    script = Path(__file__).resolve().parents[1] / "examples" / "train_maskable_ppo.py"
    res = subprocess.run(
        [sys.executable, str(script), "--env-id",
         "dungeonbench_gym:DungeonBench/BabaIsAI-goto_win-v0", "--timesteps", "50000",
         "--n-steps", "128", "--n-epochs", "8",
         "--eval-episodes", "100", "--threads", "1", "--out", str(out)],
        cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    figures = json.loads(out.read_text())
    trained, random_ = figures["maskable_ppo"], figures["random_masked"]
    assert trained["episodes"] == random_["episodes"] == 100
    # a margin of several standard errors, not just "higher"
    margin = 2 * (trained["stderr"] ** 2 + random_["stderr"] ** 2) ** 0.5
    assert trained["mean_progress"] > random_["mean_progress"] + margin, figures
