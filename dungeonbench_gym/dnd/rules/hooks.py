"""Tables that mechanics register into, so that the engine names no mechanic in its dispatch.

A :class:`Table` maps a key to one entry; registering a key twice is an error (two modules
claiming one option kind would otherwise shadow each other silently, depending on import
order). The engine imports the mechanics (which fill the tables as they are imported), then
freezes the tables; ``tests/test_dnd_hooks.py`` pins every entry by qualified name.

Tables:

* :data:`OPTION_KINDS`: an option's kind -> ``handler(battle, creature, pending, opt)``, what
  choosing it does (``Battle._apply``);
* :data:`REACTIONS`: a pending reaction's name -> :class:`Reaction`, the options it offers and
  what answering does (an opportunity attack, which names none, is ``"opportunity"``);
* :data:`DESTINATION_USES`: a destination decision's use (``pending["use"][0]``) -> the handler
  that places the creature, where a use does not teleport it the plain way;
* :data:`TARGET_USES`: a target decision's use (``pending["use"][0]``: an attack, a spell, a
  shove, ...) -> :class:`TargetUse`, the creatures it offers and what choosing one does;
* :data:`SPELL_MECHANISMS`: a spell mechanism's name (the spell data's ``"mech"``) ->
  :class:`SpellMechanism`, the steps its module runs instead of the spellbook's generic ones.

A :class:`Pipeline` is a rule moment that several mechanics take part in, each at an order
number; the call site runs every step in that order (the order can matter: each step may change
what the next one sees, and dice are rolled in it). The hooks test pins the steps and their order.

Pipelines:

* :data:`SPELL_SCREENS`: ``step(battle, caster, key, creatures, level) -> creatures``: who among
  the creatures a spell cast at ``level`` (None: the spell's own level) would target or catch it
  can affect (an Antimagic Field, a Globe of
  Invulnerability, a rakshasa's Limited Magic Immunity); each step returns its input unchanged
  when it has nothing to say, cheaply (it runs for every spell considered).
* :data:`LATER_OPTIONS`: ``step(battle, creature) -> list[Opt]``: what a creature's menu offers
  on later turns of something a mechanic started (Call Lightning's next bolt, Heat Metal again,
  a wall section to break, Tree Stride's next tree), in the menu's order.
* :data:`TURN_ENDS`: ``step(battle, creature)``: what happens as a creature's turn ends, before
  the engine's own end-of-turn rules (repeat saves that hurt, Earthquake's shaking, Blink's d20).
* :data:`TURN_STARTS`: ``step(battle, creature)``: what happens as a conscious creature's turn
  starts, before the data-driven zones (Spirit Guardians' spirits around a foe).
* :data:`MOVE_STEPS`: ``step(battle, creature, here)``: a creature moving square by square has
  just stepped from ``here`` to its new position (entering Spirit Guardians' area).

Every step of a pipeline runs on every call: a step checks first, cheaply, whether its mechanic
is in play (``battle.zones``, ``creature.concentration``...) and does nothing when it is not.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, NamedTuple


class Reaction(NamedTuple):
    options: Callable   # (battle, reactor, pending) -> list[Opt]
    resolve: Callable   # (battle, reactor, pending, opt.data) -> None


class TargetUse(NamedTuple):
    options: Callable   # (battle, actor, use) -> list[Opt]: the creatures it may pick
    resolve: Callable | None = None   # (battle, actor, use, creature) -> None; None: its options carry it out


class SpellMechanism(NamedTuple):
    """What a spell mechanism's module answers for the spells whose data row names it
    (``content/data/spell_mechanics.json``: ``"mech"``); a None field leaves that step to the
    spellbook's generic rules."""
    placement: Callable | None = None      # (key) -> "target", "point", "direction" or "self"
    area: Callable | None = None           # (battle, caster, key, where, anchor) -> the Area a placement covers
    targets: Callable | None = None        # (battle, caster, key) -> creatures it may target now
    available: Callable | None = None      # (battle, caster, key, level) -> bool
    begin: Callable | None = None          # (battle, caster, key, level) -> True when it took the casting over
    summary: Callable | None = None        # (caster, key, level) -> the option's note
    cast_at: Callable | None = None        # (battle, caster, key, level, target) -> True, or None while pending
    more: Callable | None = None           # (battle, caster, use, target): a further target
    effect: Callable | None = None         # (battle, caster, key, level, target): one target's effect
    resolve_area: Callable | None = None   # (battle, caster, use, where): placed, or cast on itself


