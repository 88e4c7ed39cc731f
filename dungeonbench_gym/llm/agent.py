"""LLMAgent: a language model as a policy over the decision stream.

Each step it shows the model the recent history, the current observation and
the numbered legal options, reads one legal option out of the reply, re-asks
(saying what was wrong) when it cannot, and otherwise executes the family's
fallback and tells the model so on the next turn (BALROG's protocol). Every
step leaves a record in `trajectory`: what was asked, what came back, what ran.
"""

from __future__ import annotations

import json
import re
import warnings
from collections import deque
from typing import Any

import numpy as np

from ..agents.base import Agent
from ..core.errors import DungeonBenchError
from ..core.options import Option
from .base import ChatClient, ClientError, ContextOverflowError
from .context import ContextBudget, content_text
from .prompting import (
    PromptParts,
    Turn,
    answer_echo,
    fallback_note,
    prompt_chars,
    retry_message,
    system_message,
)
from .strategies import Strategy, get_strategy
from .tools import ToolSet, tools_for

ON_CLIENT_ERROR = ("fail", "fallback")
TOOL_PROTOCOLS = ("auto", "native", "text")
TYPING_HINT = ("You may instead type a command of your own on a line starting with '>', "
               "e.g. '> look under the bed'.")
TOOLS_HINT = ("Before answering you may call the lookup tools (at most {n} calls for this "
              "decision); they show exact odds and rules and change nothing.")
TEXT_TOOLS_HINT = ("Before answering you may call look-up tools (at most {n} for this decision; "
                   "they change nothing). To call one, reply with only this line:\n"
                   'CALL <tool> {{"argument": value, ...}}\n'
                   "and its result comes back before you answer. Tools:\n{tools}")
_TYPED = re.compile(r"(?m)(?:^|:[ \t]*)>[ \t]*([^\n]+?)[ \t]*$")
# The text protocol's call line, and the <tool_call>{json}</tool_call> many open models emit.
_TEXT_CALL = re.compile(r"(?m)^[ \t*`]*CALL[ \t]+([A-Za-z_]\w*)[ \t]*(\{.*\})?[ \t*`]*$")
_TAGGED_CALL = re.compile(r"<tool_call>\s*(\{.*?\})\s*</tool_call>", re.DOTALL)
# A re-ask quotes the answer it corrects (at most this many characters) and says why.
_ECHO_CHARS = 300
_REASK_TOKENS = 160
_TOOL_RESULT_CHARS = 2000
# What servers say when they refuse tool declarations: Ollama for a model without tool
# support, vLLM without --enable-auto-tool-choice, llama-server without --jinja.
_TOOLS_REFUSED = ("support tools", "enable-auto-tool-choice", "--jinja")
# Requests in a row whose prompt count leaves the tool declarations out before a server is
# taken to ignore them (see LLMAgent._ignores_tools).
_IGNORED_AFTER = 3
# (provider, base url, model) of servers already found ignoring native tools: said once.
_IGNORED_TOOLS: set[tuple[str, str, str]] = set()


def typed_command(answer: str) -> str | None:
    """The last '> command' line of an answer, cleaned of quotes and a final period."""
    found = _TYPED.findall(answer)
    if not found:
        return None
    command = found[-1].strip().strip("`'\"").rstrip(".!").strip()
    return command if 0 < len(command) <= 100 else None


def text_tool_call(answer: str) -> tuple[str, Any] | None:
    """(name, arguments) of a text-protocol tool call in an answer, or None.

    Reads "CALL name {json}" lines and <tool_call>{"name", "arguments"}</tool_call>; the
    arguments stay as given (a string when they are not JSON), so the tool can say what is
    wrong with them."""
    tagged = _TAGGED_CALL.search(answer)
    if tagged:
        try:
            data = json.loads(tagged.group(1))
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("name"), str):
            return data["name"], data.get("arguments", data.get("parameters", {}))
    found = _TEXT_CALL.search(answer)
    if not found:
        return None
    raw = found.group(2) or "{}"
    try:
        arguments: Any = json.loads(raw)
    except ValueError:
        arguments = raw
    return found.group(1), arguments


