"""Every registered id against every conformance check.

A new family is covered by adding its registry file to envs/: the ids are read
from the registry at collection time.
"""

import pytest

import dungeonbench_gym
from dungeonbench_gym.core import conformance

IDS = dungeonbench_gym.ids()


def test_registry_has_the_foundation_families():
    families = {dungeonbench_gym.REGISTRY[i].family for i in IDS}
    assert {"babyai", "crafter"} <= families
    assert len(IDS) >= 6


@pytest.mark.parametrize("check", list(conformance.ALL_CHECKS))
@pytest.mark.parametrize("env_id", IDS)
def test_conformance(env_id, check):
    entry = dungeonbench_gym.REGISTRY[env_id]
    make = conformance.env_factory(entry.gym_id)
    if check == "spaces":
        conformance.check_spaces(make, expected_actions=entry.actions)
    else:
        conformance.ALL_CHECKS[check](make)


# ------------------------------------------------------------------ the reset scan and the fuzz
# On a toy env, each new check must pass the sound env and catch what it is meant to catch.
import functools  # noqa: E402

import numpy as np  # noqa: E402

from toy_env import CounterEnv  # noqa: E402

SOUND = functools.partial(CounterEnv, max_steps=50)


def test_reset_scan_and_fuzz_pass_a_sound_env():
    conformance.check_reset_scan(SOUND, seeds=range(20))
    conformance.check_fuzz(SOUND, steps=500)


class _InvariantBreaks(CounterEnv):
    """Its own invariant: the counter never shows 3 (a stand-in for a D&D hp above its max)."""

    def check_invariants(self):
        return ["the counter shows 3"] if self.value == 3 else []


class _LeavesItsSpace(CounterEnv):
    def _game_observation(self):
        return {"value": np.array([self.value + 3], np.int64)}   # Box(0, 5): 6 at value 3


class _OptionsMisaligned(CounterEnv):
    def _options(self, mask):
        return list(super()._options(mask))[:-1]   # the last legal index has no option


class _CountsNoInvalid(CounterEnv):
    def _info(self, invalid):
        info = super()._info(invalid)
        info["metrics"]["invalid_actions"] = 0
        return info


@pytest.mark.parametrize("env, rule", [
    (_InvariantBreaks, "family invariants"),
    (_LeavesItsSpace, "observation in space"),
    (_OptionsMisaligned, "options index-aligned"),
    (_CountsNoInvalid, "invalid actions counted"),
])
def test_fuzz_catches_a_broken_env(env, rule):
    with pytest.raises(conformance.ConformanceError, match=rule) as caught:
        conformance.check_fuzz(functools.partial(env, max_steps=50), steps=500)
    assert "seed " in str(caught.value)   # the episode's seed: it replays


def test_fuzz_plays_the_requested_share_of_illegal_indices():
    env = CounterEnv(max_steps=50)
    played = invalid = 0
    for seed in range(400):
        steps, _, _ = conformance.fuzz_episode(env, seed=seed, steps=50, illegal_fraction=0.1)
        played += steps
        invalid += env.unwrapped._invalid_count
    # 'down' or 'finish' is masked out at every value, so an illegal index exists at every step
    assert played > 2000 and 0.08 < invalid / played < 0.12


class _OverButSilent(CounterEnv):
    """A game already finished at reset that does not say so: its first step crashes."""

    def _game_reset(self, seed, options):
        super()._game_reset(seed, options)
        self.finished = True

    def _game_step(self, action):
        if self.finished:
            raise RuntimeError("the game is over")
        return super()._game_step(action)


class _OverAndSays(_OverButSilent):
    def _game_over(self):
        return self.finished


def test_reset_scan_catches_a_start_that_crashes_and_passes_one_that_ends_cleanly():
    with pytest.raises(conformance.ConformanceError, match="playable first step"):
        conformance.check_reset_scan(_OverButSilent, seeds=range(3))
    conformance.check_reset_scan(_OverAndSays, seeds=range(3))
    conformance.check_fuzz(_OverAndSays, steps=50)   # every episode one 'continue' step


def test_reset_scan_catches_an_ended_start_that_is_not_a_single_over_option():
    class NotOver(_OverAndSays):
        def _info(self, invalid):
            info = super()._info(invalid)
            info["decision"] = "command"
            return info

    with pytest.raises(conformance.ConformanceError, match="one option when the game ended"):
        conformance.check_reset_scan(NotOver, seeds=range(2))
