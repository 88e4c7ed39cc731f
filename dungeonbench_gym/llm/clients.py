"""HTTP clients for hosted and self-hosted chat models, on the standard library only.

Three wire protocols cover most models a benchmark run meets:

* `OpenAICompatibleClient`: ``POST {base_url}/chat/completions`` (OpenAI, vLLM,
  Ollama, llama.cpp server, llama-cpp-python, LM Studio, OpenRouter, ...);
* `AnthropicClient`: ``POST {base_url}/v1/messages``;
* `GeminiClient`: ``POST {base_url}/v1beta/models/{model}:generateContent``.

They share one request loop (`HTTPChatClient.complete`): a per-request timeout
(`timeout_s`), retries with exponential backoff and jitter on 408/429/5xx, network
errors, timeouts and unreadable bodies (honouring ``Retry-After``), and no retry for
what retrying cannot fix: `ContextOverflowError` at once when the server says the
prompt exceeds the context (400, or 500 as llama-cpp-python reports some), with the
window and the tokens requested parsed from its message; `ClientError` at once for
any other 4xx but 408/429 and for a 500 whose body is a request-validation error
(pydantic's "validation error": the same request fails the same way); `TransientError`
once the retries are used up. Waiting is bounded: at most `max_total_backoff_s`
(120 s) of sleep per call, Retry-After waits included (with the defaults a refused
connection gives up after at most 1 + 2 + 4 + 8 = 15 s of backoff; a hanging server
after 5 x `timeout_s` plus that), and once a call found the server unreachable (no
HTTP answer on any attempt) later calls make a single attempt until it answers again,
so a dead server costs each later decision one refused connection (or one timeout).

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
The OpenAI protocol is written for the servers people run, per their docs:
``"tool_choice": "auto"`` whenever tools are offered (llama.cpp's server and
llama-cpp-python ignore the tools without it; vLLM needs ``--enable-auto-tool-choice``
for it, and its 400 says so), ``"content": ""`` on an assistant turn that only calls
tools (llama-cpp-python rejects null there with a 500), ``"name"`` in tool results
for self-hosted servers only (chat templates use it; strict hosted endpoints reject
it), arguments read from a JSON string or a JSON object (Ollama), and made-up unique
ids where a server gives none (Ollama).

The context window (OpenAI protocol, `context_length()`), probed once per client,
quietly (a failed probe is None, each request at most `probe_timeout_s`): vLLM's
``GET /v1/models`` ``max_model_len`` (hosted lists: ``context_length``,
``context_window``); llama.cpp's server ``GET /props``
``default_generation_settings.n_ctx`` (the context it runs), trusted over its
``/v1/models`` ``meta.n_ctx_train`` (the model's training context, an upper bound:
used only when /props says nothing); Ollama ``GET /api/ps`` (the loaded model's
context), else ``POST /api/show`` ``num_ctx``, else Ollama's default
(`OLLAMA_DEFAULT_NUM_CTX`, the smallest its docs give, capped by the model's own
``<arch>.context_length``: Ollama cuts a longer prompt silently, so guessing low is
the safe side; /api/ps is asked again once the model has answered). llama-cpp-python
and hosted APIs do not say: None. `count_tokens(text)` uses the server's tokenizer:
llama-cpp-python ``POST /extras/tokenize/count``, llama.cpp ``POST /tokenize
{"content"}``, vLLM ``POST /tokenize {"model", "prompt"}``, whichever answers first
(probed once, the failure cached too), with counts of repeated texts cached.
"""

from __future__ import annotations

import base64
import http.client
import ipaddress
import itertools
import json
import logging
import os
import random
import re
import ssl
import struct
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.secrets import REDACTED, register_secret
from .base import ChatClient, ClientError, Completion, ContextOverflowError, ToolCall, TransientError

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


def _error_fields(body: bytes) -> dict[str, Any]:
    """The ``error`` object of a JSON error body (OpenAI, llama.cpp, vLLM, Anthropic,
    Gemini all nest one), else {}."""
    try:
        data = json.loads(body)
    except _JSON_ERRORS:
        return {}
    error = data.get("error") if isinstance(data, dict) else None
    return error if isinstance(error, dict) else {}


