"""TextAdventureEnv: any Z-machine story, scored by an achievements file.

The interpreter is Jericho's `FrotzEnv` (Frotz as a library). Jericho's per-game
support (score, walkthroughs, its valid-action detector) is not needed: our own
detector (`actions.py`) finds the valid actions of any story file, and progress
comes from the achievements file (`achievements.py`).

Actions: Discrete(N_SLOTS) = Discrete(128). Slots 0-2 are always "look",
"inventory" and "wait"; then the valid actions of this state (commands that
change the world, one per distinct effect), directions first in compass order,
then alphabetical. The mask marks filled slots. Where there are more valid
actions than slots (not in the games we ship: 31 at most) the choice is split,
never cut: first groups ("take ... (40 commands)", one per verb, neighbours
merged while there are too many; decision "group"), then the group's commands
(or smaller groups), with "back" in the last slot. Opening a group is not a
turn.

Typed commands: `step("open the mailbox")` sends any command as typed (the
essay's setting for language models; `info["free_text"]` says the env takes
them). It is a turn like any other and scored the same way. Meta commands
(save, restore, restart, quit, undo, script, ...) are refused with a message:
the turn is spent and `invalid_action` is set.

Turns: every step is one turn. The episode is truncated at the achievements
file's TURN_LIMIT (achievements count only within it) and terminates when the
game ends (won or died).

Progress: achievements earned / achievements listed; success: all earned.
Metrics: `achievements` (name -> the turn it was earned), `turns`, `won`,
`game_over`, `valid_actions`, and `score` where Jericho knows the game. (The
detector's time for this step is `env.valid_actions.seconds`: not in `info`,
which must be the same in every run.)

Observation (numeric, for RL): hashed bags of words (`core.textfeatures`):
`text` Box(0, 1, (3, 256)): the game's last output, the room and what is in it,
the inventory; `options` Box(0, 1, (128, 256)): one row per slot;
`option_ids` Box(0, 4095, (128, 3), int32): per slot [verb frame id, first
object id, second object id] (`core.textcommands`: "put key in can" is [put ...
in, key, can], "n" [go, north, 0]; zeros for empty slots and absent objects); a
group of a split choice is [GROUP (1), its verb's frame id, 0] ("take ... (40
commands)") or [GROUP, frame id of its first command, id of that command's
object words as one phrase] ("drop can ... take key (12 commands)": [GROUP,
drop, can]); "back" is [BACK (2), 0, 0].
docs/text-observation.md lists every key and column.

Copies: pickle and deepcopy carry the interpreter's state (memory, stack,
random-number generator), so a copy continues the same game in any process.
"""

from __future__ import annotations

import importlib.resources
import re
import warnings
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ...core.env import DecisionEnv
from ...core.options import Option
from ...core.textcommands import encode_ids
from ...core.textfeatures import encode_rows, observation_spaces
from . import achievements as ach
from .actions import ALWAYS, META_VERBS, ActionDetector, ActionSet
from .zmachine import Story

N_SLOTS = 128
TEXT_ROWS = ("output", "room", "inventory")
GAMES_FOLDER = "textadventures"   # inside the scenarios package
_PROMPT_TAIL = re.compile(r"\n>[^\n]*\Z")   # the prompt, and the status line after it
_BLANK_LINES = re.compile(r"\n\s*\n(\s*\n)+")
_END = re.compile(r"\*\*\*\s*([^*]+?)\s*\*\*\*")
_FINAL_QUESTION = re.compile(r"RESTART.*RESTORE|restart the game.*restore", re.S | re.I)


def shipped_games() -> list[str]:
    """The games in scenarios/textadventures/ (each a folder with NAME.z5, ...)."""
    root = importlib.resources.files("dungeonbench_gym.scenarios") / GAMES_FOLDER
    return sorted(p.name for p in root.iterdir()
                  if p.is_dir() and (p / f"{p.name}.z5").is_file())


def game_files(game: str) -> dict[str, Path]:
    """Story, achievements and walkthrough of a shipped game."""
    root = Path(str(importlib.resources.files("dungeonbench_gym.scenarios"))) / GAMES_FOLDER
    folder = root / game
    story = folder / f"{game}.z5"
    if not story.is_file():
        raise ValueError(f"game={game!r}: no such game; shipped games: "
                         f"{', '.join(shipped_games())} (or pass story_file=...)")
    return {"story": story, "achievements": folder / f"{game}.achievements",
            "walkthrough": folder / f"{game}.walkthrough"}


