"""TextWorldEnv: BALROG's three TextWorld tasks behind the decision stream.

Tasks: "treasure_hunter", "cooking", "coin_collector" (`games.py` makes the games
offline with TextWorld's generator; the episode seed picks one of the task's pool).

Actions: Discrete(N_SLOTS) = Discrete(128). The options are the game's admissible
commands (TextWorld's `EnvInfos(admissible_commands=True)`), sorted, in slots
0..k-1; the mask marks the filled slots. The admissible list rarely passes 80
(cooking, with a full inventory in the kitchen); if it ever passes N_SLOTS we keep
a deterministic subset: every command of the game's walkthrough and of
TextWorld's winning policy, "look" and "inventory" first, then all but "examine ..." commands, then "examine ..."
commands, alphabetically within each group until the slots are full, and the
kept commands are placed in sorted order again.

Fallback (a masked-out index): "look" when it is admissible, else slot 0. BALROG
sends "help" (not an admissible command); "look" is the harmless command of ours
that the mask allows, and it shows the room again.

Observation (numeric, for RL): hashed bags of words (unigrams and bigrams,
CRC32 mod HASH_DIM = 256, 1 where a feature occurs):
`text` Box(0, 1, (4, 256), uint8), rows: the game's feedback, the room
description, the inventory, the objective; `options` Box(0, 1, (128, 256), uint8),
one row per slot (zero rows for empty slots), so a masked policy can learn to
score commands by their words; `option_ids` Box(0, 4095, (128, 3), int32), per
slot [verb frame id, first object id, second object id] (`core.textcommands`:
"take coin from table" is [take ... from, coin, table], "go north" [go, north, 0];
the same command has the same ids in any slot and any process; zeros for empty
slots and absent objects). docs/text-observation.md lists every key and column.

Text (`text=True`): long_term = the game's feedback, cleaned of the banner, the
objective (repeated in short_term) and the prompt/status line; short_term = the
objective, the inventory and the score.

`text_style="balrog"` (the BALROG protocol): the text is BALROG's, long_term the
game's response with the objective cut out and short_term empty (no objective,
inventory or score lines; the model types "goal" or "inventory" to see them),
and `step()` also takes any typed command (a str), sent to the game as typed,
as BALROG's wrapper accepts every answer. The text comes from a second copy of
the game played without TextWorld's state tracking, as BALROG plays it (the
tracking's action traces change the blank lines the game prints); the prompt and
status line stay for cooking only, whose BALROG files are Z-machine like ours
(its Treasure Hunter and Coin Collector files are Glulx, which print none).

Progress: max(score / max_score, 1 if won) (BALROG's); success = won. The episode
terminates when the game is won or lost; BALROG's 80-step limit is the registry's
max_steps. Reward: the change of the game's score (TextWorld's gym API, which
BALROG passes on, rewards the score so far; BALROG's progression uses the score).

Copies: `pickle`/`copy.deepcopy` work at any point of an episode. Within one
process a copy restores a snapshot of the interpreter and of TextWorld's state
tracking (fast); in another process it replays the episode's commands on the same
game (TextWorld games are deterministic), which gives the same state.
"""

from __future__ import annotations

import itertools
import os
import re
import threading
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
import textworld  # imported here, so that a missing [textworld] extra is named early

from ...core.env import DecisionEnv
from ...core.options import Option
from ...core.textcommands import encode_ids
from ...core.textfeatures import encode_rows, observation_spaces
from . import games

N_SLOTS = 128
TEXT_ROWS = ("feedback", "description", "inventory", "objective")
FALLBACK_COMMAND = "look"
TEXT_STYLES = ("ours", "balrog")
FROTZ_SEED = 20     # the interpreter's random seed (Jericho treats 0 as "use the clock")
_TASK_ALIASES = {"treasure_hunter": "treasure_hunter", "treasurehunter": "treasure_hunter",
                 "cooking": "cooking", "the_cooking_game": "cooking",
                 "coin_collector": "coin_collector", "coincollector": "coin_collector"}


def request_infos(tracked: bool = True):
    """The information we ask TextWorld for each step (benchmarks use the same).

    tracked=False: BALROG's request (its config's textworld_kwargs). Admissible
    commands need TextWorld's state tracking, which turns on the game's action
    traces; cutting them out of the response leaves blank lines the game does
    not print without them, so BALROG's text comes from an untracked game."""
    if not tracked:
        return textworld.EnvInfos(objective=True, description=True, score=True,
                                  max_score=True, won=True)
    return textworld.EnvInfos(admissible_commands=True, description=True, inventory=True,
                              objective=True, score=True, max_score=True, won=True, lost=True)


