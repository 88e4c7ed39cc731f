"""The BALROG protocol (`llm/balrog_protocol.py`), checked against what BALROG's own code
does (balrog-ai/BALROG: evaluator.py, agents/naive.py, chain_of_thought.py,
robust_naive.py, robust_cot.py, few_shot.py, prompt_builder/history.py,
environments/env_wrapper.py), and `export balrog` against BALROG's submission layout
(balrog/utils.py's summaries, balrog-ai/experiments' folders)."""

from __future__ import annotations

import json
import math

import pytest

import dungeonbench_gym
from dungeonbench_gym.agents.spec import AgentSpec
from dungeonbench_gym.core.errors import DungeonBenchError
from dungeonbench_gym.eval import balrog_export, runner
from dungeonbench_gym.llm.balrog_protocol import (ENV_SETTINGS, STRATEGIES, BalrogProtocolAgent,
                                                  VOCABULARY_HEADER, read_answer, vocabulary)
from dungeonbench_gym.llm.demonstrations import DEMO_DIR, demo_path, read_demonstration
from dungeonbench_gym.llm.fake import ScriptedClient


def _play(env_id, answers, strategy="naive", steps=None, seed=0, **agent_kwargs):
    family = dungeonbench_gym.make(env_id).unwrapped.family
    env = dungeonbench_gym.make(env_id, text=True, **ENV_SETTINGS.get(family, {}))
    client = ScriptedClient(list(answers))
    agent = BalrogProtocolAgent(client, strategy, **agent_kwargs)
    agent.reset(env, seed)
    obs, info = env.reset(seed=seed)
    infos = [info]
    for _ in range(steps or len(answers)):
        action = agent.act(obs, info)
        obs, _, terminated, truncated, info = env.step(action)
        infos.append(info)
        if terminated or truncated:
            break
    return env, agent, client, infos


# ------------------------------------------------------------------ reading answers
@pytest.mark.parametrize("strategy, reply, named", [
    ("naive", "go forward.", "go forward"),             # non-letters dropped, ':' and spaces kept
    ("naive", "  turn left\n", "turn left"),
    ("naive", "Go Forward", "Go Forward"),              # case is kept: not a vocabulary name
    ("cot", "The key is ahead.\nACTION: pick up", "pick up"),
    ("cot", "ACTION: left ... no. ACTION: turn right!", "turn right"),   # the last one counts
    ("robust_naive", "<|ACTION|> toggle <|END|>", "toggle"),
    ("robust_naive", "toggle", "toggle"),              # no tags: the whole answer
    ("robust_cot", "I think toggle", None),            # no tags: no action at all
    ("few_shot", "drop", "drop"),
])
def test_answers_are_read_as_balrogs_agents_read_them(strategy, reply, named):
    got = read_answer(strategy, reply)
    if named is None:
        assert got not in {"toggle", "I think toggle"}
    else:
        assert got == named


def test_every_balrog_strategy_is_offered():
    assert set(STRATEGIES) == {"naive", "cot", "robust_naive", "robust_cot", "few_shot"}


# ------------------------------------------------------------------ the chat
def test_vocabulary_is_shown_once_and_no_option_list_per_step():
    _, agent, client, _ = _play("BabyAI-GoTo-v0", ["turn left", "turn right", "turn left"])
    chat = client.calls[-1]
    first, rest = chat[0]["content"], [m["content"] for m in chat[1:]]
    assert VOCABULARY_HEADER in first
    for name in ("turn left", "turn right", "go forward", "pick up", "drop", "toggle"):
        assert name in first
    assert not any(VOCABULARY_HEADER in text for text in rest)
    assert not any("0: turn left" in text for text in [first, *rest])   # nothing numbered
    # the mission is in the opening message, as in BALROG's BabyAI instruction prompt
    assert agent.env.unwrapped.level.mission in first


def test_an_answer_outside_the_vocabulary_runs_the_default_once_and_the_next_observation_says_so():
    env, agent, client, infos = _play("BabyAI-GoTo-v0", ["fly away", "turn left"], seed=2)
    assert len(client.calls) == 2                          # one request per step: no re-asking
    first, second = agent.trajectory
    assert first["fell_back"] and first["action"]["label"] == "go forward"   # BALROG's default
    assert not second["fell_back"] and second["action"]["label"] == "turn left"
    current = client.calls[1][-1]["content"]
    assert "default action 'go forward'" in current
    # BALROG puts the feedback in front of the observation it prefixes
    assert current.index("default action") < current.index(infos[1]["text"]["long_term"])
    # the history keeps what the model said, not the action that ran instead
    assistants = [m["content"] for m in client.calls[1] if m["role"] == "assistant"]
    assert assistants == ["fly away"]


