"""The declarative registry: one TOML file per family in `envs/`.

A registry file holds the family's entry point, default kwargs, step limit,
action count and metric, then one `[[envs]]` table per id. Files are checked
field by field (`REGISTRY_SCHEMA`, core/schema.py: unknown keys with a "did you
mean", types, ranges); a mistake names the file, the field and the fix.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import importlib.resources
import inspect
import os
import re
import tomllib
import warnings
from pathlib import Path
from typing import Any

import gymnasium as gym

from .errors import DungeonBenchError, FileFormatError, UnknownEnvId
from .schema import Field, read_text, validate

NAMESPACE = "DungeonBench"
ENV_PATH_VARIABLE = "DUNGEONBENCH_ENVS_PATH"  # extra registry files or folders, os.pathsep-separated
_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*-v\d+$")
_ENTRY_PATTERN = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
_ENTRY_FIX = 'give "module:Class", e.g. "dungeonbench_gym.games.crafter:CrafterEnv"'
_ENV_SCHEMA = {   # one [[envs]] table
    "id": Field(str, required=True, fix='give an id like "Crafter-v0"'),
    "kwargs": Field(dict, fix="write kwargs = { name = value }"),
    "max_steps": Field(int, low=1, fix="write a positive integer, e.g. max_steps = 100"),
    "actions": Field(int, low=1, fix="write a positive integer, e.g. actions = 100"),
    "description": Field(str, fix='write description = "..."'),
    "metric": Field(str, fix='write metric = "..."'),
}
REGISTRY_SCHEMA = {   # a whole registry file (envs/<family>.toml)
    "family": Field(str, required=True, fix='name the family, e.g. family = "crafter"'),
    "entry_point": Field(str, required=True, fix=_ENTRY_FIX),
    "extra": Field(str, fix='name the optional-dependency group, e.g. extra = "crafter"'),
    "metric": Field(str, required=True, fix='describe the progress metric, e.g. metric = "solved"'),
    "max_steps": _ENV_SCHEMA["max_steps"],
    "actions": _ENV_SCHEMA["actions"],
    "kwargs": Field(dict, fix="write [kwargs] or kwargs = { ... }"),
    "description": _ENV_SCHEMA["description"],
    "envs": Field(list, required=True, min_items=1, items=Field(dict, fields=_ENV_SCHEMA),
                  fix="add at least one [[envs]] table with an id"),
}


@dataclasses.dataclass(frozen=True)
class EnvEntry:
    """Everything the registry knows about one id, before any env is built."""

    id: str                # short id, e.g. "Crafter-v0"
    family: str
    entry_point: str
    kwargs: dict[str, Any]
    max_steps: int | None
    actions: int           # N of Discrete(N), documented and checked by conformance
    metric: str
    extra: str             # the optional-dependency group that installs its upstream
    description: str
    source: str            # the registry file it came from
    where: str = ""        # its table in that file, e.g. "envs[0]"
    own_kwargs: tuple = () # the kwargs its own table sets (the rest come from [kwargs])

    @property
    def gym_id(self) -> str:
        return f"{NAMESPACE}/{self.id}"


REGISTRY: dict[str, EnvEntry] = {}


def builtin_registry_files() -> list[Path]:
    folder = importlib.resources.files("dungeonbench_gym.envs")
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".toml"))


def parse_registry_file(path: str | os.PathLike) -> list[EnvEntry]:
    """Read and check one registry file; raise FileFormatError on any mistake."""
    path = Path(path)
    text = read_text(path, saved_as="UTF-8 TOML", missing_fix="check the path of the registry file")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FileFormatError(path, "(syntax)", f"is not valid TOML ({exc})",
                              "correct the TOML syntax at that line") from None
    validate(data, REGISTRY_SCHEMA, path)   # unknown keys ("did you mean"), types, ranges
    family, entry, metric = data["family"], data["entry_point"], data["metric"]
    if not _ENTRY_PATTERN.match(entry):
        raise FileFormatError(path, "entry_point", f"{entry!r} is not 'module:Class'", _ENTRY_FIX)
    extra, description = data.get("extra", ""), data.get("description", "")
    defaults = data.get("kwargs", {})
    max_steps, actions = data.get("max_steps"), data.get("actions")
    entries, seen = [], {}
    for i, env in enumerate(data["envs"]):
        where = f"envs[{i}]."
        env_id = env["id"]
        if not _ID_PATTERN.match(env_id):
            raise FileFormatError(path, where + "id", f"{env_id!r} is not a valid id",
                                  "use letters, digits, '-', '_' or '.', ending in -v<version>, "
                                  'e.g. "BabyAI-GoTo-v0"')
        if env_id in seen:
            raise FileFormatError(path, where + "id", f"{env_id!r} is also the id of {seen[env_id]}",
                                  "give every [[envs]] table its own id")
        seen[env_id] = f"envs[{i}]"
        kwargs = env.get("kwargs", {})
        n = env.get("actions", actions)
        if n is None:
            raise FileFormatError(path, where + "actions", "is missing (here and at the top)",
                                  "give the size N of Discrete(N), e.g. actions = 17")
        steps = env.get("max_steps", max_steps)
        entries.append(EnvEntry(
            id=env_id, family=family, entry_point=entry,
            kwargs={**defaults, **kwargs}, max_steps=steps, actions=n,
            metric=env.get("metric", metric), extra=extra,
            description=env.get("description", description), source=str(path),
            where=f"envs[{i}]", own_kwargs=tuple(kwargs)))
    return entries


def register_file(path: str | os.PathLike) -> list[EnvEntry]:
    """Register every id of one registry file (yours or ours) with Gymnasium."""
    entries = parse_registry_file(path)
    for e in entries:
        if e.id in REGISTRY and REGISTRY[e.id].source != e.source:
            raise FileFormatError(path, "envs.id", f"{e.id!r} is already registered by "
                                  f"{REGISTRY[e.id].source}", "give the env a different id")
    for e in entries:
        REGISTRY[e.id] = e
        kwargs = dict(e.kwargs)
        if e.max_steps is not None:
            kwargs["max_steps"] = e.max_steps
        gym.register(id=e.gym_id, entry_point=e.entry_point, kwargs=kwargs)
    return entries


def register_all() -> None:
    """Our registry files, then the user's from DUNGEONBENCH_ENVS_PATH.

    A broken file of ours is our bug and raises. A broken file of the user's is
    skipped with a warning that names the file, the field and the fix, so that
    the package (and its CLI) still imports; `register_file` raises for it.
    """
    for path in builtin_registry_files():
        register_file(path)
    for item in filter(None, os.environ.get(ENV_PATH_VARIABLE, "").split(os.pathsep)):
        p = Path(item)
        for f in sorted(p.glob("*.toml")) if p.is_dir() else [p]:
            try:
                register_file(f)
            except FileFormatError as exc:
                warnings.warn(f"skipped registry file: {exc}", stacklevel=2)


def resolve_id(env_id: str) -> EnvEntry:
    """Accept 'Crafter-v0', 'DungeonBench/Crafter-v0' or 'dungeonbench_gym:DungeonBench/...'."""
    short = env_id.split(":", 1)[-1]
    if short.startswith(NAMESPACE + "/"):
        short = short[len(NAMESPACE) + 1:]
    if short in REGISTRY:
        return REGISTRY[short]
    close = difflib.get_close_matches(short, REGISTRY, n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise UnknownEnvId(f"unknown env id {env_id!r}.{hint} "
                       f"Run `dungeonbench-gym list` to see the {len(REGISTRY)} registered ids.")


def load_entry_point(entry: EnvEntry) -> type:
    """Import the env class, naming the optional group when its upstream is missing."""
    module, name = entry.entry_point.split(":")
    try:
        cls = getattr(importlib.import_module(module), name, None)
    except ModuleNotFoundError as exc:
        raise DungeonBenchError(
            f"{entry.id} needs the Python package {exc.name!r}: "
            f"pip install 'dungeonbench-gym[{entry.extra or 'all'}]'") from exc
    if cls is None:
        raise FileFormatError(entry.source, f"{entry.where}.entry_point" if entry.where else
                              "entry_point", f"{module} has no {name!r}",
                              "name a class that module defines")
    return cls


def validate_kwargs(entry: EnvEntry, extra: dict | None = None) -> None:
    """Check the registry kwargs (and `extra`) against the env's constructor."""
    cls = load_entry_point(entry)
    allowed = _init_parameters(cls)
    if allowed is None:
        return
    for name in {**entry.kwargs, **(extra or {})}:
        if name not in allowed:
            close = difflib.get_close_matches(name, allowed, n=1)
            fix = f"did you mean '{close[0]}'?" if close else f"use one of {allowed}"
            if name in entry.kwargs:
                field = f"{entry.where}.kwargs.{name}" if name in entry.own_kwargs \
                    else f"kwargs.{name}"
                raise FileFormatError(entry.source, field,
                                      f"{cls.__name__} takes no argument {name!r}", fix)
            raise DungeonBenchError(f"{entry.id}: {cls.__name__} takes no argument {name!r}; {fix}")


def _init_parameters(cls: type) -> list[str] | None:
    """The keyword names a class accepts, following `**kwargs` up to its bases' __init__.

    None when some __init__ passes `**kwargs` on to a callable we cannot see.
    """
    names: list[str] = []
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        if klass is object:
            return None
        params = inspect.signature(init).parameters
        names += [p.name for p in params.values() if p.name != "self"
                  and p.kind not in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)]
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            return names
    return None


def make(env_id: str, **kwargs) -> gym.Env:
    """gymnasium.make with clear errors: unknown ids, missing optional groups, bad kwargs."""
    entry = resolve_id(env_id)
    validate_kwargs(entry, kwargs)
    return gym.make(entry.gym_id, **kwargs)


def ids(family: str | None = None) -> list[str]:
    return [k for k, e in REGISTRY.items() if family is None or e.family == family]