def _int_field(fields: dict[str, Any], name: str) -> int | None:
    value = fields.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


# What servers write when a prompt does not fit (numbers: (requested, limit) unless noted)
_OVERFLOW_MESSAGES = [
    # llama-cpp-python's own exception (its server passes some on as HTTP 500)
    re.compile(r"Requested tokens \((\d+)\) exceed context window of (\d+)"),
    # llama.cpp's server (llama-server)
    re.compile(r"request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)"),
    # Anthropic
    re.compile(r"prompt is too long: (\d+) tokens > (\d+) maximum"),
    # Gemini
    re.compile(r"input token count \((\d+)\) exceeds the maximum number of tokens allowed \((\d+)\)",
               re.IGNORECASE),
]
# Anthropic: "input length and `max_tokens` exceed context limit: 197626 + 8192 > 200000"
_OVERFLOW_SUM = re.compile(r"exceed context limit: (\d+) \+ (\d+) > (\d+)")
# OpenAI, vLLM, llama-cpp-python's 400: "This model's maximum context length is M tokens.
# However, you requested N tokens (...)" / "your messages resulted in N tokens" / vLLM's
# "your request has N input tokens", or "'max_tokens' ... is too large: X. ... and your
# request has P input tokens (X > M - P)"
_MAX_CONTEXT = re.compile(r"maximum context length is (\d+) tokens", re.IGNORECASE)
_REQUESTED = re.compile(r"(?:requested|resulted in) (\d+) tokens|has (\d+) input tokens", re.IGNORECASE)
_TOO_LARGE = re.compile(r"is too large: (\d+)")
_OVERFLOW_WORDS = ("context_length_exceeded", "exceed_context_size_error",
                   "exceeds the available context size", "context length exceeded",
                   "maximum context length", "exceeds the context window",
                   "exceeds the context length")


def context_overflow(body: bytes) -> tuple[int | None, int | None] | None:
    """(limit, requested) when an error body says the prompt exceeds the context
    window, each None where the server gave no number; None for any other error."""
    fields = _error_fields(body)
    text = body[:8192].decode("utf-8", "replace")
    message = str(fields.get("message") or "")
    # llama.cpp's server says it in fields as well as words
    if fields.get("type") == "exceed_context_size_error":
        return _int_field(fields, "n_ctx"), _int_field(fields, "n_prompt_tokens")
    for source in (message, text):
        for pattern in _OVERFLOW_MESSAGES:
            found = pattern.search(source)
            if found:
                return int(found.group(2)), int(found.group(1))
        found = _OVERFLOW_SUM.search(source)
        if found:
            return int(found.group(3)), int(found.group(1)) + int(found.group(2))
        found = _MAX_CONTEXT.search(source)
        if found:
            limit = int(found.group(1))
            asked = _REQUESTED.search(source)
            requested = int(next(g for g in asked.groups() if g)) if asked else None
            too_large = _TOO_LARGE.search(source)
            if too_large and asked and asked.group(2):   # vLLM counts the answer's room apart
                requested += int(too_large.group(1))
            return limit, requested
    lowered = f"{text} {fields.get('code') or ''} {fields.get('type') or ''}".lower()
    if any(word in lowered for word in _OVERFLOW_WORDS):
        return None, None
    return None


# 500s that reject the request itself, so the same request fails the same way: pydantic
# (llama-cpp-python, FastAPI servers) "7 validation errors: ... Input should be a valid
# string", "1 validation error for ..."; llama-server without --jinja given tools
_REQUEST_REJECTED = re.compile(r"\b\d+ validation errors?\b|\bInput should be a valid\b|requires --jinja")


