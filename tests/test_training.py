"""MaskablePPO trains on a registered env exactly as gymnasium.make returns it."""

import subprocess
import sys

SCRIPT = """
import gymnasium as gym, numpy as np
from sb3_contrib import MaskablePPO
env = gym.make("dungeonbench_gym:DungeonBench/Crafter-v0")
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


def test_maskable_ppo_trains_2k_steps_on_crafter_without_custom_code(tmp_path):
    res = subprocess.run([sys.executable, "-c", SCRIPT], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.split()[-1] == "2048"
