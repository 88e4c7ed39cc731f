"""The decision-stream contract shared by every family."""

from .env import INFO_KEYS, DecisionEnv
from .errors import (ActionOutOfRange, DungeonBenchError, EpisodeOver, FileFormatError,
                     IllegalAction, UnknownEnvId)
from .options import Option, OptionList, find_option, option_table
from .registry import (NAMESPACE, REGISTRY, EnvEntry, ids, make, parse_registry_file,
                       register_all, register_file, resolve_id)

__all__ = [
    "INFO_KEYS", "DecisionEnv", "ActionOutOfRange", "DungeonBenchError", "EpisodeOver",
    "FileFormatError",
    "IllegalAction", "UnknownEnvId", "Option", "OptionList", "find_option", "option_table",
    "NAMESPACE", "REGISTRY", "EnvEntry", "ids", "make", "parse_registry_file", "register_all",
    "register_file", "resolve_id",
]
