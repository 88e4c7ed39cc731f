"""AgentSpec: an agent described by plain data, so it crosses process (and Ray)
boundaries and names its results folder.

Kinds:
- `random`: uniform over legal actions.
- `baseline`: the family's simple baseline (`agents.BASELINES`).
- `llm`: `LLMAgent` with a client (`client`: openai, anthropic, gemini, local,
  fake), `model`, `strategy` (direct, cot, ...), `history`, `base_url`,
  `temperature`, `max_tokens`, `vision`, `tools` (the family's look-up tools as
  function calls, e.g. D&D's attack odds), `max_tool_calls`, `tool_protocol` (auto, native,
  text), `on_client_error` (fail, fallback), `context_tokens` (the model's window, where the
  server does not say), `timeout_s` (per request, to the client), `protocol` ("options",
  the default: numbered legal options; "balrog": BALROG's protocol, `llm.balrog_protocol`,
  with its strategies naive, cot, robust_naive, robust_cot, few_shot and its sampling
  temperature 1.0 unless one is given). Keys come from the environment of the
  process that plays, never from the spec, so no key reaches a result file.
- `sb3`: a saved stable-baselines3 / sb3-contrib model (`model_path`, a .zip),
  played deterministically with the action mask.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import DungeonBenchError
from ..llm.agent import ON_CLIENT_ERROR, TOOL_PROTOCOLS
from ..llm.balrog_protocol import PROTOCOLS
from ..llm.context import MIN_CONTEXT_TOKENS

KINDS = ("random", "baseline", "llm", "sb3")


@dataclass(frozen=True)
class AgentSpec:
    kind: str
    label: str = ""
    options: tuple[tuple[str, Any], ...] = field(default_factory=tuple)

    @classmethod
    def create(cls, kind: str, label: str = "", **options) -> "AgentSpec":
        if kind not in KINDS:
            raise DungeonBenchError(f"unknown agent {kind!r}: choose from {', '.join(KINDS)}")
        options = {k: v for k, v in options.items() if v is not None}
        if kind == "llm" and not options.get("client"):
            raise DungeonBenchError("the llm agent needs --client (openai, anthropic, gemini, "
                                    "local or fake) and usually --model")
        if kind == "sb3" and not options.get("model_path"):
            raise DungeonBenchError("the sb3 agent needs --model-path (a saved model .zip)")
        spec = cls(kind, "", tuple(sorted(options.items())))
        return cls(kind, _safe(label or spec.default_label()), spec.options)

    @property
    def opts(self) -> dict[str, Any]:
        return dict(self.options)

    @property
    def needs_text(self) -> bool:
        return self.kind == "llm"

    @property
    def protocol(self) -> str:
        return str(self.opts.get("protocol", "options")) if self.kind == "llm" else "options"

    def env_settings(self, family: str) -> dict[str, Any]:
        """What the env is made with for this agent: BALROG's protocol plays every family
        as upstream executes it (`balrog_protocol.ENV_SETTINGS`)."""
        if self.protocol != "balrog":
            return {}
        from ..llm.balrog_protocol import ENV_SETTINGS
        return dict(ENV_SETTINGS.get(family, {}))

    @property
    def needs_pictures(self) -> bool:
        return self.kind == "llm" and bool(self.opts.get("vision"))

    def default_label(self) -> str:
        o = self.opts
        if self.kind == "llm":
            balrog = self.protocol == "balrog"
            parts = ["llm", "balrog" if balrog else "", o.get("client", ""), o.get("model", ""),
                     o.get("strategy", "naive" if balrog else "direct"),
                     "tools" if o.get("tools") else ""]
            return "-".join(str(p) for p in parts if p)
        if self.kind == "sb3":
            stem = str(o["model_path"]).rsplit("/", 1)[-1].removesuffix(".zip")
            return f"sb3-{stem}"
        return self.kind

    def describe(self) -> dict[str, Any]:
        """What a result file records about the agent."""
        return {"kind": self.kind, "label": self.label, **self.opts}


def _safe(label: str) -> str:
    """A label usable as a folder name."""
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", label).strip("_") or "agent"


def build(spec: AgentSpec, family: str):
    """The agent object for one episode of `family` (None: the family has no such agent)."""
    from . import RandomAgent, make_agent

    if spec.kind == "random":
        return RandomAgent()
    if spec.kind == "baseline":
        return make_agent("baseline", family)
    if spec.kind == "sb3":
        return SB3Agent(spec.opts["model_path"])
    return make_llm_agent(spec)


def make_client(spec: AgentSpec):
    from ..llm.clients import make_client as _make_client

    o = spec.opts
    kwargs = {k: o[k] for k in ("base_url", "temperature", "max_tokens", "timeout_s",
                                "model_path") if k in o}
    if spec.protocol == "balrog" and "temperature" not in kwargs:
        from ..llm.balrog_protocol import TEMPERATURE
        kwargs["temperature"] = TEMPERATURE      # BALROG's config samples at 1.0
    return _make_client(o["client"], o.get("model", ""), **kwargs)


def strategy_name(value: str) -> str:
    """A strategy by name, or one of your own: "path/to/file.py:name" or
    "package.module:name" imports the file or module (which registers it with
    `register_strategy`) and returns the name."""
    if ":" not in value:
        return value
    where, name = value.rsplit(":", 1)
    import importlib
    import importlib.util
    from pathlib import Path

    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise DungeonBenchError(f"--strategy {value}: no such file {where}")
        module_spec = importlib.util.spec_from_file_location(f"_strategy_{path.stem}", path)
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
    else:
        importlib.import_module(where)
    return name


# History replayed by default: BALROG's 16 steps, but 2 for the bundled 135M model, which
# reads long prompts slowly on a CPU and gains nothing from them (docs/local-llm.md).
DEFAULT_HISTORY = 16
LOCAL_HISTORY = 2


def make_llm_agent(spec: AgentSpec):
    from ..llm.agent import LLMAgent

    o = spec.opts
    if spec.protocol == "balrog":
        from ..llm.balrog_protocol import HISTORY, BalrogProtocolAgent
        optional = {k: o[k] for k in ("on_client_error", "context_tokens") if k in o}
        return BalrogProtocolAgent(make_client(spec), strategy=o.get("strategy", "naive"),
                                   history=int(o.get("history", HISTORY)), **optional)
    history = o.get("history", LOCAL_HISTORY if o.get("client") == "local" else DEFAULT_HISTORY)
    # given only when set, so LLMAgent's own defaults apply otherwise
    optional = {k: o[k] for k in ("on_client_error", "context_tokens", "tool_protocol") if k in o}
    return LLMAgent(make_client(spec), strategy=strategy_name(o.get("strategy", "direct")),
                    history=int(history), vision=bool(o.get("vision", False)),
                    tools=bool(o.get("tools", False)), max_tool_calls=int(o.get("max_tool_calls", 4)),
                    **optional)


def check(spec: AgentSpec) -> None:
    """Fail before any episode starts: a missing key, an unknown provider or
    strategy, a model file that is not there."""
    if spec.kind == "llm":
        _check_llm_options(spec.opts)
        make_client(spec)
        if spec.protocol == "balrog":
            _check_balrog_options(spec.opts)
            return
        from ..llm.strategies import STRATEGIES

        strategy = strategy_name(spec.opts.get("strategy", "direct"))
        if strategy not in STRATEGIES:
            raise DungeonBenchError(f"unknown strategy {strategy!r}: choose from "
                                    f"{', '.join(STRATEGIES)}")
    if spec.kind == "sb3":
        from pathlib import Path

        if not Path(spec.opts["model_path"]).is_file():
            raise DungeonBenchError(f"--model-path {spec.opts['model_path']}: no such file")


def _check_balrog_options(o: dict[str, Any]) -> None:
    from ..llm.balrog_protocol import STRATEGIES

    strategy = o.get("strategy", "naive")
    if strategy not in STRATEGIES:
        raise DungeonBenchError(f"strategy {strategy!r} is not one of the BALROG protocol's: "
                                f"{', '.join(STRATEGIES)}")
    unused = [k for k in ("tools", "vision") if o.get(k)]
    if unused:
        raise DungeonBenchError(f"--protocol balrog plays text only, without "
                                f"{' or '.join(unused)} (BALROG's LLM track)")


def _check_llm_options(o: dict[str, Any]) -> None:
    """The llm options the CLI checks, checked again for specs made in code."""
    if "on_client_error" in o and o["on_client_error"] not in ON_CLIENT_ERROR:
        raise DungeonBenchError(f"on_client_error {o['on_client_error']!r}: use one of "
                                f"{', '.join(ON_CLIENT_ERROR)}")
    if "tool_protocol" in o and o["tool_protocol"] not in TOOL_PROTOCOLS:
        raise DungeonBenchError(f"tool_protocol {o['tool_protocol']!r}: use one of "
                                f"{', '.join(TOOL_PROTOCOLS)}")
    context = o.get("context_tokens")
    if context is not None and (isinstance(context, bool) or not isinstance(context, int)
                                or context < MIN_CONTEXT_TOKENS):
        raise DungeonBenchError(f"context_tokens {context!r}: give the model's context window "
                                f"as a whole number of tokens, {MIN_CONTEXT_TOKENS} or more")
    if o.get("protocol", "options") not in PROTOCOLS:
        raise DungeonBenchError(f"protocol {o['protocol']!r}: use one of {', '.join(PROTOCOLS)}")
    timeout = o.get("timeout_s")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or not 0 < timeout < float("inf")):
        raise DungeonBenchError(f"timeout_s {timeout!r}: give the seconds one request may take, "
                                "above 0")


class SB3Agent:
    """A saved stable-baselines3 policy (MaskablePPO uses the mask; others ignore it)."""

    name = "sb3"

    def __init__(self, model_path: str):
        self.model_path = model_path
        self._model = None

    def reset(self, env=None, seed=None) -> None:
        self.env = env
        if self._model is None:
            self._model = _load_sb3(self.model_path)

    def act(self, observation, info) -> int:
        kwargs = {}
        if "action_masks" in self._model.predict.__code__.co_varnames:
            kwargs["action_masks"] = observation["action_mask"].astype(bool)
        action, _ = self._model.predict(observation, deterministic=True, **kwargs)
        return int(action)


def _load_sb3(path: str):
    import zipfile

    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:
        raise DungeonBenchError("the sb3 agent needs the rl extra: "
                                "pip install 'dungeonbench-gym[rl]'") from exc
    try:
        return MaskablePPO.load(path, device="cpu")
    except (KeyError, ValueError, zipfile.BadZipFile):
        from stable_baselines3 import A2C, DQN, PPO

        for cls in (PPO, A2C, DQN):
            try:
                return cls.load(path, device="cpu")
            except Exception:  # noqa: BLE001 - try the next algorithm
                continue
        raise DungeonBenchError(f"{path}: not a model MaskablePPO, PPO, A2C or DQN can load")
