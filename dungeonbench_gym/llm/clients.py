"""HTTP clients for hosted and self-hosted chat models, on the standard library only.

Three wire protocols cover most models a benchmark run meets:

* `OpenAICompatibleClient`: ``POST {base_url}/chat/completions`` (OpenAI, vLLM,
  Ollama, llama.cpp server, LM Studio, OpenRouter, ...);
* `AnthropicClient`: ``POST {base_url}/v1/messages``;
* `GeminiClient`: ``POST {base_url}/v1beta/models/{model}:generateContent``.

They share one request loop (`HTTPChatClient.complete`): a per-request timeout,
retries with exponential backoff and jitter on 408/429/5xx, network errors,
timeouts and unreadable bodies (honouring ``Retry-After``), `ClientError` at once
for any other 4xx, `TransientError` once the retries are used up.

API keys are kept in a `_Secret` (its repr is ``<hidden>``), are sent in headers
only (never in a URL), and are scrubbed from every message this module builds,
server error text included; each client also registers its key with
`core.secrets`, so the harness scrubs it from every file it writes (a model may
echo its key back in its answer). A body must arrive within `timeout_s` of its
headers and be at most `_MAX_BODY_BYTES`: a server trickling bytes or sending
gigabytes cannot hold a run. Images travel as PNG (encoded here, `encode_png`),
after the text of their message.

Function calling: each client translates the neutral tool messages of `base` (an
assistant turn with "tool_calls", "tool" results) and the tool declarations to its
protocol: OpenAI ``tools``/``tool_calls``/``role: tool``, Anthropic ``tools``/
``tool_use``/``tool_result``, Gemini ``functionDeclarations``/``functionCall``/
``functionResponse``; calls come back as `ToolCall`s in `Completion.tool_calls`.
"""

from __future__ import annotations

import base64
import http.client
import ipaddress
import json
import logging
import os
import random
import ssl
import struct
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.secrets import REDACTED, register_secret
from .base import ChatClient, ClientError, Completion, ToolCall, TransientError

log = logging.getLogger(__name__)

_MAX_ERROR_CHARS = 500            # of server error text quoted in an exception
_MAX_BODY_BYTES = 64 * 1024 * 1024   # far above any chat completion; bounds memory
_READ_CHUNK = 64 * 1024
# json.loads raises RecursionError, not ValueError, on deeply nested input ("[[[[...")
_JSON_ERRORS = (ValueError, RecursionError)


# ----------------------------------------------------------------------------- PNG

def encode_png(image: np.ndarray) -> bytes:
    """A PNG file of an (H, W, 3) RGB, (H, W, 4) RGBA or (H, W) grey uint8 array.

    Filter 0 on every row: screens of games compress well enough without the
    adaptive filters, and the encoder stays a dozen lines.
    """
    pixels = np.asarray(image)
    if pixels.dtype != np.uint8:
        raise ValueError(f"images must be uint8 arrays, got dtype {pixels.dtype}")
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    if pixels.ndim != 3 or pixels.shape[2] not in (1, 3, 4) or 0 in pixels.shape[:2]:
        raise ValueError(f"images must be HxWx3 (or HxW, HxWx4) with H, W > 0, got shape {np.shape(image)}")
    height, width, channels = pixels.shape
    color_type = {1: 0, 3: 2, 4: 6}[channels]
    rows = pixels.reshape(height, width * channels)
    scanlines = np.hstack([np.zeros((height, 1), np.uint8), rows])   # filter byte 0 per row

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(scanlines.tobytes(), 6)) + chunk(b"IEND", b""))


def _png_base64(image: np.ndarray) -> str:
    return base64.b64encode(encode_png(image)).decode("ascii")


# ----------------------------------------------------------------------------- secrets

class _Secret:
    """An API key that does not print itself (repr, str, vars(client), logs)."""

    __slots__ = ("_value",)

    def __init__(self, value: str | None):
        self._value = value or None

    def reveal(self) -> str | None:
        return self._value

    def forms(self) -> set[str]:
        """The key as written and URL-encoded: every way it can show up in a message."""
        key = self._value
        return {key, urllib.parse.quote(key, safe=""), urllib.parse.quote_plus(key)} if key else set()

    def __bool__(self) -> bool:
        return self._value is not None

    def __repr__(self) -> str:
        return "<hidden>" if self._value else "None"

    __str__ = __repr__