class LLMAgent(Agent):
    """Plays any env made with `text=True` through a `ChatClient`.

    Args:
        client: the model to ask.
        strategy: a registered strategy name ("direct", "cot") or a `Strategy`.
        history: how many past steps (observation + executed action) the prompt replays
            at most; fewer when the context window is short (see `context_tokens`).
        max_retries: re-asks after an answer that names no legal option. A re-ask sends the
            prompt, the answer (its end) and what was wrong, not the options again.
        vision: attach the current frame when the env renders "rgb_array" and the
            client supports images (history stays text).
        on_client_error: "fail" (default: the error ends the episode, which the harness
            records as failed with its cause) or "fallback" (execute the fallback action,
            record the error in the decision's record, and go on). "raise" means "fail".
        free_text: where the env takes typed commands (`info["free_text"]`, text
            adventures), let the model type one ("> open the mailbox"); `act` then
            returns the command as a string.
        tools: offer the family's look-up tools (D&D: attack odds, areas, routes...) where
            the env has them; the model may call up to `max_tool_calls` per decision.
        tool_protocol: "native" (the client's function calling), "text" (tools described in
            the prompt, called with a "CALL name {json}" line: for servers and models
            without function calling), or "auto": native where the client has it, text
            otherwise, and text from the moment a server is seen to ignore native tools.
        context_tokens: the model's context window; None asks the client (the local
            model's n_ctx, what the server reports) and learns it from an overflow error.
            Every prompt is built to fit it with room for the answer.
    """

    name = "llm"

    def __init__(self, client: ChatClient, strategy: str | Strategy = "direct", *,
                 history: int = 16, max_retries: int = 2, vision: bool = False,
                 on_client_error: str = "fail", free_text: bool = True,
                 tools: bool = False, max_tool_calls: int = 4, tool_protocol: str = "auto",
                 context_tokens: int | None = None):
        if history < 0:
            raise ValueError(f"history={history}: must be 0 or more past steps")
        if max_retries < 0:
            raise ValueError(f"max_retries={max_retries}: must be 0 or more")
        on_client_error = "fail" if on_client_error == "raise" else on_client_error
        if on_client_error not in ON_CLIENT_ERROR:
            raise ValueError(f"on_client_error={on_client_error!r}: use one of {ON_CLIENT_ERROR}")
        if tool_protocol not in TOOL_PROTOCOLS:
            raise ValueError(f"tool_protocol={tool_protocol!r}: use one of {TOOL_PROTOCOLS}")
        if max_tool_calls < 0:
            raise ValueError(f"max_tool_calls={max_tool_calls}: must be 0 or more")
        self.client = client
        self.strategy = get_strategy(strategy)
        self.history = history
        self.max_retries = max_retries
        self.vision = vision
        self.on_client_error = on_client_error
        self.free_text = free_text
        self.tools = tools
        self.max_tool_calls = max_tool_calls
        self.tool_protocol = tool_protocol
        self.budget = ContextBudget(client, context_tokens,
                                    reserve_tokens=_REASK_TOKENS if max_retries else 0)
        self._native_calls_seen = False
        self._tools_left_out = 0
        self.reset()

    def reset(self, env=None, seed: int | None = None) -> None:
        """Start an episode: history, pending note and trajectory are cleared."""
        super().reset(env, seed)
        self.turns: deque[Turn] = deque(maxlen=self.history)
        self.trajectory: list[dict[str, Any]] = []
        self.last_record: dict[str, Any] | None = None
        self._note: str | None = None
        self._system = system_message(env) if env is not None else None
        self._table = tuple(getattr(getattr(env, "unwrapped", env), "option_table", ()) or ())
        self._send_images = self._can_send_images(env)
        self._toolset, self.tools_status, self._protocol = self._find_tools(env)

    def describe(self) -> dict[str, Any]:
        """What a result file records about this agent."""
        return {"name": self.name, "strategy": self.strategy.name, "history": self.history,
                "max_retries": self.max_retries, "vision": self.vision,
                "free_text": self.free_text, "tools": self.tools,
                "max_tool_calls": self.max_tool_calls, "tool_protocol": self.tool_protocol,
                "on_client_error": self.on_client_error,
                "context": self.budget.describe(), "client": self.client.describe()}

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> int | str:
        if "text" not in info:
            raise DungeonBenchError(
                "LLMAgent reads info['text'], which this env does not produce: make the env "
                "with text=True, e.g. dungeonbench_gym.make(env_id, text=True)")
        options = list(info["options"])
        decision = info.get("decision", "command")
        instructions = self.strategy.instructions()
        typing = self.free_text and bool(info.get("free_text"))
        record: dict[str, Any] = {
            "step": len(self.trajectory), "decision": decision, "legal_options": len(options),
            "prompt_chars": 0, "prompt_messages": 0, "images": 0, "history_steps": 0,
            "note": self._note, "completions": [], "parse_errors": [], "parsed": None,
            "action": None, "fell_back": False, "retries": 0, "prompt_tokens": 0,
            "completion_tokens": 0, "max_request_tokens": 0, "prompt_tokens_estimate": 0,
            "context_tokens": None, "compaction": [], "latency_s": 0.0,
            "client_error": None, "client_errors": 0}
        if self.tools:
            record.update({"tools": self.tools_status, "tool_calls": [], "tool_count": 0,
                           "model_calls": 0, "tool_protocol": self._protocol})

        chosen: Option | None = None
        typed: str | None = None
        # The game ended before the agent could act (a D&D party downed before its first turn):
        # the one "continue" option needs no answer from the model.
        ended = decision == "over" and len(options) == 1
        if ended:
            chosen = options[0]
        else:
            parts = PromptParts(self.env, info, list(self.turns), instructions, self._note,
                                self._system, extra=self._hints(typing))
            chosen, typed = self._decide(parts, options, typing, record)

        if typed is not None:
            action, label = typed, typed
            record["parsed"] = {"typed": typed}
            self._note = None
        elif chosen is not None:
            action, label = chosen.index, chosen.label
            record["parsed"] = {"index": chosen.index, "label": chosen.label}
            self._note = None
        else:
            action = self._fallback(options)
            label = self._label(action, options)
            record["fell_back"] = True
            last_answer = record["completions"][-1] if record["completions"] else ""
            self._note = fallback_note(last_answer, record["parse_errors"][-1], label)
        record["action"] = ({"typed": True, "label": label} if isinstance(action, str)
                            else {"index": action, "label": label})
        self.turns.append(Turn(info["text"].get("long_term", ""), label))
        self.trajectory.append(record)
        self.last_record = record
        return action

    # ---------------------------------------------------------------- one decision
    def _decide(self, parts: PromptParts, options: list[Option], typing: bool,
                record: dict[str, Any]) -> tuple[Option | None, str | None]:
        """Ask, re-ask and read the answer: (chosen option, typed command), both None when
        the decision falls back (the reason is the last of record["parse_errors"])."""
        specs = self._native_specs()
        base = self._fit(parts, specs, record)
        if base is None:
            record["parse_errors"].append("the prompt does not fit the model's context")
            return None, None
        if self._send_images:
            base[-1]["images"] = [np.asarray(self.env.render(), dtype=np.uint8)]
            record["images"] = 1
        record["prompt_chars"] = prompt_chars(base)
        record["prompt_messages"] = len(base)
        messages = base
        overflowed = False
        attempt = 0
        while attempt <= self.max_retries:
            specs = self._native_specs()     # none once a server was seen to ignore them
            try:
                completion = self._ask(messages, specs, record)
            except ContextOverflowError as error:
                self.budget.learn_overflow(error, record["prompt_tokens_estimate"], bool(specs))
                record["client_errors"] += 1
                record["client_error"] = f"{type(error).__name__}: {error}"
                refit = None if overflowed else self._fit(parts, specs, record)
                if refit is None:
                    record["parse_errors"].append("the prompt does not fit the model's context")
                    return None, None
                overflowed, base, messages = True, refit, refit   # once more, smaller
                continue
            except ClientError as error:
                record["client_errors"] += 1
                record["client_error"] = f"{type(error).__name__}: {error}"
                if specs and self._refuses_tools(error, record):
                    # Ollama answers 400 "<model> does not support tools": ask again with the
                    # tools described in the prompt instead
                    parts.extra = self._hints(typing)
                    specs = None
                    refit = self._fit(parts, specs, record)
                    if refit is None:
                        record["parse_errors"].append("the prompt does not fit the model's context")
                        return None, None
                    base = messages = refit
                    continue
                if self.on_client_error == "fail":
                    raise
                record["parse_errors"].append("the model could not be reached")
                return None, None
            text = completion.text
            record["completions"].append(text)
            if typing:
                typed = typed_command(text)
                if typed is not None:
                    # a typed command that is an option's label is that option
                    chosen = next((o for o in options if o.label.lower() == typed.lower()), None)
                    return (chosen, None) if chosen is not None else (None, typed)
            result = self.strategy.parse(text, options, self._table)
            if result.option is not None:
                return result.option, None
            record["parse_errors"].append(result.reason)
            if attempt == self.max_retries:
                break
            reask = [*base, answer_echo(text, _ECHO_CHARS), retry_message(result.reason)]
            if not self.budget.fits(reask, specs, reserved=False):
                reask = [*base, retry_message(result.reason)]     # without the echo
            if not self.budget.fits(reask, specs, reserved=False):
                break      # no room left to ask again: fall back
            record["retries"] += 1
            messages = reask
            attempt += 1
        return None, None

    def _fit(self, parts: PromptParts, specs: list[dict] | None,
             record: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The decision's chat, made to fit the context: history dropped first (oldest
        first), then the prompt compacted (`COMPACTIONS`); None when even that is too big,
        so nothing is sent that is known to overflow."""
        budget = self.budget
        room = budget.room()
        record["context_tokens"] = budget.limit
        steps = len(parts.history)
        messages = parts.messages(steps)
        if room is None or budget.fits(messages, specs):
            record["history_steps"] = steps
            record["prompt_tokens_estimate"] = budget.chat_tokens(messages, specs)
            return messages
        compaction: list[str] = []
        kept = steps
        while kept > 0 and not budget.fits(messages, specs):
            kept -= 1
            messages = parts.messages(kept)
        if kept < steps:
            compaction.append(f"history {steps}->{kept}")
        applied: list[str] = []
        if not budget.fits(messages, specs):
            for name in parts.applicable():
                applied.append(name)
                if name == "observation cut":
                    messages = self._cut_observation(parts, applied, specs)
                else:
                    messages = parts.messages(0, applied)
                if messages is not None and budget.fits(messages, specs):
                    break
        compaction += applied
        record["compaction"] = compaction
        record["history_steps"] = kept
        if messages is None or not budget.fits(messages, specs):
            record["prompt_tokens_estimate"] = 0 if messages is None else budget.chat_tokens(messages, specs)
            return None
        record["prompt_tokens_estimate"] = budget.chat_tokens(messages, specs)
        return messages

    def _cut_observation(self, parts: PromptParts, applied: list[str],
                         specs: list[dict] | None) -> list[dict[str, Any]] | None:
        """The chat with the observation cut to the most characters that fit (bisection)."""
        low, high = 0, parts.observation_chars()
        best = None
        while low <= high:
            middle = (low + high) // 2
            messages = parts.messages(0, applied, middle)
            if self.budget.fits(messages, specs):
                best, low = messages, middle + 1
            else:
                high = middle - 1
        return best

    # ---------------------------------------------------------------- asking
    def _ask(self, messages: list[dict[str, Any]], specs: list[dict] | None,
             record: dict[str, Any]) -> Any:
        """One answer from the model; with tools, its calls are run and answered first.

        Calls beyond the decision's budget are answered with an error asking for the
        answer; a model that keeps calling after that gets its text parsed as it is."""
        pending: list[dict[str, Any]] = []     # tool calls waiting for the model's next answer
        while True:
            completion = (self.client.complete(messages, tools=specs) if specs
                          else self.client.complete(messages))
            self._count(completion, messages, specs, record)
            for entry in pending:
                entry["round_trip"] = True
            pending = []
            if self._toolset is None:
                return completion
            record["model_calls"] += 1
            if specs and self._protocol == "native" and self._ignores_tools(completion, messages, specs, record):
                specs = None          # this request's answer is plain text: read it as such
            if record["model_calls"] > self.max_tool_calls + 1:
                return completion
            if self._protocol == "native" and specs:
                calls = [(c.id, c.name, c.arguments, c.error) for c in completion.tool_calls]
            elif self._protocol == "text":
                found = text_tool_call(completion.text)
                calls = [(f"text_{record['model_calls']}", found[0], found[1], None)] if found else []
            else:
                calls = []
            if not calls:
                return completion
            results = []
            for call_id, name, arguments, error in calls:
                result, counted = self._run_tool(name, arguments, error, record)
                text = json.dumps(result, sort_keys=True)
                if len(text) > _TOOL_RESULT_CHARS:
                    text = text[:_TOOL_RESULT_CHARS] + " ...(cut)"
                entry = {"name": name, "args": arguments, "result_chars": len(text),
                         "error": result.get("error") if isinstance(result, dict) else None,
                         "counted": counted, "round_trip": False, "protocol": self._protocol}
                record["tool_calls"].append(entry)
                pending.append(entry)
                results.append((call_id, name, text))
            if self._protocol == "native":
                grown = [*messages,
                         {"role": "assistant", "content": completion.text,
                          "tool_calls": [c.as_message_part() for c in completion.tool_calls]},
                         *({"role": "tool", "tool_call_id": i, "name": n, "content": t}
                           for i, n, t in results)]
            else:
                shown = "\n".join(f"Result of {n}: {t}" for _, n, t in results)
                grown = [*messages, {"role": "assistant", "content": completion.text},
                         {"role": "user", "content": shown + "\n\nNow answer with one legal "
                          "option (or call another tool)."}]
            if specs and record["tool_count"] >= self.max_tool_calls:
                # The budget is spent: the next request declares no tools, so the model can
                # only answer. The exchange so far goes as text (every server reads that;
                # tool turns without declarations are refused by some).
                grown, specs = _exchange_as_text(grown), None
            if not self.budget.fits(grown, specs, reserved=False):
                # no room for the results: the model answers from what it has
                for entry in pending:
                    entry["error"] = "no room in the context for the result"
                return completion
            messages = grown

    def _run_tool(self, name: str, arguments: Any, error: str | None,
                  record: dict[str, Any]) -> tuple[Any, bool]:
        if record["tool_count"] >= self.max_tool_calls:
            return ({"error": f"no tool calls left for this decision ({self.max_tool_calls} "
                              "used): answer with an option now"}, False)
        record["tool_count"] += 1
        if error:
            return {"error": error}, True
        if not isinstance(arguments, dict):
            return {"error": "the arguments must be a JSON object"}, True
        return self._toolset.call(name, arguments, self.env), True

    def _count(self, completion: Any, messages: list[dict[str, Any]], specs: list[dict] | None,
               record: dict[str, Any]) -> None:
        record["prompt_tokens"] += completion.prompt_tokens
        record["completion_tokens"] += completion.completion_tokens
        record["latency_s"] += completion.latency_s
        record["max_request_tokens"] = max(record["max_request_tokens"],
                                           completion.prompt_tokens + completion.completion_tokens)
        self.budget.learn(messages, specs, completion.prompt_tokens)

    def _ignores_tools(self, completion: Any, messages: list[dict[str, Any]],
                       specs: list[dict], record: dict[str, Any]) -> bool:
        """True when the server's prompt count leaves out the tool declarations: it ignored
        them (llama-cpp-python without tool_choice support, vLLM without auto tool choice).
        Said once per server and model; "auto" then plays the rest with the text protocol."""
        # Only with the model's own token counts: the chat's tokens (template aside) and the
        # declarations' are then known, and a prompt holding fewer than both left them out.
        # Character estimates cannot tell (a short chat with long declarations, or not).
        # llama-cpp-python's function-calling format reports the count of a second,
        # tool-free prompt when the model answers in text: so a server is judged only after
        # `_IGNORED_AFTER` such requests and never once it has returned a native call.
        if completion.tool_calls:
            self._native_calls_seen = True
        if self._native_calls_seen or completion.prompt_tokens <= 0 or not self.budget.exact:
            return False
        chat = sum(self.budget.text_tokens(content_text(m)) for m in messages)
        declared = self.budget.text_tokens(json.dumps(specs))
        if completion.prompt_tokens >= chat + declared / 2:
            self._tools_left_out = 0
            return False
        self._tools_left_out += 1
        if self._tools_left_out < _IGNORED_AFTER:
            return False
        key = (self.client.provider, str(getattr(self.client, "base_url", "")), self.client.model)
        switched = self.tool_protocol == "auto"
        message = (f"the server {key[1] or key[0]} ignored the native tool declarations "
                   f"(its prompt had {completion.prompt_tokens} tokens, the declarations alone "
                   f"about {int(declared)})" + ("; playing on with the text tool protocol"
                                               if switched else ""))
        if key not in _IGNORED_TOOLS:
            _IGNORED_TOOLS.add(key)
            warnings.warn(f"LLMAgent(tools=True): {message}", stacklevel=4)
        self.tools_status = f"native ignored: {message}"
        record["tools"] = self.tools_status
        if switched:
            self._protocol = "text"
            record["tool_protocol"] = "text"
        return True

    def _native_specs(self) -> list[dict] | None:
        return self._toolset.specs() if self._toolset is not None and self._protocol == "native" else None

    def _refuses_tools(self, error: ClientError, record: dict[str, Any]) -> bool:
        """A server that refuses tool declarations for this model: under "auto", said once
        and the text protocol from now on."""
        text = str(error).lower()
        if self.tool_protocol != "auto" or not any(sign in text for sign in _TOOLS_REFUSED):
            return False
        key = (self.client.provider, str(getattr(self.client, "base_url", "")), self.client.model)
        if key not in _IGNORED_TOOLS:
            _IGNORED_TOOLS.add(key)
            warnings.warn(f"LLMAgent(tools=True): {error}; playing on with the text tool "
                          "protocol", stacklevel=4)
        self._protocol = record["tool_protocol"] = "text"
        self.tools_status = record["tools"] = f"native refused: {error}; text protocol"
        return True

    def _hints(self, typing: bool) -> list[str]:
        hints = []
        if self._toolset is not None:
            if self._protocol == "native":
                hints.append(TOOLS_HINT.format(n=self.max_tool_calls))
            else:
                hints.append(TEXT_TOOLS_HINT.format(n=self.max_tool_calls,
                                                    tools=_tool_lines(self._toolset)))
        if typing:
            hints.append(TYPING_HINT)
        return hints

    def _find_tools(self, env) -> tuple[ToolSet | None, str, str | None]:
        """The family's tools when asked for and usable, a line saying which, and the
        protocol they go by ("native", "text"; None without tools)."""
        if not self.tools:
            return None, "off", None
        if env is None:
            return None, "no env yet", None
        toolset = tools_for(env)
        if toolset is None:
            family = getattr(getattr(env, "unwrapped", env), "family", "?")
            return None, f"off: the {family} family has no tools", None
        native = bool(getattr(self.client, "supports_tools", False))
        key = (self.client.provider, str(getattr(self.client, "base_url", "")), self.client.model)
        if self.tool_protocol == "text" or (self.tool_protocol == "auto"
                                            and (not native or key in _IGNORED_TOOLS)):
            why = "" if self.tool_protocol == "text" else (
                " (the server ignores native tools)" if native else
                f" (the client {self.client.provider}/{self.client.model} has no function calling)")
            return toolset, f"on, text protocol{why}: {', '.join(toolset.tools)}", "text"
        if not native:
            warnings.warn(f"LLMAgent(tools=True, tool_protocol='native'): the client "
                          f"{self.client.provider}/{self.client.model} does not support function "
                          "calling, so it plays without tools (tool_protocol='auto' or 'text' "
                          "describes them in the prompt instead)", stacklevel=3)
            return None, (f"off: the client {self.client.provider}/{self.client.model} does not "
                          "support function calling"), None
        return toolset, f"on: {', '.join(toolset.tools)}", "native"

    # ---------------------------------------------------------------- helpers
    def _fallback(self, options: list[Option]) -> int:
        """The family's default for bad output (BALROG), or the first legal option."""
        unwrapped = getattr(self.env, "unwrapped", None)
        if unwrapped is not None and hasattr(unwrapped, "fallback_action"):
            return int(unwrapped.fallback_action())
        return options[0].index

    def _label(self, index: int, options: list[Option]) -> str:
        for option in (*options, *self._table):
            if option.index == index:
                return option.label
        return str(index)

    def _can_send_images(self, env) -> bool:
        if not self.vision or env is None:
            return False
        if getattr(env, "render_mode", None) != "rgb_array":
            warnings.warn("LLMAgent(vision=True): the env was not made with "
                          "render_mode='rgb_array', so the model gets text only", stacklevel=3)
            return False
        if not getattr(self.client, "supports_images", False):
            warnings.warn(f"LLMAgent(vision=True): the client {self.client.provider}/"
                          f"{self.client.model} does not take images, so it gets text only",
                          stacklevel=3)
            return False
        return True


