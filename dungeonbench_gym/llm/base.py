"""The language-model client interface every provider implements.

A client turns a chat (a list of messages) into one completion. Messages are
plain dicts so they serialise into trajectories as they are:

    {"role": "system" | "user" | "assistant", "content": str,
     "images": [np.ndarray (H, W, 3) uint8, ...]}   # "images" optional, user turns only

Clients that cannot see pictures (`supports_images = False`) ignore "images".

Function calling (clients with `supports_tools = True`): `complete(messages, tools=[...])`
offers tools, each ``{"name", "description", "parameters": JSON schema}``; the model's calls
come back in `Completion.tool_calls`. The chat then carries them in a provider-neutral form
that each client translates to its wire protocol:

    {"role": "assistant", "content": str, "tool_calls": [{"id", "name", "arguments": dict}]}
    {"role": "tool", "tool_call_id": str, "name": str, "content": str (JSON)}

The context window: `context_length()` is the model's window in tokens where the
client can learn it (llama.cpp's n_ctx, what a server reports), `count_tokens(text)`
an exact token count where the client has the model's tokenizer (in process, or a
server's tokenize endpoint); both are None where unknown, never a guess.

Errors: `TransientError` (rate limits, 5xx, timeouts: the caller may retry,
clients already retry with backoff), `ContextOverflowError` (the prompt does not
fit the window; with the numbers the server gave) and `ClientError` (bad request,
bad key, unknown model: retrying cannot help). None ever carries an API key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.errors import DungeonBenchError


class ClientError(DungeonBenchError):
    """A request that retrying cannot fix (or retries were used up)."""


class TransientError(ClientError):
    """Rate limit, server error or timeout: worth retrying later."""


class ContextOverflowError(ClientError):
    """The request needs more tokens than the model's context window: never retried (the
    same prompt overflows again). `limit` is the window and `requested` the tokens the
    request needed (the prompt, plus the answer's room where the server counts it), each
    None when the server did not say."""

    def __init__(self, message: str, *, limit: int | None = None, requested: int | None = None):
        super().__init__(message)
        self.limit = limit
        self.requested = requested


@dataclass
class ToolCall:
    """One function call the model asked for. `error` is set when its arguments were not a
    JSON object (the call is still answered, with that error, so the model can fix it)."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)    # provider data to echo back

    def as_message_part(self) -> dict[str, Any]:
        part = {"id": self.id, "name": self.name, "arguments": self.arguments}
        if self.extra:
            part["extra"] = self.extra
        return part


@dataclass
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    model: str = ""
    attempts: int = 1                    # requests made, retries included
    extra: dict[str, Any] = field(default_factory=dict)
    tool_calls: list[ToolCall] = field(default_factory=list)


class ChatClient:
    """One provider and model. Subclasses implement `_complete`."""

    provider = "base"
    supports_images = False
    supports_tools = False               # function calling (complete(..., tools=[...]))

    def __init__(self, model: str, *, temperature: float = 0.0, max_tokens: int = 512,
                 timeout_s: float = 60.0, max_retries: int = 4):
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.max_retries = max_retries

    def complete(self, messages: list[dict[str, Any]],
                 tools: list[dict[str, Any]] | None = None) -> Completion:
        # the interface: each provider's client (clients.py, local.py, fake.py) implements it
        raise NotImplementedError(f"{type(self).__name__} must implement complete()")

    def context_length(self) -> int | None:
        """The model's context window in tokens, where the server or model says; None
        when unknown (the caller then needs it from elsewhere, e.g. --context-tokens)."""
        return None

    def count_tokens(self, text: str) -> int | None:
        """The exact number of tokens `text` is to this model (without the chat template's
        tokens around a message); None when the client has no tokenizer to ask."""
        return None

    def describe(self) -> dict[str, Any]:
        """What a result file records about the client (never a key)."""
        return {"provider": self.provider, "model": self.model,
                "temperature": self.temperature, "max_tokens": self.max_tokens}
