"""A real OpenAI-compatible server: llama-cpp-python's, serving the shipped SmolLM2 with a
4,096-token context on 127.0.0.1 (tests/llama_server.py), played through `--client openai`.

Short episodes of BabyAI, a D&D encounter (with and without tools) and a text adventure
must finish with every request inside the context; a server killed mid-episode ends in
recorded fallbacks or in a failed episode that keeps its steps, per on_client_error.
"""

import functools
import itertools
import json

import pytest

from dungeonbench_gym import cli
from dungeonbench_gym.agents.spec import AgentSpec
from dungeonbench_gym.eval import runner
from dungeonbench_gym.llm import llama_server
from dungeonbench_gym.llm.llama_server import CONTEXT_TOKENS, MODEL_ALIAS, running_server

ENVS = ("BabyAI-GoTo-v0", "DnD-Encounter-GoblinAmbush-v0", "TextAdventure-Lighthouse-v0")
# small enough for CI's CPUs (a D&D prompt near the window takes ~20 s to read on two
# cores), long enough for history and re-asks to matter
MAX_STEPS = "3"
LLM_ARGS = ("--agent", "llm", "--client", "openai", "--model", MODEL_ALIAS, "--episodes", "1",
            "--history", "2", "--max-tokens", "48", "--context-tokens", str(CONTEXT_TOKENS),
            "--workers", "1", "--quiet")


