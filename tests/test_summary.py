"""BALROG's aggregation: families weigh equally, whatever their number of ids."""

import json
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


# ------------------------------------------------------------------ DungeonBench's Encounter table
def _dnd(agent, win, hp, survivors, decisions, llm=None, env_id="DnD-Encounter-OrcRaid-v0"):
    record = {"agent": agent, "env_id": env_id, "family": "dnd", "progress": float(win),
              "success": bool(win), "steps": decisions, "invalid_actions": 0,
              "metrics": {"win": float(win), "party_hp_fraction": hp, "survivors": survivors,
                          "rounds": 4, "decisions": decisions}}
    if llm:
        record["llm"] = llm
    return record


def _usage(decisions, tokens, tools):
    return {"decisions": decisions, "prompt_tokens": tokens - 10, "completion_tokens": 10,
            "fallbacks": 0, "tool_calls": tools}


def test_encounter_table_from_episode_metrics_and_llm_usage(tmp_path):
    from dungeonbench_gym.eval.summary import encounter_markdown, leaderboard, write

    records = [_dnd("heuristic", 1, 0.8, 1.0, 20), _dnd("heuristic", 0, 0.0, 0.5, 30),
               _dnd("heuristic", 1, 0.5, 1.0, 25, env_id="DnD-Encounter-WolfPack-v0"),
               _dnd("llm", 1, 0.6, 1.0, 10, _usage(10, 1000, 5)),
               _dnd("llm", 1, 0.4, 0.5, 30, _usage(30, 3000, 35)),
               _ep("B", "babyai", 0.5)]
    summary = summarise(records)
    table = summary["dnd_encounter"]
    assert set(table) == {"heuristic", "llm"}          # "a" played no D&D
    h, m = table["heuristic"], table["llm"]
    assert h["episodes"] == 3 and h["scenarios"] == 2
    assert h["win_rate"] == pytest.approx(2 / 3)
    assert h["win_rate_se"] == pytest.approx(math.sqrt((2 * (1 / 3) ** 2 + (2 / 3) ** 2) / 2 / 3))
    assert h["party_hp_fraction"] == pytest.approx((0.8 + 0.0 + 0.5) / 3)
    assert h["survivors"] == pytest.approx(2.5 / 3)
    assert h["decisions_per_episode"] == 25.0
    assert h["tools_per_decision"] is None and h["tokens_per_decision"] is None
    # per decision over all decisions (not a mean of episode ratios): 40 tools / 40 decisions
    assert m["tools_per_decision"] == pytest.approx(1.0) and m["tokens_per_decision"] == pytest.approx(100.0)
    text = encounter_markdown(summary)
    rows = [line for line in text.splitlines() if line.startswith(("| llm", "| heuristic"))]
    assert rows[0].startswith("| llm | 2 | 1.00 ± 0.00 | 0.50 | 0.75 | 20.0 | 1.00 | 100 |")
    assert rows[1].startswith("| heuristic | 3 | 0.67 ± 0.33 | 0.43 | 0.83 | 25.0 | - | - |")
    assert "D&D Encounter" in markdown(summary) and "D&D Encounter" in leaderboard(summary)
    write(summary, tmp_path)
    assert (tmp_path / "summary.md").read_text().count("| llm | 2 |") == 1
    assert json.loads((tmp_path / "summary.json").read_text())["dnd_encounter"]["llm"]["episodes"] == 2


def test_no_dnd_episodes_no_encounter_table():
    from dungeonbench_gym.eval.summary import leaderboard

    summary = summarise([_ep("B", "babyai", 0.5)])
    assert "dnd_encounter" not in summary
    assert "Encounter" not in markdown(summary) and "Encounter" not in leaderboard(summary)
    assert "Day" not in markdown(summarise([_dnd("x", 1, 1.0, 1.0, 5)]))   # no Day data: no Day table


def _day(agent, won, of, hp, rests, decisions, llm=None, env_id="DnD-Day-BanditHideout-v0"):
    record = {"agent": agent, "env_id": env_id, "family": "dnd", "progress": won / of,
              "success": won == of, "steps": decisions, "invalid_actions": 0,
              "metrics": {"full_clear": float(won == of), "encounters_won": won, "encounters": of,
                          "party_hp_fraction": hp, "survivors": 1.0, "decisions": decisions,
                          "short_rests_used": rests}}
    if llm:
        record["llm"] = llm
    return record


