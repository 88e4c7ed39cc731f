"""Errors that tell the user what is wrong, where, and how to fix it."""

from __future__ import annotations


class DungeonBenchError(Exception):
    """Base class of every error this package raises on purpose."""


class ActionOutOfRange(DungeonBenchError, ValueError):
    """An action that is not in the action space at all (not merely masked out)."""


class IllegalAction(DungeonBenchError, ValueError):
    """A masked-out action, raised only when the env was made with on_invalid='raise'."""


class EpisodeOver(DungeonBenchError, RuntimeError):
    """step() before reset(), or after the episode terminated or was truncated."""


class UnknownEnvId(DungeonBenchError, KeyError):
    def __str__(self) -> str:  # KeyError would print the message in quotes
        return str(self.args[0])


class FileFormatError(DungeonBenchError, ValueError):
    """A data file (registry, scenario, achievements) that cannot be used.

    The message always names the file, the field (or line) and the fix.
    """

    def __init__(self, path, field: str, problem: str, fix: str):
        self.path, self.field, self.problem, self.fix = str(path), field, problem, fix
        super().__init__(f"{self.path}: field '{field}': {problem}. Fix: {fix}")
