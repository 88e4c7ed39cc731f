"""NLEDecisionEnv: one NLE game (NetHack or a MiniHack task) behind the decision stream.

The upstream env is NLE's own Gymnasium env, used unwrapped; this class owns
the command vocabulary (`commands.py`), reads what the game waits for
(`prompts.py`) to build the mask, and writes the text (`language.py`) only
when asked.

Observation (numeric; docs/nle-observation.md lists every key and column):
`glyphs` (21x79), `chars_crop` (9x9 around the hero), `blstats`, `message`,
`inv_glyphs`, `decision` (one-hot over `prompts.DECISIONS`), `action_mask`,
and, per action index, what it means in the pending decision
(`option_features.py`): `options` (117 x 77 float32: role, the named object's
class, BUC, enchantment, charges, worn/wielded, count and hashed words for an
item letter or menu entry, a menu entry's selection, a direction's dx/dy/dz)
and `option_ids` (117 x 2 int32: the key in its role, and the object it names:
its glyph for an inventory item, a text bucket for another menu entry). Masked
indices have zero rows and ids.

Seeding: NLE's `reset(seed=...)` does not seed NetHack, so each episode seed
is turned into NetHack's core, display and level-generation seeds, set
before every reset, with the moon phase fixed; the same seed and actions then
give the same game in any process.

`nle_prompts=True` (BALROG's setting: it makes NLE's env with NLE's defaults):
NLE's own handling of what the game waits for, after every step: --More-- and
menus pressed through, text input cancelled, y/n and item questions declined
unless they ask what to eat, whom to attack, a direction or whether to pray.
Otherwise (our default) every question and menu is a decision of the agent's.

`auto_more=True` (BALROG's `skip_more`, the BALROG protocol's setting): a pure
--More-- (not a menu) is pressed for the agent after each step, as BALROG's
AutoMore wrapper does, and the messages it hid open the next text.

`text_style="balrog"` (the BALROG protocol's setting): the text is BALROG's
(`balrog_text.py`: NLE's language observation, the cursor and the whole
terminal, then the inventory), and --More-- is pressed, with `auto_more`,
exactly when BALROG's AutoMore presses it: while the message reads --More--.

Pickling: NLE's C state cannot be pickled, so a pickle holds the episode's
seed and the keys played since reset, and unpickling replays them (a few
microseconds per step). `copy.deepcopy` works the same way.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from nle import nethack

from ...core.env import DecisionEnv
from .commands import COMMAND_INDICES, CONTINUE, ESCAPE, KEYS, LETTER_INDEX, OPTION_TABLE
from . import balrog_text
from . import option_features
from .language import message_text, text_observation
from .prompts import DECISIONS, WAITING_FOR_SPACE, Prompt, is_menu, read_prompt

# what NLE is asked for: enough for the mask, the numeric observation, the metrics
CORE_KEYS = ("glyphs", "chars", "blstats", "message", "tty_chars", "tty_cursor", "inv_glyphs",
             "inv_letters", "inv_oclasses", "inv_strs")
TEXT_STYLES = ("ours", "balrog")
# NLE always computes its "internal" array, whose fields 1-3 are what `misc` would
# hold (in a question, in text input, waiting for a key); MiniHack cannot be asked
# for `misc`, so both families read it from there.
INTERNAL_MISC = slice(1, 4)
DEATH = 1   # NLE's StepStatus.DEATH: the game itself ended
CROP = 9   # side of the hero-centred window of map characters
_HOW_DONE = {int(getattr(nethack, name)): name.lower().replace("_", " ") for name in (
    "DIED", "CHOKING", "POISONING", "STARVING", "DROWNING", "BURNING", "DISSOLVED", "CRUSHING",
    "STONING", "TURNED_SLIME", "GENOCIDED", "PANICKED", "TRICKED", "QUIT", "ESCAPED", "ASCENDED")}
AUTO_MORE_LIMIT = 32   # presses of --More-- after one step at most (BALROG: until none)
ITEM_LIST_KEY = LETTER_INDEX["*"]   # in an item question: open the list of every item
BL_X, BL_Y, BL_SCORE, BL_DEPTH, BL_GOLD, BL_XL, BL_TIME, BL_HUNGER = 0, 1, 9, 12, 13, 18, 20, 21


def nethack_seeds(seed: int) -> tuple[int, int, int]:
    """NetHack's core, display and level-generation seeds for an episode seed."""
    core, disp, lgen = np.random.SeedSequence(seed).generate_state(3, np.uint64).tolist()
    return core, disp, lgen


