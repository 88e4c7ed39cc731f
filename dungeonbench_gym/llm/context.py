"""The context budget: how many tokens a prompt may take, and how many a chat does.

A model answers only if prompt + answer fit its context window. The window comes
from, in order: the agent's `context_tokens` (the CLI's --context-tokens), the
client (`ChatClient.context_length()`: llama.cpp's n_ctx, what vLLM or
llama.cpp's server report), or a server's context-overflow error, which names
the window (`learn_overflow`). Unknown, the agent sends its prompts as they are.

Counting: with the client's tokenizer (`ChatClient.count_tokens`: llama.cpp in
process, a server's tokenize endpoint) a message is its content's tokens plus
the chat template's few tokens around it; without one, characters times a
tokens-per-character ratio that starts cautious (1 token per 2.5 characters) and
only grows. Both are checked against the prompt_tokens the server reports after
every answer: the largest shortfall seen (the template, tool declarations the
server writes into the prompt) is added to every later count, separately for
requests with and without tools. So the first request may be off by the
template; no later one is by more than what was already seen.
"""

from __future__ import annotations

import json
import math
from typing import Any

# Tokens a chat template adds around each message (ChatML: "<|im_start|>role\n" ...
# "<|im_end|>\n") and once for the assistant's opening; generous on purpose.
PER_MESSAGE_TOKENS = 8
SAFETY_TOKENS = 32
# Without a tokenizer: English prose is ~4 characters a token, D&D maps and JSON
# nearer 2; start below both and learn upwards from the server's counts.
START_TOKENS_PER_CHAR = 0.4
MIN_CONTEXT_TOKENS = 256
_COUNTS_KEPT = 4096     # texts whose exact counts are remembered (system, history repeat)


def content_text(message: dict[str, Any]) -> str:
    """What of a message the model reads as tokens: its text, and its tool calls."""
    text = str(message.get("content") or "")
    calls = message.get("tool_calls")
    if calls:
        text += json.dumps([{"name": c.get("name"), "arguments": c.get("arguments")}
                            for c in calls])
    return text