def start(path: str, tracked: bool = True):
    """A TextWorld environment on one game file, seeded, not yet reset."""
    with warnings.catch_warnings():   # Jericho's note; TextWorld tracks score and state
        warnings.filterwarnings("ignore", message=".*is not fully supported.*")
        env = textworld.start(path, request_infos(tracked))
    env.seed(FROTZ_SEED)
    return env


class TextWorldEnv(DecisionEnv):
    """One of BALROG's TextWorld tasks; the episode seed picks the game. See the module doc.

    Args:
        task: "treasure_hunter", "cooking" or "coin_collector".
        text, on_invalid, render_mode, max_steps: as in `DecisionEnv` (BALROG: 80 steps).
        text_style: "ours" (objective, inventory and score in short_term) or "balrog"
            (BALROG's text, and typed commands accepted: see the module docstring).

    `reset(options={"game": i})` plays game i of the pool instead of the seed's pick.
    """

    family = "textworld"
    fallback_index = 0

    def __init__(self, task: str = "coin_collector", *, text: bool = False,
                 on_invalid: str = "fallback", render_mode: str | None = None,
                 max_steps: int | None = None, text_style: str = "ours"):
        key = str(task).lower().replace("-", "_")
        if key not in _TASK_ALIASES:
            raise ValueError(f"task={task!r}: use one of {', '.join(games.TASKS)}")
        if text_style not in TEXT_STYLES:
            raise ValueError(f"text_style={text_style!r}: use one of {', '.join(TEXT_STYLES)}")
        self.task = _TASK_ALIASES[key]
        self.text_style = text_style
        self.accepts_text = text_style == "balrog"
        super().__init__(
            n_actions=N_SLOTS,
            observation_spaces=observation_spaces(len(TEXT_ROWS), N_SLOTS),
            text=text, on_invalid=on_invalid, render_mode=render_mode, max_steps=max_steps)
        self._tw = None                  # the TextWorld environment (not picklable)
        self._tw_text = None             # balrog style: the same game untracked, for its text
        self._seed_given: int | None = None   # reset's seed, which picks the game
        self.game: games.GameFile | None = None
        self._commands: list[str] = []   # the commands played this episode
        self._slots: list[str] = []      # the command of each filled slot, sorted
        self._admissible: list[str] = []
        self._feedback = self._description = self._inventory = self._objective = ""
        self._score = 0
        self._max_score = 1
        self._won = self._lost = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """reset(seed=s) plays game s % pool size, as BALROG's factory does with a
        seed; options={"game": i} names the game; an unseeded reset draws one."""
        self._seed_given = seed
        return super().reset(seed=seed, options=options)

    # ------------------------------------------------------------------ hooks
    def _game_reset(self, seed: int, options: dict | None) -> None:
        if options and options.get("game") is not None:
            chosen = games.game(self.task, int(options["game"]))
        else:
            given = self._seed_given
            chosen = games.game_for_seed(self.task, seed if given is None else given)
        if self._tw is None or self.game is None or self.game.path != chosen.path:
            self._close_tw()
            self._tw = start(chosen.path)
            if self.text_style == "balrog":
                self._tw_text = start(chosen.path, tracked=False)
        self.game = chosen
        self._commands = []
        self._absorb(self._tw.reset(), self._tw_text.reset() if self._tw_text else None)

    def _game_step(self, action: int) -> tuple[float, bool, bool]:
        return self._play(self._slots[action])

    def _game_typed(self, command: str) -> tuple[float, bool, bool, bool]:
        return (*self._play(command), True)     # BALROG sends every answer to the game

    def _play(self, command: str) -> tuple[float, bool, bool]:
        state, _, done = self._tw.step(command)
        shown = self._tw_text.step(command)[0] if self._tw_text else None
        self._commands.append(command)
        before = self._score
        self._absorb(state, shown)
        return float(self._score - before), bool(done or self._won or self._lost), False

    def _game_mask(self) -> np.ndarray:
        mask = np.zeros(N_SLOTS, np.int8)
        mask[:len(self._slots)] = 1
        return mask

    def _game_observation(self) -> dict[str, np.ndarray]:
        text = encode_rows((self._feedback, self._description, self._inventory,
                            self._objective), len(TEXT_ROWS))
        return {"text": text, "options": encode_rows(self._slots, N_SLOTS),
                "option_ids": encode_ids(self._slots, N_SLOTS)}

    def _game_text(self) -> tuple[str, str]:
        if self.text_style == "balrog":
            return self._feedback, ""
        short = [f"Objective: {self._objective}" if self._objective else "",
                 f"Inventory: {self._inventory}" if self._inventory else "",
                 f"Score: {self._score} out of {self._max_score}"]
        return self._feedback or "(no response)", "\n".join(s for s in short if s)

    def _game_progress(self) -> float:
        progress = self._score / self._max_score if self._max_score else 0.0
        return max(progress, 1.0 if self._won else 0.0)

    def _game_success(self) -> bool:
        return self._won

    def _game_metrics(self) -> dict[str, Any]:
        return {"task": self.task, "game": self.game.index if self.game else -1,
                "game_name": self.game.name if self.game else "", "score": self._score,
                "max_score": self._max_score, "won": self._won, "lost": self._lost,
                "admissible": len(self._admissible)}

    def _options(self, mask: np.ndarray) -> Sequence[Option]:
        return [Option(i, command, "command") for i, command in enumerate(self._slots)]

    def fallback_action(self) -> int:
        """The slot of "look" when it is admissible, else slot 0 (never masked in play)."""
        try:
            return self._slots.index(FALLBACK_COMMAND)
        except ValueError:
            return 0

    def _render_ansi(self) -> str:
        long_term, short_term = self._game_text()
        return f"{long_term}\n\n{short_term}"

    # ----------------------------------------------------------------- helpers
    @property
    def admissible_commands(self) -> list[str]:
        """All admissible commands now (the slots may hold a subset past N_SLOTS)."""
        return list(self._admissible)

    @property
    def commands(self) -> list[str]:
        """The commands played so far this episode."""
        return list(self._commands)

    def _absorb(self, state, shown=None) -> None:
        """Take in a TextWorld state; `shown`: the untracked game's, for BALROG's text."""
        self._objective = _clean(state.get("objective") or "")
        if self.text_style == "balrog":
            shown = shown or state
            self._feedback = _balrog_feedback(shown.get("feedback") or "",
                                              shown.get("objective") or "",
                                              keep_prompt=self.task in BALROG_PROMPTED_TASKS)
        else:
            self._feedback = _clean_feedback(state.get("feedback") or "", self._objective)
        self._description = _clean(state.get("description") or "")
        self._inventory = _clean(state.get("inventory") or "")
        self._score = int(state.get("score") or 0)
        self._max_score = int(state.get("max_score") or 0) or 1
        self._won = bool(state.get("won"))
        self._lost = bool(state.get("lost"))
        self._admissible = list(state.get("admissible_commands") or ())
        plan = (*self.game.walkthrough, *self.game.policy) if self.game else ()
        self._slots = select_slots(self._admissible, plan)
        if not self._slots:   # never seen; keeps the mask from being all zero
            self._slots = [FALLBACK_COMMAND]

    def _close_tw(self) -> None:
        for name in ("_tw", "_tw_text"):
            tw = getattr(self, name)
            if tw is not None:
                try:
                    tw.close()
                finally:
                    setattr(self, name, None)

    def close(self):
        self._close_tw()
        super().close()

    # ---------------------------------------------------------------- copying
    def __getstate__(self):
        state = self.__dict__.copy()
        for name in ("_tw", "_tw_text"):
            tw = state.pop(name, None)
            state[name + "_snapshot"] = (_remember(tw) if tw is not None and not self._done
                                         else None)
        return state

    def __setstate__(self, state):
        tokens = {name: state.pop(name + "_snapshot", None) for name in ("_tw", "_tw_text")}
        self.__dict__.update(state)
        self._tw = self._tw_text = None
        if tokens["_tw"] is None or self.game is None:
            return  # before the first reset or after the episode: reset() starts anew
        for name, token in tokens.items():
            if token is None:
                continue
            tracked = name == "_tw"
            tw = _restore(token, self.game.path, tracked)
            if tw is None:  # another process: replay the episode on the same game
                tw = start(self.game.path, tracked)
                tw.reset()
                for command in self._commands:
                    tw.step(command)
            setattr(self, name, tw)