def clean_output(text: str) -> str:
    """The game's response without the prompt and the status line after it."""
    text = _PROMPT_TAIL.sub("", text.replace("\r", "").rstrip())
    return _BLANK_LINES.sub("\n\n", text).strip()


def _partition(items: list[str], room: int) -> list[tuple[str, list[str]]]:
    """At most `room` (label, commands) groups, in order: one per verb, neighbours
    merged (smallest pair first) while there are too many; commands of a single
    verb are cut into even runs."""
    parts: list[list[str]] = []
    for label in items:
        if parts and _verb_of(parts[-1][0]) == _verb_of(label):
            parts[-1].append(label)
        else:
            parts.append([label])
    if len(parts) == 1:
        size = -(-len(items) // room)
        parts = [items[i:i + size] for i in range(0, len(items), size)]
    while len(parts) > room:
        i = min(range(len(parts) - 1), key=lambda k: (len(parts[k]) + len(parts[k + 1]), k))
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
    out = []
    for members in parts:
        if len(members) == 1:
            out.append((members[0], members))
            continue
        first, last = _verb_of(members[0]), _verb_of(members[-1])
        if first == last and len(set(map(_verb_of, members))) == 1 and len(parts) > 1 \
                and all(_verb_of(p[0]) != first for p in parts if p is not members):
            label = f"{first} ... ({len(members)} commands)"
        else:
            label = f"{members[0]} ... {members[-1]} ({len(members)} commands)"
        out.append((label, members))
    return out


def _verb_of(label: str) -> str:
    """The group a command falls in when the choice is split: its verb ("switch on",
    "take off" keep their particle)."""
    words = label.split()
    if len(words) > 1 and words[1] in ("on", "off", "up", "out") and words[0] != "put":
        return " ".join(words[:2])
    return words[0]


def is_meta(command: str) -> bool:
    words = command.lower().replace(".", " ").split()
    return bool(words) and words[0] in META_VERBS


class TextAdventureEnv(DecisionEnv):
    """A Z-machine text adventure scored by achievements. See the module doc.

    Args:
        story_file: a .z3/.z5/.z8 story file, or None for `game`.
        achievements: its achievements file (None: no achievements; progress stays 0).
        game: a shipped game ("lighthouse", "greenhouse"); ignored when story_file is given.
        turn_limit: overrides the file's TURN_LIMIT.
        detector_workers: interpreters trying candidate commands in parallel threads.
        slots: how many options a decision shows before it is split (at most N_SLOTS;
            smaller only to exercise the split).
        text, on_invalid, render_mode, max_steps: as in `DecisionEnv`.
    """

    family = "textadventure"
    fallback_index = 0          # "look"
    accepts_text = True

    def __init__(self, story_file: str | None = None, achievements: str | None = None, *,
                 game: str | None = None, turn_limit: int | None = None,
                 detector_workers: int = 2, slots: int = N_SLOTS, text: bool = False,
                 on_invalid: str = "fallback",
                 render_mode: str | None = None, max_steps: int | None = None):
        if story_file is not None:
            game = None          # a story of one's own replaces the registry's default game
        else:
            if game is None:
                raise ValueError("TextAdventureEnv needs story_file=... (a Z-machine story) "
                                 f"or game=... (one of {', '.join(shipped_games())})")
            files = game_files(game)
            story_file = str(files["story"])
            if achievements is None and files["achievements"].is_file():
                achievements = str(files["achievements"])
        if not Path(story_file).is_file():
            raise FileNotFoundError(f"story_file={story_file!r}: no such file")
        self.story = Story(story_file)
        self.game = game or Path(story_file).stem
        self.achievement_file = ach.load(achievements) if achievements else None
        self.turn_limit = turn_limit or (self.achievement_file.turn_limit
                                         if self.achievement_file else None)
        if self.turn_limit is not None and self.turn_limit < 1:
            raise ValueError(f"turn_limit={turn_limit}: must be a positive number of turns")
        super().__init__(
            n_actions=N_SLOTS,
            observation_spaces=observation_spaces(len(TEXT_ROWS), N_SLOTS),
            text=text, on_invalid=on_invalid, render_mode=render_mode, max_steps=max_steps)
        self.detector_workers = detector_workers
        if not 4 <= slots <= N_SLOTS:
            raise ValueError(f"slots={slots}: use 4..{N_SLOTS} (fewer only to test the split)")
        self.slots = slots
        self._frotz = None
        self._detector: ActionDetector | None = None
        self._frotz_seed = 1
        self._new_episode_state()

    def _new_episode_state(self) -> None:
        self._tracker = ach.Tracker(self.achievement_file) if self.achievement_file else None
        self._turns = 0
        self._output = ""
        self._actions = ActionSet(list(ALWAYS), [(c,) for c in ALWAYS], [()] * len(ALWAYS))
        self._won = self._over = False
        self._path: list[int] = []          # the groups opened when the choice is split
        self._menu: list[tuple[str, str]] = []   # (label, kind) of each slot now
        self._history: list[str] = []

    # ------------------------------------------------------------------ hooks
    def _game_reset(self, seed: int, options: dict | None) -> None:
        self._frotz_seed = 1 + seed % 32749     # Jericho reads 0 as "seed from the clock"
        self._start()
        self._new_episode_state()
        output, _ = self._frotz.reset()
        self._absorb(output)

    def _game_step(self, action: int) -> tuple[float, bool, bool]:
        label, kind = self._menu[action]
        if kind in ("group", "back"):   # moving in a split choice: not a turn
            self._path = self._path + [action] if kind == "group" else self._path[:-1]
            self._menu = self._build_menu()
            return 0.0, False, False
        return self._play(label)

    def _game_typed(self, command: str) -> tuple[float, bool, bool, bool]:
        command = " ".join(command.split())
        if not command or is_meta(command):
            what = f"'{command}'" if command else "an empty command"
            self._output = (f"[{what} is not available here: save, restore, restart, quit, "
                            "undo and transcripts are refused; type a command for the game.]")
            self._turns += 1
            self._history.append(command)
            return 0.0, False, self._out_of_turns(), False
        return (*self._play(command), True)

    def _game_mask(self) -> np.ndarray:
        mask = np.zeros(N_SLOTS, np.int8)
        mask[:len(self._menu)] = 1
        return mask

    def _game_observation(self) -> dict[str, np.ndarray]:
        scope = " ".join(self._actions.scope)
        room = f"{self._actions.room} {scope}"
        return {"text": encode_rows((self._output, room, " ".join(self._actions.inventory)),
                                    len(TEXT_ROWS)),
                "options": encode_rows([label for label, _ in self._menu], N_SLOTS),
                "option_ids": encode_ids(self._menu, N_SLOTS)}

    def _game_text(self) -> tuple[str, str]:
        limit = f" of {self.turn_limit}" if self.turn_limit else ""
        return self._output or "(no response)", f"Turn {self._turns}{limit}."

    def _game_progress(self) -> float:
        return self._tracker.progress if self._tracker else 0.0

    def _game_success(self) -> bool:
        return bool(self._tracker and self._tracker.complete)

    def _game_metrics(self) -> dict[str, Any]:
        metrics = {"game": self.game, "turns": self._turns, "won": self._won,
                   "game_over": self._over,
                   "achievements": dict(self._tracker.earned) if self._tracker else {},
                   "achievements_listed": len(self.achievement_file.achievements) if self.achievement_file else 0,
                   "valid_actions": len(self._actions.labels)}
        if self._frotz is not None and getattr(self._frotz, "is_fully_supported", False):
            metrics["score"] = int(self._frotz.get_score())
        return metrics

    def _options(self, mask: np.ndarray) -> Sequence[Option]:
        return [Option(i, label, kind) for i, (label, kind) in enumerate(self._menu)]

    def _decision(self) -> str:
        return "group" if any(kind == "group" for _, kind in self._menu) else "command"

    def fallback_action(self) -> int:
        """"look" where it is shown, else "back" (never a real command)."""
        for i, (label, kind) in enumerate(self._menu):
            if label == "look" or kind == "back":
                return i
        return 0

    def _build_menu(self) -> list[tuple[str, str]]:
        """The slots now: every valid action, or, past `slots`, groups of them (by
        verb, neighbours merged while there are too many), opened one level at a time."""
        items, back = self._opened()
        if len(items) + back <= self.slots:
            menu = [(label, "command") for label in items]
        else:
            menu = [(label, "group" if len(members) > 1 else "command")
                    for label, members in _partition(items, self.slots - back)]
        return menu + [("back", "back")] * back

    def _opened(self) -> tuple[list[str], bool]:
        """The commands of the group opened now (all of them at the top), and whether
        a "back" slot is needed."""
        items, back = list(self._actions.labels), False
        for index in self._path:
            parts = _partition(items, self.slots - back)
            items, back = parts[index][1], True
        return items, back

    def group_members(self, index: int) -> list[str]:
        """The commands inside the group option at `index` (an LLM tool, and tests)."""
        items, back = self._opened()
        label, kind = self._menu[index]
        if kind != "group":
            return [label] if kind == "command" else []
        return next(m for lab, m in _partition(items, self.slots - back) if lab == label)

    def _render_ansi(self) -> str:
        long_term, short_term = self._game_text()
        return f"{long_term}\n\n{short_term}"

    # ----------------------------------------------------------------- helpers
    @property
    def valid_actions(self) -> ActionSet:
        """The detector's result for the current state (labels, members, effects)."""
        return self._actions

    @property
    def commands(self) -> list[str]:
        """The commands played so far this episode (refused ones included)."""
        return list(self._history)

    @property
    def detector(self) -> ActionDetector:
        return self._detector

    def _start(self) -> None:
        if self._frotz is None:
            import jericho   # imported here: a missing [textadventure] extra is named early
            with warnings.catch_warnings():   # "not fully supported": we need no support
                warnings.simplefilter("ignore")
                self._frotz = jericho.FrotzEnv(str(self.story.path), seed=self._frotz_seed)
            self._detector = ActionDetector(self._frotz, self.story,
                                            workers=self.detector_workers)
        self._frotz.seed(self._frotz_seed)

    def _play(self, command: str) -> tuple[float, bool, bool]:
        output, reward, _, _ = self._frotz.step(command)
        self._turns += 1
        self._history.append(command)
        self._absorb(output)
        return float(reward), self._over, self._out_of_turns()

    def _out_of_turns(self) -> bool:
        return self.turn_limit is not None and self._turns >= self.turn_limit

    def _absorb(self, raw: str) -> None:
        self._output = clean_output(raw)
        if self._tracker is not None:
            self._tracker.observe(self._output, self._turns)
        self._won, self._over = self._ending(raw)
        if self._over:
            self._actions = ActionSet(list(ALWAYS), [(c,) for c in ALWAYS], [()] * len(ALWAYS))
        else:
            self._detector.hear(self._output)     # its nouns are topics for ask/tell
            self._actions = self._detector.detect()
        self._path = []
        self._menu = self._build_menu()

    def _ending(self, raw: str) -> tuple[bool, bool]:
        """(won, game over): Jericho's answer where it knows the game, else the text."""
        frotz = self._frotz
        if getattr(frotz, "is_fully_supported", False):
            won = bool(frotz.victory())
            return won, won or bool(frotz.game_over())
        if frotz._emulator_halted():
            return False, True
        banner = _END.search(raw)
        if banner and _FINAL_QUESTION.search(raw):
            return "won" in banner.group(1).lower(), True
        return False, False

    def close(self):
        if self._detector is not None:
            self._detector.close()
        self._frotz = None
        self._detector = None
        super().close()

    # ---------------------------------------------------------------- copying
    def __getstate__(self):
        state = self.__dict__.copy()
        frotz = state.pop("_frotz", None)
        state.pop("_detector", None)
        state["_frotz_state"] = frotz.get_state() if frotz is not None else None
        return state

    def __setstate__(self, state):
        frotz_state = state.pop("_frotz_state", None)
        self.__dict__.update(state)
        self._frotz = None
        self._detector = None
        if frotz_state is not None:
            self._start()
            self._frotz.reset()
            self._frotz.set_state(frotz_state)
