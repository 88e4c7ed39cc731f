"""The option-ranking policy (dungeonbench_gym.rl): what makes it an option ranker rather than a
slot classifier, checked on its definition (permutation equivariance, masks, no per-slot
weights), and that MaskablePPO trains, saves and loads it on real envs."""

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium import spaces

pytest.importorskip("sb3_contrib")
from sb3_contrib import MaskablePPO  # noqa: E402

import dungeonbench_gym  # noqa: E402,F401 - registers the ids
from dungeonbench_gym.rl import OptionRankingPolicy  # noqa: E402

N, F = 6, 5
SPACE = spaces.Dict({"action_mask": spaces.Box(0, 1, (N,), np.int8),
                     "options": spaces.Box(0.0, 1.0, (N, F), np.float32),
                     "option_ids": spaces.Box(0, 20, (N,), np.int64),
                     "state": spaces.Box(0.0, 1.0, (7,), np.float32),
                     "phase": spaces.Discrete(3)})


def _policy(space=SPACE, n=N):
    torch.manual_seed(0)
    return OptionRankingPolicy(space, spaces.Discrete(n), lambda _: 3e-4)


def _logits(policy, obs):
    t, _ = policy.obs_to_tensor(obs)   # extract_features one-hots the Discrete key itself
    feats = policy.extract_features(t)
    return policy.action_net(policy.mlp_extractor.forward_actor(feats))[0].detach().numpy()


def _obs(rng, mask=None):
    o = {k: s.sample() for k, s in SPACE.spaces.items()}
    o["action_mask"] = np.ones(N, np.int8) if mask is None else np.asarray(mask, np.int8)
    return o


def test_permuting_the_options_permutes_the_scores():
    policy, rng = _policy(), np.random.default_rng(0)
    obs = _obs(rng)
    perm = rng.permutation(N)
    swapped = dict(obs, options=obs["options"][perm], option_ids=obs["option_ids"][perm],
                   action_mask=obs["action_mask"][perm])
    assert np.allclose(_logits(policy, swapped), _logits(policy, obs)[perm], atol=1e-5)


def test_an_option_scores_the_same_in_any_slot_of_the_same_decision():
    """The same option row and id, placed in two slots, gets one score: the network has no
    per-slot weights."""
    policy, obs = _policy(), _obs(np.random.default_rng(1))
    obs["options"][4], obs["option_ids"][4] = obs["options"][1], obs["option_ids"][1]
    s = _logits(policy, obs)
    assert abs(s[4] - s[1]) < 1e-6


def test_illegal_options_do_not_change_the_legal_options_scores():
    """The context is pooled over legal options only: rewriting an illegal option's row changes
    no legal option's score, and the masked distribution never picks it."""
    policy, obs = _policy(), _obs(np.random.default_rng(2), mask=[1, 1, 1, 0, 0, 1])
    before = _logits(policy, obs)
    obs["options"][3] = 1 - obs["options"][3]
    obs["option_ids"][4] = 19
    after = _logits(policy, obs)
    legal = [0, 1, 2, 5]
    assert np.allclose(before[legal], after[legal], atol=1e-6)
    t, _ = policy.obs_to_tensor(obs)
    dist = policy.get_distribution(t, action_masks=obs["action_mask"][None].astype(bool))
    probs = dist.distribution.probs[0].detach().numpy()
    assert probs[3] < 1e-6 and probs[4] < 1e-6


def test_a_fixed_action_family_gets_one_learned_embedding_per_index():
    space = spaces.Dict({"action_mask": spaces.Box(0, 1, (4,), np.int8),
                         "image": spaces.Box(0, 10, (3, 3), np.uint8)})
    policy = _policy(space, 4)
    assert policy.features_extractor.index_embed.weight.shape == (4, 64)


def test_the_option_count_must_match_the_action_space():
    with pytest.raises(ValueError, match="6 options but the action space has 5"):
        _policy(SPACE, 5)


MULTI = spaces.Dict({"action_mask": spaces.Box(0, 1, (N,), np.int8),
                     "option_ids": spaces.Box(0, 30, (N, 3), np.int32),
                     "state": spaces.Box(0.0, 1.0, (7,), np.float32)})


def test_several_ids_per_option_each_reach_the_score_by_position():
    """(N, K) ids (a command's verb and objects): each column reaches the score, the columns are
    not a bag (verb 5 with object 9 differs from verb 9 with object 5), and permuting options
    still permutes the scores."""
    policy, rng = _policy(MULTI), np.random.default_rng(3)
    assert policy.features_extractor.ids_per_option == 3
    obs = {"action_mask": np.ones(N, np.int8), "state": rng.random(7, dtype=np.float32),
           "option_ids": np.zeros((N, 3), np.int32)}
    obs["option_ids"][0] = [5, 9, 0]
    obs["option_ids"][1] = [9, 5, 0]
    obs["option_ids"][2] = [5, 9, 7]
    s = _logits(policy, obs)
    assert abs(s[0] - s[1]) > 1e-6 and abs(s[0] - s[2]) > 1e-6
    perm = rng.permutation(N)
    swapped = dict(obs, option_ids=obs["option_ids"][perm])
    assert np.allclose(_logits(policy, swapped), s[perm], atol=1e-5)


def test_ids_must_have_one_row_per_option():
    bad = spaces.Dict({"action_mask": spaces.Box(0, 1, (N,), np.int8),
                       "option_ids": spaces.Box(0, 30, (N + 1, 2), np.int32)})
    with pytest.raises(ValueError, match="must be"):
        _policy(bad)


@pytest.mark.parametrize("env_id", ["DungeonBench/DnD-Encounter-GoblinAmbush-v0", "DungeonBench/Crafter-v0"])
def test_maskable_ppo_trains_saves_and_loads_the_policy(env_id, tmp_path):
    env = gym.make(env_id)
    model = MaskablePPO(OptionRankingPolicy, env, n_steps=64, batch_size=32, n_epochs=1, seed=0,
                        policy_kwargs={"dim": 32, "hidden": 32})
    model.learn(64)
    obs, info = env.reset(seed=3)
    mask = env.get_wrapper_attr("action_masks")()
    a, _ = model.predict(obs, action_masks=mask, deterministic=True)
    assert mask[int(a)]
    model.save(tmp_path / "m.zip")
    again = MaskablePPO.load(tmp_path / "m.zip")
    assert again.policy.dim == 32
    b, _ = again.predict(obs, action_masks=mask, deterministic=True)
    assert int(a) == int(b)
