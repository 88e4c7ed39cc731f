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
