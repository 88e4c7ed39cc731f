"""Strategies: how the policy asks for an answer, and how it reads one.

A strategy is one small class. To add one, in a file of your own:

    from dungeonbench_gym.llm.strategies import Strategy, register_strategy

    @register_strategy("plan")
    class Plan(Strategy):
        def instructions(self) -> str:          # appended to every question
            return "Write a 3-step plan, then 'Final answer: <option>'."

        def parse(self, answer, options, table=()):   # optional; the default
            return super().parse(answer, options, table)  # reads any usual format

then `LLMAgent(client, strategy="plan")`. `parse` returns a `ParseResult`
(the legal option or None, with the reason the model is told on a retry).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..core.errors import DungeonBenchError
from ..core.options import Option
from .parsing import ParseResult, parse_answer


class Strategy:
    """Asks with `instructions()`, reads the reply with `parse()`."""

    name = "base"

    def instructions(self) -> str:
        # every strategy says how to answer; see the module docstring for an example
        raise NotImplementedError(f"{type(self).__name__} must implement instructions()")

    def parse(self, answer: str, options: Sequence[Option],
              table: Sequence[Option] = ()) -> ParseResult:
        return parse_answer(answer, options, table)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


STRATEGIES: dict[str, type[Strategy]] = {}


def register_strategy(name: str, cls: type[Strategy] | None = None) -> Callable | type[Strategy]:
    """Register `cls` under `name`; with one argument, a class decorator."""
    def add(strategy_cls: type[Strategy]) -> type[Strategy]:
        if not (isinstance(strategy_cls, type) and issubclass(strategy_cls, Strategy)):
            raise TypeError(f"register_strategy({name!r}): {strategy_cls!r} is not a "
                            "subclass of Strategy")
        strategy_cls.name = name
        STRATEGIES[name] = strategy_cls
        return strategy_cls
    return add if cls is None else add(cls)


def get_strategy(strategy: str | Strategy) -> Strategy:
    """A strategy instance from a registered name (or the instance itself)."""
    if isinstance(strategy, Strategy):
        return strategy
    try:
        return STRATEGIES[strategy]()
    except KeyError:
        raise DungeonBenchError(
            f"unknown strategy {strategy!r}: use one of {sorted(STRATEGIES)}, or register "
            "your own with dungeonbench_gym.llm.strategies.register_strategy") from None


@register_strategy("direct")
class Direct(Strategy):
    """The option alone: cheapest, and what BALROG's naive agent asks for."""

    def instructions(self) -> str:
        return ("Answer with one legal option only: its label exactly as listed (or its "
                "number), and nothing else.")


@register_strategy("cot")
class ChainOfThought(Strategy):
    """Brief reasoning first, then a marked answer the parser reads from the end."""

    def instructions(self) -> str:
        return ("Think step by step in a few short sentences: what you see, what you need, "
                "what the next step should be. Then end with exactly one line:\n"
                "Final answer: <label of one legal option>")
