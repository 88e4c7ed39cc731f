"""Options and decisions: what the engine offers and who must choose.

At every moment of a battle there is one pending :class:`Decision` (its kind, who
decides, the prompt and the options); an :class:`Opt` is one choice, with the label
people read, the kind of step it is and the payload the engine runs.
"""

from __future__ import annotations

from typing import NamedTuple


class Opt(NamedTuple):
    """One option: what people read, what kind of step it is, and the payload the engine runs."""

    label: str
    kind: str
    data: tuple = ()
    group: str = ""     # key used when the decision must be split (a row of destinations)


class DestinationOpt(Opt):
    """A destination option whose label is written only when read: a flyer's reach holds
    thousands of squares, and a decision that large shows rows of them, so most labels would
    never be read. The label's place holds its parts (x, y, height up, cost, nearest foe's
    distance, that foe) instead of the text; everything else is a plain :class:`Opt`."""

    __slots__ = ()

    @property
    def label(self) -> str:
        x, y, up, cost, near, foe = tuple.__getitem__(self, 0)
        where = f"({x}, {y}, {up} ft up)" if up > 0 else f"({x}, {y})"
        note = f", {near} ft from {foe}" if foe else ""
        return f"Move to {where} ({cost} ft{note})"


class Decision(NamedTuple):
    """The pending choice: its kind ("action", "target", ...), who decides, the options."""

    kind: str
    actor: str
    options: tuple
    prompt: str
