"""ScriptedClient: a ChatClient that needs no model, for tests and demos."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterable
from typing import Any

from .base import ChatClient, ClientError, Completion, ToolCall


class ScriptedClient(ChatClient):
    """Answers from a list (in turn) or from a callable(messages) -> str.

    An answer may also script function calls: ``{"tool_calls": [{"name": "attack_odds",
    "arguments": {...}}], "text": ""}`` (ids are made up: call_1, call_2, ...). The tools
    offered with each request are kept in `tools_offered` (None when none were).

    Tokens are counted as whitespace-separated words, so token figures in
    trajectories are deterministic. Every chat received is kept in `calls`
    (a shallow copy, so later edits by the caller do not rewrite it).

    Args:
        answers: the replies, or a function of the messages that returns one.
        cycle: start the list again when it runs out (else raise ClientError).
        supports_images: pretend to be a vision model.
        supports_tools: pretend to do function calling (default True).
    """

    provider = "fake"

    def __init__(self, answers: Iterable[str] | Callable[[list[dict[str, Any]]], str], *,
                 model: str = "scripted", cycle: bool = True, supports_images: bool = False,
                 supports_tools: bool = True, **kwargs: Any):
        super().__init__(model, **kwargs)
        self.supports_images = supports_images
        self.supports_tools = supports_tools
        self.tools_offered: list[list[dict[str, Any]] | None] = []
        self._call_ids = itertools.count(1)
        self.calls: list[list[dict[str, Any]]] = []
        if callable(answers):
            self._answer = answers
        else:
            script = list(answers)
            if not script:
                raise ValueError("ScriptedClient needs at least one answer")
            self._script = itertools.cycle(script) if cycle else iter(script)
            self._answer = self._next_scripted

    def _next_scripted(self, messages: list[dict[str, Any]]) -> str:
        try:
            return next(self._script)
        except StopIteration:
            raise ClientError(f"ScriptedClient ran out of answers after {len(self.calls) - 1} "
                              "calls: pass more answers or cycle=True") from None

    def complete(self, messages: list[dict[str, Any]],
                 tools: list[dict[str, Any]] | None = None) -> Completion:
        started = time.perf_counter()
        self.calls.append([dict(m) for m in messages])
        self.tools_offered.append(tools)
        answer = self._answer(messages)
        calls: list[ToolCall] = []
        if isinstance(answer, dict):
            if not tools:
                raise ClientError("ScriptedClient: a scripted tool call, but no tools were offered")
            calls = [ToolCall(str(c.get("id") or f"call_{next(self._call_ids)}"), c["name"],
                              dict(c.get("arguments") or {})) for c in answer.get("tool_calls", ())]
            text = str(answer.get("text", ""))
        else:
            text = str(answer)
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
        if tools:   # a server writes the declarations into the prompt, so they count
            prompt_tokens += len(json.dumps(tools).split())
        return Completion(text=text, prompt_tokens=prompt_tokens,
                          completion_tokens=len(text.split()) + sum(1 + len(json.dumps(c.arguments).split()) for c in calls),
                          latency_s=time.perf_counter() - started, model=self.model,
                          tool_calls=calls)


    def count_tokens(self, text: str) -> int:
        """Words, as `complete` counts its prompt_tokens: the agent's context budget
        then counts exactly what this client reports."""
        return len(text.split())


def _numbered_options(messages: list[dict[str, Any]]) -> list[str]:
    """The option numbers listed ("3: go forward") in the last user message."""
    import re

    for message in reversed(messages):
        if message.get("role") == "user":
            return re.findall(r"^\s*(\d+): ", str(message.get("content", "")), re.MULTILINE)
    return []


def _vocabulary(messages: list[dict[str, Any]]) -> list[str]:
    """The action names of the BALROG protocol's vocabulary block, in the first message."""
    from .balrog_protocol import VOCABULARY_HEADER

    for message in messages:
        text = str(message.get("content", ""))
        if VOCABULARY_HEADER in text:
            block = text.split(VOCABULARY_HEADER, 1)[1].split("\n\n", 1)[0]
            return [line.split(": ", 1)[0] for line in block.strip().splitlines() if line]
    return []


def make_fake_client(model: str = "random", *, seed: int = 0, **kwargs: Any) -> ScriptedClient:
    """The "fake" provider of `make_client`, for demos and pipeline tests without a model:
    model "random" answers a uniformly random listed option (seeded), "first" the first
    one (the numbered options, or the BALROG protocol's action names); any other model name is answered literally (e.g. "escape", or nonsense to
    exercise the fallback)."""
    import random

    rng = random.Random(seed)

    def answer(messages: list[dict[str, Any]]) -> str:
        listed = _numbered_options(messages) or _vocabulary(messages)
        if model in ("random", "") and listed:
            return rng.choice(listed)
        if model == "first" and listed:
            return listed[0]
        return model

    kwargs = {k: v for k, v in kwargs.items() if k in ("temperature", "max_tokens", "timeout_s")}
    return ScriptedClient(answer, model=model or "random", **kwargs)
