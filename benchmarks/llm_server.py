"""The LLM agent against a real OpenAI-compatible server: llama-cpp-python's, serving the
shipped SmolLM2-135M, on loopback. Plays whole episodes through the CLI (`--client openai
--base-url ...`) and prints, per episode, whether it finished and what its requests cost:
decisions, fallbacks, client errors, prompt tokens per decision, the largest request the
server counted (prompt + answer, against the 4,096-token window), compacted decisions and
tool calls that made a round trip.

    python benchmarks/llm_server.py                                  # the three families
    python benchmarks/llm_server.py --envs DnD-Encounter-GoblinAmbush-v0 --tools
    python benchmarks/llm_server.py --kill-after 20 --on-client-error fallback

Any extra `eval` flag can follow `--`. Exit status 1 if an episode did not finish or a
request went over the window.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dungeonbench_gym.llm.llama_server import CONTEXT_TOKENS, MODEL_ALIAS, running_server  # noqa: E402

ENVS = "BabyAI-GoTo-v0,DnD-Encounter-GoblinAmbush-v0,TextAdventure-Lighthouse-v0"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", default=ENVS)
    parser.add_argument("--episodes", type=int, default=1)
    parser.add_argument("--history", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--max-steps", type=int, default=None)
    parser.add_argument("--tools", action="store_true")
    parser.add_argument("--on-client-error", default="fallback", choices=("fallback", "fail"))
    parser.add_argument("--kill-after", type=float, default=None,
                        help="kill the server this many seconds into the run")
    parser.add_argument("--out", default=None, help="results folder (default: a fresh temporary one)")
    parser.add_argument("extra", nargs="*", help="more eval flags, after --")
    args = parser.parse_args()
    # SIGTERM unwinds like Ctrl-C, so the server and the eval are stopped, not orphaned
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    out = Path(args.out or tempfile.mkdtemp(prefix="llm-server-"))
    with running_server() as server:
        print(f"server: llama-cpp-python at {server.base_url}, started in {server.start_s:.1f} s, "
              f"n_ctx {CONTEXT_TOKENS}")
        command = [sys.executable, "-m", "dungeonbench_gym.cli", "eval", "--agent", "llm",
                   "--client", "openai", "--model", MODEL_ALIAS, "--base-url", server.base_url,
                   "--envs", args.envs, "--episodes", str(args.episodes), "--workers", "1",
                   "--history", str(args.history), "--max-tokens", str(args.max_tokens),
                   "--context-tokens", str(CONTEXT_TOKENS), "--on-client-error",
                   args.on_client_error, "--out", str(out), "--quiet", *args.extra]
        if args.tools:
            command.append("--tools")
        if args.max_steps:
            command += ["--max-steps", str(args.max_steps)]
        if args.kill_after is not None:
            threading.Timer(args.kill_after, server.kill).start()
        started = time.monotonic()
        evaluation = subprocess.Popen(command, cwd=ROOT)
        try:
            code = evaluation.wait()
        finally:            # stopped early (Ctrl-C, SIGTERM): the eval goes with the server
            if evaluation.poll() is None:
                evaluation.terminate()
                evaluation.wait()
        seconds = time.monotonic() - started
    print(f"eval: exit {code}, {seconds:.0f} s; results in {out}")
    return report(out, args)


def report(out: Path, args) -> int:
    bad = 0
    rows = []
    for path in sorted(out.glob("episodes/*/*/episode-*.json")):
        record = json.loads(path.read_text())
        steps = [json.loads(line) for line in path.with_suffix(".trajectory.jsonl").read_text().splitlines()]
        agent = [s["agent"] for s in steps if "agent" in s]
        biggest = max((a.get("max_request_tokens", 0) for a in agent), default=0)
        round_trips = sum(bool(c.get("round_trip")) for a in agent for c in a.get("tool_calls", ()))
        decisions = len(agent) or 1
        rows.append((record["env_id"], "yes", len(agent), sum(a["fell_back"] for a in agent),
                     sum(a.get("client_errors", 0) for a in agent),
                     round(sum(a["prompt_tokens"] for a in agent) / decisions),
                     biggest, sum(bool(a.get("compaction")) for a in agent), round_trips,
                     round(record["progress"], 2), round(record["seconds"])))
        bad += biggest > CONTEXT_TOKENS
    errors = out / "errors.log"
    failed = errors.read_text().strip().splitlines() if errors.exists() else []
    print("| env | finished | decisions | fallbacks | client errors | prompt tokens/decision | "
          "largest request | compacted | tool round trips | progress | seconds |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print("| " + " | ".join(str(x) for x in row) + " |")
    for line in failed:
        print(f"failed: {line}")
    expected = len(args.envs.split(",")) * args.episodes
    if len(rows) < expected:
        print(f"{expected - len(rows)} of {expected} episodes did not finish")
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