class NLEDecisionEnv(DecisionEnv):
    """Base of the NetHack and MiniHack envs. Subclasses build the upstream env
    (`_make_upstream`) and say what progress and success mean."""

    metadata = {"render_modes": ["ansi"], "render_fps": 10}
    family = "nethack"
    option_table = OPTION_TABLE
    # every index is a key NLE sends as typed, masked or not (BALROG sends any key too)
    executes_any_action = True
    fallback_index = ESCAPE
    allowed_commands: tuple[int, ...] = COMMAND_INDICES
    # step NLE's game directly (NetHack); MiniHack's task logic lives in its env's step
    direct_steps = False

    def __init__(self, *, stall_limit: int | None = None, text: bool = False,
                 on_invalid: str = "fallback", render_mode: str | None = None,
                 max_steps: int | None = None, auto_more: bool = False,
                 nle_prompts: bool = False, text_style: str = "ours"):
        if text_style not in TEXT_STYLES:
            raise ValueError(f"text_style={text_style!r}: use one of {', '.join(TEXT_STYLES)}")
        self.text_style = text_style
        self.stall_limit = stall_limit
        self.nle_prompts = bool(nle_prompts)    # read by _make_upstream
        self.auto_more = bool(auto_more)
        self._skipped: list[str] = []    # messages of the --More-- screens pressed for the agent
        self._balrog_message = ""        # BALROG's message of this step (text_style="balrog")
        self._more_screens: list[np.ndarray] = []   # the screens it was read from
        self._upstream = self._make_upstream(CORE_KEYS)
        self._upstream_index = {int(a): i for i, a in enumerate(self._upstream.actions)}
        missing = sorted({chr(k) for k in KEYS if k not in self._upstream_index})
        if missing:
            raise RuntimeError(f"{type(self).__name__}: the upstream env lacks keys {missing}")
        # our option index -> upstream action index, once
        self._to_upstream = [self._upstream_index[k] for k in KEYS]
        blstats = self._upstream.observation_space["blstats"]
        super().__init__(
            n_actions=len(OPTION_TABLE),
            observation_spaces={
                "glyphs": self._upstream.observation_space["glyphs"],
                "chars_crop": spaces.Box(0, 255, (CROP, CROP), np.uint8),
                "blstats": blstats,
                "message": self._upstream.observation_space["message"],
                "inv_glyphs": self._upstream.observation_space["inv_glyphs"],
                "decision": spaces.Box(0, 1, (len(DECISIONS),), np.int8),
                "options": spaces.Box(
                    np.broadcast_to(option_features.LOW, (len(OPTION_TABLE), option_features.N_FEATURES)),
                    np.broadcast_to(option_features.HIGH, (len(OPTION_TABLE), option_features.N_FEATURES)),
                    dtype=np.float32),
                "option_ids": spaces.Box(0, option_features.VOCAB - 1, (len(OPTION_TABLE), 2),
                                         np.int32),
            },
            text=text, on_invalid=on_invalid, render_mode=render_mode, max_steps=max_steps)
        self._obs: dict[str, np.ndarray] = {}
        self._blstats = np.zeros(self._upstream.observation_space["blstats"].shape, np.int64)
        self._prompt = Prompt("command", "", self.allowed_commands)
        # an item question's '*' opened the window on the screen: its untitled
        # inventory list is one to pick from, not the inventory shown (prompts.py)
        self._item_list = False
        self._mask_cache: dict[tuple[int, ...], np.ndarray] = {}
        self._option_encoder = option_features.OptionEncoder()
        self._episode_seed = 0
        self._played: list[int] = []
        self._stalled = 0
        self._last_time = -1
        self._end_status = 0
        self._how_done = ""
        self._last_message = b""
        # a space-filled frame around the map, so the hero-centred crop is one slice
        half = CROP // 2
        self._framed = np.full((21 + 2 * half, 79 + 2 * half), ord(" "), np.uint8)

    # ------------------------------------------------------- subclass hooks
    def _make_upstream(self, observation_keys: tuple[str, ...]):
        """The NLE env this game runs on (NetHackEnv, MiniHackEnv build theirs)."""
        raise NotImplementedError(f"{type(self).__name__} must build its upstream NLE env")

    def _seed_upstream(self, seed: int) -> None:
        """Set NetHack's seeds from the episode seed (subclasses may add their own)."""
        core, disp, lgen = nethack_seeds(seed)
        self._upstream.seed(core, disp, False, lgen)

    # ------------------------------------------------------------------ hooks
    def _game_reset(self, seed: int, options: dict | None) -> None:
        self._episode_seed = seed
        self._played = []
        self._start_game(seed)

    def _start_game(self, seed: int) -> None:
        self._seed_upstream(seed)
        self._obs, _ = self._upstream.reset()
        self._skipped = []
        self._balrog_message = ""
        self._more_screens = []
        self._blstats = self._obs["blstats"].copy()
        self._score = int(self._blstats[BL_SCORE])
        self._stalled = 0
        self._last_time = int(self._obs["blstats"][BL_TIME])
        self._end_status = 0
        self._how_done = ""
        self._last_message = b""
        self._item_list = False

    def _game_step(self, action: int) -> tuple[float, bool, bool]:
        if action == ITEM_LIST_KEY and self._prompt.decision == "item":
            self._item_list = True   # kept while that window stays (_game_mask)
        reward, terminated, truncated = self._step_key(action)
        self._skipped = []
        self._balrog_message = ""
        self._more_screens = []
        if not self.auto_more:
            return reward, terminated, truncated
        if self.text_style == "balrog":
            return self._balrog_more(reward, terminated, truncated)
        for _ in range(AUTO_MORE_LIMIT):
            if terminated or truncated or not self._waiting_for_more():
                break
            self._skipped.append(message_text(self._obs["message"]))
            more, terminated, truncated = self._step_key(CONTINUE)
            reward += more
        return reward, terminated, truncated

    def _balrog_more(self, reward: float, terminated: bool, truncated: bool):
        """BALROG's AutoMore: while the message reads --More--, press it, and
        join the pages' messages."""
        pages = [balrog_text.text_message(self._obs["tty_chars"])]
        self._more_screens = [self._obs["tty_chars"].copy()]   # for the parity benchmark
        for _ in range(AUTO_MORE_LIMIT):
            if terminated or truncated or "--More--" not in balrog_text.more_pages(pages):
                break
            more, terminated, truncated = self._step_key(CONTINUE)
            reward += more
            pages.append(balrog_text.text_message(self._obs["tty_chars"]))
            self._more_screens.append(self._obs["tty_chars"].copy())
        self._balrog_message = balrog_text.more_pages(pages)
        return reward, terminated, truncated

    def _waiting_for_more(self) -> bool:
        upstream = self._upstream
        misc = upstream.last_observation[upstream._internal_index][INTERNAL_MISC]
        return bool(misc[WAITING_FOR_SPACE]) and not is_menu(self._obs["tty_chars"])

    def _step_key(self, action: int) -> tuple[float, bool, bool]:
        upstream_action = self._to_upstream[action]
        self._played.append(upstream_action)
        message = self._obs["message"]
        if message[0]:   # the last words before a death are the best account of it
            self._last_message = message.tobytes()
        if self.direct_steps:
            reward, terminated, truncated = self._direct_step(upstream_action)
        else:
            self._obs, reward, terminated, truncated, info = self._upstream.step(upstream_action)
            self._end_status = int(info["end_status"])
        obs = self._obs
        if not terminated:   # NLE zeroes blstats once the game is over: keep the last ones
            np.copyto(self._blstats, obs["blstats"])
        elif self._end_status == DEATH:   # NLE reports ascending this way too
            self._how_done = self._describe_end()
        if self.stall_limit is not None:
            now = int(obs["blstats"][BL_TIME])
            self._stalled = self._stalled + 1 if now == self._last_time else 0
            self._last_time = now
            if self._stalled >= self.stall_limit:
                truncated = True   # BALROG: the game clock stopped advancing
        return float(reward), bool(terminated), bool(truncated)

    def _direct_step(self, upstream_action: int) -> tuple[float, bool, bool]:
        """NLE's step without its per-step bookkeeping (a copy of every observation
        array, time penalties, an info dict): the game, the end screens, the score.
        The observation arrays are NLE's own buffers, refreshed in place."""
        up = self._upstream
        observation, done = up.nethack.step(up.actions[upstream_action])
        # game over: click through; with NLE's prompt handling, after every step (NLE's step)
        if observation[up._program_state_index][0] == 1 or self.nle_prompts:
            observation, done = up._perform_known_steps(observation, done, exceptions=True)
        up.last_observation = observation
        up._steps += 1
        if done:
            self._end_status = DEATH
            return 0.0, True, False
        score = int(observation[up._blstats_index][BL_SCORE])
        reward, self._score = score - self._score, score
        return float(reward), False, False

    def _game_mask(self) -> np.ndarray:
        obs = self._obs
        upstream = self._upstream
        misc = upstream.last_observation[upstream._internal_index][INTERNAL_MISC]
        self._prompt = read_prompt(misc, obs["message"], obs["tty_chars"], self.allowed_commands,
                                   item_list=self._item_list)
        if self._prompt.decision != "menu":
            self._item_list = False   # the list closed (or never opened)
        legal = self._prompt.legal
        mask = self._mask_cache.get(legal)
        if mask is None:
            mask = np.zeros(len(OPTION_TABLE), np.int8)
            mask[list(legal)] = 1
            self._mask_cache[legal] = mask
        return mask.copy()

    def _game_observation(self) -> dict[str, np.ndarray]:
        obs = self._obs
        decision = np.zeros(len(DECISIONS), np.int8)
        decision[DECISIONS.index(self._prompt.decision)] = 1
        rows, ids = self._option_encoder.encode(self._prompt, obs)
        return {
            "glyphs": obs["glyphs"].copy(),
            "chars_crop": self._crop(obs["chars"]),
            "blstats": obs["blstats"].copy(),
            "message": obs["message"].copy(),
            "inv_glyphs": obs["inv_glyphs"].copy(),
            "decision": decision,
            "options": rows,
            "option_ids": ids,
        }

    def _game_text(self) -> tuple[str, str]:
        if self.text_style == "balrog":
            message = self._balrog_message or balrog_text.text_message(self._obs["tty_chars"])
            return balrog_text.hybrid_text(self._obs, message)
        long_term, short_term = text_observation(self._obs, self._prompt, self._hero())
        if self._skipped:
            earlier = " ".join(m for m in self._skipped if m)
            long_term = f"Messages before: {earlier}\n{long_term}" if earlier else long_term
        return long_term, short_term

    def _decision(self) -> str:
        return self._prompt.decision

    def _game_metrics(self) -> dict[str, Any]:
        b = self._blstats
        return {"depth": int(b[BL_DEPTH]), "experience_level": int(b[BL_XL]),
                "score": int(b[BL_SCORE]), "gold": int(b[BL_GOLD]), "turns": int(b[BL_TIME]),
                "death": self._how_done}

    def fallback_action(self) -> int:
        """The family's fallback when legal now, else escape (legal in every state)."""
        return self.fallback_index if self._mask[self.fallback_index] else ESCAPE

    def _render_ansi(self) -> str:
        return "\n".join(bytes(r).decode("ascii", "replace").rstrip()
                         for r in self._obs["tty_chars"])

    def close(self):
        if getattr(self, "_upstream", None) is not None:
            self._upstream.close()
        super().close()

    # ---------------------------------------------------------------- helpers
    def _hero(self) -> tuple[int, int]:
        b = self._blstats
        return int(b[BL_X]), int(b[BL_Y])

    def _crop(self, chars: np.ndarray) -> np.ndarray:
        half = CROP // 2
        framed = self._framed
        framed[half:-half, half:-half] = chars
        b = self._blstats
        x, y = int(b[BL_X]), int(b[BL_Y])
        return framed[y:y + CROP, x:x + CROP].copy()

    def _describe_end(self) -> str:
        """How the game ended, in words: "died (You die...)"."""
        how = _HOW_DONE.get(int(self._upstream.nethack.how_done()), "ended")
        last = self._last_message.split(b"\0", 1)[0].decode("ascii", "replace").strip()
        return f"{how} ({last})" if last else how

    # --------------------------------------------------------------- pickling
    def __getstate__(self):
        state = self.__dict__.copy()
        state["_upstream"] = None
        state["_obs"] = None
        state["_option_encoder"] = None   # a cache: rebuilt empty
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._upstream = self._make_upstream(CORE_KEYS)
        self._option_encoder = option_features.OptionEncoder()
        played = list(self._played)
        kept = {k: state[k] for k in ("_stalled", "_last_time", "_end_status", "_how_done",
                                      "_last_message", "_blstats", "_score", "_skipped",
                                      "_balrog_message", "_item_list") if k in state}
        self._start_game(self._episode_seed)
        for upstream_action in played:   # the same path as the original steps took
            if self.direct_steps:
                self._direct_step(upstream_action)
            else:
                self._obs = self._upstream.step(upstream_action)[0]
        self.__dict__.update(kept)
