"""The HTTP LLM clients against real HTTP servers on loopback.

Each test scripts the server's answers (status, JSON body, headers, delay) and
reads back what the client sent, in the shapes each server kind documents or was
measured to send (OpenAI, llama-cpp-python, llama.cpp's server, vLLM, Ollama,
Anthropic, Gemini). Waiting between retries is injected away (`sleep` records the
delays instead of sleeping), so those run in seconds. The last test talks to
llama-cpp-python's real server (the session's `llama_server` fixture): a few
seconds once the server is warm; the server's first tool-calling request costs
~20 s more, paid by whichever server test comes first.
"""

from __future__ import annotations

import base64
import json
import logging
import socket
import struct
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from dungeonbench_gym.llm.base import (
    ChatClient,
    ClientError,
    Completion,
    ContextOverflowError,
    TransientError,
)
from dungeonbench_gym.llm.clients import (
    OLLAMA_DEFAULT_NUM_CTX,
    PROVIDERS,
    AnthropicClient,
    GeminiClient,
    OpenAICompatibleClient,
    encode_png,
    make_client,
)

SECRET = "sk-test-SECRET-123"
KEY_ENV_VARS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
                "GEMINI_API_KEY", "GOOGLE_API_KEY")


# ----------------------------------------------------------------------------- fake server

class FakeServer:
    """A loopback HTTP server answering POSTs from a script.

    Each scripted answer is a dict: status, body (dict -> JSON, str/bytes -> as is,
    callable(request) -> either), headers, delay_s. Once the script runs out the
    last answer repeats. The script answers POSTs to the chat routes of the three
    protocols; `routes` maps any path to its own answer (GET or POST), for the probes
    of the other routes; any other request is a 404, as FastAPI and llama-server
    answer. `requests` holds what arrived: method, path, headers (names in lower
    case), body, json.
    """

    def __init__(self, port: int = 0):
        self.script: list[dict] = []
        self.routes: dict[str, dict] = {}
        self.requests: list[dict] = []
        self.scripted = 0             # requests the script answered
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                self.do_POST()

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                try:
                    parsed = json.loads(raw)
                except ValueError:
                    parsed = None
                headers = {name.lower(): value for name, value in self.headers.items()}   # urllib recases names
                request = {"method": self.command, "path": self.path, "headers": headers,
                           "body": raw, "json": parsed}
                with server._lock:
                    server.requests.append(request)
                    if self.path in server.routes:
                        answer = server.routes[self.path]
                    elif self.command == "GET" or not server.script or not _is_chat(self.path):
                        answer = {"status": 404, "body": {"detail": "Not Found"}}
                    else:
                        server.scripted += 1
                        answer = server.script[min(server.scripted, len(server.script)) - 1]
                time.sleep(answer.get("delay_s", 0))
                body = answer.get("body", {})
                if callable(body):
                    body = body(request)
                if isinstance(body, (dict, list)):
                    body = json.dumps(body)
                if isinstance(body, str):
                    body = body.encode()
                try:
                    self.send_response(answer.get("status", 200))
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    for name, value in answer.get("headers", {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):   # the client timed out and left
                    pass

            def log_message(self, *args):     # keep pytest output clean
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    def answer(self, *answers: dict) -> FakeServer:
        self.script = list(answers)
        self.scripted = 0
        return self

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def _is_chat(path: str) -> bool:
    return path.endswith(("/chat/completions", "/v1/messages", ":generateContent"))


@pytest.fixture
def server():
    fake = FakeServer()
    yield fake
    fake.close()


@pytest.fixture(autouse=True)
def no_keys_in_env(monkeypatch):
    """Tests see only the keys they set themselves."""
    for name in KEY_ENV_VARS:
        monkeypatch.delenv(name, raising=False)


def chat_answer(text="MOVE north", prompt_tokens=11, completion_tokens=3, model="served-model"):
    return {"id": "cmpl-1", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


def anthropic_answer(text="MOVE east"):
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 21, "output_tokens": 4}}


def gemini_answer(text="MOVE west"):
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 31, "candidatesTokenCount": 5, "totalTokenCount": 36},
            "modelVersion": "gemini-test-001"}


def openai_client(server, **kwargs):
    sleeps: list[float] = []
    options = {"api_key": SECRET, "base_url": server.url + "/v1", "timeout_s": 2.0, "max_retries": 3,
               "sleep": sleeps.append}
    options.update(kwargs)
    client = OpenAICompatibleClient("test-model", **options)
    client.sleeps = sleeps
    return client


USER = [{"role": "system", "content": "You play a game."}, {"role": "user", "content": "Where now?"}]


