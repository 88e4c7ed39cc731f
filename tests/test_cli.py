"""The dungeonbench-gym command: list, play, eval (with resume), errors."""

import io
import json
import os
import subprocess
import sys
import types
from pathlib import Path


from dungeonbench_gym import cli


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "dungeonbench_gym.cli", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=300)


def test_list_shows_ids_with_family_n_and_metric(tmp_path):
    res = run_cli("list", cwd=tmp_path)  # from any folder
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    crafter = next(l for l in lines if l.startswith("Crafter-v0"))
    assert "crafter" in crafter and " 17 " in crafter and "achievements" in crafter
    assert sum(1 for l in lines if l.startswith(("BabyAI-", "Crafter-"))) >= 6
    data = json.loads(run_cli("list", "babyai", "--json").stdout)
    assert {d["actions"] for d in data} == {6} and len(data) == 5


def test_unknown_id_is_a_clear_error():
    res = run_cli("play", "Crafter-v9")
    assert res.returncode == 2
    assert "unknown env id 'Crafter-v9'" in res.stderr and "Crafter-v0" in res.stderr
    assert "Traceback" not in res.stderr


def test_play_accepts_numbers_and_labels_and_rejects_nonsense():
    args = types.SimpleNamespace(env_id="BabyAI-GoTo-v0", seed=3)
    stdin = io.StringIO("turn left\n1\nfly away\nq\n")
    out = io.StringIO()
    assert cli.cmd_play(args, stdin=stdin, stdout=out) == 0
    text = out.getvalue()
    assert "[0] turn left" in text and "Your goal" in text
    assert "--- step 2" in text and "--- step 3" not in text  # two moves, then the bad answer
    assert "'fly away' is not one of the options" in text and text.endswith("Bye.\n")


def test_eval_writes_episodes_summary_and_resumes(tmp_path):
    out = tmp_path / "res"
    common = ["eval", "--envs", "BabyAI-GoTo-v0", "--agents", "random,baseline",
              "--workers", "2", "--out", str(out), "--quiet"]
    res = run_cli(*common, "--episodes", "2")
    assert res.returncode == 0, res.stderr
    files = sorted(p.relative_to(out).as_posix() for p in out.glob("episodes/*/*/*.json"))
    assert files == [f"episodes/{a}/BabyAI-GoTo-v0/episode-000{k}.json"
                     for a in ("baseline", "random") for k in (0, 1)]
    first = {f: (out / f).read_text() for f in files}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["agents"]["baseline"]["envs"][0]["score"] == 100.0  # the expert solves GoTo
    assert "| random | BabyAI-GoTo-v0 | 2 |" in res.stdout

    # An interrupted run: one episode lost mid-write, the rest on disk.
    (out / files[0]).unlink()
    (out / "episodes/random/BabyAI-GoTo-v0/episode-0002.json.tmp").write_text("{")
    res = run_cli(*common, "--episodes", "3")
    assert res.returncode == 0, res.stderr
    assert "ran 3, resumed past 3" in res.stderr  # the lost one plus episode 2 of each agent
    for f, content in first.items():
        if f != files[0]:
            assert (out / f).read_text() == content  # not repeated
    again = json.loads((out / files[0]).read_text())
    assert again["seed"] == 0 and again["agent"] == "baseline"
    assert json.loads((out / "summary.json").read_text())["agents"]["random"]["envs"][0][
        "episodes"] == 3
    assert json.loads((out / "run.json").read_text())["settings"]["seed"] == 0

    # Resuming with another seed or step limit would mix episodes: refused, nothing run.
    res = run_cli(*common, "--episodes", "4", "--seed", "100")
    assert res.returncode == 2 and "seed=0" in res.stderr and "another --out" in res.stderr
    assert not (out / "episodes/random/BabyAI-GoTo-v0/episode-0003.json").exists()