def _rejects_request(body: bytes) -> bool:
    """A 500 that only reports the request failed the server's schema: permanent."""
    return bool(_REQUEST_REJECTED.search(body[:8192].decode("utf-8", "replace")))


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
    unless the server sent ``Retry-After`` (capped at `max_retry_after_s`); a call
    sleeps at most `max_total_backoff_s` in all (the last wait is shortened to fit).
    With the defaults a server that refuses connections fails a call after about
    8-15 s of backoff; after such a call (no HTTP answer on any attempt) the next
    calls make one attempt each until the server answers again.
    Tests make waiting free with ``sleep=lambda s: None`` or ``backoff_s=0``.

    `probe_timeout_s` bounds each request of the probes (`context_length`,
    `count_tokens`), which are never retried and never raise.
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
                 max_total_backoff_s: float = 120.0, probe_timeout_s: float = 5.0,
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
        self.max_total_backoff_s = max_total_backoff_s
        self.probe_timeout_s = min(probe_timeout_s, timeout_s)
        self._unreachable = False    # the last call got no HTTP answer at all: try once, not five times
        self._probe_answered = False  # set by _probe when the server answered anything
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
        retries = 0 if self._unreachable else self.max_retries
        slept = 0.0
        answered = False            # any HTTP answer at all in this call
        attempt = 0
        for attempt in range(1, retries + 2):
            with self._usage_lock:
                self.usage["attempts"] += 1
            request_started = time.monotonic()
            retry_after: float | None = None
            try:
                response = self._post(url, headers, body)
            except _NetworkProblem as problem:
                last_problem = str(problem)
            else:
                answered = True
                self._unreachable = False
                status = response.status
                if 200 <= status < 300:
                    try:
                        text, prompt_tokens, completion_tokens, model, extra = self._parse_body(response.body)
                    except _Malformed as problem:
                        last_problem = f"unreadable answer: {problem}"
                    else:
                        return self._finish(text, prompt_tokens, completion_tokens, model, extra,
                                            attempt, started, request_started)
                elif status in (408, 429):
                    last_problem = f"HTTP {status}: {_error_text(response.body)}"
                    retry_after = self._retry_after(response.headers)
                else:
                    self._raise_if_permanent(url, response)
                    last_problem = f"HTTP {status}: {_error_text(response.body)}"
                    retry_after = self._retry_after(response.headers)
            if attempt > retries:
                break
            delay = retry_after if retry_after is not None else self._backoff(attempt)
            room = self.max_total_backoff_s - slept
            if delay > 0 and room <= 0:
                break                # the call's waiting budget is spent
            delay = min(delay, max(room, 0.0))
            log.info(self._scrub(f"{self.provider} {self.model}: attempt {attempt} failed "
                                 f"({last_problem}); retrying in {delay:.2f}s"))
            self.sleep(delay)
            slept += delay
        if not answered:
            self._unreachable = True
        note = "" if answered or retries else " (one attempt: the last call could not reach the server either)"
        raise TransientError(self._scrub(
            f"{self.provider} {self.model}: gave up after {attempt} attempt{'s' * (attempt != 1)} "
            f"to POST {url}{note}; last problem: {last_problem}"))

    def _raise_if_permanent(self, url: str, response: _Response) -> None:
        """Raise for an error answer that retrying cannot fix: a context overflow (any
        status, llama-cpp-python sends some as 500), a 3xx/4xx, a 500 that is a request
        validation error. Return for a server error worth retrying."""
        status = response.status
        overflow = context_overflow(response.body)
        if overflow is not None:
            limit, requested = overflow
            sizes = ", ".join(part for part in (
                f"{requested} tokens requested" if requested else "",
                f"a {limit}-token context window" if limit else "") if part)
            raise ContextOverflowError(self._scrub(
                f"{self.provider} {self.model}: the prompt does not fit the model's context"
                f"{f' ({sizes})' if sizes else ''}: HTTP {status} from {url}: "
                f"{_error_text(response.body)}; shorten the prompt (less history) or lower "
                "max_tokens"), limit=limit, requested=requested)
        if status < 500:
            raise ClientError(self._scrub(self._client_error_message(url, response)))
        if status == 500 and _rejects_request(response.body):
            raise ClientError(self._scrub(
                self._client_error_message(url, response)
                + " (the server rejects the request itself: retrying would send it again)"))

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

    def _probe(self, url: str, payload: dict[str, Any] | None = None) -> Any:
        """The JSON of a 2xx answer to GET `url` (or POST `payload`), else None: one
        attempt, `probe_timeout_s` for the connection and for the body, never an exception.
        Sends the same headers as a chat request (a vLLM started with --api-key wants the
        key on every route), to the same host only."""
        headers = {"Accept": "application/json"}
        if self._api_key:
            headers.update(self._auth_headers())
        data = None
        if payload is not None:
            data = json.dumps(payload).encode("utf-8")
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, headers=headers,
                                         method="GET" if data is None else "POST")
        try:
            with self._opener.open(request, timeout=self.probe_timeout_s) as answer:
                body = self._read_body(answer, url, limit_s=self.probe_timeout_s)
                if not 200 <= answer.status < 300:
                    return None
        except urllib.error.HTTPError as error:   # an answer: the route is not there
            error.close()
            self._probe_answered = True
            return None
        except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError,
                _NetworkProblem, ClientError):
            return None
        self._probe_answered = True
        try:
            return json.loads(body)
        except _JSON_ERRORS:
            return None

    def _auth_headers(self) -> dict[str, str]:
        """The key's header(s), for probes; providers with a key override it."""
        return {}

    def _read_body(self, stream: Any, url: str, limit_s: float | None = None) -> bytes:
        """The whole body, read in chunks so that neither a server trickling bytes (each
        read alone would stay within the socket timeout) nor a huge body holds the run."""
        deadline = time.monotonic() + (self.timeout_s if limit_s is None else limit_s)
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

    `context_length()` and `count_tokens()` ask the server (see the module text);
    `context_source` then says where the window came from. `tool_message_names`
    (default: only for a self-hosted base_url: loopback, a private address, a
    one-label or .local/.internal/.lan host) adds ``"name"`` to tool results, which
    the OpenAI spec lacks and strict hosted relays reject, but chat templates of
    self-hosted servers read.
    """

    provider = "openai"
    supports_images = True
    key_env_vars = ("OPENAI_API_KEY",)
    default_base_url = "https://api.openai.com/v1"
    base_url_env = "OPENAI_BASE_URL"
    token_cache_size = 512      # texts whose counts are kept (the system prompt repeats every decision)

    def __init__(self, model: str, *, max_tokens_field: str = "max_tokens",
                 tool_message_names: bool | None = None, **kwargs: Any):
        self.max_tokens_field = max_tokens_field
        super().__init__(model, **kwargs)
        host = urllib.parse.urlsplit(self.base_url).hostname or ""
        self.tool_message_names = _is_self_hosted(host) if tool_message_names is None else tool_message_names
        self.root_url = self.base_url.removesuffix("/v1")
        self.context_source: str | None = None
        self._probe_lock = threading.Lock()
        self._context: int | None = None
        self._context_state = "unprobed"    # "unprobed", "known", "ollama-default", "unknown"
        self._context_retry_at = 0.0         # after a probe round the server never answered
        self._counter: Callable[[str], int | None] | None = None
        self._counter_state = "unprobed"     # "unprobed", "known", "unknown"
        self._counter_retry_at = 0.0
        self._counts: OrderedDict[str, int] = OrderedDict()
        self._call_numbers = itertools.count(1)

    def _key_needed(self) -> bool:
        return self._is_openai()

    def _is_openai(self) -> bool:
        host = urllib.parse.urlsplit(self.base_url).hostname or ""
        return host == "api.openai.com" or host.endswith(".openai.com")

    def _auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key.reveal()}"} if self._api_key else {}

    # --- the context window

    def context_length(self) -> int | None:
        with self._probe_lock:
            now = time.monotonic()
            if self._context_state == "unprobed" and now >= self._context_retry_at:
                self._probe_answered = False
                found = None if self._is_openai() else self._probe_context()
                if found is not None:
                    self._context, self.context_source, provisional = found
                    self._context_state = "ollama-default" if provisional else "known"
                elif self._probe_answered or self._is_openai():
                    self._context_state = "unknown"
                else:                        # nothing answered: the server may be starting
                    self._context_retry_at = now + 60.0
            elif self._context_state == "ollama-default" and self.usage["requests"]:
                # the model has answered, so it is loaded: /api/ps now has its real context
                self._context_state = "known"
                loaded = self._ollama_loaded_context()
                if loaded:
                    self._context, self.context_source = loaded, "Ollama GET /api/ps context_length"
            return self._context

    def _probe_context(self) -> tuple[int, str, bool] | None:
        """(window, where from, provisional) from the first server kind that says."""
        listed = self._probe(f"{self.base_url}/models")
        entry = self._listed_model(listed)
        # vLLM; OpenRouter, Together; Groq
        for field in ("max_model_len", "context_length", "context_window"):
            value = _int_field(entry, field)
            if value:
                return value, f"GET /models {field}", False
        trained = _int_field(entry.get("meta") if isinstance(entry.get("meta"), dict) else {}, "n_ctx_train")
        if trained is None and listed is None and not self._probe_answered:
            return None                      # nothing there: no point asking for more routes
        props = self._probe(f"{self.root_url}/props")
        if isinstance(props, dict):          # llama.cpp's server: the context it runs (per slot)
            settings = props.get("default_generation_settings")
            value = _int_field(settings if isinstance(settings, dict) else {}, "n_ctx") or _int_field(props, "n_ctx")
            if value:
                return value, "llama.cpp GET /props default_generation_settings.n_ctx", False
        if trained is None:
            loaded = self._ollama_loaded_context()
            if loaded:
                return loaded, "Ollama GET /api/ps context_length", False
            shown = self._probe(f"{self.root_url}/api/show", {"model": self.model})
            if isinstance(shown, dict) and ("model_info" in shown or "parameters" in shown):
                return self._ollama_context(shown)
            return None
        # /v1/models meta.n_ctx_train is what the model was trained with: an upper bound
        # (the server may run less), trusted only when /props said nothing
        return trained, "GET /models meta.n_ctx_train (the training context: an upper bound)", False

    def _listed_model(self, listed: Any) -> dict[str, Any]:
        """This model's entry of a /models list (the only one when the server ignores names)."""
        entries = listed.get("data") if isinstance(listed, dict) else None
        if not isinstance(entries, list):
            return {}
        entries = [e for e in entries if isinstance(e, dict)]
        for entry in entries:
            if entry.get("id") == self.model:
                return entry
        return entries[0] if len(entries) == 1 else {}

    def _ollama_names(self) -> set[str]:
        return {self.model, self.model if ":" in self.model else f"{self.model}:latest"}

    def _ollama_loaded_context(self) -> int | None:
        running = self._probe(f"{self.root_url}/api/ps")
        models = running.get("models") if isinstance(running, dict) else None
        for entry in models if isinstance(models, list) else []:
            if isinstance(entry, dict) and {entry.get("name"), entry.get("model")} & self._ollama_names():
                return _int_field(entry, "context_length")
        return None

    def _ollama_context(self, shown: dict[str, Any]) -> tuple[int, str, bool] | None:
        """The window Ollama will load `model` with: its num_ctx if the Modelfile sets one,
        else Ollama's default, capped by what the model supports."""
        parameters = shown.get("parameters")
        found = re.search(r"^\s*num_ctx\s+(\d+)", parameters, re.MULTILINE) if isinstance(parameters, str) else None
        if found:
            return int(found.group(1)), "Ollama POST /api/show parameters num_ctx", False
        info = shown.get("model_info") if isinstance(shown.get("model_info"), dict) else {}
        trained = _int_field(info, f"{info.get('general.architecture')}.context_length")
        window = min(OLLAMA_DEFAULT_NUM_CTX, trained) if trained else OLLAMA_DEFAULT_NUM_CTX
        return window, (f"Ollama's default num_ctx ({OLLAMA_DEFAULT_NUM_CTX}, the smallest its docs "
                        "give; set OLLAMA_CONTEXT_LENGTH or num_ctx and pass --context-tokens)"), True

    # --- the tokenizer

    def count_tokens(self, text: str) -> int | None:
        if not text:
            return 0
        with self._probe_lock:
            if text in self._counts:
                self._counts.move_to_end(text)
                return self._counts[text]
            counted = self._count(text)
            if counted is not None:
                self._counts[text] = counted
                if len(self._counts) > self.token_cache_size:
                    self._counts.popitem(last=False)
            return counted

    def _count(self, text: str) -> int | None:
        if self._counter_state == "known":
            return self._counter(text)
        if self._counter_state == "unknown" or time.monotonic() < self._counter_retry_at:
            return None
        if self._is_openai():                 # no tokenize route
            self._counter_state = "unknown"
            return None
        self._probe_answered = False
        for counter in (self._count_llama_cpp_python, self._count_llama_cpp, self._count_vllm):
            counted = counter(text)
            if counted is not None:
                self._counter, self._counter_state = counter, "known"
                return counted
            if not self._probe_answered:       # nothing listens: try again in a minute
                self._counter_retry_at = time.monotonic() + 60.0
                return None
        self._counter_state = "unknown"
        return None

    def _count_llama_cpp_python(self, text: str) -> int | None:
        answer = self._probe(f"{self.root_url}/extras/tokenize/count", {"input": text, "model": self.model})
        return _int_field(answer if isinstance(answer, dict) else {}, "count")

    def _count_llama_cpp(self, text: str) -> int | None:
        answer = self._probe(f"{self.root_url}/tokenize", {"content": text})
        tokens = answer.get("tokens") if isinstance(answer, dict) else None
        # an empty list for a non-empty text is a server that did not read "content"
        return len(tokens) if isinstance(tokens, list) and tokens else None

    def _count_vllm(self, text: str) -> int | None:
        answer = self._probe(f"{self.root_url}/tokenize",
                             {"model": self.model, "prompt": text, "add_special_tokens": False})
        return _int_field(answer if isinstance(answer, dict) else {}, "count")

    # --- the wire

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
                result = {"role": "tool", "tool_call_id": message["tool_call_id"],
                          "content": str(message.get("content") or "")}
                if self.tool_message_names and message.get("name"):
                    result["name"] = message["name"]
                wire_messages.append(result)
            elif role == "assistant" and message.get("tool_calls"):
                # "" rather than null: llama-cpp-python rejects null (500), the others take both
                wire_messages.append({
                    "role": "assistant", "content": str(message.get("content") or ""),
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
            # OpenAI's default with tools, but llama.cpp's servers ignore tools without it
            payload["tool_choice"] = "auto"
        if self.temperature is not None:
            payload["temperature"] = self.temperature
        return f"{self.base_url}/chat/completions", self._auth_headers(), payload

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
        for call in message.get("tool_calls") or []:
            function = call["function"]
            arguments, error = _arguments(function.get("arguments"))
            # Ollama may send no id: one of ours, unique within the client's chats
            call_id = str(call.get("id") or f"call_{next(self._call_numbers)}")
            calls.append(ToolCall(call_id, str(function["name"]), arguments, error))
        if calls:
            extra["tool_calls"] = calls
        return (content or "", int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0),
                str(data.get("model") or ""), extra)

    def _client_error_message(self, url: str, response: _Response) -> str:
        message = super()._client_error_message(url, response)
        text = response.body[:8192].decode("utf-8", "replace")
        if "enable-auto-tool-choice" in text:
            message += ("; start vLLM with --enable-auto-tool-choice --tool-call-parser <parser> "
                        "for native tools, or play with the text protocol (--tool-protocol text)")
        elif "--jinja" in text:
            message += ("; start llama-server with --jinja for native tools, or play with the "
                        "text protocol (--tool-protocol text)")
        return message


# Ollama's context when neither a Modelfile's num_ctx nor OLLAMA_CONTEXT_LENGTH says:
# its docs (docs/context-length.mdx) give 4k below 24 GiB of VRAM, 32k to 48 GiB, 256k
# above; the smallest, since Ollama cuts a longer prompt silently instead of failing
OLLAMA_DEFAULT_NUM_CTX = 4096


def _is_self_hosted(host: str) -> bool:
    """A host that is this machine, a private network's, or a local name (docker's
    "ollama", "gpu-box.lan"): a server someone runs themselves, not a hosted API."""
    if _is_loopback(host):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return "." not in host or host.endswith((".local", ".internal", ".lan", ".home.arpa"))
    return address.is_private or address.is_link_local


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
