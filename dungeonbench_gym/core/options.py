"""Options: the legal choices of a decision, index-aligned with the action mask."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np


class Option(NamedTuple):
    """One legal choice. `label` is what a person or an LLM reads and may answer with."""

    index: int
    label: str
    kind: str = "command"
    description: str = ""

    def as_dict(self) -> dict:
        return {"index": self.index, "label": self.label, "kind": self.kind}


class OptionList(Sequence):
    """The legal subset of a fixed option table, built only when someone reads it.

    RL loops never touch `info["options"]`, so families with a fixed command set
    hand out this view instead of a list: it costs one small object per step.
    """

    __slots__ = ("_table", "_mask", "_items")

    def __init__(self, table: Sequence[Option], mask: np.ndarray):
        self._table = table
        self._mask = mask
        self._items: list[Option] | None = None

    def _materialise(self) -> list[Option]:
        if self._items is None:
            self._items = [self._table[i] for i in np.flatnonzero(self._mask)]
        return self._items

    def __getitem__(self, i):
        return self._materialise()[i]

    def __len__(self) -> int:
        return len(self._materialise())

    def __eq__(self, other) -> bool:
        return list(self) == list(other)

    def __repr__(self) -> str:
        return f"OptionList({self._materialise()!r})"

    def __reduce__(self):
        # Crossing a process boundary (AsyncVectorEnv) sends the plain list.
        return (list, (self._materialise(),))

    def labels(self) -> list[str]:
        return [o.label for o in self._materialise()]


def option_table(labels: Sequence[str], kind: str = "command",
                 descriptions: Sequence[str] | None = None) -> tuple[Option, ...]:
    """A fixed table: index i is always the same command."""
    descriptions = descriptions or [""] * len(labels)
    return tuple(Option(i, lab, kind, d) for i, (lab, d) in enumerate(zip(labels, descriptions)))


def find_option(options: Sequence[Option], answer: str) -> Option | None:
    """Match a typed answer to an option: its label or its index number.

    Surrounding whitespace and punctuation are ignored and case only matters
    when two labels differ by case alone ("choose a" / "choose A" in NetHack);
    symbols that are part of a label stay ("choose $" is not "choose -"). An exact
    label wins over an index, so labels that are numbers stay reachable.
    """
    text = answer.strip().strip(_SURROUNDING).strip()
    if not text:
        return None
    for opt in options:
        if opt.label == text:
            return opt
    folded = _fold(text)
    matches = [opt for opt in options if _fold(opt.label) == folded]
    if len(matches) == 1:
        return matches[0]
    if _INDEX.fullmatch(text):   # ASCII digits only: "-1" or "²" is no index
        index = int(text)
        for opt in options:
            if opt.index == index:
                return opt
    return None


_SURROUNDING = ".,!?;:'\"`()[]{}<>"
_INDEX = re.compile(r"[0-9]{1,9}")


def _fold(text: str) -> str:
    return " ".join(text.lower().split())