def test_unknown_agent_fails_before_any_episode(tmp_path):
    res = run_cli("eval", "--agents", "rand", "--envs", "BabyAI-GoTo-v0", "--out",
                  str(tmp_path / "r"), "--quiet")
    assert res.returncode == 2 and "unknown agent 'rand'" in res.stderr
    assert "Traceback" not in res.stderr and not (tmp_path / "r").exists()


def test_check_passes_ours_and_fails_a_wrong_user_registry(tmp_path):
    res = run_cli("check", "BabyAI-GoTo-v0", "--skip", "maskable_ppo,vector")
    assert res.returncode == 0 and res.stdout.startswith("PASS BabyAI-GoTo-v0"), res.stdout
    # A user's own registry file, found through DUNGEONBENCH_ENVS_PATH, that documents
    # the wrong action count: conformance names the broken rule.
    (tmp_path / "toy.toml").write_text(
        'family = "toy"\nentry_point = "toy_env:CounterEnv"\nmetric = "value / 5"\n'
        'actions = 5\nmax_steps = 30\n[[envs]]\nid = "Toy-Counter-v0"\n')
    env = dict(os.environ, DUNGEONBENCH_ENVS_PATH=str(tmp_path),
               PYTHONPATH=os.path.dirname(__file__))
    res = subprocess.run([sys.executable, "-m", "dungeonbench_gym.cli", "check", "Toy-Counter-v0"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 1
    assert "FAIL Toy-Counter-v0: documented N: registry says 5 actions, env has 4" in res.stdout


def test_prepare_caches_boxoban_levels_that_envs_then_use(tmp_path, monkeypatch, capsys):
    pytest = __import__("pytest")
    pytest.importorskip("minihack")
    monkeypatch.setenv("DUNGEONBENCH_CACHE_DIR", str(tmp_path))
    assert cli.main(["prepare", "boxoban", "--count", "2", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "boxoban medium: 2 levels ready (2 new)" in out
    assert "boxoban hard: 2 levels ready (2 new)" in out
    files = sorted(p.name for p in (tmp_path / "boxoban" / "medium").iterdir())
    assert len(files) == 2
    assert cli.main(["prepare", "boxoban", "--count", "2", "--quiet"]) == 0
    assert "(0 new)" in capsys.readouterr().out   # cached: nothing generated again


def test_prepare_builds_the_textworld_games_the_envs_play(capsys):
    pytest = __import__("pytest")
    pytest.importorskip("textworld")
    from dungeonbench_gym.games.textworld import games as tw_games

    assert cli.main(["prepare", "textworld", "--count", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    for task in tw_games.TASKS:
        assert f"textworld {task}: 1 games ready in {tw_games.folder(task)}" in out
        made = tw_games.game(task, 0)
        assert Path(made.path).is_file() and Path(made.path).parent == tw_games.folder(task)


# ------------------------------------------------------- llm flags: client errors, context, timeout, tools
def _eval_args(*extra):
    return cli.build_parser().parse_args(["eval", "--agent", "llm", "--client", "fake", "--model",
                                          "first", "--envs", "BabyAI-GoTo-v0", *extra])


def test_llm_flags_reach_the_agent_spec_the_client_and_the_agent(monkeypatch):
    from dungeonbench_gym.agents import spec as spec_module
    from dungeonbench_gym.llm import agent as agent_module

    (spec,) = cli._agent_specs(_eval_args("--on-client-error", "fallback", "--context-tokens",
                                          "2048", "--timeout", "2.5", "--tool-protocol", "text"))
    assert {k: spec.opts[k] for k in ("on_client_error", "context_tokens", "timeout_s",
                                      "tool_protocol")} == {
        "on_client_error": "fallback", "context_tokens": 2048, "timeout_s": 2.5,
        "tool_protocol": "text"}
    assert spec.describe()["timeout_s"] == 2.5          # recorded in every result file
    assert spec_module.make_client(spec).timeout_s == 2.5
    given = {}

    class Recorder:
        def __init__(self, client, **kwargs):
            given.update(kwargs, client=client)

    monkeypatch.setattr(agent_module, "LLMAgent", Recorder)
    spec_module.make_llm_agent(spec)
    assert (given["on_client_error"], given["context_tokens"], given["tool_protocol"]) == (
        "fallback", 2048, "text")
    assert given["client"].timeout_s == 2.5
    # Flags not given are not passed: LLMAgent's own defaults apply.
    given.clear()
    (plain,) = cli._agent_specs(_eval_args())
    spec_module.make_llm_agent(plain)
    assert not {"on_client_error", "context_tokens", "tool_protocol"} & set(given)
    assert not {"on_client_error", "context_tokens", "timeout_s", "tool_protocol"} & set(plain.opts)
    assert given["client"].timeout_s == 60.0


def test_on_client_error_fail_and_the_other_flags_make_a_real_agent():
    from dungeonbench_gym.agents.spec import make_llm_agent

    (spec,) = cli._agent_specs(_eval_args("--on-client-error", "fail", "--context-tokens", "4096",
                                          "--tool-protocol", "native"))
    agent = make_llm_agent(spec)
    assert agent.on_client_error == "fail" and agent.tool_protocol == "native"
    assert agent.budget.limit == 4096   # the flag's window, not the client's
    (spec,) = cli._agent_specs(_eval_args("--on-client-error", "fallback"))
    assert make_llm_agent(spec).on_client_error == "fallback"


def test_bad_llm_flags_are_usage_errors_that_say_what_to_give(capsys):
    import pytest

    cases = {
        ("--context-tokens", "100"): "100 is below 256; give the model's context window in tokens",
        ("--context-tokens", "4k"): "'4k' is not a whole number; give the model's context window",
        ("--timeout", "0"): "0 is not above 0 seconds; give the seconds one request may take",
        ("--timeout", "-3"): "-3 is not above 0 seconds",
        ("--timeout", "nan"): "nan is not above 0 seconds",
        ("--timeout", "soon"): "'soon' is not a number of seconds",
        ("--on-client-error", "retry"): "invalid choice: 'retry'",
        ("--tool-protocol", "json"): "invalid choice: 'json'",
    }
    for flag, says in cases.items():
        with pytest.raises(SystemExit) as stop:
            cli.main(["eval", "--agent", "llm", "--client", "fake", *flag])
        assert stop.value.code == 2, flag
        err = capsys.readouterr().err
        assert f"argument {flag[0]}" in err and says in err, (flag, err)
        if "choice" in says:   # the choices are listed
            choices = ("fallback", "fail") if flag[0] == "--on-client-error" else (
                "auto", "native", "text")
            assert all(c in err.split(says)[1] for c in choices), err


def test_llm_options_of_a_spec_made_in_code_are_checked_before_any_episode():
    import pytest

    from dungeonbench_gym.agents.spec import AgentSpec, check
    from dungeonbench_gym.core.errors import DungeonBenchError

    bad = {"on_client_error": ("raise", "use one of fail, fallback"),
           "tool_protocol": ("xml", "use one of auto, native, text"),
           "context_tokens": (64, "256 or more"), "timeout_s": (0, "above 0")}
    for key, (value, says) in bad.items():
        with pytest.raises(DungeonBenchError, match=says) as err:
            check(AgentSpec.create("llm", client="fake", **{key: value}))
        assert key in str(err.value)
    check(AgentSpec.create("llm", client="fake", on_client_error="fallback", tool_protocol="auto",
                           context_tokens=256, timeout_s=0.5))


def test_history_defaults_to_balrogs_16_and_to_2_for_the_bundled_model():
    from dungeonbench_gym.agents.spec import AgentSpec, make_llm_agent

    fake = make_llm_agent(AgentSpec.create("llm", client="fake", model="first"))
    assert fake.history == 16
    local = make_llm_agent(AgentSpec.create("llm", client="local"))
    assert local.history == 2 and local.client.max_tokens == 48
    given = make_llm_agent(AgentSpec.create("llm", client="local", history=5, max_tokens=20))
    assert given.history == 5 and given.client.max_tokens == 20