def test_a_valid_useless_action_is_executed_as_upstream_executes_it():
    """BALROG has no mask: walking into a wall is a wasted step, not the fallback."""
    env = dungeonbench_gym.make("BabaIsAI-goto_win-v0", text=True, **ENV_SETTINGS["babaisai"])
    agent = BalrogProtocolAgent(ScriptedClient(["down"] * 8), "naive")
    agent.reset(env, 0)
    obs, info = env.reset(seed=0)
    ran = []
    for _ in range(8):     # BABA starts near the bottom wall: "down" is soon blocked
        action = agent.act(obs, info)
        obs, _, terminated, truncated, info = env.step(action)
        ran.append((agent.last_record["action"]["label"], info["invalid_action"]))
        if terminated or truncated:
            break
    assert any(invalid for _, invalid in ran)              # the mask said it was useless
    assert all(label == "down" for label, _ in ran)        # and it still ran as "down"
    assert not any(r["fell_back"] for r in agent.trajectory)


def test_cot_replays_only_the_latest_reasoning_whole():
    replies = [f"Reasoning {n}.\nACTION: turn left" for n in range(3)] + ["ACTION: turn left"]
    _, _, client, _ = _play("BabyAI-GoTo-v0", replies, strategy="cot", seed=2)
    assistants = [m["content"] for m in client.calls[-1] if m["role"] == "assistant"]
    assert assistants[:-1] == ["turn left", "turn left"]
    assert assistants[-1].startswith("Previous plan:") and "Reasoning 2." in assistants[-1]


def test_history_is_cut_to_the_last_observations():
    """BALROG's max_text_history counts every observation shown, the current one too."""
    _, _, client, _ = _play("BabyAI-GoTo-v0", ["turn left"] * 6, steps=6, history=3, seed=2)
    chat = client.calls[-1]
    past = sum(m["content"].count("Observation:\n") for m in chat)
    current = sum(m["content"].count("Current observation:") for m in chat)
    assert (past, current) == (2, 1)
    assert sum(m["role"] == "assistant" for m in chat) == 2


def test_textworld_takes_any_typed_answer_and_shows_balrogs_text():
    env, agent, client, infos = _play("TextWorld-CoinCollector-v0", ["goal", "inventory"])
    unwrapped = env.unwrapped
    assert unwrapped.commands == ["goal", "inventory"]      # sent to the game as typed
    assert not any(r["fell_back"] for r in agent.trajectory)
    objective = unwrapped._objective
    first = infos[0]["text"]
    assert first["short_term"] == ""                       # no objective, inventory, score lines
    assert objective and objective not in first["long_term"]   # cut from the first screen
    # BALROG's filter_objective cuts the objective from every response, so even "goal"
    # answers without it there; ours does the same
    assert objective not in infos[1]["text"]["long_term"]
    assert "carrying" in infos[2]["text"]["long_term"].lower()   # "inventory" answers
    assert VOCABULARY_HEADER not in client.calls[0][0]["content"]  # typed: no fixed list


def test_nle_families_press_more_for_the_agent():
    """BALROG's skip_more: a --More-- screen is pressed for the agent, so no decision of
    one reaches the model (menus and questions still do)."""
    import numpy as np

    def more_screens(auto_more):
        count = 0
        for seed in range(4):
            env = dungeonbench_gym.make("MiniHack-Quest-Easy-v0", text=True,
                                        on_invalid="passthrough", auto_more=auto_more)
            env.reset(seed=seed)
            commands = env.unwrapped.allowed_commands
            rng = np.random.default_rng(seed)
            for _ in range(60):
                _, _, terminated, truncated, info = env.step(int(rng.choice(commands)))
                if terminated or truncated:
                    break          # the end screens are NetHack's, not a decision
                count += info["decision"] == "more"
        return count

    assert more_screens(auto_more=False) > 0     # the same play meets --More-- screens
    assert more_screens(auto_more=True) == 0


def test_families_without_a_vocabulary_are_refused_with_the_fix():
    env = dungeonbench_gym.make("DnD-Encounter-GoblinAmbush-v0", text=True)
    with pytest.raises(DungeonBenchError, match="--protocol options"):
        vocabulary(env)