def _key_from(explicit: str | None, env_names: tuple[str, ...]) -> str | None:
    """The explicit key, else the first non-empty environment variable."""
    if explicit:
        return explicit
    for name in env_names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


# ----------------------------------------------------------------------------- transport

class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Never follow redirects: urllib would replay our auth headers to any host
    and turn the POST into a body-less GET."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def _is_loopback(host: str | None) -> bool:
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _NetworkProblem(Exception):
    """No HTTP answer at all: refused, reset, DNS, timeout. Worth retrying."""


class _Response:
    def __init__(self, status: int, headers: Any, body: bytes):
        self.status, self.headers, self.body = status, headers, body


def _error_text(body: bytes) -> str:
    """The human part of an error body: ``error.message`` (OpenAI, Anthropic,
    Gemini), ``error`` as a string (Ollama), else the raw text, shortened."""
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except _JSON_ERRORS:
        data = None
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and error.get("message"):
            text = str(error["message"])
        elif isinstance(error, str) and error:
            text = error
        elif data.get("message"):
            text = str(data["message"])
    if len(text) > _MAX_ERROR_CHARS:
        text = text[:_MAX_ERROR_CHARS] + "..."
    return text or "(empty body)"


class _Malformed(Exception):
    """A 2xx answer we cannot read: retried like a server error."""


# ----------------------------------------------------------------------------- shared client