class ContextBudget:
    """Token counts of chats and the room a prompt has, for one client.

    Args:
        client: the `ChatClient` (asked for its window and its tokenizer).
        context_tokens: the window, overriding the client's (None: ask the client).
        reserve_tokens: kept free beyond the answer's `max_tokens` (a re-ask's
            correction and the echo of the answer it corrects).
    """

    def __init__(self, client: Any, context_tokens: int | None = None, reserve_tokens: int = 0):
        if context_tokens is not None and context_tokens < MIN_CONTEXT_TOKENS:
            raise ValueError(f"context_tokens={context_tokens}: a chat model needs at least "
                             f"{MIN_CONTEXT_TOKENS} tokens of context")
        self.client = client
        self.reserve_tokens = reserve_tokens
        self._explicit = context_tokens
        self._limit: int | None = context_tokens
        self._asked_client = context_tokens is not None
        self._exact: bool | None = None          # does the client count tokens?
        self._counts: dict[str, int] = {}
        self.tokens_per_char = START_TOKENS_PER_CHAR
        self.slack = {False: 0, True: 0}          # learned shortfall, without / with tools
        self.source = "flag" if context_tokens is not None else None
        self._taught = False         # has a reply's prompt_tokens been folded in yet?

    # ------------------------------------------------------------ the window
    @property
    def limit(self) -> int | None:
        """The context window in tokens, or None while unknown."""
        if not self._asked_client:
            self._asked_client = True
            try:
                found = self.client.context_length()
            except Exception:   # noqa: BLE001 - a probe must never stop a run
                found = None
            if found:
                self._limit, self.source = int(found), "server"
        return self._limit

    def answer_tokens(self) -> int:
        return int(getattr(self.client, "max_tokens", 0) or 0)

    def room(self, reserved: bool = True) -> int | None:
        """Tokens a request's prompt may take (None: no limit known). A decision's first
        prompt keeps `reserve_tokens` free (`reserved`); its re-asks may use them."""
        limit = self.limit
        if limit is None:
            return None
        # until a reply has shown the template's cost, keep a wider margin (llama-cpp-python's
        # function-calling format added ~150 tokens to a 300-token chat, measured)
        unknown = 0 if self._taught else min(256, limit // 10)
        return (limit - self.answer_tokens() - SAFETY_TOKENS - unknown
                - (self.reserve_tokens if reserved else 0))

    # ------------------------------------------------------------ counting
    def text_tokens(self, text: str) -> int:
        cached = self._counts.get(text)
        if cached is not None:
            return cached
        count = None
        if self._exact is not False:
            try:
                count = self.client.count_tokens(text)
            except Exception:   # noqa: BLE001 - fall back to the estimate
                count = None
            if self._exact is None:
                self._exact = count is not None
        if count is None:
            count = math.ceil(len(text) * self.tokens_per_char)
        else:
            if len(self._counts) >= _COUNTS_KEPT:   # a long-lived agent: start again
                self._counts.clear()
            self._counts[text] = count    # exact counts only: estimates follow the ratio
        return count

    @property
    def exact(self) -> bool:
        """Whether counts come from the model's tokenizer (asked once, on first use)."""
        if self._exact is None:
            self.text_tokens("probe")
        return bool(self._exact)

    def message_tokens(self, message: dict[str, Any]) -> int:
        return self.text_tokens(content_text(message)) + PER_MESSAGE_TOKENS

    def tools_tokens(self, specs: list[dict] | None) -> int:
        """A first guess at what tool declarations cost (servers wrap them in
        instructions); replaced by what is measured as soon as a reply says."""
        if not specs:
            return 0
        return 2 * self.text_tokens(json.dumps(specs)) + 100

    def chat_tokens(self, messages: list[dict[str, Any]], specs: list[dict] | None = None) -> int:
        """The prompt tokens this chat is expected to take, learned slack included."""
        tools = bool(specs)
        return (sum(self.message_tokens(m) for m in messages) + self.tools_tokens(specs)
                + self.slack[tools])

    def fits(self, messages: list[dict[str, Any]], specs: list[dict] | None = None,
             reserved: bool = True) -> bool:
        room = self.room(reserved)
        return room is None or self.chat_tokens(messages, specs) <= room

    # ------------------------------------------------------------ learning
    def learn(self, messages: list[dict[str, Any]], specs: list[dict] | None,
              reported_prompt_tokens: int) -> None:
        """Fold a server's prompt_tokens for this chat into later counts."""
        if reported_prompt_tokens <= 0:
            return      # servers that do not report usage teach nothing
        self._taught = True
        tools = bool(specs)
        if not self._exact:
            chars = sum(len(content_text(m)) for m in messages)
            if specs:
                chars += len(json.dumps(specs))
            if chars:
                self.tokens_per_char = max(self.tokens_per_char,
                                           reported_prompt_tokens / chars)
        counted = sum(self.message_tokens(m) for m in messages) + self.tools_tokens(specs)
        self.slack[tools] = max(self.slack[tools], reported_prompt_tokens - counted)

    def learn_overflow(self, error: Any, sent_estimate: int, tools: bool) -> None:
        """A server said the request overflowed: take its window and its count."""
        limit = getattr(error, "limit", None)
        if limit and (self._explicit is None or limit < self._explicit):
            self._limit, self.source = int(limit), "server error"
        requested = getattr(error, "requested", None)
        if requested:
            # some servers count the answer's max_tokens in it (vLLM): the slack may then
            # grow by more than needed, which only makes later prompts a little shorter
            self.slack[tools] += max(0, requested - sent_estimate)
        else:
            # no count given: the estimate was short by an unknown amount; be cautious
            self.slack[tools] += max(64, sent_estimate // 10)

    def describe(self) -> dict[str, Any]:
        return {"context_tokens": self.limit, "source": self.source,
                "counting": "tokenizer" if self._exact else "estimate"}