# ------------------------------------------------------------------ few-shot
def test_few_shot_opens_with_a_recorded_demonstration():
    _, _, client, _ = _play("BabaIsAI-goto_win-v0", ["up"], strategy="few_shot")
    text = "\n".join(m["content"] for m in client.calls[0])
    demo = read_demonstration(demo_path("BabaIsAI-goto_win-v0"))
    assert "Demonstration episode 1 begins" in text and "Demonstration episode 1 ends" in text
    assert text.index("episode 1 ends") < text.index("Current observation:")
    assert demo[0][0] in text


def test_every_balrog_task_has_a_demonstration_of_its_own_vocabulary():
    from dungeonbench_gym.eval import suites
    for env_id, _ in suites.builtin("balrog").envs:
        path = demo_path(env_id)
        assert path.is_file(), f"no demonstration for {env_id}: run scripts/record_balrog_demos.py"
        doc = json.loads(path.read_text())
        assert doc["env_id"] == env_id and doc["seed"] >= 1_000_000   # never an evaluated seed
        pairs = read_demonstration(path)
        family = dungeonbench_gym.make(env_id).unwrapped.family
        if family == "textworld":
            # seed s plays game s % 25 of BALROG's 25: a demonstration names a game
            # past them, which no suite plays
            assert doc["options"]["game"] >= 25, f"{env_id}: demonstrates an evaluated game"
            continue               # typed commands: any text is an action
        env = dungeonbench_gym.make(env_id, text=True, **ENV_SETTINGS.get(family, {}))
        names = {o.label for o in vocabulary(env).actions}    # what the model may answer
        outside = sorted({action for _, action in pairs} - names)
        assert not outside, f"{env_id}: demonstrated actions outside the vocabulary: {outside}"
    assert len(list(DEMO_DIR.glob("*.json"))) == len(suites.builtin("balrog").envs)


# ------------------------------------------------------------------ the harness and export
BALROG_SUMMARY_KEYS = {"average_progress", "standard_error", "environments",
                       "total_input_tokens", "total_output_tokens", "client", "agent"}
BALROG_ENV_KEYS = {"progression_percentage", "standard_error", "average_steps",
                   "episodes_played", "tasks", "input_tokens", "output_tokens"}
BALROG_EPISODE_KEYS = {"task", "action_frequency", "input_tokens", "output_tokens",
                       "episode_return", "num_steps", "failed_candidates", "progression",
                       "process_num", "seed", "agent", "client"}


def _balrog_se(values):
    """BALROG's formula, written out: population SD over sqrt(n)."""
    n = len(values)
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / n) / math.sqrt(n) if n > 1 else 0.0


@pytest.fixture(scope="module")
def balrog_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("balrog-run")
    spec = AgentSpec.create("llm", client="fake", model="random", protocol="balrog")
    envs = [("BabyAI-GoTo-v0", 4), ("BabaIsAI-goto_win-v0", 2), ("TextWorld-CoinCollector-v0", 1),
            ("MiniHack-MazeWalk-9x9-v0", 1), ("Crafter-v0", 1), ("NetHack-v0", 1)]
    tasks, _ = runner.plan([spec], envs, seed=0, max_steps=30)
    counts = runner.run(tasks, out, workers=1, progress_bar=False)
    assert counts["failed"] == 0
    return out


