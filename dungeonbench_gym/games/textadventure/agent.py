"""A text-adventure baseline that explores: no walkthrough, no achievements."""

from __future__ import annotations

from ...agents.base import Agent

# Verbs that tend to make progress first; those that undo it (drop, close, lock)
# last. Directions come next after the eager verbs (explore once the room is used
# up), then two-object commands ("put X in Y", "give X to Y"), numerous and rarely
# needed.
_EAGER = ("unlock", "open", "take", "light", "switch on", "fill", "turn", "push",
          "pull", "wear", "enter", "feed", "water", "pour", "climb", "eat", "drink")
_RELUCTANT = ("drop", "close", "lock", "take off", "switch off", "empty", "attack", "throw")
_IDLE = ("look", "inventory", "wait")


class ExplorerAgent(Agent):
    """Tries every valid action once per room, eager verbs first, then walks on.

    In each room it plays the option it has played least there (ties: eager verbs
    before directions before reluctant ones, then a random pick from its seed), and
    it prefers exits into rooms it has not seen. It reads only the options and the
    room's name, as a player would.
    """

    name = "explorer"

    def reset(self, env=None, seed=None) -> None:
        super().reset(env, seed)
        self._tried: dict[tuple[str, str], int] = {}
        self._seen_rooms: set[str] = set()

    def act(self, observation, info) -> int:
        env = self.env.unwrapped if self.env is not None else None
        room = env.valid_actions.room if env is not None else ""
        self._seen_rooms.add(room)
        options = [o for o in info["options"] if observation["action_mask"][o.index]]

        def rank(option) -> tuple:
            label = option.label
            tried = self._tried.get((room, label), 0)
            return (tried, _tier(label), self.rng.random())

        choice = min(options, key=rank)
        self._tried[(room, choice.label)] = self._tried.get((room, choice.label), 0) + 1
        return int(choice.index)


def _tier(label: str) -> int:
    if label in _IDLE:
        return 4
    if label.startswith(_RELUCTANT):
        return 3
    if label.startswith(_EAGER):
        return 0
    if " " not in label:          # a direction or a bare verb
        return 1
    return 2
