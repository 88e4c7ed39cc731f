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
from .base import ChatClient, ClientError
from .prompting import (
    Turn,
    build_messages,
    fallback_note,
    prompt_chars,
    retry_message,
    system_message,
)
from .strategies import Strategy, get_strategy
from .tools import ToolSet, tools_for

ON_CLIENT_ERROR = ("raise", "fallback")
TYPING_HINT = ("You may instead type a command of your own on a line starting with '>', "
               "e.g. '> look under the bed'.")
TOOLS_HINT = ("Before answering you may call the lookup tools (at most {n} calls for this "
              "decision); they show exact odds and rules and change nothing.")
_TYPED = re.compile(r"(?m)(?:^|:[ \t]*)>[ \t]*([^\n]+?)[ \t]*$")


def typed_command(answer: str) -> str | None:
    """The last '> command' line of an answer, cleaned of quotes and a final period."""
    found = _TYPED.findall(answer)
    if not found:
        return None
    command = found[-1].strip().strip("`'\"").rstrip(".!").strip()
    return command if 0 < len(command) <= 100 else None


class LLMAgent(Agent):
    """Plays any env made with `text=True` through a `ChatClient`.

    Args:
        client: the model to ask.
        strategy: a registered strategy name ("direct", "cot") or a `Strategy`.
        history: how many past steps (observation + executed action) the prompt replays.
        max_retries: re-asks after an answer that names no legal option.
        vision: attach the current frame when the env renders "rgb_array" and the
            client supports images (history stays text).
        on_client_error: "raise" (default: a broken client should stop the run) or
            "fallback" (execute the fallback action and record the error).
        free_text: where the env takes typed commands (`info["free_text"]`, text
            adventures), let the model type one ("> open the mailbox"); `act` then
            returns the command as a string.
        tools: offer the family's look-up tools (D&D: attack odds, areas, routes...) as
            function calls where the env has them and the client supports them; the
            model may call up to `max_tool_calls` per decision before it answers.
    """

    name = "llm"

    def __init__(self, client: ChatClient, strategy: str | Strategy = "direct", *,
                 history: int = 16, max_retries: int = 2, vision: bool = False,
                 on_client_error: str = "raise", free_text: bool = True,
                 tools: bool = False, max_tool_calls: int = 4):
        if history < 0:
            raise ValueError(f"history={history}: must be 0 or more past steps")
        if max_retries < 0:
            raise ValueError(f"max_retries={max_retries}: must be 0 or more")
        if on_client_error not in ON_CLIENT_ERROR:
            raise ValueError(f"on_client_error={on_client_error!r}: use one of {ON_CLIENT_ERROR}")
        self.client = client
        self.strategy = get_strategy(strategy)
        self.history = history
        self.max_retries = max_retries
        self.vision = vision
        self.on_client_error = on_client_error
        self.free_text = free_text
        if max_tool_calls < 0:
            raise ValueError(f"max_tool_calls={max_tool_calls}: must be 0 or more")
        self.tools = tools
        self.max_tool_calls = max_tool_calls
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
        self._toolset, self.tools_status = self._find_tools(env)

    def describe(self) -> dict[str, Any]:
        """What a result file records about this agent."""
        return {"name": self.name, "strategy": self.strategy.name, "history": self.history,
                "max_retries": self.max_retries, "vision": self.vision,
                "free_text": self.free_text, "tools": self.tools,
                "max_tool_calls": self.max_tool_calls,
                "client": self.client.describe()}

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> int | str:
        if "text" not in info:
            raise DungeonBenchError(
                "LLMAgent reads info['text'], which this env does not produce: make the env "
                "with text=True, e.g. dungeonbench_gym.make(env_id, text=True)")
        options = list(info["options"])
        decision = info.get("decision", "command")
        instructions = self.strategy.instructions()
        messages = build_messages(self.env, info, list(self.turns), instructions,
                                  note=self._note, system=self._system)
        images = 0
        if self._send_images:
            frame = np.asarray(self.env.render(), dtype=np.uint8)
            messages[-1]["images"] = [frame]
            images = 1
        record: dict[str, Any] = {
            "step": len(self.trajectory), "decision": decision, "legal_options": len(options),
            "prompt_chars": prompt_chars(messages), "prompt_messages": len(messages),
            "images": images, "history_steps": len(self.turns), "note": self._note,
            "completions": [], "parse_errors": [], "parsed": None, "action": None,
            "fell_back": False, "retries": 0, "prompt_tokens": 0, "completion_tokens": 0,
            "latency_s": 0.0, "client_error": None}
        if self.tools:
            record.update({"tools": self.tools_status, "tool_calls": [], "tool_count": 0,
                           "model_calls": 0})
        specs = self._toolset.specs() if self._toolset is not None else None
        if specs:
            messages[-1]["content"] += " " + TOOLS_HINT.format(n=self.max_tool_calls)

        chosen: Option | None = None
        typed: str | None = None
        typing = self.free_text and bool(info.get("free_text"))
        if typing:
            instructions = f"{instructions} {TYPING_HINT}"
            messages[-1]["content"] += f" {TYPING_HINT}"
        # The game ended before the agent could act (a D&D party downed before its first turn):
        # the one "continue" option needs no answer from the model.
        ended = decision == "over" and len(options) == 1
        if ended:
            chosen = options[0]
        for attempt in range(0 if ended else self.max_retries + 1):
            try:
                completion, messages = self._ask(messages, specs, record)
            except ClientError as error:
                if self.on_client_error == "raise":
                    raise
                record["client_error"] = f"{type(error).__name__}: {error}"
                record["parse_errors"].append("the model could not be reached")
                break
            record["completions"].append(completion.text)
            typed = typed_command(completion.text) if typing else None
            if typed is not None:
                # a typed command that is an option's label is that option
                chosen = next((o for o in options if o.label.lower() == typed.lower()), None)
                typed = None if chosen is not None else typed
                break
            result = self.strategy.parse(completion.text, options, self._table)
            if result.option is not None:
                chosen = result.option
                break
            record["parse_errors"].append(result.reason)
            if attempt < self.max_retries:
                record["retries"] += 1
                messages = [*messages, {"role": "assistant", "content": completion.text},
                            retry_message(self.env, result.reason, options, decision,
                                          instructions)]

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

    # ---------------------------------------------------------------- tools
    def _ask(self, messages: list[dict[str, Any]], specs: list[dict] | None,
             record: dict[str, Any]) -> tuple[Any, list[dict[str, Any]]]:
        """One answer from the model; with tools, its calls are run and answered first.

        Calls beyond the decision's budget are answered with an error asking for the
        answer; a model that keeps calling after that gets its text parsed as it is.
        Returns the final completion and the chat grown by the tool exchange."""
        while True:
            completion = (self.client.complete(messages, tools=specs) if specs
                          else self.client.complete(messages))
            record["prompt_tokens"] += completion.prompt_tokens
            record["completion_tokens"] += completion.completion_tokens
            record["latency_s"] += completion.latency_s
            if not specs:
                return completion, messages
            record["model_calls"] += 1
            calls = completion.tool_calls
            if not calls or record["model_calls"] > self.max_tool_calls + 1:
                return completion, messages
            results = []
            for call in calls:
                if record["tool_count"] >= self.max_tool_calls:
                    result: Any = {"error": f"no tool calls left for this decision "
                                            f"({self.max_tool_calls} used): answer with an option now"}
                    counted = False
                elif call.error:
                    result, counted = {"error": call.error}, True
                else:
                    result, counted = self._toolset.call(call.name, call.arguments, self.env), True
                text = json.dumps(result, sort_keys=True)
                if counted:
                    record["tool_count"] += 1
                record["tool_calls"].append({
                    "name": call.name, "args": call.arguments, "result_chars": len(text),
                    "error": result.get("error") if isinstance(result, dict) else None,
                    "counted": counted})
                results.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                                "content": text})
            messages = [*messages, {"role": "assistant", "content": completion.text,
                                    "tool_calls": [c.as_message_part() for c in calls]}, *results]

    def _find_tools(self, env) -> tuple[ToolSet | None, str]:
        """The family's tools when asked for and usable, and a line saying which."""
        if not self.tools:
            return None, "off"
        if env is None:
            return None, "no env yet"
        toolset = tools_for(env)
        if toolset is None:
            family = getattr(getattr(env, "unwrapped", env), "family", "?")
            return None, f"off: the {family} family has no tools"
        if not getattr(self.client, "supports_tools", False):
            warnings.warn(f"LLMAgent(tools=True): the client {self.client.provider}/"
                          f"{self.client.model} does not support function calling, so it plays "
                          "without tools", stacklevel=3)
            return None, (f"off: the client {self.client.provider}/{self.client.model} does not "
                          "support function calling")
        return toolset, f"on: {', '.join(toolset.tools)}"

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