def _steps(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def _episodes(out):
    return sorted((out / "episodes").glob(runner.EPISODE_GLOB))


def test_three_families_finish_on_the_server_with_every_request_inside_the_context(
        llama_server, tmp_path, capsys):
    out = tmp_path / "run"
    assert cli.main(["eval", *LLM_ARGS, "--base-url", llama_server, "--envs", ",".join(ENVS),
                     "--max-steps", MAX_STEPS, "--out", str(out)]) == 0, capsys.readouterr().err
    episodes = _episodes(out)
    assert sorted(p.parent.name for p in episodes) == sorted(ENVS)
    assert not (out / "errors.log").exists()
    for path in episodes:
        record = json.loads(path.read_text())
        steps = _steps(path.with_suffix(".trajectory.jsonl"))
        assert len(steps) == record["steps"] > 0, path
        for step in steps:
            agent = step["agent"]
            assert agent["max_request_tokens"] <= CONTEXT_TOKENS, (path, step["t"], agent)
            assert agent["client_errors"] == 0 and agent["client_error"] is None, (path, agent)
        # the server answered (its own token counts), within the window every time
        assert 0 < record["llm"]["max_request_tokens"] <= CONTEXT_TOKENS
        assert record["llm"]["client_errors"] == 0
    summary = (out / "summary.md").read_text()
    assert "## Language-model use" in summary and "prompt tokens/decision" in summary


def test_dnd_with_tools_on_the_server_completes_a_tool_round_trip(llama_server, tmp_path, capsys):
    out = tmp_path / "tools"
    # two decisions, one call each: a round trip is one call and the request after it
    assert cli.main(["eval", *LLM_ARGS, "--base-url", llama_server, "--tools",
                     "--max-tool-calls", "1", "--envs", "DnD-Encounter-GoblinAmbush-v0",
                     "--max-steps", "2", "--out", str(out)]) == 0, capsys.readouterr().err
    (path,) = _episodes(out)
    record = json.loads(path.read_text())
    assert record["llm"]["tools"].startswith("on: ")
    steps = _steps(path.with_suffix(".trajectory.jsonl"))
    calls = [call for step in steps for call in step["agent"]["tool_calls"]]
    trips = [call for call in calls if call["round_trip"]]
    assert trips, f"no tool call came back answered: {calls}"
    assert all(set(call) >= {"name", "args", "result_chars", "error", "counted"} for call in trips)
    assert record["llm"]["tool_calls"] >= 1
    for step in steps:
        assert step["agent"]["max_request_tokens"] <= CONTEXT_TOKENS
        assert step["agent"]["client_errors"] == 0


# ------------------------------------------------------------- a server killed mid-episode
KILL_AFTER = 2     # decisions answered before the server dies
KILLED_STEPS = 4


def _play_until_killed(mode, tmp_path, monkeypatch):
    """One BabyAI episode in this process whose server is SIGKILLed before decision
    KILL_AFTER + 1. The client retries once, without waiting, so a dead server costs
    each decision a refused connection or two; answers are cut at 8 tokens (what they
    say does not matter here, that they came does)."""
    from dungeonbench_gym.llm import clients

    monkeypatch.setitem(clients.PROVIDERS, "openai", functools.partial(
        clients.OpenAICompatibleClient, max_retries=1, backoff_s=0.01))
    out = tmp_path / mode
    with running_server() as server:
        spec = AgentSpec.create("llm", f"killed-{mode}", client="openai", model=MODEL_ALIAS,
                                base_url=server.base_url, history=2, max_tokens=8,
                                context_tokens=CONTEXT_TOKENS, on_client_error=mode,
                                timeout_s=30.0)
        tasks, _ = runner.plan([spec], ["BabyAI-GoTo-v0"], episodes=1, max_steps=KILLED_STEPS)
        build = runner.build_agent

        def build_then_kill(agent_spec, family):
            agent = build(agent_spec, family)
            act, decided = agent.act, itertools.count()

            def act_and_kill(observation, info):
                if next(decided) == KILL_AFTER:
                    server.kill()
                return act(observation, info)

            agent.act = act_and_kill
            return agent

        monkeypatch.setattr(runner, "build_agent", build_then_kill)
        counts = runner.run(tasks, out, workers=runner.IN_PROCESS, progress_bar=False)
        assert server.process.poll() is not None, "the server was never killed"
    return tasks[0], out, counts, server


def test_a_killed_server_with_fallback_finishes_the_episode_with_recorded_fallbacks(
        tmp_path, monkeypatch):
    task, out, counts, server = _play_until_killed("fallback", tmp_path, monkeypatch)
    assert counts["ran"] == 1 and counts["failed"] == 0
    record = json.loads(task.path(out).read_text())
    steps = [s["agent"] for s in _steps(task.trajectory_path(out))]
    assert record["steps"] == len(steps) == KILLED_STEPS, "the episode stopped early"
    for before in steps[:KILL_AFTER]:
        assert before["client_error"] is None and before["client_errors"] == 0
        assert before["completions"]                    # the server answered these
    for after in steps[KILL_AFTER:]:
        assert after["fell_back"] is True and after["client_errors"] >= 1
        assert str(server.port) in after["client_error"], after["client_error"]   # names it
    assert record["llm"]["fallbacks"] >= KILLED_STEPS - KILL_AFTER
    assert record["llm"]["client_errors"] >= KILLED_STEPS - KILL_AFTER
    assert not (out / "errors.log").exists()


def test_a_killed_server_with_fail_records_the_failed_episode_and_its_steps(
        tmp_path, monkeypatch):
    task, out, counts, server = _play_until_killed("fail", tmp_path, monkeypatch)
    assert counts["ran"] == 0 and counts["failed"] == 1
    assert not task.path(out).exists()                  # not done: a resume plays it again
    failed = task.path(out).with_name("episode-0000.failed-1.trajectory.jsonl")
    steps = _steps(failed)
    assert [s["t"] for s in steps] == list(range(1, KILL_AFTER + 1))
    assert all(s["agent"]["completions"] and s["agent"]["client_error"] is None for s in steps)
    (line,) = (out / "errors.log").read_text().splitlines()
    assert line.startswith("killed-fail BabyAI-GoTo-v0 episode 0: ")
    assert "Error: " in line and str(server.port) in line, line          # the cause
    assert line.endswith(f"its {KILL_AFTER} steps so far are in {failed}")
    assert runner.load_records(out) == []


def test_a_server_that_cannot_start_fails_with_its_log_and_leaves_nothing(tmp_path, monkeypatch):
    import tempfile


    command = llama_server.server_command
    monkeypatch.setattr(llama_server, "server_command", lambda port: [
        *command(port)[:4], str(tmp_path / "no-such-model.gguf"), *command(port)[5:]])
    logs = tmp_path / "logs"
    logs.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(logs))
    with pytest.raises(llama_server.ServerFailed, match="exited with status") as err:
        with running_server(timeout_s=30):
            pytest.fail("a server without its model answered")
    assert "its log ends:" in str(err.value) and "no-such-model.gguf" in str(err.value)
    assert list(logs.iterdir()) == []     # the log went with the server


def test_without_llama_cpp_server_the_tests_fail_with_the_install_hint(monkeypatch):
    import importlib.util


    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "llama_cpp.server" else find_spec(name, *a))
    with pytest.raises(llama_server.ServerFailed, match=r"pip install 'dungeonbench-gym\[local-llm\]'"):
        with running_server():
            pytest.fail("started without llama_cpp.server")