def decode_png(data: bytes) -> np.ndarray:
    """A strict reader of what encode_png writes (8-bit, filter 0): checks every CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks = 8, []
    while position < len(data):
        (length,) = struct.unpack(">I", data[position:position + 4])
        kind = data[position + 4:position + 8]
        payload = data[position + 8:position + 8 + length]
        (crc,) = struct.unpack(">I", data[position + 8 + length:position + 12 + length])
        assert crc == zlib.crc32(kind + payload), kind
        chunks.append((kind, payload))
        position += 12 + length
    assert chunks[0][0] == b"IHDR" and chunks[-1] == (b"IEND", b"")
    width, height, depth, color_type, _, _, _ = struct.unpack(">IIBBBBB", chunks[0][1])
    assert depth == 8
    channels = {0: 1, 2: 3, 6: 4}[color_type]
    raw = zlib.decompress(b"".join(payload for kind, payload in chunks if kind == b"IDAT"))
    rows = np.frombuffer(raw, np.uint8).reshape(height, 1 + width * channels)
    assert (rows[:, 0] == 0).all()
    return rows[:, 1:].reshape(height, width, channels)


def test_png_round_trip_and_bad_input():
    rng = np.random.default_rng(0)
    for shape in [(7, 5, 3), (1, 1, 3), (4, 9, 4), (6, 2)]:
        image = rng.integers(0, 256, shape, dtype=np.uint8)
        decoded = decode_png(encode_png(image))
        assert decoded.reshape(image.shape).tolist() == image.tolist()
    with pytest.raises(ValueError, match="uint8"):
        encode_png(np.zeros((4, 4, 3), np.float32))
    with pytest.raises(ValueError, match="HxWx3"):
        encode_png(np.zeros((4, 4, 2), np.uint8))


# ----------------------------------------------------------------------------- OpenAI-compatible

def test_openai_well_formed_answer(server):
    server.answer({"body": chat_answer()})
    client = openai_client(server, temperature=0.3, max_tokens=77)
    completion = client.complete(USER)
    assert isinstance(client, ChatClient) and isinstance(completion, Completion)
    assert completion.text == "MOVE north"
    assert (completion.prompt_tokens, completion.completion_tokens) == (11, 3)
    assert completion.attempts == 1 and completion.latency_s > 0
    assert completion.model == "served-model" and completion.extra["finish_reason"] == "stop"
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == f"Bearer {SECRET}"
    assert request["json"] == {"model": "test-model", "temperature": 0.3, "max_tokens": 77,
                               "messages": [{"role": "system", "content": "You play a game."},
                                            {"role": "user", "content": "Where now?"}]}
    client.complete(USER)
    assert client.usage == {"prompt_tokens": 22, "completion_tokens": 6, "requests": 2, "attempts": 2}


def test_openai_without_usage_and_null_content(server):
    answer = chat_answer()
    del answer["usage"]
    answer["choices"][0]["message"]["content"] = None
    server.answer({"body": answer})
    completion = openai_client(server).complete(USER)
    assert completion.text == "" and completion.prompt_tokens == 0 and completion.model == "served-model"


def test_openai_local_server_needs_no_key(server):
    server.answer({"body": chat_answer()})
    client = make_client("openai", "llama3", base_url=server.url + "/v1")
    assert client.complete(USER).text == "MOVE north"
    assert "authorization" not in server.requests[0]["headers"]


def test_openai_base_url_from_env(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1/")
    server.answer({"body": chat_answer()})
    client = make_client("openai", "m")
    assert client.base_url == server.url + "/v1"
    assert client.complete(USER).text == "MOVE north"


def test_openai_reasoning_model_options(server):
    server.answer({"body": chat_answer()})
    openai_client(server, temperature=None, max_tokens_field="max_completion_tokens").complete(USER)
    sent = server.requests[0]["json"]
    assert "temperature" not in sent and "max_tokens" not in sent and sent["max_completion_tokens"] == 512


def test_429_then_success_honours_retry_after(server):
    server.answer({"status": 429, "body": {"error": {"message": "slow down"}}, "headers": {"Retry-After": "0"}},
                  {"body": chat_answer()})
    client = openai_client(server)
    completion = client.complete(USER)
    assert completion.attempts == 2 and completion.text == "MOVE north"
    assert client.sleeps == [0.0]
    assert client.usage["requests"] == 1 and client.usage["attempts"] == 2


def test_retry_after_is_capped(server):
    server.answer({"status": 429, "headers": {"Retry-After": "3600"}}, {"body": chat_answer()})
    client = openai_client(server, max_retry_after_s=5.0)
    client.complete(USER)
    assert client.sleeps == [5.0]


def test_500_twice_then_success_with_growing_backoff(server):
    server.answer({"status": 500, "body": "oops"}, {"status": 503, "body": "busy"}, {"body": chat_answer()})
    client = openai_client(server, backoff_s=1.0)
    completion = client.complete(USER)
    assert completion.attempts == 3 and len(server.requests) == 3
    first, second = client.sleeps
    assert 0.5 <= first < 1.0 and 1.0 <= second < 2.0      # exponential, with jitter


def test_500_forever_raises_transient_after_the_last_retry(server):
    server.answer({"status": 502, "body": {"error": {"message": "bad gateway"}}})
    client = openai_client(server, max_retries=2)
    with pytest.raises(TransientError, match="gave up after 3 attempts.*HTTP 502: bad gateway"):
        client.complete(USER)
    assert len(server.requests) == 3 and len(client.sleeps) == 2


def test_timeouts_are_retried_then_transient(server):
    server.answer({"delay_s": 0.6, "body": chat_answer()})
    client = openai_client(server, timeout_s=0.2, max_retries=1)
    started = time.monotonic()
    with pytest.raises(TransientError, match="timed out"):
        client.complete(USER)
    assert time.monotonic() - started < 1.5
    assert len(server.requests) == 2


def test_timeout_then_success(server):
    # a timeout roomy enough for the second, prompt answer on a loaded machine
    server.answer({"delay_s": 1.5, "body": chat_answer()}, {"body": chat_answer("late but fine")})
    completion = openai_client(server, timeout_s=0.5).complete(USER)
    assert completion.text == "late but fine" and completion.attempts == 2


@pytest.mark.parametrize("bad_body", ["{not json", "", json.dumps({"choices": []}),
                                      json.dumps({"error": {"message": "upstream hiccup"}})])
def test_malformed_bodies_are_retried(server, bad_body):
    server.answer({"body": bad_body}, {"body": chat_answer()})
    client = openai_client(server)
    assert client.complete(USER).attempts == 2


def test_malformed_forever_says_why(server):
    server.answer({"body": json.dumps({"error": {"message": "upstream hiccup"}})})
    with pytest.raises(TransientError, match="unreadable answer: upstream hiccup"):
        openai_client(server, max_retries=1).complete(USER)


def test_400_raises_client_error_at_once(server):
    server.answer({"status": 400, "body": {"error": {"message": "context length exceeded", "type": "invalid"}}})
    client = openai_client(server)
    with pytest.raises(ClientError, match="HTTP 400.*context length exceeded") as caught:
        client.complete(USER)
    assert not isinstance(caught.value, TransientError)
    assert len(server.requests) == 1 and client.sleeps == []


def test_ollama_style_404_error(server):
    server.answer({"status": 404, "body": {"error": "model 'nope' not found"}})
    with pytest.raises(ClientError, match="model 'nope' not found"):
        openai_client(server).complete(USER)
    assert len(server.requests) == 1


def test_redirects_are_not_followed(server):
    server.answer({"status": 307, "headers": {"Location": "http://elsewhere.invalid/v1/chat/completions"}})
    with pytest.raises(ClientError, match="redirected.*elsewhere.invalid"):
        openai_client(server).complete(USER)
    assert len(server.requests) == 1


def test_connection_refused_is_retried_then_transient():
    with socket.socket() as probe:           # a port that nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sleeps: list[float] = []
    client = OpenAICompatibleClient("m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=2,
                                    timeout_s=1.0, sleep=sleeps.append)
    with pytest.raises(TransientError, match="could not reach"):
        client.complete(USER)
    assert len(sleeps) == 2 and client.usage["attempts"] == 3 and client.usage["requests"] == 0


def test_images_are_png_data_urls_of_the_right_size(server):
    server.answer({"body": chat_answer()})
    image = np.arange(6 * 10 * 3, dtype=np.uint8).reshape(6, 10, 3)
    messages = [{"role": "user", "content": "What do you see?", "images": [image, image[:2, :3]]}]
    openai_client(server).complete(messages)
    content = server.requests[0]["json"]["messages"][0]["content"]
    assert content[0] == {"type": "text", "text": "What do you see?"}
    decoded = []
    for part in content[1:]:
        assert part["type"] == "image_url"
        url = part["image_url"]["url"]
        assert url.startswith("data:image/png;base64,")
        decoded.append(decode_png(base64.b64decode(url.split(",", 1)[1])))
    assert decoded[0].shape == (6, 10, 3) and (decoded[0] == image).all()
    assert decoded[1].shape == (2, 3, 3) and (decoded[1] == image[:2, :3]).all()


def test_text_only_client_drops_images(server):
    server.answer({"body": chat_answer()})
    image = np.zeros((4, 4, 3), np.uint8)
    openai_client(server, supports_images=False).complete([{"role": "user", "content": "hi", "images": [image]}])
    assert server.requests[0]["json"]["messages"][0]["content"] == "hi"


# ----------------------------------------------------------------------------- the key never shows

def echo_authorization(request):
    headers = request["headers"]
    seen = headers.get("authorization") or headers.get("x-api-key") or headers.get("x-goog-api-key")
    return {"error": {"message": f"invalid key {seen} (you sent {seen!r})"}}


@pytest.mark.parametrize("status, error", [(401, ClientError), (500, TransientError)])
@pytest.mark.parametrize("client_class", [OpenAICompatibleClient, AnthropicClient, GeminiClient])
def test_key_is_scrubbed_from_errors(server, caplog, status, error, client_class):
    server.answer({"status": status, "body": echo_authorization})
    base_url = server.url + ("/v1" if client_class is OpenAICompatibleClient else "")
    client = client_class("m", api_key=SECRET, base_url=base_url, max_retries=1, sleep=lambda s: None)
    with caplog.at_level(logging.DEBUG), pytest.raises(error) as caught:
        client.complete(USER)
    message = str(caught.value)
    assert "invalid key" in message and "[REDACTED]" in message
    assert SECRET not in message and SECRET not in repr(caught.value)
    assert SECRET not in caplog.text
    if status == 401:
        assert client.key_env_vars[0] in message       # says where the key came from


HTTP_PROVIDERS = ("anthropic", "gemini", "openai")   # the ones that take a key


@pytest.mark.parametrize("provider", HTTP_PROVIDERS)
def test_key_never_in_repr_describe_or_vars(provider, monkeypatch):
    client = make_client(provider, "m", api_key=SECRET)
    for text in (repr(client), str(client), json.dumps(client.describe()), repr(vars(client))):
        assert SECRET not in text
    assert client.describe()["provider"] == provider and client.describe()["model"] == "m"
    assert "<hidden>" in repr(client)


# ----------------------------------------------------------------------------- make_client

def test_make_client_unknown_provider_lists_the_known_ones():
    with pytest.raises(ClientError,
                       match="unknown LLM provider 'nope'.*anthropic, fake, gemini, local, openai"):
        make_client("nope", "m")


@pytest.mark.parametrize("provider, variable", [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY"),
                                                ("gemini", "GEMINI_API_KEY")])
def test_make_client_missing_key_names_the_variable(provider, variable):
    with pytest.raises(ClientError, match=variable):
        make_client(provider, "m")


def test_make_client_reads_keys_from_env(monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", SECRET)
    assert isinstance(make_client("Gemini", "gemini-2.0-flash"), GeminiClient)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    assert isinstance(make_client("anthropic", "claude"), AnthropicClient)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    client = make_client("openai", "gpt-4o-mini", timeout_s=5, max_retries=0)
    assert isinstance(client, OpenAICompatibleClient) and client.timeout_s == 5 and client.max_retries == 0


def test_providers_table_is_extensible(monkeypatch):
    monkeypatch.setitem(PROVIDERS, "echo", lambda model, **kw: OpenAICompatibleClient(
        model, base_url="http://localhost:1/v1", **kw))
    assert make_client("echo", "m").model == "m"


# ----------------------------------------------------------------------------- Anthropic

def test_anthropic_request_and_answer(server):
    server.answer({"body": anthropic_answer()})
    client = AnthropicClient("claude-test", api_key=SECRET, base_url=server.url, sleep=lambda s: None)
    image = np.full((3, 5, 3), 200, np.uint8)
    messages = [{"role": "system", "content": "Rules."}, {"role": "system", "content": "More rules."},
                {"role": "user", "content": "Look:", "images": [image]},
                {"role": "user", "content": "And act."},
                {"role": "assistant", "content": "ok"}, {"role": "user", "content": "go"}]
    completion = client.complete(messages)
    assert completion.text == "MOVE east" and (completion.prompt_tokens, completion.completion_tokens) == (21, 4)
    assert completion.extra["finish_reason"] == "end_turn"
    (request,) = server.requests
    assert request["path"] == "/v1/messages"
    assert request["headers"]["x-api-key"] == SECRET
    assert request["headers"]["anthropic-version"] == "2023-06-01"
    sent = request["json"]
    assert sent["system"] == "Rules.\n\nMore rules." and sent["max_tokens"] == 512 and sent["model"] == "claude-test"
    assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "user"]
    first = sent["messages"][0]["content"]
    assert [block["type"] for block in first] == ["text", "image", "text"]
    source = first[1]["source"]
    assert source["type"] == "base64" and source["media_type"] == "image/png"
    assert decode_png(base64.b64decode(source["data"])).shape == (3, 5, 3)
    assert client.usage["prompt_tokens"] == 21


def test_anthropic_overloaded_529_is_retried(server):
    server.answer({"status": 529, "body": {"type": "error", "error": {"type": "overloaded_error",
                                                                       "message": "Overloaded"}}},
                  {"body": anthropic_answer()})
    client = AnthropicClient("c", api_key=SECRET, base_url=server.url, sleep=lambda s: None)
    assert client.complete(USER).attempts == 2


# ----------------------------------------------------------------------------- Gemini

def test_gemini_request_and_answer(server):
    server.answer({"body": gemini_answer()})
    client = GeminiClient("models/gemini-test", api_key=SECRET, base_url=server.url, temperature=0.5)
    image = np.zeros((8, 2, 3), np.uint8)
    messages = [{"role": "system", "content": "Rules."}, {"role": "user", "content": "hi", "images": [image]},
                {"role": "assistant", "content": "hello"}, {"role": "user", "content": "act"}]
    completion = client.complete(messages)
    assert completion.text == "MOVE west" and (completion.prompt_tokens, completion.completion_tokens) == (31, 5)
    assert completion.model == "gemini-test-001"
    (request,) = server.requests
    assert request["path"] == "/v1beta/models/gemini-test:generateContent"
    assert "key=" not in request["path"] and request["headers"]["x-goog-api-key"] == SECRET
    sent = request["json"]
    assert sent["systemInstruction"] == {"parts": [{"text": "Rules."}]}
    assert sent["generationConfig"] == {"maxOutputTokens": 512, "temperature": 0.5}
    assert [c["role"] for c in sent["contents"]] == ["user", "model", "user"]
    inline = sent["contents"][0]["parts"][1]["inline_data"]
    assert inline["mime_type"] == "image/png"
    assert decode_png(base64.b64decode(inline["data"])).shape == (8, 2, 3)


def test_gemini_skips_thoughts_and_survives_missing_parts(server):
    thinking = gemini_answer()
    thinking["candidates"][0]["content"]["parts"] = [{"text": "hmm...", "thought": True}, {"text": "A"}]
    cut = {"candidates": [{"content": {"role": "model"}, "finishReason": "MAX_TOKENS"}]}
    server.answer({"body": thinking}, {"body": cut})
    client = GeminiClient("g", api_key=SECRET, base_url=server.url)
    assert client.complete(USER).text == "A"
    completion = client.complete(USER)
    assert completion.text == "" and completion.extra["finish_reason"] == "MAX_TOKENS"


def test_gemini_blocked_prompt_is_not_retried(server):
    server.answer({"body": {"promptFeedback": {"blockReason": "SAFETY"}}})
    client = GeminiClient("g", api_key=SECRET, base_url=server.url, sleep=lambda s: None)
    with pytest.raises(ClientError, match="blocked.*SAFETY"):
        client.complete(USER)
    assert len(server.requests) == 1


# ----------------------------------------------------------------------------- function calling

TOOLS = [{"name": "attack_odds", "description": "Chance to hit.",
          "parameters": {"type": "object", "properties": {"attack": {"type": "string"},
                                                          "target": {"type": "string"}},
                         "required": ["attack", "target"]}}]


def _after_call(call_id="call_7", name="attack_odds", arguments=None):
    """The chat after the model called a tool and got its result (neutral form, as LLMAgent sends)."""
    arguments = {"attack": "dagger", "target": "goblin_2"} if arguments is None else arguments
    return [*USER, {"role": "assistant", "content": "Let me check.",
                    "tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]},
            {"role": "tool", "tool_call_id": call_id, "name": name, "content": '{"p_hit": 0.55}'}]


def openai_tool_call_answer(call_id="call_7", arguments='{"attack": "dagger", "target": "goblin_2"}'):
    return {"id": "cmpl-2", "model": "served-model",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None,
                "tool_calls": [{"id": call_id, "type": "function",
                                "function": {"name": "attack_odds", "arguments": arguments}}]}}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 12}}


def test_openai_tool_call_then_final_answer(server):
    server.answer({"body": openai_tool_call_answer()}, {"body": chat_answer("2")})
    client = openai_client(server)
    assert client.supports_tools
    first = client.complete(USER, tools=TOOLS)
    assert first.text == "" and first.extra["finish_reason"] == "tool_calls"
    (call,) = first.tool_calls
    assert (call.id, call.name, call.arguments, call.error) == (
        "call_7", "attack_odds", {"attack": "dagger", "target": "goblin_2"}, None)
    chat = [*USER, {"role": "assistant", "content": first.text,
                    "tool_calls": [call.as_message_part()]},
            {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": '{"p_hit": 0.55}'}]
    final = client.complete(chat, tools=TOOLS)
    assert final.text == "2" and final.tool_calls == []
    declared, answered = server.requests[0]["json"], server.requests[1]["json"]
    assert declared["tools"] == [{"type": "function", "function": TOOLS[0]}]
    assert answered["tools"] == declared["tools"]
    assert declared["tool_choice"] == answered["tool_choice"] == "auto"
    assistant, tool = answered["messages"][-2:]
    # content "" not null (llama-cpp-python answers null with a 500); "name" for a
    # self-hosted server (this one is on loopback)
    assert assistant == {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_7", "type": "function",
         "function": {"name": "attack_odds", "arguments": '{"attack": "dagger", "target": "goblin_2"}'}}]}
    assert tool == {"role": "tool", "tool_call_id": "call_7", "name": "attack_odds", "content": '{"p_hit": 0.55}'}
    # without tools the payload is as it always was
    client.complete(USER)
    assert "tools" not in server.requests[2]["json"] and "tool_choice" not in server.requests[2]["json"]


@pytest.mark.parametrize("arguments,error", [("{not json", "not valid JSON"), ('["a"]', "JSON object"),
                                             ({"attack": "x"}, None), ("", None)])
def test_openai_tool_call_arguments_malformed_or_as_objects(server, arguments, error):
    # Ollama sends arguments as an object; a small model may send broken JSON
    server.answer({"body": openai_tool_call_answer(arguments=arguments)})
    (call,) = openai_client(server).complete(USER, tools=TOOLS).tool_calls
    assert call.error is None if error is None else error in call.error
    if error is None:
        assert call.arguments == (arguments or {})


def test_anthropic_tool_use_and_tool_result(server):
    recorded = {"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-test",
                "stop_reason": "tool_use", "usage": {"input_tokens": 40, "output_tokens": 9},
                "content": [{"type": "text", "text": "Let me check."},
                            {"type": "tool_use", "id": "toolu_01A", "name": "attack_odds",
                             "input": {"attack": "dagger", "target": "goblin_2"}}]}
    server.answer({"body": recorded}, {"body": anthropic_answer("2")})
    client = AnthropicClient("claude-test", api_key=SECRET, base_url=server.url, sleep=lambda s: None)
    first = client.complete(USER, tools=TOOLS)
    assert first.text == "Let me check." and first.extra["finish_reason"] == "tool_use"
    (call,) = first.tool_calls
    assert (call.id, call.name, call.arguments) == ("toolu_01A", "attack_odds",
                                                    {"attack": "dagger", "target": "goblin_2"})
    assert client.complete(_after_call("toolu_01A"), tools=TOOLS).text == "2"
    declared, answered = server.requests[0]["json"], server.requests[1]["json"]
    assert declared["tools"] == [{"name": "attack_odds", "description": "Chance to hit.",
                                  "input_schema": TOOLS[0]["parameters"]}]
    assert [m["role"] for m in answered["messages"]] == ["user", "assistant", "user"]
    assert answered["messages"][1]["content"] == [
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "toolu_01A", "name": "attack_odds",
         "input": {"attack": "dagger", "target": "goblin_2"}}]
    assert answered["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_01A", "content": '{"p_hit": 0.55}'}]


def test_anthropic_tool_results_come_before_text_in_a_turn():
    client = AnthropicClient("c", api_key=SECRET, base_url="http://127.0.0.1:9")
    chat = [*_after_call("toolu_9"), {"role": "user", "content": "Your answer could not be used."}]
    _, _, payload = client._build_request(chat, TOOLS)
    last = payload["messages"][-1]["content"]
    assert [b["type"] for b in last] == ["tool_result", "text"]


def test_gemini_function_call_and_response(server):
    recorded = {"candidates": [{"content": {"role": "model", "parts": [
                    {"functionCall": {"name": "attack_odds", "args": {"attack": "dagger", "target": "goblin_2"}},
                     "thoughtSignature": "c2lnbmF0dXJl"}]}, "finishReason": "STOP"}],
                "usageMetadata": {"promptTokenCount": 60, "candidatesTokenCount": 7}}
    server.answer({"body": recorded}, {"body": gemini_answer("2")})
    client = GeminiClient("gemini-test", api_key=SECRET, base_url=server.url)
    first = client.complete(USER, tools=TOOLS)
    (call,) = first.tool_calls
    assert call.name == "attack_odds" and call.arguments == {"attack": "dagger", "target": "goblin_2"}
    assert call.id.startswith("gemini_call_")         # Gemini gave none: ours, not sent back
    chat = [*USER, {"role": "assistant", "content": "", "tool_calls": [call.as_message_part()]},
            {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": '{"p_hit": 0.55}'}]
    assert client.complete(chat, tools=TOOLS).text == "2"
    declared, answered = server.requests[0]["json"], server.requests[1]["json"]
    assert declared["tools"] == [{"functionDeclarations": TOOLS}]
    model_turn, result_turn = answered["contents"][-2:]
    assert model_turn == {"role": "model", "parts": [
        {"functionCall": {"name": "attack_odds", "args": {"attack": "dagger", "target": "goblin_2"}},
         "thoughtSignature": "c2lnbmF0dXJl"}]}
    assert result_turn == {"role": "user", "parts": [
        {"functionResponse": {"name": "attack_odds", "response": {"result": {"p_hit": 0.55}}}}]}


def test_gemini_echoes_server_call_ids():
    client = GeminiClient("g", api_key=SECRET, base_url="http://127.0.0.1:9")
    (call,) = client._parse({"candidates": [{"content": {"parts": [
        {"functionCall": {"id": "fc-1", "name": "attack_odds", "args": {}}}]}}]})[4]["tool_calls"]
    _, _, payload = client._build_request(_after_call(call.id), TOOLS)
    assert payload["contents"][-2]["parts"][-1]["functionCall"]["id"] == "fc-1"
    assert payload["contents"][-1]["parts"][0]["functionResponse"]["id"] == "fc-1"


def test_scripted_client_scripts_tool_calls_only_when_tools_are_offered():
    from dungeonbench_gym.llm.fake import ScriptedClient

    client = ScriptedClient([{"tool_calls": [{"name": "attack_odds", "arguments": {"attack": "a"}}]}])
    completion = client.complete(USER, tools=TOOLS)
    assert completion.tool_calls[0].id == "call_1" and completion.tool_calls[0].arguments == {"attack": "a"}
    assert client.tools_offered == [TOOLS]
    with pytest.raises(ClientError, match="no tools were offered"):
        client.complete(USER)


def test_local_client_declares_no_tools():
    from dungeonbench_gym.llm.local import LocalLlamaClient

    assert LocalLlamaClient.supports_tools is False and ChatClient.supports_tools is False


# ----------------------------------------------------------------------------- context overflow

# What each server answers when the prompt does not fit, as their code and docs write it:
# (client class, HTTP status, body, window, tokens requested)
OVERFLOWS = {
    "llama-cpp-python 400": (OpenAICompatibleClient, 400, {"error": {
        "message": "This model's maximum context length is 4096 tokens. However, you requested 5074 "
                   "tokens (5010 in the messages, 64 in the completion). Please reduce the length of "
                   "the messages or completion.",
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}},
        4096, 5074),
    "llama-cpp-python 500": (OpenAICompatibleClient, 500, {"error": {
        "message": "Requested tokens (4100) exceed context window of 4096",
        "type": "internal_server_error", "param": None, "code": None}}, 4096, 4100),
    "llama.cpp server": (OpenAICompatibleClient, 400, {"error": {
        "code": 400, "message": "request (4476 tokens) exceeds the available context size (4096 tokens)",
        "type": "exceed_context_size_error", "n_prompt_tokens": 4476, "n_ctx": 4096}}, 4096, 4476),
    "vLLM input": (OpenAICompatibleClient, 400, {
        "object": "error", "message": "This model's maximum context length is 2048 tokens. However, "
        "your request has 3000 input tokens. Please reduce the length of the input messages.",
        "type": "BadRequestError", "param": None, "code": 400}, 2048, 3000),
    "vLLM max_tokens": (OpenAICompatibleClient, 400, {"error": {
        "message": "'max_tokens' or 'max_completion_tokens' is too large: 512. This model's maximum "
                   "context length is 4096 tokens and your request has 3700 input tokens "
                   "(512 > 4096 - 3700).", "type": "BadRequestError", "param": None, "code": 400}},
        4096, 4212),
    "OpenAI": (OpenAICompatibleClient, 400, {"error": {
        "message": "This model's maximum context length is 8192 tokens. However, your messages "
                   "resulted in 9001 tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}},
        8192, 9001),
    "OpenAI code only": (OpenAICompatibleClient, 400, {"error": {
        "message": "Input too long.", "type": "invalid_request_error",
        "code": "context_length_exceeded"}}, None, None),
    "Anthropic": (AnthropicClient, 400, {"type": "error", "error": {
        "type": "invalid_request_error", "message": "prompt is too long: 210345 tokens > 200000 maximum"}},
        200000, 210345),
    "Anthropic with max_tokens": (AnthropicClient, 400, {"type": "error", "error": {
        "type": "invalid_request_error", "message": "input length and `max_tokens` exceed context limit: "
        "197626 + 8192 > 200000, decrease input length or `max_tokens` and try again"}}, 200000, 205818),
    "Gemini": (GeminiClient, 400, {"error": {
        "code": 400, "message": "The input token count (1290000) exceeds the maximum number of tokens "
        "allowed (1048576).", "status": "INVALID_ARGUMENT"}}, 1048576, 1290000),
}


def _client_for(client_class, server, **kwargs):
    sleeps: list[float] = []
    base_url = server.url + ("/v1" if client_class is OpenAICompatibleClient else "")
    client = client_class("m", api_key=SECRET, base_url=base_url, timeout_s=2.0, sleep=sleeps.append, **kwargs)
    client.sleeps = sleeps
    return client


@pytest.mark.parametrize("server_kind", sorted(OVERFLOWS))
def test_context_overflow_is_raised_at_once_with_its_numbers(server, server_kind):
    client_class, status, body, limit, requested = OVERFLOWS[server_kind]
    server.answer({"status": status, "body": body})
    client = _client_for(client_class, server)
    with pytest.raises(ContextOverflowError) as caught:
        client.complete(USER)
    error = caught.value
    assert (error.limit, error.requested) == (limit, requested)
    assert isinstance(error, ClientError) and not isinstance(error, TransientError)
    assert len(server.requests) == 1 and client.sleeps == []        # never retried
    assert f"HTTP {status}" in str(error) and "shorten the prompt" in str(error)


def test_overflow_numbers_survive_pickling(server):
    # the evaluator's worker processes send errors back pickled
    import pickle

    server.answer({"status": 400, "body": OVERFLOWS["llama.cpp server"][2]})
    with pytest.raises(ContextOverflowError) as caught:
        _client_for(OpenAICompatibleClient, server).complete(USER)
    copy = pickle.loads(pickle.dumps(caught.value))
    assert (copy.limit, copy.requested, str(copy)) == (4096, 4476, str(caught.value))


@pytest.mark.parametrize("status, body, error", [
    # a rate limit on tokens per minute names tokens but is no overflow: retried
    (429, {"error": {"message": "Request too large for gpt-4o on tokens per min (TPM): Limit 30000, "
                                "Requested 50000.", "type": "tokens", "code": "rate_limit_exceeded"}},
     TransientError),
    # a max_tokens the model cannot give is a plain bad request
    (400, {"error": {"message": "max_tokens is too large: 9000. This model supports at most 4096 "
                                "completion tokens, whereas you provided 9000.",
                     "type": "invalid_request_error", "code": None}}, ClientError),
])
def test_other_errors_about_tokens_are_not_overflows(server, status, body, error):
    server.answer({"status": status, "body": body})
    client = _client_for(OpenAICompatibleClient, server, max_retries=1)
    with pytest.raises(error) as caught:
        client.complete(USER)
    assert not isinstance(caught.value, ContextOverflowError)
    assert len(server.requests) == (2 if error is TransientError else 1)


# ----------------------------------------------------------------------------- permanent or not

@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 413, 422])
def test_4xx_other_than_408_and_429_are_not_retried(server, status):
    server.answer({"status": status, "body": {"error": {"message": "no"}}})
    client = _client_for(OpenAICompatibleClient, server)
    with pytest.raises(ClientError, match=f"HTTP {status}") as caught:
        client.complete(USER)
    assert not isinstance(caught.value, TransientError)
    assert len(server.requests) == 1 and client.sleeps == []


@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 504])
def test_408_429_and_5xx_are_retried(server, status):
    server.answer({"status": status, "body": {"error": {"message": "later"}}}, {"body": chat_answer()})
    client = _client_for(OpenAICompatibleClient, server)
    assert client.complete(USER).attempts == 2 and len(client.sleeps) == 1


# llama-cpp-python's answer (measured) to an assistant tool-call turn with "content": null
PYDANTIC_500 = {"error": {"message": (
    "7 validation errors:\n  {'type': 'literal_error', 'loc': ('body', 'messages', 1, "
    "'ChatCompletionRequestSystemMessage', 'role'), 'msg': \"Input should be 'system'\", 'input': "
    "'assistant'}\n  {'type': 'string_type', 'loc': ('body', 'messages', 1, "
    "'ChatCompletionRequestAssistantMessage', 'content'), 'msg': 'Input should be a valid string', "
    "'input': None}"), "type": "internal_server_error", "param": None, "code": None}}


def test_a_500_that_rejects_the_request_itself_is_not_retried(server):
    server.answer({"status": 500, "body": PYDANTIC_500})
    client = _client_for(OpenAICompatibleClient, server)
    with pytest.raises(ClientError, match="(?s)HTTP 500.*validation errors.*rejects the request itself") as caught:
        client.complete(USER)
    assert not isinstance(caught.value, TransientError)
    assert len(server.requests) == 1 and client.sleeps == []


def test_total_backoff_is_capped_per_call(server):
    server.answer({"status": 503, "body": "busy"})
    client = _client_for(OpenAICompatibleClient, server, max_retries=6, backoff_s=10.0,
                         max_backoff_s=30.0, max_total_backoff_s=25.0)
    with pytest.raises(TransientError, match="HTTP 503"):
        client.complete(USER)
    assert sum(client.sleeps) == pytest.approx(25.0)      # the last wait shortened to fit
    assert len(server.requests) == len(client.sleeps) + 1 < 7


def _unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_server_that_is_down_fails_fast_then_gets_one_attempt_per_call():
    port = _unused_port()
    sleeps: list[float] = []
    client = OpenAICompatibleClient("m", base_url=f"http://127.0.0.1:{port}/v1", timeout_s=2.0,
                                    sleep=sleeps.append)      # the defaults: 4 retries, 1 s doubling
    started = time.monotonic()
    with pytest.raises(TransientError, match="gave up after 5 attempts.*could not reach"):
        client.complete(USER)
    assert len(sleeps) == 4 and sum(sleeps) <= 1 + 2 + 4 + 8          # the documented bound
    with pytest.raises(TransientError, match="gave up after 1 attempt .*one attempt: the last call"):
        client.complete(USER)
    assert len(sleeps) == 4 and client.usage["attempts"] == 6
    assert time.monotonic() - started < 5            # refused connections, no waiting but the recorded
    # the server comes back: the next call gets through, and a failing call is retried again
    revived = FakeServer(port=port)
    try:
        revived.answer({"body": chat_answer("back")})
        assert client.complete(USER).text == "back"
        revived.answer({"status": 503, "body": "busy"}, {"body": chat_answer("again")})
        assert client.complete(USER).attempts == 2
    finally:
        revived.close()


# ----------------------------------------------------------------------------- tools, server by server

def _tool_chat(call_id, name="attack_odds", arguments=None, content=""):
    arguments = {"attack": "dagger", "target": "goblin_2"} if arguments is None else arguments
    return [*USER, {"role": "assistant", "content": content,
                    "tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]},
            {"role": "tool", "tool_call_id": call_id, "name": name, "content": '{"p_hit": 0.55}'}]


def test_openai_hosted_request_shape_has_no_tool_name():
    # OpenAI's spec for a tool message is role, tool_call_id, content: strict relays reject more
    for base_url in ("https://api.openai.com/v1", "https://openrouter.ai/api/v1"):
        client = OpenAICompatibleClient("gpt-test", api_key=SECRET, base_url=base_url)
        url, headers, payload = client._build_request(_tool_chat("call_abc"), TOOLS)
        assert url == f"{base_url}/chat/completions" and headers == {"Authorization": f"Bearer {SECRET}"}
        assert payload["tools"] == [{"type": "function", "function": TOOLS[0]}] and payload["tool_choice"] == "auto"
        assistant, tool = payload["messages"][-2:]
        assert assistant["content"] == "" and assistant["tool_calls"][0]["id"] == "call_abc"
        assert tool == {"role": "tool", "tool_call_id": "call_abc", "content": '{"p_hit": 0.55}'}


@pytest.mark.parametrize("host, named", [("127.0.0.1", True), ("localhost", True), ("10.1.2.3", True),
                                         ("192.168.0.7", True), ("ollama", True), ("gpu-box.lan", True),
                                         ("api.openai.com", False), ("api.together.xyz", False),
                                         ("8.8.8.8", False)])
def test_tool_names_go_to_self_hosted_servers_only(host, named):
    client = OpenAICompatibleClient("m", api_key=SECRET, base_url=f"http://{host}:8000/v1")
    assert client.tool_message_names is named
    assert ("name" in client._build_request(_tool_chat("c1"), TOOLS)[2]["messages"][-1]) is named
    forced = OpenAICompatibleClient("m", api_key=SECRET, base_url=f"http://{host}:8000/v1",
                                    tool_message_names=not named)
    assert ("name" in forced._build_request(_tool_chat("c1"), TOOLS)[2]["messages"][-1]) is (not named)


def test_llama_cpp_python_tool_round_trip_shapes(server):
    # llama-cpp-python (chatml-function-calling) and llama-server answer with null content and
    # their own call ids; the follow-up must carry content "" and keep tool_choice "auto"
    served = {"id": "chatcmpl-9", "object": "chat.completion", "model": "smollm2",
              "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": None, "message": {
                  "role": "assistant", "content": None, "tool_calls": [{
                      "id": "call__0_condition_cmpl-18cd", "type": "function",
                      "function": {"name": "condition", "arguments": '{"name": "prone"}'}}]}}],
              "usage": {"prompt_tokens": 29, "completion_tokens": 18, "total_tokens": 47}}
    server.answer({"body": served}, {"body": chat_answer("1")})
    client = openai_client(server)
    first = client.complete(USER, tools=TOOLS)
    (call,) = first.tool_calls
    assert (call.id, call.name, call.arguments, first.text) == ("call__0_condition_cmpl-18cd", "condition",
                                                                {"name": "prone"}, "")
    follow_up = [*USER, {"role": "assistant", "content": first.text, "tool_calls": [call.as_message_part()]},
                 {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": '{"effects": []}'}]
    assert client.complete(follow_up, tools=TOOLS).text == "1"
    sent = server.requests[1]["json"]
    assert sent["tool_choice"] == "auto"
    assert sent["messages"][-2]["content"] == "" and sent["messages"][-2]["tool_calls"][0]["id"] == call.id
    assert sent["messages"][-1] == {"role": "tool", "tool_call_id": call.id, "name": "condition",
                                    "content": '{"effects": []}'}


def test_vllm_tool_call_and_its_auto_tool_choice_error(server):
    served = openai_tool_call_answer(call_id="chatcmpl-tool-5f1e")
    served["choices"][0]["message"]["content"] = ""         # vLLM may send "" instead of null
    server.answer({"body": served})
    (call,) = openai_client(server).complete(USER, tools=TOOLS).tool_calls
    assert call.id == "chatcmpl-tool-5f1e" and call.arguments == {"attack": "dagger", "target": "goblin_2"}
    # a vLLM started without --enable-auto-tool-choice rejects tool_choice "auto": said, with the fix
    refusal = {"object": "error", "message": '"auto" tool choice requires --enable-auto-tool-choice and '
               "--tool-call-parser to be set", "type": "BadRequestError", "param": None, "code": 400}
    server.answer({"status": 400, "body": refusal})
    client = openai_client(server)
    with pytest.raises(ClientError, match="start vLLM with --enable-auto-tool-choice.*--tool-protocol text"):
        client.complete(USER, tools=TOOLS)
    assert client.sleeps == []


def test_llama_server_without_jinja_is_said_with_the_fix(server):
    server.answer({"status": 500, "body": {"error": {"code": 500, "message": "tools param requires --jinja flag",
                                                      "type": "server_error"}}})
    client = openai_client(server)
    with pytest.raises(ClientError, match="start llama-server with --jinja") as caught:
        client.complete(USER, tools=TOOLS)
    assert not isinstance(caught.value, TransientError) and len(server.requests) == 1


def test_ollama_tool_calls_without_ids_and_with_object_arguments(server):
    # Ollama's /v1/chat/completions: arguments may be an object, ids may be missing
    def ollama_answer(*names):
        return {"id": "chatcmpl-1", "object": "chat.completion", "model": "llama3.2",
                "system_fingerprint": "fp_ollama",
                "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                    "role": "assistant", "content": "",
                    "tool_calls": [{"index": n, "type": "function",
                                    "function": {"name": name, "arguments": {"name": "prone"}}}
                                   for n, name in enumerate(names)]}}],
                "usage": {"prompt_tokens": 80, "completion_tokens": 20}}

    server.answer({"body": ollama_answer("condition", "spell")}, {"body": ollama_answer("condition")})
    client = openai_client(server)
    first = client.complete(USER, tools=TOOLS).tool_calls
    second = client.complete(USER, tools=TOOLS).tool_calls
    ids = [call.id for call in first + second]
    assert len(set(ids)) == 3 and all(ids)          # unique across the client's chats
    assert [c.arguments for c in first + second] == [{"name": "prone"}] * 3
    assert all(c.error is None for c in first + second)
    # and the made-up ids travel back as they were given
    _, _, payload = client._build_request(_tool_chat(ids[0], name="condition"), TOOLS)
    assert payload["messages"][-2]["tool_calls"][0]["id"] == payload["messages"][-1]["tool_call_id"] == ids[0]


# ----------------------------------------------------------------------------- context window probes

def models_list(*entries):
    return {"object": "list", "data": [{"object": "model", "owned_by": "me", **e} for e in entries]}


def test_vllm_context_from_max_model_len_probed_once(server):
    server.routes["/v1/models"] = {"body": models_list({"id": "other", "max_model_len": 1024},
                                                       {"id": "test-model", "max_model_len": 8192})}
    client = openai_client(server)
    assert client.context_length() == 8192 and "max_model_len" in client.context_source
    assert client.context_length() == 8192 and len(server.requests) == 1
    (probe,) = server.requests
    assert probe["method"] == "GET" and probe["headers"]["authorization"] == f"Bearer {SECRET}"


def test_llama_server_context_from_props_not_the_training_context(server):
    server.routes["/v1/models"] = {"body": models_list({"id": "qwen.gguf", "meta": {
        "vocab_type": 2, "n_vocab": 151936, "n_ctx_train": 32768, "n_embd": 896}})}
    server.routes["/props"] = {"body": {"default_generation_settings": {"n_ctx": 4096, "params": {}},
                                        "total_slots": 1, "model_path": "qwen.gguf"}}
    client = openai_client(server)
    assert client.context_length() == 4096 and "/props" in client.context_source


def test_training_context_is_the_last_resort(server):
    server.routes["/v1/models"] = {"body": models_list({"id": "m.gguf", "meta": {"n_ctx_train": 32768}})}
    client = openai_client(server)
    assert client.context_length() == 32768 and "upper bound" in client.context_source


def test_ollama_context_from_modelfile_num_ctx(server):
    server.routes["/v1/models"] = {"body": models_list({"id": "test-model:latest"})}
    server.routes["/api/ps"] = {"body": {"models": []}}            # not loaded yet
    server.routes["/api/show"] = {"body": {
        "parameters": "stop \"<|eot_id|>\"\nnum_ctx 8192\ntemperature 0.7",
        "model_info": {"general.architecture": "llama", "llama.context_length": 131072}}}
    client = openai_client(server)
    assert client.context_length() == 8192 and "num_ctx" in client.context_source
    shown = next(r for r in server.requests if r["path"] == "/api/show")
    assert shown["method"] == "POST" and shown["json"] == {"model": "test-model"}


def test_ollama_default_then_the_loaded_context(server):
    server.routes["/api/ps"] = {"body": {"models": []}}
    server.routes["/api/show"] = {"body": {"parameters": "temperature 0.7", "model_info": {
        "general.architecture": "llama", "llama.context_length": 131072}}}
    client = openai_client(server)
    # not loaded, no num_ctx: Ollama's default (its docs' smallest), below the model's maximum
    assert client.context_length() == OLLAMA_DEFAULT_NUM_CTX == 4096
    assert "default" in client.context_source
    server.answer({"body": chat_answer()})
    client.complete(USER)                        # now the model is loaded: /api/ps knows
    server.routes["/api/ps"] = {"body": {"models": [{"name": "test-model:latest", "model": "test-model:latest",
                                                     "size_vram": 0, "context_length": 32768}]}}
    assert client.context_length() == 32768 and "/api/ps" in client.context_source
    asked = len(server.requests)
    assert client.context_length() == 32768 and len(server.requests) == asked


def test_ollama_default_is_capped_by_a_small_model(server):
    server.routes["/api/show"] = {"body": {"parameters": "", "model_info": {
        "general.architecture": "gpt2", "gpt2.context_length": 1024}}}
    assert openai_client(server).context_length() == 1024


def test_llama_cpp_python_says_no_context_and_is_asked_once(server):
    server.routes["/v1/models"] = {"body": models_list({"id": "smollm2", "permissions": []})}
    client = openai_client(server)
    assert client.context_length() is None
    asked = len(server.requests)
    assert client.context_length() is None and len(server.requests) == asked


def test_hosted_openai_is_not_probed(monkeypatch):
    client = OpenAICompatibleClient("gpt-test", api_key=SECRET)
    monkeypatch.setattr(client, "_probe", lambda *a, **k: pytest.fail("probed api.openai.com"))
    assert client.context_length() is None and client.count_tokens("some text") is None


def test_probes_are_quiet_and_bounded_in_time(server):
    server.routes["/v1/models"] = {"delay_s": 1.5, "body": models_list({"id": "test-model", "max_model_len": 1})}
    client = openai_client(server, probe_timeout_s=0.2)
    started = time.monotonic()
    assert client.context_length() is None
    assert time.monotonic() - started < 1.2
    down = OpenAICompatibleClient("m", base_url=f"http://127.0.0.1:{_unused_port()}/v1")
    started = time.monotonic()
    assert down.context_length() is None and down.count_tokens("hello") is None
    assert time.monotonic() - started < 1.0


# ----------------------------------------------------------------------------- token counts

def test_count_tokens_through_llama_cpp_python(server):
    server.routes["/extras/tokenize/count"] = {"body": lambda request: {"count": len(request["json"]["input"].split())}}
    client = openai_client(server)
    assert client.count_tokens("one two three") == 3
    assert client.count_tokens("one two three") == 3 and len(server.requests) == 1     # cached
    assert client.count_tokens("four five") == 2 and len(server.requests) == 2
    assert server.requests[0]["json"] == {"input": "one two three", "model": "test-model"}
    assert client.count_tokens("") == 0 and len(server.requests) == 2


def test_count_tokens_through_llama_server(server):
    def tokenize(request):       # llama-server reads "content"; without it, tokens: []
        text = (request["json"] or {}).get("content", "")
        return {"tokens": list(range(len(text.split())))}

    server.routes["/tokenize"] = {"body": tokenize}
    client = openai_client(server)
    assert client.count_tokens("a b c d") == 4 and client.count_tokens("e f") == 2
    posted = [r["json"] for r in server.requests if r["path"] == "/tokenize"]
    assert posted == [{"content": "a b c d"}, {"content": "e f"}]


def test_count_tokens_through_vllm(server):
    def tokenize(request):       # vLLM wants model and prompt; anything else is a 400
        body = request["json"] or {}
        if "prompt" not in body:
            return {"object": "error", "message": "Field required: prompt", "code": 400}
        return {"count": len(body["prompt"].split()), "max_model_len": 4096, "tokens": [1, 2]}

    server.routes["/tokenize"] = {"status": 200, "body": tokenize}
    client = openai_client(server)
    assert client.count_tokens("a b c") == 3
    vllm = [r["json"] for r in server.requests if r["path"] == "/tokenize" and "prompt" in r["json"]]
    assert vllm == [{"model": "test-model", "prompt": "a b c", "add_special_tokens": False}]
    asked = len(server.requests)
    assert client.count_tokens("x y") == 2 and len(server.requests) == asked + 1   # straight to vLLM's


def test_count_tokens_unknown_is_none_and_asked_once(server):
    client = openai_client(server)        # every route a 404, as Ollama answers these
    assert client.count_tokens("hello there") is None
    asked = len(server.requests)
    assert asked == 3 and client.count_tokens("something else") is None and len(server.requests) == asked


def test_base_client_knows_neither():
    client = ChatClient("m")
    assert client.context_length() is None and client.count_tokens("text") is None


# ----------------------------------------------------------------------------- the real server

def test_llama_cpp_python_server_tokens_and_a_tool_round_trip(llama_server):
    """Against llama-cpp-python's own server (tests/llama_server.py): it does not tell its
    context, its tokenizer agrees with its usage figures, and a tool call goes there and back."""
    client = OpenAICompatibleClient("smollm2", base_url=llama_server, max_tokens=32, timeout_s=240,
                                    max_retries=0)
    assert client.context_length() is None      # no max_model_len, /props or /api/*: --context-tokens
    chat = [{"role": "system", "content": "Reply with the number of one option only."},
            {"role": "user", "content": "Options:\n0: go left\n1: go right\nYour choice (a number):"}]
    counted = [client.count_tokens(m["content"]) for m in chat]
    answer = client.complete(chat)
    overhead = answer.prompt_tokens - sum(counted)
    assert all(counted) and 0 < overhead <= 8 * len(chat) + 8     # ChatML's few tokens per message
    tool = {"name": "condition", "description": "The rules effects of a condition (prone, restrained).",
            "parameters": {"type": "object", "required": ["name"],
                           "properties": {"name": {"type": "string", "maxLength": 40}}}}
    ask = [{"role": "user", "content": "What does the prone condition do? Look it up with the condition tool."}]
    first = client.complete(ask, tools=[tool])
    (call, *_) = first.tool_calls
    assert call.name == "condition" and len(call.arguments["name"]) <= 40     # maxLength held
    follow_up = [*ask, {"role": "assistant", "content": first.text, "tool_calls": [call.as_message_part()]},
                 {"role": "tool", "tool_call_id": call.id, "name": call.name,
                  "content": '{"effects": "disadvantage on attack rolls"}'}]
    second = client.complete(follow_up, tools=[tool])          # a 500 would raise: max_retries=0
    assert second.prompt_tokens > first.prompt_tokens and second.attempts == 1
