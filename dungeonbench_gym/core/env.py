"""DecisionEnv: the one place the decision-stream contract is implemented.

A family subclasses it and writes only its game: how to reset, how to apply a
legal action, which actions are legal, the numeric observation, the text, and
its progress. Mask handling, the fallback on masked-out actions, invalid-action
counting, text on demand, the progress running maximum, step limits and the
`info` keys all live here, so every family behaves the same.

A game that is already over when reset returns (`_game_over`: a D&D party downed
before its first turn) opens on exactly one legal option, decision "over", with
`info["ended_before_first_decision"]` (and the same key in `metrics`) set; its
step, whatever the index (a masked-out one takes the usual fallback path),
ends the episode with reward 0 and the game's real progress and success.
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

import operator

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .errors import ActionOutOfRange, EpisodeOver, IllegalAction
from .options import Option, OptionList

INFO_KEYS = ("options", "decision", "progress", "success", "metrics", "invalid_action")
# What a masked-out index does: run the family's fallback, raise, end the episode,
# or (families with `executes_any_action`) run the index itself, as the upstream
# game would: a blocked move is a wasted step there, not another action.
ON_INVALID = ("fallback", "raise", "terminate", "passthrough")


class DecisionEnv(gym.Env):
    """Base class of every DungeonBench env.

    Subclasses set `option_table` (fixed command sets) or override `_options`,
    set `fallback_index`, call `super().__init__` with their numeric observation
    spaces, and implement the `_game_*` hooks below.
    """

    metadata: ClassVar[dict] = {"render_modes": ["ansi"], "render_fps": 4}
    family: ClassVar[str] = "generic"
    option_table: ClassVar[Sequence[Option]] = ()
    fallback_index: ClassVar[int] = 0  # BALROG's per-family default for bad output
    accepts_text: bool = False  # step() also takes a typed command (str): text adventures
    # every index of the action space can be executed as the upstream game executes
    # it, masked or not (on_invalid="passthrough"); the mask then only says which
    # actions change something
    executes_any_action: ClassVar[bool] = False
    # The one option offered when a reset finds the game already over (see `_game_over`)
    ended_label: ClassVar[str] = "The game ended before the first decision (continue)"

    def __init__(self, *, n_actions: int, observation_spaces: dict[str, spaces.Space],
                 text: bool = False, on_invalid: str = "fallback",
                 render_mode: str | None = None, max_steps: int | None = None):
        if on_invalid not in ON_INVALID:
            raise ValueError(f"on_invalid={on_invalid!r}: use one of {ON_INVALID}")
        if on_invalid == "passthrough" and not self.executes_any_action:
            raise ValueError(f"on_invalid='passthrough': {type(self).__name__} cannot execute a "
                             "masked-out option; use 'fallback', 'raise' or 'terminate'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r}: {type(self).__name__} supports "
                             f"{self.metadata['render_modes']}")
        if max_steps is not None and max_steps < 1:
            raise ValueError(f"max_steps={max_steps}: must be a positive number of steps")
        self.text = bool(text)
        self.on_invalid = on_invalid
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.action_space = spaces.Discrete(n_actions)
        self.observation_space = spaces.Dict(
            {"action_mask": spaces.Box(0, 1, (n_actions,), np.int8), **observation_spaces})
        self._n = n_actions
        self._mask = np.ones(n_actions, np.int8)
        self._steps = 0
        self._invalid_count = 0
        self._progress = 0.0
        self._done = True  # no game until reset()
        self._ended_at_reset = False

    # ------------------------------------------------------------------ hooks
    def _game_reset(self, seed: int, options: dict | None) -> None:
        """Start a new game; `seed` comes from the env's generator."""
        raise NotImplementedError

    def _game_step(self, action: int) -> tuple[float, bool, bool]:
        """Apply a legal action; return (reward, terminated, truncated by the game)."""
        raise NotImplementedError

    def _game_mask(self) -> np.ndarray:
        """A new int8 array of length N: 1 where the action is legal now. Never all zero."""
        raise NotImplementedError

    def _game_observation(self) -> dict[str, np.ndarray]:
        """The numeric observation keys (everything but the mask), as new arrays each call:
        Gymnasium's checker and replay buffers may keep the ones handed out."""
        raise NotImplementedError

    def _game_text(self) -> tuple[str, str]:
        """(long_term, short_term) text: what stays in history, what is current status."""
        raise NotImplementedError

    def _game_progress(self) -> float:
        """Progress in [0, 1] of the current state (the base keeps the running maximum)."""
        raise NotImplementedError

    def _game_success(self) -> bool:
        raise NotImplementedError

    def _game_metrics(self) -> dict[str, Any]:
        return {}

    def _game_over(self) -> bool:
        """Whether the game has already ended, asked right after `_game_reset`: some games can
        end before the agent's first decision (a D&D party downed before its turn comes)."""
        return False

    def _game_typed(self, command: str) -> tuple[float, bool, bool, bool]:
        """Families with `accepts_text`: apply a typed command; return (reward,
        terminated, truncated, accepted). A refused command is still a step."""
        raise NotImplementedError

    def _decision(self) -> str:
        return "command"

    def _options(self, mask: np.ndarray) -> Sequence[Option]:
        return OptionList(self.option_table, mask)

    def _render_ansi(self) -> str:
        long_term, short_term = self._game_text()
        return f"{long_term}\n{short_term}"

    def _render_rgb(self) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} has no pictures; use render_mode='ansi'")

    # --------------------------------------------------------------- contract
    def _legal_mask(self) -> np.ndarray:
        """The game's mask, or the one "continue" option of a game that ended at reset."""
        if not self._ended_at_reset:
            return self._game_mask()
        mask = np.zeros(self._n, np.int8)
        mask[self.fallback_index] = 1
        return mask

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._steps = 0
        self._invalid_count = 0
        self._progress = 0.0
        self._done = False
        # One seed drawn from our generator drives the game: the same reset seed
        # gives the same game, and unseeded resets still follow the first seed.
        self._game_reset(int(self.np_random.integers(2**31 - 1)), options)
        # Gymnasium's reset cannot say "terminated": a game already over opens on one legal
        # option (decision "over") whose step ends the episode with the game's real outcome.
        self._ended_at_reset = self._game_over()
        self._mask = self._legal_mask()
        self._progress = self._clip_progress()
        return self._observation(), self._info(False)

    def step(self, action):
        # Hot path: RL loops call this millions of times, so it stays lean.
        if self._done:
            raise EpisodeOver(f"{type(self).__name__}: the episode is over (or never began): "
                              "call reset() before step()")
        if type(action) is str:
            return self._step_typed(action)
        action = action if type(action) is int and 0 <= action < self._n else self._validate(action)
        invalid = not self._mask[action]
        if invalid:
            self._invalid_count += 1
            if self.on_invalid == "raise":
                raise IllegalAction(
                    f"action {action} is masked out now; legal: {self.legal_actions()}")
            if self.on_invalid == "terminate":
                self._done = True
                return self._observation(), 0.0, True, False, self._info(True)
            if self.on_invalid != "passthrough":
                action = self.fallback_action()
        if self._ended_at_reset:   # nothing left to play: no decision of the agent earned a reward
            return self._after_step(0.0, True, False, invalid)
        reward, terminated, truncated = self._game_step(action)
        return self._after_step(reward, terminated, truncated, invalid)

    def _after_step(self, reward, terminated, truncated, invalid):
        self._steps += 1
        if self.max_steps is not None and self._steps >= self.max_steps:
            truncated = True
        self._mask = self._legal_mask()
        progress = self._game_progress()
        if progress > self._progress:  # the running maximum, clipped to [0, 1]
            self._progress = min(1.0, float(progress))
        self._done = terminated or truncated
        return self._observation(), float(reward), bool(terminated), bool(truncated), \
            self._info(invalid)

    def _step_typed(self, command: str):
        """A typed command (families with `accepts_text`): sent as the player typed it."""
        if not self.accepts_text:
            raise ActionOutOfRange(
                f"{type(self).__name__}: action {command!r} is text, but this env takes only "
                f"option indices 0..{self._n - 1} (typed commands: text adventures)")
        if self._ended_at_reset:   # any command continues past an ended game
            return self._after_step(0.0, True, False, False)
        reward, terminated, truncated, accepted = self._game_typed(command)
        if not accepted:
            self._invalid_count += 1
        return self._after_step(reward, terminated, truncated, not accepted)

    def render(self):
        if self.render_mode == "ansi":
            return self._render_ansi()
        if self.render_mode == "rgb_array":
            return self._render_rgb()
        return None

    # ---------------------------------------------------------------- helpers
    def action_masks(self) -> np.ndarray:
        """The current mask as booleans (sb3-contrib MaskablePPO reads this)."""
        return self._mask.astype(bool)

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self._mask).tolist()

    def fallback_action(self) -> int:
        """The family's default when a choice is masked out, or the first legal one."""
        if self._mask[self.fallback_index]:
            return self.fallback_index
        return int(np.flatnonzero(self._mask)[0])

    def text_observation(self) -> dict[str, str]:
        long_term, short_term = self._game_text()
        return {"long_term": long_term, "short_term": short_term}

    def option_labels(self) -> list[str]:
        """Every index's label (fixed command sets), e.g. for a prompt's command list."""
        return [o.label for o in self.option_table]

    def _validate(self, action) -> int:
        try:
            index = operator.index(action)  # ints and numpy integers, not floats or strings
        except TypeError:
            raise ActionOutOfRange(
                f"{type(self).__name__}: action {action!r} is not an integer; "
                f"the action space is Discrete({self._n}): pick an index 0..{self._n - 1}"
            ) from None
        if not 0 <= index < self._n:
            raise ActionOutOfRange(
                f"{type(self).__name__}: action {action!r} is out of range for "
                f"Discrete({self._n}): pick an index 0..{self._n - 1} "
                f"(legal now: {self.legal_actions()})")
        return index

    def _clip_progress(self) -> float:
        return min(1.0, max(0.0, float(self._game_progress())))

    def _observation(self) -> dict[str, np.ndarray]:
        obs = self._game_observation()
        obs["action_mask"] = self._mask.copy()  # ours stays the truth if a caller edits theirs
        return obs

    def _info(self, invalid: bool) -> dict[str, Any]:
        metrics = self._game_metrics()
        metrics["steps"] = self._steps
        metrics["invalid_actions"] = self._invalid_count
        if self._ended_at_reset:
            metrics["ended_before_first_decision"] = True   # so the harness's record says so
            options, decision = [Option(self.fallback_index, self.ended_label, "over")], "over"
        else:
            options, decision = self._options(self._mask), self._decision()
        info = {
            "options": options,
            "decision": decision,
            "progress": self._progress,
            "success": bool(self._game_success()),
            "metrics": metrics,
            "invalid_action": invalid,
        }
        if self._ended_at_reset:
            info["ended_before_first_decision"] = True
        if self.text:
            info["text"] = self.text_observation()
        if self.accepts_text:
            info["free_text"] = True
        return info
