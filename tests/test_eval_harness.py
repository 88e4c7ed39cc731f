"""The evaluation harness: suites, LLM and SB3 agents in eval, trajectories,
resume after a kill, the Ray backend, summaries, and no API key in any output."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from dungeonbench_gym import cli
from dungeonbench_gym.core.errors import DungeonBenchError, FileFormatError
from dungeonbench_gym.eval import runner, suites
from dungeonbench_gym.llm.base import ChatClient, ClientError, Completion

SECRET = "sk-test-SECRET-4242-do-not-log"


# ------------------------------------------------------------------- suites
def test_balrog_suite_has_balrogs_tasks_and_counts():
    suite = suites.builtin("balrog")
    counts = dict(suite.envs)
    assert all(counts[f"BabyAI-{t}-v0"] == 10
               for t in ("GoTo", "Pickup", "Open", "PutNext", "PickUpSeqGoTo"))
    assert counts["Crafter-v0"] == 10 and counts["NetHack-v0"] == 5
    assert sum(1 for i in counts if i.startswith("BabaIsAI-")) == 40
    assert all(n == 3 for i, n in counts.items() if i.startswith("BabaIsAI-"))
    assert sum(1 for i in counts if i.startswith("MiniHack-")) == 8
    assert "NetHack-Valkyrie-v0" not in counts   # our variants are not BALROG's
    assert all(counts[f"TextWorld-{t}-v0"] == 10
               for t in ("TreasureHunter", "Cooking", "CoinCollector"))
    assert suite.notes == []   # every BALROG family is registered


def test_dnd_encounter_suite_runs_three_seeds_per_scenario():
    suite = suites.resolve("dnd-encounter")
    ids = [i for i, _ in suite.envs]
    assert len(ids) >= 8 and all(i.startswith("DnD-Encounter-") for i in ids)
    assert all(n == 3 for _, n in suite.envs)


def test_dnd_day_suite_runs_one_fixed_seed_per_day():
    suite = suites.resolve("dnd-day")
    ids = [i for i, _ in suite.envs]
    assert len(ids) >= 5 and all(i.startswith("DnD-Day-") for i in ids)
    assert all(n == 1 for _, n in suite.envs) and suite.seed == 0
    assert not set(ids) & {i for i, _ in suites.resolve("dnd-encounter").envs}


def test_unknown_suites_are_clear_errors():
    with pytest.raises(DungeonBenchError, match="unknown suite"):
        suites.resolve("balrogg")


def test_yaml_suite_and_its_errors(tmp_path):
    good = tmp_path / "mine.yaml"
    good.write_text("name: mine\nseed: 7\nenvs:\n  - id: BabyAI-GoTo-v0\n    episodes: 2\n"
                    "  - family: crafter\n    episodes: 1\n")
    suite = suites.resolve(str(good))
    assert suite.name == "mine" and suite.seed == 7
    assert suite.envs == [("BabyAI-GoTo-v0", 2), ("Crafter-v0", 1)]
    bad = tmp_path / "bad.yaml"
    bad.write_text("envs:\n  - id: BabyAI-Nope-v0\n")
    with pytest.raises(FileFormatError) as err:
        suites.resolve(str(bad))
    assert "bad.yaml" in str(err.value) and "envs[0].id" in str(err.value)
    bad.write_text("envs:\n  - id: BabyAI-GoTo-v0\n    episodes: 0\n")
    with pytest.raises(FileFormatError, match=r"envs\[0\].episodes"):
        suites.resolve(str(bad))
    bad.write_text("envs: [\n")
    with pytest.raises(FileFormatError, match="YAML"):
        suites.resolve(str(bad))


# ----------------------------------------------- eval with an LLM and SB3
def _eval(*args):
    return cli.main(["eval", "--quiet", *args])


def test_llm_agent_in_eval_records_trajectories_and_token_use(tmp_path, capsys):
    out = tmp_path / "run"
    assert _eval("--agent", "llm", "--client", "fake", "--model", "random", "--strategy", "cot",
                 "--envs", "BabyAI-GoTo-v0", "--episodes", "2", "--workers", "1",
                 "--out", str(out)) == 0
    folder = out / "episodes" / "llm-fake-random-cot" / "BabyAI-GoTo-v0"
    record = json.loads((folder / "episode-0000.json").read_text())
    lines = (folder / "episode-0000.trajectory.jsonl").read_text().splitlines()
    assert len(lines) == record["steps"] > 0
    step = json.loads(lines[0])
    assert {"action", "label", "reward", "progress", "invalid", "agent"} <= set(step)
    assert {"completions", "parsed", "fell_back", "prompt_tokens", "latency_s",
            "prompt_chars"} <= set(step["agent"])
    assert record["llm"]["decisions"] == record["steps"]
    assert record["llm"]["prompt_tokens"] > 0 and record["llm"]["client"]["provider"] == "fake"
    assert (out / "leaderboard.md").read_text().count("llm-fake-random-cot") == 1
    assert (out / "plots" / "families.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_missing_key_fails_before_any_episode(tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert _eval("--agent", "llm", "--client", "anthropic", "--model", "claude",
                 "--envs", "BabyAI-GoTo-v0", "--episodes", "1", "--out",
                 str(tmp_path / "r")) == 2
    assert not (tmp_path / "r").exists()


def test_sb3_model_is_an_agent(tmp_path):
    sb3 = pytest.importorskip("sb3_contrib")
    import gymnasium as gym

    env = gym.make("dungeonbench_gym:DungeonBench/BabaIsAI-goto_win-v0")
    model = sb3.MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=32, seed=0,
                            device="cpu")
    model.learn(64)
    path = tmp_path / "baba.zip"
    model.save(path)
    out = tmp_path / "run"
    assert _eval("--agent", "sb3", "--model-path", str(path), "--envs",
                 "BabaIsAI-goto_win-v0", "--episodes", "2", "--workers", "1",
                 "--out", str(out)) == 0
    records = runner.load_records(out)
    assert len(records) == 2 and {r["agent"] for r in records} == {"sb3-baba"}
    assert all(r["invalid_actions"] == 0 for r in records)   # it plays with the mask


# ------------------------------------------------------------ resume
def test_a_killed_run_resumes_with_every_episode_once(tmp_path):
    out = tmp_path / "run"
    command = [sys.executable, "-m", "dungeonbench_gym.cli", "eval", "--quiet", "--agent",
               "random,llm", "--client", "fake", "--envs", "BabaIsAI-goto_win-v0,BabyAI-GoTo-v0",
               "--episodes", "6", "--workers", "1", "--out", str(out)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while len(list(out.glob("episodes/*/*/episode-*[0-9].json"))) < 5:
        assert time.time() < deadline and proc.poll() is None, "the run ended before the kill"
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = {p: p.read_bytes() for p in out.glob("episodes/*/*/episode-*[0-9].json")}
    assert 5 <= len(before) < 24
    assert subprocess.run(command, capture_output=True, timeout=300).returncode == 0
    after = sorted(out.glob("episodes/*/*/episode-*[0-9].json"))
    keys = [(r["agent"], r["env_id"], r["episode"]) for r in map(
        lambda p: json.loads(p.read_text()), after)]
    assert len(keys) == len(set(keys)) == 24    # 2 agents x 2 envs x 6, none twice
    assert all(p.read_bytes() == data for p, data in before.items())   # none redone
    for path in after:   # every episode has its whole trajectory
        record = json.loads(path.read_text())
        lines = path.with_suffix(".trajectory.jsonl").read_text().splitlines()
        assert len(lines) == record["steps"]
    assert not list(out.rglob("*.tmp"))


# --------------------------------------------------------------- ray
def _comparable(records):
    keep = ("agent", "env_id", "episode", "seed", "progress", "success", "return", "steps",
            "invalid_actions")
    return sorted(tuple(r[k] for k in keep) for r in records)


def test_ray_backend_gives_the_process_pool_results(tmp_path):
    pytest.importorskip("ray")
    args = ["--agent", "random,baseline", "--envs", "BabyAI-GoTo-v0,BabaIsAI-goto_win-v0",
            "--episodes", "2", "--workers", "2"]
    assert _eval(*args, "--out", str(tmp_path / "pool")) == 0
    assert _eval(*args, "--backend", "ray", "--out", str(tmp_path / "ray")) == 0
    pool = runner.load_records(tmp_path / "pool")
    ray_ = runner.load_records(tmp_path / "ray")
    assert len(pool) == len(ray_) == 8 and _comparable(pool) == _comparable(ray_)


# -------------------------------------------------- summaries and keys
def test_summarize_and_compare_commands(tmp_path, capsys):
    for name in ("a", "b"):
        assert _eval("--agent", "random", "--envs", "BabaIsAI-goto_win-v0", "--episodes", "2",
                     "--seed", "0" if name == "a" else "5", "--workers", "1",
                     "--out", str(tmp_path / name)) == 0
    (tmp_path / "a" / "leaderboard.md").unlink()
    capsys.readouterr()
    assert cli.main(["summarize", str(tmp_path / "a")]) == 0
    assert "| 1 | random |" in capsys.readouterr().out
    assert (tmp_path / "a" / "leaderboard.md").exists()
    assert cli.main(["compare", str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    table = capsys.readouterr().out
    assert f"random ({tmp_path / 'a'})" in table and f"random ({tmp_path / 'b'})" in table


class _ChatServer(BaseHTTPRequestHandler):
    """A chat-completions endpoint that always answers with option 0."""

    def do_POST(self):  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers["Content-Length"]))
        body = json.dumps({"choices": [{"message": {"content": "0"}}],
                           "usage": {"prompt_tokens": 10, "completion_tokens": 1}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_no_api_key_reaches_any_output(tmp_path, monkeypatch, capsys):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ChatServer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        out = tmp_path / "run"
        assert _eval("--agent", "llm", "--client", "openai", "--model", "test-model",
                     "--base-url", f"http://127.0.0.1:{server.server_port}/v1",
                     "--envs", "BabyAI-GoTo-v0", "--episodes", "1", "--workers", "1",
                     "--max-steps", "5", "--out", str(out)) == 0
    finally:
        server.shutdown()
    printed = capsys.readouterr()
    assert SECRET not in printed.out + printed.err
    files = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.suffix == ".jsonl" for p in files)
    for path in files:
        assert SECRET.encode() not in path.read_bytes(), path
    record = runner.load_records(out)[0]
    assert record["llm"]["client"]["model"] == "test-model" and record["steps"] == 5
    assert os.environ["OPENAI_API_KEY"] == SECRET   # it was there all along


def test_a_strategy_of_ones_own_from_a_file(tmp_path):
    plugin = tmp_path / "plan.py"
    plugin.write_text(
        "from dungeonbench_gym.llm.strategies import Strategy, register_strategy\n"
        "@register_strategy('plan-first')\n"
        "class PlanFirst(Strategy):\n"
        "    def instructions(self):\n"
        "        return 'Make a short plan, then write Final answer: <option>.'\n")
    out = tmp_path / "run"
    assert _eval("--agent", "llm", "--client", "fake", "--model", "first", "--strategy",
                 f"{plugin}:plan-first", "--envs", "BabaIsAI-goto_win-v0", "--episodes", "1",
                 "--workers", "1", "--out", str(out)) == 0
    record = runner.load_records(out)[0]
    assert record["agent_spec"]["strategy"].endswith(":plan-first")
    step = json.loads(next(out.rglob("*.jsonl")).read_text().splitlines()[0])
    assert step["agent"]["parsed"] is not None and not step["agent"]["fell_back"]


def test_eval_with_tools_on_dnd_records_tool_use_and_the_encounter_table(tmp_path):
    out = tmp_path / "run"
    assert _eval("--agent", "llm", "--client", "fake", "--model", "first", "--tools",
                 "--envs", "DnD-Encounter-GoblinAmbush-v0", "--episodes", "1", "--max-steps", "6",
                 "--workers", "1", "--out", str(out)) == 0
    folder = out / "episodes" / "llm-fake-first-direct-tools" / "DnD-Encounter-GoblinAmbush-v0"
    record = json.loads((folder / "episode-0000.json").read_text())
    assert record["agent_spec"]["tools"] is True
    assert record["llm"]["tools"].startswith("on: attack_odds")
    assert record["llm"]["tool_calls"] == 0 and record["llm"]["tools_per_decision"] == 0.0
    step = json.loads((folder / "episode-0000.trajectory.jsonl").read_text().splitlines()[0])
    assert step["agent"]["tool_count"] == 0 and step["agent"]["tool_calls"] == []
    summary = json.loads((out / "summary.json").read_text())
    row = summary["dnd_encounter"]["llm-fake-first-direct-tools"]
    assert row["episodes"] == 1 and row["tools_per_decision"] == 0.0 and row["tokens_per_decision"] > 0
    assert "D&D Encounter" in (out / "summary.md").read_text()


def test_dnd_day_suite_end_to_end_gives_the_day_table(tmp_path):
    out = tmp_path / "days"
    assert _eval("--suite", "dnd-day", "--agent", "baseline,random", "--workers", "1", "--out", str(out)) == 0
    summary = json.loads((out / "summary.json").read_text())
    table = summary["dnd_day"]
    assert set(table) == {"baseline", "random"}
    assert table["baseline"]["episodes"] == table["baseline"]["days"] == len(suites.resolve("dnd-day").envs)
    assert table["baseline"]["encounters_won"] > table["random"]["encounters_won"]
    assert "dnd_encounter" not in summary   # Day episodes are not Encounter episodes
    assert "## D&D Day (DungeonBench)" in (out / "summary.md").read_text()
    rec = json.loads(next((out / "episodes" / "baseline").rglob("episode-0000.json")).read_text())
    assert rec["seed"] == 0 and {"full_clear", "encounters_won", "short_rests_used"} <= set(rec["metrics"])


def test_llm_agent_plays_through_an_intermission(tmp_path):
    out = tmp_path / "llm-day"
    assert _eval("--agent", "llm", "--client", "fake", "--model", "first", "--tools",
                 "--envs", "DnD-Day-GoblinRoad-v0", "--episodes", "1", "--workers", "1", "--out", str(out)) == 0
    record = json.loads(next(out.rglob("episode-0000.json")).read_text())
    assert record["steps"] > 0 and "full_clear" in record["metrics"]
    steps = [json.loads(line) for line in next(out.rglob("*.jsonl")).read_text().splitlines()]
    assert "intermission" in {s["agent"]["decision"] for s in steps}   # the model chose between fights
    assert json.loads((out / "summary.json").read_text())["dnd_day"]["llm-fake-first-direct-tools"]["episodes"] == 1


# ------------------------------------------------- client errors: nothing lost
FLAKY_SECRET = "sk-flaky-7c1e0a-never-in-a-file"


class _FailsAfter(ChatClient):
    """Answers option 0 to its first `ok` requests (model "ok-<n>"), then raises ClientError
    as a server gone away would. Its answers and its error echo a key, which no file may hold."""

    provider = "flaky"

    def __init__(self, model, **kwargs):
        super().__init__(model, **{k: v for k, v in kwargs.items()
                                   if k in ("temperature", "max_tokens", "timeout_s")})
        self.ok, self.requests = int(model.removeprefix("ok-")), 0

    def complete(self, messages, tools=None):
        self.requests += 1
        if self.requests > self.ok:
            raise ClientError(f"flaky: connection refused after {self.ok} requests "
                              f"(key {FLAKY_SECRET})")
        return Completion(text=f"Final answer: 0\n(my key is {FLAKY_SECRET})",
                          prompt_tokens=50, completion_tokens=6, model=self.model)


@pytest.fixture
def flaky_provider(monkeypatch):
    """`--client flaky` in this process (so runs use workers=0, IN_PROCESS)."""
    from dungeonbench_gym.llm import clients

    monkeypatch.setenv("FLAKY_API_KEY", FLAKY_SECRET)
    monkeypatch.setitem(clients.PROVIDERS, "flaky", _FailsAfter)


def _flaky_tasks(ok: int, **options):
    from dungeonbench_gym.agents.spec import AgentSpec

    spec = AgentSpec.create("llm", "flaky", client="flaky", model=f"ok-{ok}", history=2, **options)
    tasks, _ = runner.plan([spec], ["BabyAI-GoTo-v0"], episodes=1, max_steps=8)
    return tasks


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def _no_secret_in(out):
    for path in out.rglob("*"):
        assert not path.is_file() or FLAKY_SECRET.encode() not in path.read_bytes(), path


def test_a_failed_episode_keeps_its_steps_and_a_resume_plays_it_again(flaky_provider, tmp_path,
                                                                      capsys):
    out = tmp_path / "run"
    (task,) = _flaky_tasks(3, on_client_error="fail")
    assert runner.run([task], out, workers=runner.IN_PROCESS, progress_bar=False) == {
        "ran": 0, "already_done": 0, "failed": 1, "corrupt": 0}
    folder = task.path(out).parent
    assert not task.path(out).exists() and not task.trajectory_path(out).exists()
    first = folder / "episode-0000.failed-1.trajectory.jsonl"
    steps = _lines(first)
    assert [s["t"] for s in steps] == [1, 2, 3]                 # the three answered decisions
    assert all(s["agent"]["parsed"]["index"] == 0 and s["label"] == "turn left" for s in steps)
    assert "[REDACTED]" in steps[0]["agent"]["completions"][0]  # scrubbed like every file
    (line,) = (out / "errors.log").read_text().splitlines()
    assert line.startswith("flaky BabyAI-GoTo-v0 episode 0: ClientError: flaky: connection "
                           "refused after 3 requests (key [REDACTED])"), line
    assert line.endswith(f"; its 3 steps so far are in {first}")
    # Not a finished episode to summaries, compare or resume ...
    assert runner.load_records(out, on_corrupt=lambda path, problem: pytest.fail(path)) == []
    assert cli.main(["summarize", str(out)]) == 2
    assert "no usable episode files" in capsys.readouterr().err
    # ... so a resumed run plays the episode again; a second failure keeps its own steps.
    assert runner.run([task], out, workers=runner.IN_PROCESS, progress_bar=False)["failed"] == 1
    second = folder / "episode-0000.failed-2.trajectory.jsonl"
    assert _lines(second) == steps and _lines(first) == steps
    # Once the client answers, the episode finishes; the failed attempts stay beside it.
    (fixed,) = _flaky_tasks(10 ** 6, on_client_error="fail")
    assert runner.run([fixed], out, workers=runner.IN_PROCESS, progress_bar=False) == {
        "ran": 1, "already_done": 0, "failed": 0, "corrupt": 0}
    assert len(_lines(fixed.trajectory_path(out))) == 8 and first.exists() and second.exists()
    assert runner.run([fixed], out, workers=runner.IN_PROCESS, progress_bar=False) == {
        "ran": 0, "already_done": 1, "failed": 0, "corrupt": 0}   # not taken for corrupt
    (record,) = runner.load_records(out)
    assert record["steps"] == 8
    assert cli.main(["summarize", str(out)]) == 0
    assert "| 1 | flaky |" in capsys.readouterr().out
    # A corrupt episode file is moved aside with its own trajectory only, and rerun.
    task.path(out).write_text('{"agent": "fla')
    assert runner.run([fixed], out, workers=runner.IN_PROCESS, progress_bar=False) == {
        "ran": 1, "already_done": 0, "failed": 0, "corrupt": 1}
    assert sorted(p.name for p in folder.iterdir()) == [
        "episode-0000.failed-1.trajectory.jsonl", "episode-0000.failed-2.trajectory.jsonl",
        "episode-0000.json", "episode-0000.json.corrupt-1", "episode-0000.trajectory.jsonl",
        "episode-0000.trajectory.jsonl.corrupt-1"]
    assert _lines(first) == _lines(second) == steps
    _no_secret_in(out)


def test_an_episode_that_fails_before_its_first_step_leaves_no_trajectory(flaky_provider,
                                                                          tmp_path):
    out = tmp_path / "run"
    (task,) = _flaky_tasks(0)   # the default: fail
    assert runner.run([task], out, workers=runner.IN_PROCESS, progress_bar=False)["failed"] == 1
    assert list(task.path(out).parent.glob("*")) == []
    (line,) = (out / "errors.log").read_text().splitlines()
    assert "ClientError: flaky: connection refused after 0 requests" in line
    assert "steps so far" not in line


def test_with_fallback_a_client_error_is_a_recorded_fallback_and_the_episode_finishes(
        flaky_provider, tmp_path):
    out = tmp_path / "run"
    (task,) = _flaky_tasks(3, on_client_error="fallback")
    assert runner.run([task], out, workers=runner.IN_PROCESS, progress_bar=False)["ran"] == 1
    (record,) = runner.load_records(out)
    steps = [s["agent"] for s in _lines(task.trajectory_path(out))]
    assert record["steps"] == len(steps) == 8
    assert [s["fell_back"] for s in steps] == [False] * 3 + [True] * 5
    assert all(s["client_error"] is None and s["client_errors"] == 0 for s in steps[:3])
    for s in steps[3:]:
        assert s["client_error"].startswith("ClientError: flaky: connection refused")
        assert "[REDACTED]" in s["client_error"] and s["client_errors"] >= 1
    usage = record["llm"]
    assert usage["fallbacks"] == 5
    assert usage["client_errors"] == sum(s["client_errors"] for s in steps) >= 5
    assert not (out / "errors.log").exists()
    _no_secret_in(out)


def test_llm_usage_adds_client_errors_prompt_tokens_per_decision_and_the_largest_request():
    class Agent:
        tools_status = "off"
        client = None

    def step(prompt, largest, errors=0, compaction=(), **more):
        return {"agent": {"prompt_tokens": prompt, "completion_tokens": 5,
                          "max_request_tokens": largest, "client_errors": errors,
                          "compaction": list(compaction), **more}}

    usage = runner._llm_usage(Agent(), [step(300, 320), step(900, 1900, 2, ["history 2->0"]),
                                        step(600, 700, 1, [], fell_back=True)])
    assert usage["prompt_tokens"] == 1800 and usage["prompt_tokens_per_decision"] == 600
    assert usage["max_request_tokens"] == 1900      # the largest one request, not a sum
    assert usage["client_errors"] == 3 and usage["compacted_decisions"] == 1
    assert usage["fallbacks"] == 1 and usage["decisions"] == 3
    # steps recorded before these fields existed: no requests known, nothing counted
    old = runner._llm_usage(Agent(), [{"agent": {"prompt_tokens": 10, "completion_tokens": 1}}])
    assert old["max_request_tokens"] is None
    assert old["client_errors"] == old["compacted_decisions"] == 0


class _RefusesAfter(BaseHTTPRequestHandler):
    """Chat completions that answer option 0 three times, then refuse with HTTP 400 (and
    no other endpoint: a client's probes for a tokenizer get 404)."""

    served = 0

    def do_GET(self):  # noqa: N802 - http.server's name
        self._send(404, {"error": {"message": "not here"}})

    def do_POST(self):  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers["Content-Length"]))
        if not self.path.endswith("/chat/completions"):
            return self._send(404, {"error": {"message": "not here"}})
        type(self).served += 1
        if type(self).served <= 3:
            status, body = 200, {"choices": [{"message": {"content": "0"}}],
                                 "usage": {"prompt_tokens": 10, "completion_tokens": 1}}
        else:
            status, body = 400, {"error": {"message": "the model was unloaded"}}
        self._send(status, body)

    def _send(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_eval_on_client_error_fail_records_the_cause_and_the_steps_in_a_worker(tmp_path, capsys):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _RefusesAfter)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    out = tmp_path / "run"
    try:
        assert _eval("--agent", "llm", "--client", "openai", "--model", "m", "--base-url",
                     f"http://127.0.0.1:{server.server_port}/v1", "--on-client-error", "fail",
                     "--timeout", "5", "--envs", "BabyAI-GoTo-v0", "--episodes", "1",
                     "--max-steps", "6", "--workers", "1", "--out", str(out)) == 1
    finally:
        server.shutdown()
    assert f"no finished episodes; failed 1 (see {out}/errors.log)" in capsys.readouterr().err
    (line,) = (out / "errors.log").read_text().splitlines()
    assert "episode 0: ClientError:" in line and "400" in line, line
    assert "the model was unloaded" in line
    failed = out / "episodes" / "llm-openai-m-direct" / "BabyAI-GoTo-v0" / \
        "episode-0000.failed-1.trajectory.jsonl"
    assert line.endswith(f"its 3 steps so far are in {failed}")
    assert [s["agent"]["parsed"]["index"] for s in _lines(failed)] == [0, 0, 0]
    assert runner.load_records(out) == []
    spec = json.loads((out / "run.json").read_text())["settings"]["agents"][0]
    assert spec["on_client_error"] == "fail" and spec["timeout_s"] == 5.0
