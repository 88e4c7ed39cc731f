"""Server-side faults: a real HTTP server on 127.0.0.1 that the OpenAI-compatible client talks to.

The server hangs, trickles, fails with 5xx, rejects with 4xx, answers garbage, or echoes the
API key back inside the model's answer. The client must retry only what retrying can fix
(timeouts, 408, 429, 5xx, unreadable answers), give up after a bounded number of requests and a
bounded time with a `ClientError` that says what happened (never a raw JSONDecodeError,
KeyError or RecursionError), and the key it sent must be scrubbable from everything the
harness writes (`core.secrets`).
"""

from __future__ import annotations

import json
import secrets as token_source
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import dungeonbench_gym
from dungeonbench_gym.core import secrets
from dungeonbench_gym.llm.agent import LLMAgent
from dungeonbench_gym.llm.base import ClientError, TransientError
from dungeonbench_gym.llm.clients import OpenAICompatibleClient

MAX_WAIT_S = 3.0   # no handler ever holds a request longer, so shutdown is prompt


class FaultServer:
    """A server whose every POST runs `behaviour(handler, n)` (n: 1 for the first request).

    Handlers sleep on `stop`, so closing the server ends any request still hanging."""

    def __init__(self):
        self.behaviour: Callable[[BaseHTTPRequestHandler, int], None] = lambda h, n: None
        self.requests: list[dict] = []
        self.stop = threading.Event()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with server._lock:
                    server.requests.append({"path": self.path, "headers": dict(self.headers),
                                            "body": body})
                    n = len(server.requests)
                try:
                    server.behaviour(self, n)
                except (BrokenPipeError, ConnectionResetError):   # the client gave up and left
                    pass

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    def wait(self, seconds: float) -> None:
        self.stop.wait(min(seconds, MAX_WAIT_S))

    def close(self):
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


def respond(handler: BaseHTTPRequestHandler, status: int, body, headers: dict | None = None) -> None:
    if isinstance(body, (dict, list)):
        body = json.dumps(body)
    if isinstance(body, str):
        body = body.encode("utf-8")
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def chat_answer(text: str) -> dict:
    return {"id": "cmpl-1", "object": "chat.completion", "model": "served",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2}}


def bearer_key(handler: BaseHTTPRequestHandler) -> str:
    return handler.headers.get("Authorization", "").removeprefix("Bearer ")


@pytest.fixture
def server():
    fault_server = FaultServer()
    yield fault_server
    fault_server.close()