class HTTPChatClient(ChatClient):
    """The request loop shared by every HTTP provider.

    Subclasses set `provider`, `key_env_vars`, `default_base_url` and implement
    `_build_request(messages) -> (url, headers, payload)` and
    `_parse(data) -> (text, prompt_tokens, completion_tokens, model, extra)`.

    `max_retries` counts retries after the first request, so a call makes at most
    ``max_retries + 1`` requests. The wait before retry n is
    ``backoff_s * 2**(n-1)`` times a jitter in [0.5, 1), capped at `max_backoff_s`,
    unless the server sent ``Retry-After`` (capped at `max_retry_after_s`).
    Tests make waiting free with ``sleep=lambda s: None`` or ``backoff_s=0``.
    """

    provider = "http"
    supports_tools = True
    key_env_vars: tuple[str, ...] = ()
    default_base_url = ""
    base_url_env: str | None = None
    key_required = True

    def __init__(self, model: str, *, api_key: str | None = None, base_url: str | None = None,
                 temperature: float | None = 0.0, max_tokens: int = 512,
                 timeout_s: float = 60.0, max_retries: int = 4,
                 backoff_s: float = 1.0, max_backoff_s: float = 30.0, max_retry_after_s: float = 60.0,
                 sleep: Callable[[float], None] = time.sleep, rng: random.Random | None = None,
                 supports_images: bool | None = None):
        super().__init__(model, temperature=temperature, max_tokens=max_tokens,
                         timeout_s=timeout_s, max_retries=max_retries)
        if not model:
            raise ClientError(f"{self.provider}: a model name is required")
        if max_retries < 0:
            raise ClientError(f"{self.provider}: max_retries must be >= 0, got {max_retries}")
        env_base = os.environ.get(self.base_url_env, "").strip() if self.base_url_env else ""
        self.base_url = (base_url or env_base or self.default_base_url).rstrip("/")
        parsed = urllib.parse.urlsplit(self.base_url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ClientError(f"{self.provider}: base_url must be an http(s) URL, got {self.base_url!r}")
        self._api_key = _Secret(_key_from(api_key, self.key_env_vars))
        for form in self._api_key.forms():   # so the harness scrubs it from every file too,
            register_secret(form)            # the model's echo of it included
        if not self._api_key and self._key_needed():
            raise ClientError(f"{self.provider}: no API key; set the environment variable "
                              f"{' or '.join(self.key_env_vars)} (or pass api_key=...)")
        if supports_images is not None:
            self.supports_images = supports_images
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.max_retry_after_s = max_retry_after_s
        self.sleep = sleep
        self.rng = rng or random.Random()
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0, "requests": 0, "attempts": 0}
        self._usage_lock = threading.Lock()
        handlers: list[Any] = [_NoRedirect()]
        if _is_loopback(parsed.hostname):    # a local server never goes through http_proxy
            handlers.append(urllib.request.ProxyHandler({}))
        self._opener = urllib.request.build_opener(*handlers)

    # --- what subclasses provide

    def _key_needed(self) -> bool:
        return self.key_required

    def _build_request(self, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]] | None = None) -> tuple[str, dict[str, str], dict]:
        raise NotImplementedError(f"{type(self).__name__} must write its request")

    def _parse(self, data: Any) -> tuple[str, int, int, str, dict[str, Any]]:
        raise NotImplementedError(f"{type(self).__name__} must read its answer")

    # --- public

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "base_url": self.base_url}

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r}, "
                f"api_key={self._api_key!r})")

    def complete(self, messages: list[dict[str, Any]],
                 tools: list[dict[str, Any]] | None = None) -> Completion:
        url, headers, payload = self._build_request(messages, tools or None)
        body = json.dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json", **headers}
        started = time.monotonic()
        last_problem = ""
        for attempt in range(1, self.max_retries + 2):
            with self._usage_lock:
                self.usage["attempts"] += 1
            request_started = time.monotonic()
            retry_after: float | None = None
            try:
                response = self._post(url, headers, body)
            except _NetworkProblem as problem:
                last_problem = str(problem)
            else:
                status = response.status
                if 200 <= status < 300:
                    try:
                        text, prompt_tokens, completion_tokens, model, extra = self._parse_body(response.body)
                    except _Malformed as problem:
                        last_problem = f"unreadable answer: {problem}"
                    else:
                        return self._finish(text, prompt_tokens, completion_tokens, model, extra,
                                            attempt, started, request_started)
                elif status in (408, 429) or status >= 500:
                    last_problem = f"HTTP {status}: {_error_text(response.body)}"
                    retry_after = self._retry_after(response.headers)
                else:
                    raise ClientError(self._scrub(self._client_error_message(url, response)))
            if attempt > self.max_retries:
                break
            delay = retry_after if retry_after is not None else self._backoff(attempt)
            log.info(self._scrub(f"{self.provider} {self.model}: attempt {attempt} failed "
                                 f"({last_problem}); retrying in {delay:.2f}s"))
            self.sleep(delay)
        raise TransientError(self._scrub(
            f"{self.provider} {self.model}: gave up after {self.max_retries + 1} attempts "
            f"to POST {url}; last problem: {last_problem}"))

    # --- the loop's pieces

    def _post(self, url: str, headers: dict[str, str], body: bytes) -> _Response:
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with self._opener.open(request, timeout=self.timeout_s) as answer:
                return _Response(answer.status, answer.headers, self._read_body(answer, url))
        except urllib.error.HTTPError as error:      # a status >= 300: a real answer
            try:
                error_body = self._read_body(error.fp or error, url)
            except (OSError, http.client.HTTPException, _NetworkProblem):
                error_body = b""
            return _Response(error.code, error.headers, error_body)
        except urllib.error.URLError as error:
            reason = error.reason
            if isinstance(reason, ssl.SSLCertVerificationError):  # retrying cannot fix a certificate
                raise ClientError(self._scrub(f"{self.provider}: TLS certificate of {url} rejected: {reason}")) from None
            if isinstance(reason, TimeoutError):       # socket.timeout is TimeoutError
                raise _NetworkProblem(f"timed out after {self.timeout_s}s") from None
            raise _NetworkProblem(f"could not reach {url}: {reason}") from None
        except TimeoutError:
            raise _NetworkProblem(f"timed out after {self.timeout_s}s") from None
        except (http.client.HTTPException, OSError) as error:
            raise _NetworkProblem(f"connection to {url} failed: {type(error).__name__}: {error}") from None

    def _read_body(self, stream: Any, url: str) -> bytes:
        """The whole body, read in chunks so that neither a server trickling bytes (each
        read alone would stay within the socket timeout) nor a huge body holds the run."""
        deadline = time.monotonic() + self.timeout_s
        read = getattr(stream, "read1", None) or stream.read   # read1: what has arrived
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = read(_READ_CHUNK)
            if not chunk:
                # read1 reports a connection closed mid-body as a quiet end: compare with the
                # Content-Length the server announced (http.client counts it down)
                missing = getattr(stream, "length", None)
                if isinstance(missing, int) and missing > 0:
                    raise _NetworkProblem(f"the connection closed {missing} bytes before the end of the answer")
                return b"".join(chunks)
            size += len(chunk)
            if size > _MAX_BODY_BYTES:
                raise ClientError(self._scrub(
                    f"{self.provider}: the answer from {url} is over {_MAX_BODY_BYTES // 2**20} MiB, "
                    "which no chat completion is; check base_url"))
            chunks.append(chunk)
            if time.monotonic() > deadline:
                raise _NetworkProblem(f"the answer was still arriving {self.timeout_s}s after its headers")

    def _parse_body(self, body: bytes) -> tuple[str, int, int, str, dict[str, Any]]:
        if not body.strip():
            raise _Malformed("empty body")
        try:
            data = json.loads(body)
        except _JSON_ERRORS:
            raise _Malformed(f"not JSON: {body[:80]!r}") from None
        try:
            return self._parse(data)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:
            detail = _error_text(body) if isinstance(data, dict) and "error" in data else f"{type(error).__name__}: {error}"
            raise _Malformed(detail) from None

    def _finish(self, text, prompt_tokens, completion_tokens, model, extra,
                attempts, started, request_started) -> Completion:
        now = time.monotonic()
        with self._usage_lock:
            self.usage["prompt_tokens"] += prompt_tokens
            self.usage["completion_tokens"] += completion_tokens
            self.usage["requests"] += 1
        extra = {**extra, "request_latency_s": now - request_started}
        tool_calls = extra.pop("tool_calls", [])   # parsers leave them in extra
        return Completion(text=text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                          latency_s=now - started, model=model or self.model, attempts=attempts, extra=extra,
                          tool_calls=tool_calls)

    def _backoff(self, attempt: int) -> float:
        base = min(self.max_backoff_s, self.backoff_s * 2 ** (attempt - 1))
        return base * (0.5 + 0.5 * self.rng.random())

    def _retry_after(self, headers: Any) -> float | None:
        """Seconds the server asked us to wait (``Retry-After: <seconds>`` or
        ``retry-after-ms``), capped; None when absent or an HTTP date."""
        if headers is None:
            return None
        for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
            value = headers.get(name)
            if value is None:
                continue
            try:
                seconds = float(value) * scale
            except ValueError:
                continue
            if seconds >= 0:
                return min(seconds, self.max_retry_after_s)
        return None

    def _client_error_message(self, url: str, response: _Response) -> str:
        status = response.status
        if 300 <= status < 400:
            location = response.headers.get("Location", "?") if response.headers else "?"
            return (f"{self.provider}: {url} redirected (HTTP {status}) to {location}; "
                    f"set base_url to the final address")
        message = f"{self.provider} {self.model}: HTTP {status} from {url}: {_error_text(response.body)}"
        if status in (401, 403) and self.key_env_vars:
            message += f" (check the key in {' or '.join(self.key_env_vars)} or api_key=)"
        return message

    def _scrub(self, text: str) -> str:
        for form in self._api_key.forms():
            text = text.replace(form, REDACTED)
        return text


