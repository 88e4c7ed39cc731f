"""The HTTP LLM clients against real HTTP servers on loopback.

Each test scripts the server's answers (status, JSON body, headers, delay) and
reads back what the client sent. Waiting between retries is injected away
(`sleep` records the delays instead of sleeping), so the file runs in seconds.
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
    TransientError,
)
from dungeonbench_gym.llm.clients import (
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
    last answer repeats. `requests` holds what arrived: path, headers (names in
    lower case), body, json.
    """

    def __init__(self):
        self.script: list[dict] = []
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                try:
                    parsed = json.loads(raw)
                except ValueError:
                    parsed = None
                headers = {name.lower(): value for name, value in self.headers.items()}   # urllib recases names
                request = {"path": self.path, "headers": headers, "body": raw, "json": parsed}
                with server._lock:
                    server.requests.append(request)
                    index = min(len(server.requests), len(server.script)) - 1
                    answer = server.script[index]
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

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    def answer(self, *answers: dict) -> FakeServer:
        self.script = list(answers)
        return self

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


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
    assistant, tool = answered["messages"][-2:]
    assert assistant == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_7", "type": "function",
         "function": {"name": "attack_odds", "arguments": '{"attack": "dagger", "target": "goblin_2"}'}}]}
    assert tool == {"role": "tool", "tool_call_id": "call_7", "content": '{"p_hit": 0.55}'}
    # without tools the payload is as it always was
    client.complete(USER)
    assert "tools" not in server.requests[2]["json"]


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
