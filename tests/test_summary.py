"""BALROG's aggregation: families weigh equally, whatever their number of ids."""

import math

import pytest

from dungeonbench_gym.eval.summary import markdown, summarise


def _ep(env_id, family, progress):
    return {"agent": "a", "env_id": env_id, "family": family, "progress": progress,
            "success": progress == 1.0, "steps": 10, "invalid_actions": 0}


def test_overall_is_the_mean_of_family_scores():
    records = [_ep(f"B{i}", "babyai", 0.0) for i in range(5) for _ in range(2)]
    records += [_ep("C", "crafter", 1.0), _ep("C", "crafter", 1.0)]
    s = summarise(records)["agents"]["a"]
    assert s["families"]["babyai"]["score"] == 0.0
    assert s["families"]["crafter"]["score"] == 100.0
    assert s["overall"]["score"] == pytest.approx(50.0)  # not 100/6


def test_standard_errors_follow_balrog():
    records = [_ep("B", "babyai", p) for p in (0.0, 1.0, 1.0, 0.0)]
    records += [_ep("C", "crafter", p) for p in (0.2, 0.4)]
    s = summarise(records)["agents"]["a"]
    se_b = 100 * math.sqrt((4 * 0.25) / 3 / 4)     # sample std / sqrt(n)
    se_c = 100 * math.sqrt((2 * 0.01) / 1 / 2)
    assert s["families"]["babyai"]["se"] == pytest.approx(se_b)
    assert s["families"]["crafter"]["se"] == pytest.approx(se_c)
    assert s["overall"]["se"] == pytest.approx(math.sqrt(se_b ** 2 + se_c ** 2) / 2)
    assert "| a | **overall** | | 40.0 ±" in markdown(summarise(records))