# ----------------------------------------------------------------------------- messages

def _merged_turns(messages: list[dict[str, Any]]) -> tuple[str, list[tuple[str, list[dict[str, Any]]]]]:
    """System text (joined) and the other messages grouped into runs of one role.

    Anthropic and Gemini want user/assistant turns to alternate; two user
    messages in a row become one turn with both contents, in order. Tool results
    travel in the user's turn (both protocols put them there).
    """
    system_parts: list[str] = []
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    for message in messages:
        role = message.get("role")
        if role == "system":
            if message.get("content"):
                system_parts.append(str(message["content"]))
            continue
        if role not in ("user", "assistant", "tool"):
            raise ValueError(f"message role must be system, user, assistant or tool, got {role!r}")
        role = "user" if role == "tool" else role
        if turns and turns[-1][0] == role:
            turns[-1][1].append(message)
        else:
            turns.append((role, [message]))
    return "\n\n".join(system_parts), turns


def _arguments(raw: Any) -> tuple[dict[str, Any], str | None]:
    """A call's arguments as a dict, from a JSON string (OpenAI) or an object (Anthropic,
    Gemini, Ollama); (raw kept, error) when they are not a JSON object."""
    if raw is None or raw == "":
        return {}, None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except _JSON_ERRORS:
            return {"_raw": raw[:200]}, "the arguments were not valid JSON"
    if not isinstance(raw, dict):
        return {"_raw": str(raw)[:200]}, "the arguments must be a JSON object"
    return raw, None


