"""examples/train_baselines.py end to end at a tiny budget: it trains the option-ranking policy,
saves it, evaluates it on held-out seeds with masks beside the random and heuristic agents, and the
saved model plays the same episodes through the harness (`eval --agent sb3`) with the same results."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from dungeonbench_gym.eval import runner  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "train_baselines.py"


def test_a_trained_baseline_is_saved_evaluated_and_replayed_by_the_harness(tmp_path):
    subprocess.run([sys.executable, str(SCRIPT), "--family", "babaisai", "--policy", "ranking",
                    "--seeds", "0", "--timesteps", "64", "--eval-episodes", "3", "--threads", "1"],
                   cwd=tmp_path, check=True, capture_output=True, text=True)
    doc = json.loads((tmp_path / "results/baselines/babaisai.json").read_text())
    (run,) = doc["runs"]   # at least one rollout: 4 envs x 256 steps
    assert run["policy"] == "ranking" and run["timesteps"] == 1024 and len(run["values"]) == 3
    assert set(doc["reference"]) == {"random", "heuristic"}
    assert doc["reference"]["heuristic"]["all"]["mean_progress"] == 1.0   # the solver solves goto_win
    model = tmp_path / run["model"]
    assert model.is_file()

    out = tmp_path / "harness"
    proc = subprocess.run([sys.executable, "-m", "dungeonbench_gym.cli", "eval", "--quiet", "--agent", "sb3",
                           "--model-path", str(model), "--envs", "BabaIsAI-goto_win-v0", "--episodes", "3",
                           "--seed", str(doc["eval_seeds"][0]), "--workers", "1", "--out", str(out)],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    records = sorted(runner.load_records(out), key=lambda r: r["seed"])
    assert [r["invalid_actions"] for r in records] == [0, 0, 0]
    assert [r["progress"] for r in records] == run["values"]

    table = subprocess.run([sys.executable, str(SCRIPT), "--table"], cwd=tmp_path, check=True,
                           capture_output=True, text=True).stdout
    assert f"| babaisai (BabaIsAI-goto_win) | MaskablePPO, option ranking | {run['timesteps']:,} |" in table
    compact = subprocess.run([sys.executable, str(SCRIPT), "--table", "--compact"], cwd=tmp_path, check=True,
                             capture_output=True, text=True).stdout
    ours = f"{sum(run['values']) / 3:.3f}"
    assert f"| babaisai (BabaIsAI-goto_win) | {run['timesteps']:,} | - / " in compact
    assert f"| - | {ours} +/- " in compact   # no default-policy run; the ranking run's mean


def test_the_readme_and_docs_tables_are_the_scripts_output_from_the_committed_results():
    """The RL tables in README.md and docs/rl.md are what `--table [--compact] --results
    docs/rl-results` prints from the committed result files, every family in them."""
    def table(*extra):
        return subprocess.run([sys.executable, str(SCRIPT), "--table", *extra, "--results",
                               str(ROOT / "docs" / "rl-results")],
                              check=True, capture_output=True, text=True).stdout.strip().splitlines()
    compact, full = table("--compact"), table()
    readme, rl = (ROOT / "README.md").read_text(), (ROOT / "docs" / "rl.md").read_text()
    assert [line for line in compact if line not in readme] == []
    assert [line for line in full if line not in rl] == []
    families = {line.split(" (")[0].lstrip("| ") for line in compact[2:]}
    assert {"babyai", "babaisai", "crafter", "textworld", "textadventure", "minihack", "nethack",
            "dnd"} <= families