def test_day_table_apart_from_the_encounter_table():
    from dungeonbench_gym.eval.summary import day_markdown, leaderboard

    records = [_day("heuristic", 3, 3, 0.5, 1, 100), _day("heuristic", 1, 3, 0.0, 0, 60),
               _day("llm", 2, 4, 0.2, 2, 80, _usage(80, 8000, 40), env_id="DnD-Day-DragonHunt-v0"),
               _dnd("heuristic", 1, 0.8, 1.0, 20)]
    summary = summarise(records)
    assert summary["dnd_encounter"]["heuristic"]["episodes"] == 1   # Day episodes stay out of it
    h, m = summary["dnd_day"]["heuristic"], summary["dnd_day"]["llm"]
    assert h["episodes"] == 2 and h["clear_rate"] == 0.5 and h["clear_rate_se"] == pytest.approx(0.5)
    assert h["encounters_won"] == pytest.approx((1 + 1 / 3) / 2) and h["short_rests"] == 0.5
    assert m["tools_per_decision"] == pytest.approx(0.5) and m["tokens_per_decision"] == pytest.approx(100.0)
    text = day_markdown(summary)
    assert text.splitlines()[0] == "## D&D Day (DungeonBench)"
    assert "| heuristic | 2 | 0.50 ± 0.50 | 0.67 | 0.25 | 1.00 | 80.0 | 0.50 | - | - |" in text
    assert "| llm | 1 | 0.00 ± 0.00 | 0.50 | 0.20 | 1.00 | 80.0 | 2.00 | 0.50 | 100 |" in text
    assert "D&D Day" in leaderboard(summary) and "D&D Encounter" in leaderboard(summary)


# ------------------------------------------------------------------ language-model cost
def test_llm_rows_report_prompt_tokens_per_decision_and_the_largest_request(tmp_path):
    from dungeonbench_gym.eval.summary import leaderboard, llm_markdown, write

    def llm(decisions, prompt, largest, errors=0, compacted=0, fallbacks=0):
        return {"decisions": decisions, "prompt_tokens": prompt, "completion_tokens": 2 * decisions,
                "fallbacks": fallbacks, "max_request_tokens": largest, "client_errors": errors,
                "compacted_decisions": compacted, "prompt_tokens_per_decision": prompt / decisions}

    records = [_dnd("m", 1, 0.5, 1.0, 10, llm(10, 30000, 3900, errors=1, compacted=4)),
               _dnd("m", 0, 0.0, 0.0, 30, llm(30, 30000, 2100, fallbacks=3)),
               {**_ep("B", "babyai", 1.0), "agent": "m", "llm": llm(4, 2000, 600)},
               _ep("B", "babyai", 0.0)]   # agent "a": no language model
    summary = summarise(records)
    rows = {r["env_id"]: r for r in summary["agents"]["m"]["envs"]}
    dnd = rows["DnD-Encounter-OrcRaid-v0"]
    # over all decisions (60,000 prompt tokens / 40), the largest request of any episode
    assert dnd["prompt_tokens_per_decision"] == pytest.approx(1500.0)
    assert dnd["max_request_tokens"] == 3900 and dnd["decisions"] == 40
    assert dnd["client_errors"] == 1 and dnd["compacted_decisions"] == 4
    assert dnd["fallback_rate"] == pytest.approx(3 / 40)
    assert rows["B"]["prompt_tokens_per_decision"] == 500.0
    assert "prompt_tokens_per_decision" not in summary["agents"]["a"]["envs"][0]
    table = llm_markdown(summary)
    assert table.splitlines()[0] == "## Language-model use"
    assert "| m | DnD-Encounter-OrcRaid-v0 | 40 | 1500 | 3900 | 0.07 | 1 | 4 |" in table
    assert "| m | B | 4 | 500 | 600 | 0.00 | 0 | 0 |" in table
    assert "| a |" not in table
    assert table in markdown(summary)
    write(summary, tmp_path)
    assert "| m | B | 4 | 500 | 600 |" in (tmp_path / "summary.md").read_text()
    assert "Language-model use" not in leaderboard(summary)   # one row per agent there


def test_llm_usage_from_before_the_token_fields_still_summarises():
    old = {"decisions": 5, "prompt_tokens": 500, "completion_tokens": 50, "fallbacks": 1}
    summary = summarise([{**_ep("B", "babyai", 0.5), "llm": old}])
    (row,) = summary["agents"]["a"]["envs"]
    assert row["prompt_tokens_per_decision"] == 100.0 and row["max_request_tokens"] is None
    assert row["client_errors"] == 0 and row["tokens_per_decision"] == 110.0
    assert "| a | B | 5 | 100 | - | 0.20 | 0 | 0 |" in markdown(summary)
    assert "Language-model use" not in markdown(summarise([_ep("B", "babyai", 0.5)]))


def test_progress_stats_is_the_mean_and_the_standard_error_of_the_mean():
    """Sample standard deviation (n - 1) over sqrt(n); one episode has no spread to report."""
    from dungeonbench_gym.eval.summary import progress_stats
    assert progress_stats([0.0, 1.0]) == {"mean_progress": 0.5, "stderr": 0.5, "episodes": 2}
    # values 0, 0, 1, 1: sample variance 1/3, SE sqrt(1/12) = 0.288675...
    assert progress_stats([0.0, 0.0, 1.0, 1.0])["stderr"] == 0.2887
    assert progress_stats([0.25]) == {"mean_progress": 0.25, "stderr": 0.0, "episodes": 1}