# Gemini calls without an id get one of ours, which is not sent back
_GEMINI_ID = "gemini_call_"


# ----------------------------------------------------------------------------- OpenAI-compatible

class OpenAICompatibleClient(HTTPChatClient):
    """``/chat/completions`` of OpenAI or any server speaking its protocol.

    The key (``api_key=`` or ``OPENAI_API_KEY``) is sent as a bearer token to
    whatever `base_url` is, as the OpenAI SDK does; it is optional unless
    base_url is api.openai.com (Ollama and llama.cpp need none). For models that
    refuse ``temperature`` or ``max_tokens`` (OpenAI reasoning models) pass
    ``temperature=None`` and ``max_tokens_field="max_completion_tokens"``.
    For a text-only model behind vLLM, pass ``supports_images=False``.
    """

    provider = "openai"
    supports_images = True
    key_env_vars = ("OPENAI_API_KEY",)
    default_base_url = "https://api.openai.com/v1"
    base_url_env = "OPENAI_BASE_URL"

    def __init__(self, model: str, *, max_tokens_field: str = "max_tokens", **kwargs: Any):
        self.max_tokens_field = max_tokens_field
        super().__init__(model, **kwargs)

    def _key_needed(self) -> bool:
        host = urllib.parse.urlsplit(self.base_url).hostname or ""
        return host == "api.openai.com" or host.endswith(".openai.com")

    def _content(self, message: dict[str, Any]) -> Any:
        text = str(message.get("content") or "")
        images = message.get("images") or []
        if not (self.supports_images and images):
            return text
        parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        for image in images:
            parts.append({"type": "image_url",
                          "image_url": {"url": "data:image/png;base64," + _png_base64(image)}})
        return parts

    def _build_request(self, messages, tools=None):
        wire_messages = []
        for message in messages:
            role = message.get("role")
            if role not in ("system", "user", "assistant", "tool"):
                raise ValueError(f"message role must be system, user, assistant or tool, got {role!r}")
            if role == "tool":
                wire_messages.append({"role": "tool", "tool_call_id": message["tool_call_id"],
                                      "content": str(message.get("content") or "")})
            elif role == "assistant" and message.get("tool_calls"):
                wire_messages.append({
                    "role": "assistant", "content": message.get("content") or None,
                    "tool_calls": [{"id": call["id"], "type": "function",
                                    "function": {"name": call["name"],
                                                 "arguments": json.dumps(call.get("arguments") or {})}}
                                   for call in message["tool_calls"]]})
            else:
                wire_messages.append({"role": role, "content": self._content(message)})
        payload: dict[str, Any] = {"model": self.model, "messages": wire_messages,
                                   self.max_tokens_field: self.max_tokens}
        if tools:
            payload["tools"] = [{"type": "function", "function": {
                "name": t["name"], "description": t["description"], "parameters": t["parameters"]}}
                for t in tools]
        if self.temperature is not None:
            payload["temperature"] = self.temperature
        headers = {}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key.reveal()}"
        return f"{self.base_url}/chat/completions", headers, payload

    def _parse(self, data):
        choices = data.get("choices") if isinstance(data, dict) else None
        if not (isinstance(choices, list) and choices and isinstance(choices[0], dict)):
            raise ValueError("no 'choices' in the answer (is base_url a chat completions server?)")
        choice = choices[0]
        message = choice.get("message")
        if not isinstance(message, dict):
            raise ValueError("choices[0] has no 'message' object")
        content = message.get("content")
        if isinstance(content, list):       # a few servers answer with content parts
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        if content is not None and not isinstance(content, str):   # the agent reads text only
            raise ValueError(f"the message content is a JSON {type(content).__name__}, not text")
        usage = data.get("usage") or {}
        extra: dict[str, Any] = {"finish_reason": choice.get("finish_reason")}
        for field in ("refusal", "reasoning_content"):
            if message.get(field):
                extra[field] = message[field]
        calls = []
        for n, call in enumerate(message.get("tool_calls") or []):
            function = call["function"]
            arguments, error = _arguments(function.get("arguments"))
            calls.append(ToolCall(str(call.get("id") or f"call_{n}"), str(function["name"]), arguments, error))
        if calls:
            extra["tool_calls"] = calls
        return (content or "", int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0),
                str(data.get("model") or ""), extra)