def test_a_balrog_protocol_run_exports_to_balrogs_submission_layout(balrog_run, tmp_path):
    out = tmp_path / "submission"
    top = balrog_export.export(balrog_run, out, date="2026-12-03")
    assert set(json.loads((out / "summary.json").read_text())) == BALROG_SUMMARY_KEYS
    assert set(top["environments"]) == {"babyai", "babaisai", "textworld", "minihack",
                                        "crafter", "nle"}              # BALROG's env names
    for env in top["environments"]:
        summary = json.loads((out / env / f"{env}_summary.json").read_text())
        assert set(summary) == BALROG_ENV_KEYS
    # BALROG's file paths: <env>/<task>/<task>_run_NN.json, a task with '/' nested twice
    goto = out / "babyai" / "BabyAI-MixedTrainLocal-v0/goto" / "BabyAI-MixedTrainLocal-v0/goto_run_03.json"
    baba = out / "babaisai" / "env/goto_win" / "env/goto_win_run_01.json"
    nle = out / "nle" / "NetHackChallenge-v0" / "NetHackChallenge-v0_run_00.json"
    for path in (goto, baba, nle, out / "textworld" / "coin_collector" / "coin_collector_run_00.json",
                 out / "crafter" / "default" / "default_run_00.json"):
        assert path.is_file(), path
        log = json.loads(path.read_text())
        assert BALROG_EPISODE_KEYS <= set(log) and 0.0 <= log["progression"] <= 1.0
        assert path.with_suffix(".csv").read_text().startswith(
            "Step,Action,Reasoning,Observation,Reward,Done")
    # the summaries use BALROG's standard error, recomputed here from the episode logs
    runs = sorted((out / "babyai").rglob("*_run_*.json"))
    values = [json.loads(p.read_text())["progression"] for p in runs]
    babyai = top["environments"]["babyai"]
    assert babyai["episodes_played"] == 4
    assert babyai["progression_percentage"] == pytest.approx(100 * sum(values) / 4)
    assert babyai["standard_error"] == pytest.approx(100 * _balrog_se(values))
    envs = top["environments"].values()
    assert top["average_progress"] == pytest.approx(
        sum(e["progression_percentage"] for e in envs) / 6)
    assert top["standard_error"] == pytest.approx(
        math.sqrt(sum(e["standard_error"] ** 2 for e in envs)) / 6)
    assert top["agent"]["type"] == "naive" and top["client"]["generate_kwargs"]["temperature"] == 1.0
    meta = (out / "metadata.yaml").read_text()
    for key in ("name:", "oss:", "site:", "verified: false", 'date: "2026-12-03"'):
        assert key in meta
    assert (out / "README.md").is_file()


def test_export_refuses_options_protocol_runs_and_keeps_other_families_apart(tmp_path):
    results = tmp_path / "run"
    tasks, _ = runner.plan(["random"], [("BabyAI-GoTo-v0", 2), ("DnD-Encounter-GoblinAmbush-v0", 1)],
                           seed=0, max_steps=20)
    runner.run(tasks, results, workers=1, progress_bar=False)
    with pytest.raises(DungeonBenchError, match="--protocol balrog"):
        balrog_export.export(results, tmp_path / "a")
    top = balrog_export.export(results, tmp_path / "b", any_protocol=True)
    assert set(top["environments"]) == {"babyai"}          # D&D is never in BALROG's summary
    extra = json.loads((tmp_path / "b" / "dungeonbench_extra.json").read_text())
    assert "DnD-Encounter-GoblinAmbush-v0" in extra["other_envs"]
    assert "nle" in extra["balrog_envs_missing"]
    assert "not comparable" in (tmp_path / "b" / "README.md").read_text()


def test_export_cli_writes_the_layout(balrog_run, tmp_path, capsys):
    from dungeonbench_gym.cli import main
    assert main(["export", "balrog", str(balrog_run), str(tmp_path / "sub")]) == 0
    assert "BALROG submission" in capsys.readouterr().out
    assert (tmp_path / "sub" / "summary.json").is_file()
    assert main(["export", "balrog", str(balrog_run), str(tmp_path / "sub")]) == 2   # not empty


def test_eval_cli_balrog_protocol_rejects_options_strategies(capsys):
    from dungeonbench_gym.cli import main
    code = main(["eval", "--agent", "llm", "--client", "fake", "--protocol", "balrog",
                 "--strategy", "direct", "--envs", "BabyAI-GoTo-v0", "--episodes", "1"])
    assert code == 2 and "naive" in capsys.readouterr().err


def test_options_protocol_is_unchanged_by_default():
    spec = AgentSpec.create("llm", client="fake", model="random")
    assert spec.protocol == "options" and spec.env_settings("babyai") == {}
    from dungeonbench_gym.agents.spec import make_llm_agent
    from dungeonbench_gym.llm.agent import LLMAgent
    assert isinstance(make_llm_agent(spec), LLMAgent)


def test_a_small_window_drops_history_then_demonstrations_before_falling_back():
    """Every request must fit the model's window: the oldest history goes first, then the
    demonstrations; only a chat that cannot fit even so falls back unasked."""
    env = dungeonbench_gym.make("Crafter-v0", text=True, **ENV_SETTINGS["crafter"])
    client = ScriptedClient(["Noop"] * 4)
    agent = BalrogProtocolAgent(client, "few_shot", context_tokens=2048)
    agent.reset(env, 0)
    obs, info = env.reset(seed=0)
    for _ in range(4):
        obs, *_, info = env.step(agent.act(obs, info))
    assert all("demonstrations dropped" in r["compaction"] for r in agent.trajectory)
    assert not any(r["fell_back"] for r in agent.trajectory)
    for chat in client.calls:
        assert agent.budget.fits(chat)