def select_slots(admissible: Sequence[str], walkthrough: Sequence[str] = (),
                 slots: int = N_SLOTS) -> list[str]:
    """The commands that get a slot, in sorted order (all of them up to `slots`)."""
    commands = sorted(set(admissible))
    if len(commands) <= slots:
        return commands
    keep = set(walkthrough) | {"look", "inventory"}

    def rank(command: str) -> tuple[int, str]:
        if command in keep:
            return (0, command)
        return (2 if command.startswith("examine ") else 1, command)

    return sorted(sorted(commands, key=rank)[:slots])


# ------------------------------------------------------------------- text
_PROMPT_TAIL = re.compile(r"\n>[^\n]*\Z")
_BLANK_LINES = re.compile(r"\n\s*\n(\s*\n)+")


def _clean(text: str) -> str:
    return _BLANK_LINES.sub("\n\n", text.replace("\r", "")).strip()


def _clean_feedback(text: str, objective: str) -> str:
    """The game's response without the banner, the objective, the prompt and status line."""
    text = _PROMPT_TAIL.sub("", text.replace("\r", "").rstrip())
    if objective and objective in text:  # the first screen: banner, objective, room
        text = text.split(objective)[-1]
    return _clean(text)


# BALROG's cooking games are Z-machine files, whose interpreter prints the prompt
# and status line ("> ... -= Kitchen =-0/3") after each response, and BALROG
# shows them; its Treasure Hunter and Coin Collector games are Glulx and print none.
BALROG_PROMPTED_TASKS = frozenset({"cooking"})