# ----------------------------------------------------------------------------- Anthropic

class AnthropicClient(HTTPChatClient):
    """Anthropic's Messages API; system messages go to the top-level ``system``."""

    provider = "anthropic"
    supports_images = True
    key_env_vars = ("ANTHROPIC_API_KEY",)
    default_base_url = "https://api.anthropic.com"
    base_url_env = "ANTHROPIC_BASE_URL"
    api_version = "2023-06-01"

    def _blocks(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        if message.get("role") == "tool":
            return [{"type": "tool_result", "tool_use_id": message["tool_call_id"],
                     "content": str(message.get("content") or "")}]
        blocks: list[dict[str, Any]] = []
        if message.get("content"):                 # the API rejects empty text blocks
            blocks.append({"type": "text", "text": str(message["content"])})
        if self.supports_images:
            for image in message.get("images") or []:
                blocks.append({"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                           "data": _png_base64(image)}})
        for call in message.get("tool_calls") or []:
            blocks.append({"type": "tool_use", "id": call["id"], "name": call["name"],
                           "input": call.get("arguments") or {}})
        return blocks

    def _build_request(self, messages, tools=None):
        system, turns = _merged_turns(messages)
        wire_messages = []
        for role, group in turns:
            blocks = [block for m in group for block in self._blocks(m)]
            # the API wants a turn's tool_result blocks before any text
            blocks.sort(key=lambda block: block["type"] != "tool_result")
            wire_messages.append({"role": role, "content": blocks})
        payload: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens, "messages": wire_messages}
        if tools:
            payload["tools"] = [{"name": t["name"], "description": t["description"],
                                 "input_schema": t["parameters"]} for t in tools]
        if system:
            payload["system"] = system
        if self.temperature is not None:
            payload["temperature"] = self.temperature
        headers = {"x-api-key": self._api_key.reveal() or "", "anthropic-version": self.api_version}
        return f"{self.base_url}/v1/messages", headers, payload

    def _parse(self, data):
        if data.get("type") == "error":
            raise ValueError("error object in a 2xx answer")
        text = "".join(block["text"] for block in data["content"] if block.get("type") == "text")
        usage = data.get("usage") or {}
        extra: dict[str, Any] = {"finish_reason": data.get("stop_reason")}
        calls = []
        for block in data["content"]:
            if block.get("type") == "tool_use":
                arguments, error = _arguments(block.get("input"))
                calls.append(ToolCall(str(block["id"]), str(block["name"]), arguments, error))
        if calls:
            extra["tool_calls"] = calls
        return (text, int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0),
                str(data.get("model") or ""), extra)


# ----------------------------------------------------------------------------- Gemini

class GeminiClient(HTTPChatClient):
    """Google's Gemini API (``generateContent``); the key travels in the
    ``x-goog-api-key`` header, never in the URL."""

    provider = "gemini"
    supports_images = True
    key_env_vars = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    default_base_url = "https://generativelanguage.googleapis.com"

    def _parts(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        if message.get("role") == "tool":
            content = message.get("content") or ""
            try:
                result = json.loads(content)
            except _JSON_ERRORS:
                result = content
            # functionResponse.response must be an object
            response = {"name": message["name"], "response": {"result": result}}
            if not str(message["tool_call_id"]).startswith(_GEMINI_ID):   # an id the server gave
                response["id"] = message["tool_call_id"]
            return [{"functionResponse": response}]
        parts: list[dict[str, Any]] = []
        if message.get("content"):
            parts.append({"text": str(message["content"])})
        if self.supports_images:
            for image in message.get("images") or []:
                parts.append({"inline_data": {"mime_type": "image/png", "data": _png_base64(image)}})
        for call in message.get("tool_calls") or []:
            function_call = {"name": call["name"], "args": call.get("arguments") or {}}
            if not str(call["id"]).startswith(_GEMINI_ID):
                function_call["id"] = call["id"]
            part: dict[str, Any] = {"functionCall": function_call}
            signature = (call.get("extra") or {}).get("thoughtSignature")
            if signature:      # thinking models want their signature back with the call
                part["thoughtSignature"] = signature
            parts.append(part)
        return parts

    def _build_request(self, messages, tools=None):
        system, turns = _merged_turns(messages)
        contents = [{"role": "model" if role == "assistant" else "user",
                     "parts": [part for m in group for part in self._parts(m)]}
                    for role, group in turns]
        generation_config: dict[str, Any] = {"maxOutputTokens": self.max_tokens}
        if self.temperature is not None:
            generation_config["temperature"] = self.temperature
        payload: dict[str, Any] = {"contents": contents, "generationConfig": generation_config}
        if system:
            payload["systemInstruction"] = {"parts": [{"text": system}]}
        if tools:
            payload["tools"] = [{"functionDeclarations": [
                {"name": t["name"], "description": t["description"], "parameters": t["parameters"]}
                for t in tools]}]
        model = self.model.removeprefix("models/")
        url = f"{self.base_url}/v1beta/models/{urllib.parse.quote(model, safe='')}:generateContent"
        return url, {"x-goog-api-key": self._api_key.reveal() or ""}, payload

    def _parse(self, data):
        candidates = data.get("candidates")
        if not candidates:
            block_reason = (data.get("promptFeedback") or {}).get("blockReason")
            if block_reason:       # the same prompt would be blocked again
                raise ClientError(f"gemini {self.model}: prompt blocked ({block_reason})")
            raise ValueError("no candidates")
        candidate = candidates[0]
        parts = (candidate.get("content") or {}).get("parts") or []     # absent when cut at MAX_TOKENS
        text = "".join(part.get("text", "") for part in parts if not part.get("thought"))
        usage = data.get("usageMetadata") or {}
        extra: dict[str, Any] = {"finish_reason": candidate.get("finishReason")}
        if usage.get("thoughtsTokenCount"):
            extra["thoughts_tokens"] = int(usage["thoughtsTokenCount"])
        calls = []
        for part in parts:
            if "functionCall" in part:
                function_call = part["functionCall"]
                arguments, error = _arguments(function_call.get("args"))
                keep = {"thoughtSignature": part["thoughtSignature"]} if part.get("thoughtSignature") else {}
                calls.append(ToolCall(str(function_call.get("id") or f"{_GEMINI_ID}{len(calls)}"),
                                      str(function_call["name"]), arguments, error, keep))
        if calls:
            extra["tool_calls"] = calls
        return (text, int(usage.get("promptTokenCount") or 0), int(usage.get("candidatesTokenCount") or 0),
                str(data.get("modelVersion") or ""), extra)


# ----------------------------------------------------------------------------- factory

def _local(model: str, **kwargs: Any) -> ChatClient:
    from .local import LocalLlamaClient   # needs the local-llm extra; imported on demand

    return LocalLlamaClient(model, **kwargs) if model else LocalLlamaClient(**kwargs)


def _fake(model: str, **kwargs: Any) -> ChatClient:
    from .fake import make_fake_client

    return make_fake_client(model, **kwargs)


PROVIDERS: dict[str, Callable[..., ChatClient]] = {
    "openai": OpenAICompatibleClient,
    "anthropic": AnthropicClient,
    "gemini": GeminiClient,
    "local": _local,   # SmolLM2 through llama.cpp: no key, no download
    "fake": _fake,     # no model at all: random / first option, for pipeline tests
}


def make_client(provider: str, model: str, **kwargs: Any) -> ChatClient:
    """A client for `provider` (a key of `PROVIDERS`) and `model`.

    Fails with `ClientError` before any request when the provider is unknown or
    its API key is missing.
    """
    name = provider.strip().lower()
    factory = PROVIDERS.get(name)
    if factory is None:
        raise ClientError(f"unknown LLM provider {provider!r}; known providers: {', '.join(sorted(PROVIDERS))}")
    return factory(model, **kwargs)