class Table:
    """A keyed registry: one entry per key, closed to new keys once frozen."""

    def __init__(self, name: str):
        self.name = name
        self.entries: dict[str, Any] = {}
        self.frozen = False

    def register(self, key: str, entry: Any) -> Any:
        if self.frozen:
            raise RuntimeError(f"{self.name}: {key!r} registered after the table was frozen; "
                               "register it at import time of a module the engine imports")
        if key in self.entries:
            raise ValueError(f"{self.name}: {key!r} is registered twice "
                             f"({_qualname(self.entries[key])} and {_qualname(entry)})")
        self.entries[key] = entry
        return entry

    def handles(self, *keys: str) -> Callable:
        """Decorator: register the function for each of ``keys``."""
        def register(fn: Callable) -> Callable:
            for key in keys:
                self.register(key, fn)
            return fn
        return register

    def freeze(self) -> None:
        self.frozen = True

    def get(self, key: str, default: Any = None) -> Any:
        return self.entries.get(key, default)

    def __getitem__(self, key: str) -> Any:
        return self.entries[key]

    def __contains__(self, key: str) -> bool:
        return key in self.entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def described(self) -> dict[str, Any]:
        """Each key with the qualified name(s) of what it holds (what the pinning test compares)."""
        return {key: (tuple(None if f is None else _qualname(f) for f in entry) if isinstance(entry, tuple)
                      else _qualname(entry))
                for key, entry in sorted(self.entries.items())}


class Pipeline:
    """A rule moment's ordered steps: ``@PIPELINE.step(order)`` adds one; iterating gives the
    functions in order. Two steps at one order number is an error (their order would depend on
    import order)."""

    def __init__(self, name: str):
        self.name = name
        self.entries: dict[int, Callable] = {}
        self.frozen = False
        self._ordered: tuple = ()

    def step(self, order: int) -> Callable:
        def register(fn: Callable) -> Callable:
            if self.frozen:
                raise RuntimeError(f"{self.name}: step {_qualname(fn)} added after the pipeline was frozen")
            if order in self.entries:
                raise ValueError(f"{self.name}: order {order} is taken twice "
                                 f"({_qualname(self.entries[order])} and {_qualname(fn)})")
            self.entries[order] = fn
            self._ordered = tuple(f for _o, f in sorted(self.entries.items()))
            return fn
        return register

    def freeze(self) -> None:
        self.frozen = True

    def __iter__(self) -> Iterator[Callable]:
        return iter(self._ordered)

    def described(self) -> dict[str, str]:
        """Each step's order number (zero-padded, so that the JSON keeps the order) and qualified name."""
        return {f"{order:04d}": _qualname(fn) for order, fn in sorted(self.entries.items())}


def _qualname(fn: Any) -> str:
    return f"{getattr(fn, '__module__', '?').rsplit('dnd.', 1)[-1]}.{getattr(fn, '__qualname__', repr(fn))}"


OPTION_KINDS = Table("option kind")
REACTIONS = Table("reaction")
DESTINATION_USES = Table("destination use")
TARGET_USES = Table("target use")
SPELL_MECHANISMS = Table("spell mechanism")
SPELL_SCREENS = Pipeline("spell screens")
LATER_OPTIONS = Pipeline("later options")
TURN_ENDS = Pipeline("turn ends")
TURN_STARTS = Pipeline("turn starts")
MOVE_STEPS = Pipeline("move steps")
# every table and pipeline (what the engine freezes and the hooks test pins)
REGISTRIES = (OPTION_KINDS, REACTIONS, DESTINATION_USES, TARGET_USES, SPELL_MECHANISMS, SPELL_SCREENS,
              LATER_OPTIONS, TURN_ENDS, TURN_STARTS, MOVE_STEPS)


def freeze_all() -> None:
    for registry in REGISTRIES:
        registry.freeze()
