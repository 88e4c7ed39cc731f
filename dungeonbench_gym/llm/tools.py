"""Tools an LLM agent may call before it answers: read-only look-ups into the game.

A `Tool` is a name, a short description, a JSON schema of its parameters and a function of
(context, **arguments) -> a JSON-able result, where the context is what the family's tools
read (for D&D, the battle in progress). A `ToolSet` is a family's tools plus how to get the
context from an env. `ToolSet.call` never raises: a bad name, bad arguments or a failing
look-up come back as ``{"error": "..."}`` for the model to read, so a tool call can never
end an episode.

Families register their tools in `FAMILY_TOOLS`; `tools_for(env)` finds them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_TYPES = {"integer": int, "number": (int, float), "string": str, "boolean": bool}


class ToolError(Exception):
    """A message for the model (bad argument, unknown creature...)."""


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]          # a JSON schema: type object, properties, required
    function: Callable[..., Any]

    def spec(self) -> dict[str, Any]:
        """The declaration a client sends (translated per provider)."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}

    def check(self, arguments: Any) -> dict[str, Any]:
        """The arguments, validated against the schema (ints given as "3" are accepted)."""
        if not isinstance(arguments, dict):
            raise ToolError("arguments must be a JSON object")
        properties = self.parameters.get("properties", {})
        unknown = sorted(set(arguments) - set(properties))
        if unknown:
            raise ToolError(f"unknown argument(s) {unknown}; {self.name} takes {sorted(properties)}")
        missing = [k for k in self.parameters.get("required", ()) if arguments.get(k) in (None, "")]
        if missing:
            raise ToolError(f"missing argument(s) {missing}")
        out = {}
        for key, value in arguments.items():
            if value is None:
                continue
            schema = properties[key]
            kind = schema.get("type")
            if kind == "integer" and isinstance(value, str) and value.strip().lstrip("-").isdigit():
                value = int(value)
            if kind == "integer" and isinstance(value, float) and value.is_integer():
                value = int(value)
            if kind in _TYPES and (not isinstance(value, _TYPES[kind])
                                   or (kind != "boolean" and isinstance(value, bool))):
                raise ToolError(f"{key} must be {'an' if kind == 'integer' else 'a'} {kind}, got {value!r}")
            if "enum" in schema and value not in schema["enum"]:
                raise ToolError(f"{key} must be one of {schema['enum']}, got {value!r}")
            out[key] = value
        return out


class ToolSet:
    """One family's tools. `context(env)` is what they read (None: not available now)."""

    def __init__(self, family: str, tools: list[Tool], context: Callable[[Any], Any]):
        self.family = family
        self.tools = {t.name: t for t in tools}
        self.context = context

    def specs(self) -> list[dict[str, Any]]:
        return [t.spec() for t in self.tools.values()]

    def call(self, name: str, arguments: Any, env: Any) -> dict[str, Any] | Any:
        """The tool's result, or ``{"error": ...}``; never raises."""
        tool = self.tools.get(name)
        if tool is None:
            return {"error": f"no tool {name!r}; tools: {', '.join(self.tools)}"}
        try:
            context = self.context(env)
            if context is None:
                return {"error": "nothing to look up now (the episode is over)"}
            result = tool.function(context, **tool.check(arguments))
            return json.loads(json.dumps(result))   # JSON-able, and a copy of nothing live
        except ToolError as error:
            return {"error": str(error)}
        except KeyError as error:          # content look-ups: "no spell 'x'; did you mean ..."
            return {"error": str(error.args[0]) if error.args else "not found"}
        except Exception as error:         # noqa: BLE001 - a tool must never end an episode
            return {"error": f"{name} failed: {type(error).__name__}: {error}"}


def _dnd() -> ToolSet:
    from .dnd_tools import dnd_toolset

    return dnd_toolset()


# family -> a factory of its ToolSet (imported on demand)
FAMILY_TOOLS: dict[str, Callable[[], ToolSet]] = {"dnd": _dnd}


def tools_for(env: Any) -> ToolSet | None:
    """The tools of an env's family, or None when the family has none."""
    family = getattr(getattr(env, "unwrapped", env), "family", None)
    factory = FAMILY_TOOLS.get(family)
    return factory() if factory is not None else None