def _tool_lines(toolset: ToolSet) -> str:
    """One line per tool for the text protocol: name(arguments, optional ones with ?): what."""
    lines = []
    for spec in toolset.specs():
        required = set(spec["parameters"].get("required", ()))
        arguments = ", ".join(name if name in required else f"{name}?"
                              for name in spec["parameters"].get("properties", {}))
        lines.append(f"- {spec['name']}({arguments}): {spec['description']}")
    return "\n".join(lines)


def _exchange_as_text(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The chat with its native tool turns written as the text protocol writes them
    (assistant "CALL name {json}" lines, user "Result of name: ..."), ending in a request
    for the answer."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.get("role") == "assistant" and message.get("tool_calls"):
            lines = [message["content"]] if message.get("content") else []
            lines += [f"CALL {c['name']} {json.dumps(c.get('arguments') or {}, sort_keys=True)}"
                      for c in message["tool_calls"]]
            out.append({"role": "assistant", "content": "\n".join(lines)})
        elif message.get("role") == "tool":
            result = f"Result of {message.get('name', 'the tool')}: {message.get('content', '')}"
            if out and out[-1]["role"] == "user" and out[-1]["content"].startswith("Result of "):
                out[-1] = {"role": "user", "content": out[-1]["content"] + "\n" + result}
            else:
                out.append({"role": "user", "content": result})
        else:
            out.append(message)
    if out and out[-1]["role"] == "user":
        out[-1] = {**out[-1], "content": out[-1]["content"] + "\n\nNo tool calls are left for "
                   "this decision: answer with one legal option now."}
    return out