@pytest.fixture
def key(monkeypatch) -> str:
    """A fresh key per test, and no provider key from the environment."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return "sk-fault-" + token_source.token_hex(16)


def make_client(server: FaultServer, key: str, **kwargs) -> OpenAICompatibleClient:
    options = {"api_key": key, "base_url": server.url, "timeout_s": 0.4, "max_retries": 2,
               "backoff_s": 0.01, "max_backoff_s": 0.02, "max_retry_after_s": 0.05}
    options.update(kwargs)
    return OpenAICompatibleClient("fault-model", **options)


USER = [{"role": "user", "content": "Which option?"}]


def timed_failure(client: OpenAICompatibleClient) -> tuple[ClientError, float]:
    started = time.monotonic()
    with pytest.raises(ClientError) as caught:
        client.complete(USER)
    return caught.value, time.monotonic() - started


# ----------------------------------------------------------------------------- (a) timeouts

def test_a_server_that_never_answers_times_out_after_bounded_retries(server, key):
    server.behaviour = lambda handler, n: server.wait(10)
    error, elapsed = timed_failure(make_client(server, key, timeout_s=0.3, max_retries=2))
    assert isinstance(error, TransientError)
    assert len(server.requests) == 3                       # the first request and two retries
    assert "gave up after 3 attempts" in str(error) and "timed out" in str(error)
    assert elapsed < 3.0, f"three 0.3 s attempts took {elapsed:.1f} s"


def test_a_server_that_trickles_its_answer_cannot_hold_the_client(server, key):
    """Each byte comes within the socket timeout, but the whole answer would take 20 s."""
    def trickle(handler, n):
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", "200")
        handler.end_headers()
        for _ in range(200):
            if server.stop.is_set():
                return
            handler.wfile.write(b" ")
            handler.wfile.flush()
            server.wait(0.1)

    server.behaviour = trickle
    error, elapsed = timed_failure(make_client(server, key, timeout_s=0.5, max_retries=1))
    assert isinstance(error, TransientError)
    assert "still arriving" in str(error)
    assert len(server.requests) == 2
    assert elapsed < 4.0, f"two 0.5 s attempts took {elapsed:.1f} s"


def test_a_timeout_then_an_answer_succeeds(server, key):
    def slow_once(handler, n):
        if n == 1:
            server.wait(1.5)
        else:
            respond(handler, 200, chat_answer("turn left"))

    server.behaviour = slow_once
    completion = make_client(server, key, timeout_s=0.4).complete(USER)
    assert completion.text == "turn left" and completion.attempts == 2


# ----------------------------------------------------------------------------- (b) statuses

@pytest.mark.parametrize("status", [500, 502, 503, 529, 408, 429])
def test_retryable_statuses_are_retried_then_a_clear_error(server, key, status):
    server.behaviour = lambda handler, n: respond(
        handler, status, {"error": {"message": f"status {status} from the fault server"}})
    error, elapsed = timed_failure(make_client(server, key, max_retries=2))
    assert isinstance(error, TransientError)
    assert len(server.requests) == 3
    assert f"HTTP {status}" in str(error) and f"status {status} from the fault server" in str(error)
    assert elapsed < 3.0


def test_a_500_then_an_answer_succeeds(server, key):
    server.behaviour = lambda handler, n: (respond(handler, 500, "boom") if n < 3
                                           else respond(handler, 200, chat_answer("go forward")))
    completion = make_client(server, key, max_retries=3).complete(USER)
    assert completion.text == "go forward" and completion.attempts == 3
    assert len(server.requests) == 3


@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 413, 422])
def test_permanent_4xx_errors_are_not_retried(server, key, status):
    server.behaviour = lambda handler, n: respond(
        handler, status, {"error": {"message": f"rejected with {status}"}})
    error, _ = timed_failure(make_client(server, key, max_retries=4))
    assert not isinstance(error, TransientError)
    assert len(server.requests) == 1, f"HTTP {status} was retried {len(server.requests) - 1} times"
    assert f"HTTP {status}" in str(error) and f"rejected with {status}" in str(error)


def test_retry_after_is_honoured_but_capped(server, key):
    server.behaviour = lambda handler, n: respond(handler, 429, "slow down", {"Retry-After": "3600"})
    error, elapsed = timed_failure(make_client(server, key, max_retries=2, max_retry_after_s=0.05))
    assert isinstance(error, TransientError) and len(server.requests) == 3
    assert elapsed < 3.0, "a server's Retry-After of an hour must not stall the run"


# ----------------------------------------------------------------------------- (c) garbage

DEEP = "[" * 100_000   # json.loads raises RecursionError on this, not ValueError


@pytest.mark.parametrize("body, says", [
    ("{not json", "not JSON"),
    ("", "empty body"),
    ("   \n", "empty body"),
    (DEEP, "not JSON"),
    ("\xff\xfe garbage", "not JSON"),
    ("null", "choices"),
    ("[]", "choices"),
    ('"a string"', "choices"),
    ('{"object": "chat.completion"}', "choices"),
    ('{"choices": []}', "choices"),
    ('{"choices": null}', "choices"),
    ('{"choices": ["text"]}', "choices"),
    ('{"choices": [{}]}', "message"),
    ('{"choices": [{"message": null}]}', "message"),
    ('{"choices": [{"message": {"content": {"text": "go"}}}]}', "not text"),
    ('{"choices": [{"message": {"content": 2}}]}', "not text"),
    ('{"choices": [{"message": {"tool_calls": [{"function": {}}]}}]}', "name"),
])
def test_unreadable_answers_give_a_clear_error_not_a_raw_exception(server, key, body, says):
    server.behaviour = lambda handler, n: respond(handler, 200, body)
    error, elapsed = timed_failure(make_client(server, key, max_retries=1))
    assert isinstance(error, TransientError)    # pytest.raises(ClientError) let nothing raw through
    assert len(server.requests) == 2
    message = str(error)
    assert "unreadable answer" in message and says in message, message
    assert len(message) < 1000, "the error quotes a short excerpt, not the whole body"
    assert elapsed < 3.0


def test_a_body_cut_short_is_retried_then_a_clear_error(server, key):
    def cut(handler, n):
        handler.send_response(200)
        handler.send_header("Content-Length", "5000")
        handler.end_headers()
        handler.wfile.write(b'{"choices": [')
        handler.wfile.flush()
        handler.close_connection = True

    server.behaviour = cut
    error, _ = timed_failure(make_client(server, key, max_retries=1))
    assert isinstance(error, TransientError) and len(server.requests) == 2
    assert "4987" in str(error), "the error says how much of the answer never came"


def test_a_connection_dropped_without_an_answer_is_retried(server, key):
    def drop(handler, n):
        handler.close_connection = True
        handler.wfile.flush()
        handler.connection.close()

    server.behaviour = drop
    error, _ = timed_failure(make_client(server, key, max_retries=2))
    assert isinstance(error, TransientError) and len(server.requests) == 3


# ----------------------------------------------------------------------------- (d) the key echoed

def test_the_client_registers_its_key_for_scrubbing(server, key):
    assert key not in secrets.known_secrets()
    make_client(server, key)
    assert key in secrets.known_secrets()
    assert secrets.scrub(f"header Bearer {key}.") == f"header Bearer {secrets.REDACTED}."


def test_a_key_echoed_in_an_error_never_reaches_the_message(server, key):
    server.behaviour = lambda handler, n: respond(
        handler, 500 if n == 1 else 401, {"error": {"message": f"bad key {bearer_key(handler)}"}})
    error, _ = timed_failure(make_client(server, key, max_retries=2))
    assert len(server.requests) == 2      # the 500 was retried, the 401 was not
    assert bearer_key_seen(server) == key and key not in str(error) and "bad key" in str(error)


def bearer_key_seen(server: FaultServer) -> str:
    return server.requests[-1]["headers"].get("Authorization", "").removeprefix("Bearer ")


def test_a_key_echoed_in_the_models_answer_is_scrubbed_from_the_agents_record(server, key):
    """The model repeats its key; the agent plays on, and scrub() cleans what would be written."""
    server.behaviour = lambda handler, n: respond(
        handler, 200, chat_answer(f"My API key is {bearer_key(handler)}. Final answer: turn left"))
    env = dungeonbench_gym.make("BabyAI-GoTo-v0", text=True)
    try:
        observation, info = env.reset(seed=0)
        agent = LLMAgent(make_client(server, key), max_retries=0)
        agent.reset(env, 0)
        action = agent.act(observation, info)
    finally:
        env.close()
    parsed = agent.last_record["parsed"]
    assert parsed["label"] == "turn left" and action == parsed["index"]
    raw = json.dumps(agent.last_record)
    assert key in raw                          # the echo really reached the record
    cleaned = secrets.scrub(agent.last_record)
    written = json.dumps(cleaned) + json.dumps(secrets.scrub(agent.trajectory))
    assert key not in written and secrets.REDACTED in cleaned["completions"][0]
    assert cleaned["parsed"] == agent.last_record["parsed"]   # only the secret changed
    assert key in json.dumps(agent.last_record), "scrub returns a copy, the record is untouched"


# ----------------------------------------------------------------------------- core.secrets

def test_scrub_walks_nested_values_and_leaves_other_types(monkeypatch):
    secret = "tok-" + token_source.token_hex(12)
    secrets.register_secret(secret)
    value = {"a": [secret, (1, f"x{secret}y", None)], secret: 2.5, "n": 3, "ok": True}
    cleaned = secrets.scrub(value)
    assert cleaned == {"a": [secrets.REDACTED, (1, f"x{secrets.REDACTED}y", None)],
                       secrets.REDACTED: 2.5, "n": 3, "ok": True}
    assert value["a"][0] == secret, "the input is not modified"
    assert secrets.scrub(7) == 7 and secrets.scrub(None) is None


def test_secret_looking_environment_variables_are_scrubbed(monkeypatch):
    token = "env-" + token_source.token_hex(10)
    monkeypatch.setenv("MY_SERVICE_TOKEN", token)
    monkeypatch.setenv("db_password", "hunter2hunter2")
    monkeypatch.setenv("SHORT_KEY", "abc")                    # too short to be a secret
    monkeypatch.setenv("DUNGEON_GREETING", "hello adventurer")  # not a secret-looking name
    text = f"{token} hunter2hunter2 abc hello adventurer"
    assert secrets.scrub(text) == f"{secrets.REDACTED} {secrets.REDACTED} abc hello adventurer"
    monkeypatch.delenv("MY_SERVICE_TOKEN")
    assert token in secrets.scrub(token), "the cache follows the environment"


def test_short_or_empty_secrets_are_ignored_and_longest_wins():
    secrets.register_secret("")
    secrets.register_secret("short")
    assert secrets.scrub("short and sweet") == "short and sweet"
    inner = "inner-" + token_source.token_hex(6)
    outer = inner + "-outer-" + token_source.token_hex(6)
    secrets.register_secret(inner)
    secrets.register_secret(outer)
    assert secrets.scrub(f"[{outer}] [{inner}]") == f"[{secrets.REDACTED}] [{secrets.REDACTED}]"


def test_scrub_is_fast_on_a_large_record():
    secrets.register_secret("big-" + token_source.token_hex(16))
    record = {"completions": ["the the the " * 80_000] * 4, "steps": list(range(10_000))}
    started = time.perf_counter()
    secrets.scrub(record)
    assert time.perf_counter() - started < 1.0


def test_scrub_keeps_named_tuples_and_copies_containers():
    from dungeonbench_gym.core.options import Option

    secret = "opt-" + token_source.token_hex(8)
    secrets.register_secret(secret)
    option = secrets.scrub(Option(3, f"say {secret}"))
    assert isinstance(option, Option) and option == Option(3, f"say {secrets.REDACTED}")
    record = {"completions": ["nothing secret"]}
    copy = secrets.scrub(record)
    assert copy == record and copy is not record and copy["completions"] is not record["completions"]