def _balrog_feedback(text: str, objective: str, keep_prompt: bool) -> str:
    """BALROG's text: the response after the objective's last mention, stripped
    (its `filter_objective`), blank lines kept, the prompt line kept only where
    BALROG's own game file prints one."""
    if not keep_prompt:
        text = _PROMPT_TAIL.sub("", text.rstrip())
    return text.split(objective)[-1].strip() if objective else text.strip()


# --------------------------------------------------------- in-process snapshots
# pickle.dumps(env) leaves a snapshot of the TextWorld state here; pickle.loads in
# the same process restores from it instead of replaying the whole episode.
_SNAPSHOTS: OrderedDict[str, tuple] = OrderedDict()
_SNAPSHOT_LIMIT = 16
_SNAPSHOT_IDS = itertools.count()
_SNAPSHOT_LOCK = threading.Lock()


def _layers(env) -> list:
    """TextWorld's wrapper chain, outermost first, down to the Jericho env."""
    chain = [env]
    while "_wrapped_env" in vars(chain[-1]):
        chain.append(vars(chain[-1])["_wrapped_env"])
    return chain


def _copy_value(value, memo: dict):
    """Copies for the parts of TextWorld's state that a later step mutates."""
    from textworld.core import GameState
    from textworld.generator.game import GameProgression

    key = id(value)
    if key in memo:
        return memo[key]
    if isinstance(value, GameProgression):
        copied = value.copy()
    elif isinstance(value, GameState):
        copied = GameState()
        memo[key] = copied
        for k, v in value.items():
            copied[k] = _copy_value(v, memo)
    elif isinstance(value, list):
        copied = list(value)
    elif isinstance(value, dict):
        copied = dict(value)
    else:
        return value  # strings, numbers, the Game and other shared, read-only objects
    memo[key] = copied
    return copied


def _capture(tw) -> tuple:
    layers = _layers(tw)
    memo: dict = {}
    saved = []
    for layer in layers:
        attrs = {k: _copy_value(v, memo) for k, v in vars(layer).items()
                 if k not in ("_wrapped_env", "_jericho")}
        saved.append(attrs)
    jericho = vars(layers[-1]).get("_jericho")
    return (tuple(type(layer) for layer in layers), saved, jericho.get_state())


def _apply(snapshot: tuple, tw) -> bool:
    types, saved, frotz_state = snapshot
    layers = _layers(tw)
    if tuple(type(layer) for layer in layers) != types:
        return False
    memo: dict = {}
    for layer, attrs in zip(layers, saved):
        for k, v in attrs.items():
            setattr(layer, k, _copy_value(v, memo))
    vars(layers[-1])["_jericho"].set_state(frotz_state)
    return True


def _remember(tw) -> str:
    token = f"{os.getpid()}:{next(_SNAPSHOT_IDS)}"
    snapshot = _capture(tw)
    with _SNAPSHOT_LOCK:
        _SNAPSHOTS[token] = snapshot
        while len(_SNAPSHOTS) > _SNAPSHOT_LIMIT:
            _SNAPSHOTS.popitem(last=False)
    return token


def _restore(token: str, path: str, tracked: bool = True):
    """A new TextWorld env in the snapshot's state, or None when it is not ours."""
    with _SNAPSHOT_LOCK:
        snapshot = _SNAPSHOTS.get(token)
        if snapshot is not None:
            _SNAPSHOTS.move_to_end(token)
    if snapshot is None or not token.startswith(f"{os.getpid()}:"):
        return None
    tw = start(path, tracked)
    if not _apply(snapshot, tw):
        tw.close()
        return None
    return tw
