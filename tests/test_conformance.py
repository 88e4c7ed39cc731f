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
