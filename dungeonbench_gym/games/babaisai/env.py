"""BabaIsAIEnv: our Baba Is You rule engine behind the decision stream.

Actions (Discrete(5), BALROG's): 0 idle, 1 up, 2 right, 3 down, 4 left.
Mask: idle always; a move when it changes the board (some YOU object, or a
chain it pushes, can move that way). A masked-out index runs idle, BALROG's
fallback for Baba Is AI.

Observation (numeric, SB3's MultiInputPolicy takes it as is):
`grid` Box(0, 1, (20, 2H-1, 2W-1), uint8), centred on the object that IS YOU
(view="you", the default) so that "where is the goal from me" is the same
pattern wherever the player stands; view="board" gives the board frame,
(20, H, W). Planes: 0-14 one per entity kind (5 objects, 5 noun words, IS,
YOU, WIN, STOP, PUSH), 1 where such an entity stands (cells may stack);
15-18 the cells that ARE you / win / stop / push under the rules in force
(rule blocks are always push); 19 the border wall (and, in the centred view,
everything off the board). With several YOU objects the view centres on the
first in canonical order; with none (the lost, final state) on the board's
middle. `rules` Box(0, 1, (5, 4), uint8): noun x property (you, win, stop,
push) for the rules in force.

Text (`text=True`), BALROG's form: long_term = the active rules, then every
object and rule block by its offset from the object that IS YOU; short_term =
which object you control.

Progress and success: 1 / True once a YOU object moves onto a WIN object
(baba-is-ai's rule, see `rules.step`).

When nothing IS YOU any more, BALROG resets the level and the episode goes on
with the steps it has left (`on_no_you="reset"`, the default): a fresh layout
of the same level is drawn, the text says so once, and `info["you_resets"]`
counts it. `on_no_you="lose"` ends the episode, lost, instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from ...core.env import DecisionEnv
from ...core.options import option_table
from .levels import LEVELS, level_size, make_level_with_plan
from .rules import (IS, N_NOUNS, NOUNS, PROPERTIES, PUSH, STOP, TEXT_BASE, WIN, YOU, Board,
                    is_text, kind_name, legal_actions, rules, step, you_kinds)

ACTIONS = ("idle", "up", "right", "down", "left")
IDLE = 0
# observation planes: objects 0..4, noun words 5..9, then IS YOU WIN STOP PUSH
_PLANE = {**{k: k for k in range(N_NOUNS)}, **{TEXT_BASE + k: N_NOUNS + k for k in range(N_NOUNS)},
          IS: 10, YOU: 11, WIN: 12, STOP: 13, PUSH: 14}
N_ENTITY_PLANES = 15
IN_FORCE_PLANE = 15        # +0 you, +1 win, +2 stop, +3 push
BORDER_PLANE = 19
N_PLANES = 20
VIEWS = ("you", "board")
_PLANE_OF_KIND_LIST = [_PLANE.get(k, 0) for k in range(PUSH + 1)]
# property bits (you 1, win 2, stop 4, push 8) -> the "IS ..." planes they light
_IN_FORCE_PLANES = [tuple(IN_FORCE_PLANE + b for b in range(4) if bits >> b & 1)
                    for bits in range(16)]
_WORD_PLANES = (IN_FORCE_PLANE + 3,)   # rule blocks are always push
_PROP_ROW = [[bits >> b & 1 for b in range(4)] for bits in range(16)]
# one picture colour per plane (objects bright, words pale)
_COLOURS = np.array([
    (240, 240, 240), (110, 90, 80), (230, 200, 40), (250, 180, 30), (200, 60, 160),
    (180, 180, 220), (160, 140, 130), (220, 210, 120), (230, 200, 120), (210, 150, 200),
    (255, 255, 255), (240, 100, 160), (250, 220, 80), (200, 60, 60), (100, 180, 230)], np.uint8)
TILE = 16


class BabaIsAIEnv(DecisionEnv):
    """One Baba Is AI level, a new layout per seed. See the module docstring.

    Args:
        level: one of `levels.LEVELS`, e.g. "goto_win" or "two_room-break_stop-make_win".
        view: "you" (observation grid centred on the YOU object) or "board".
        on_no_you: "reset" (BALROG: a new layout, the episode goes on) or "lose".
        text, on_invalid, render_mode, max_steps: as in `DecisionEnv` (BALROG: 100 steps).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    family = "babaisai"
    option_table = option_table(ACTIONS)
    fallback_index = IDLE
    executes_any_action = True   # a blocked move runs as upstream runs it (passthrough)

    def __init__(self, level: str = "goto_win", *, view: str = "you", text: bool = False,
                 on_invalid: str = "fallback", render_mode: str | None = None,
                 max_steps: int | None = None, on_no_you: str = "reset"):
        if on_no_you not in ("reset", "lose"):
            raise ValueError(f"on_no_you={on_no_you!r}: use 'reset' (BALROG's) or 'lose'")
        self.on_no_you = on_no_you
        if level not in LEVELS:
            raise ValueError(f"level={level!r}: use one of {', '.join(LEVELS)}")
        if view not in VIEWS:
            raise ValueError(f"view={view!r}: use one of {', '.join(VIEWS)}")
        self.level = level
        self.view = view
        width, height = level_size(level)
        grid_shape = ((N_PLANES, height, width) if view == "board"
                      else (N_PLANES, 2 * height - 1, 2 * width - 1))
        super().__init__(
            n_actions=len(ACTIONS),
            observation_spaces={
                "grid": spaces.Box(0, 1, grid_shape, np.uint8),
                "rules": spaces.Box(0, 1, (N_NOUNS, len(PROPERTIES)), np.uint8),
            },
            text=text, on_invalid=on_invalid, render_mode=render_mode, max_steps=max_steps)
        self.board: Board | None = None
        # the layout this episode started from (or was redrawn to) and the
        # generator's winning plan for it (levels.make_level_with_plan)
        self.start_board: Board | None = None
        self.certificate: list[int] = []
        self._borders: dict[tuple[int, int], np.ndarray] = {}
        self._won = self._lost = False
        self._seed = 0
        self._you_resets = 0
        self._just_reset = False

    # ------------------------------------------------------------------ hooks
    def _game_reset(self, seed: int, options: dict | None) -> None:
        self.board, self.certificate = make_level_with_plan(self.level, seed)
        self.start_board = self.board
        self._seed = seed
        self._won = self._lost = self._just_reset = False
        self._you_resets = 0

    def _game_step(self, action: int) -> tuple[float, bool, bool]:
        self.board, self._won, self._lost = step(self.board, action)
        self._just_reset = False
        if self._lost and self.on_no_you == "reset":
            self._you_resets += 1
            self.board, self.certificate = make_level_with_plan(
                self.level, self._seed, redraw=self._you_resets)
            self.start_board = self.board
            self._lost, self._just_reset = False, True
        return float(self._won), self._won or self._lost, False

    def _game_mask(self) -> np.ndarray:
        return np.array(legal_actions(self.board), np.int8)

    def _game_observation(self) -> dict[str, np.ndarray]:
        # Hot path: flat indices built in Python, set in one numpy assignment.
        board = self.board
        height, width = board.height, board.width
        props = board.props()
        if self.view == "board":
            oy = ox = 0
            rows, cols = height, width
        else:
            you = self._you_position()
            cx, cy = you if you is not None else (width // 2, height // 2)
            oy, ox = height - 1 - cy, width - 1 - cx   # board (0,0) lands here
            rows, cols = 2 * height - 1, 2 * width - 1
        grid = np.empty((N_PLANES, rows, cols), np.uint8)
        grid[:BORDER_PLANE] = 0
        grid[BORDER_PLANE] = self._border(oy, ox)
        # planes each entity lights: its kind, then what its kind IS (words: push)
        lit = [_IN_FORCE_PLANES[bits] for bits in props[:N_NOUNS]]
        plane_size = rows * cols
        flat = []
        for code in board.state:
            kind = code >> 16
            cell = (((code >> 8) & 0xFF) + oy) * cols + (code & 0xFF) + ox
            flat.append(_PLANE_OF_KIND_LIST[kind] * plane_size + cell)
            for plane in (lit[kind] if kind < N_NOUNS else _WORD_PLANES):
                flat.append(plane * plane_size + cell)
        grid.reshape(-1)[flat] = 1
        table = np.array([_PROP_ROW[bits] for bits in props[:N_NOUNS]], np.uint8)
        return {"grid": grid, "rules": table}

    def _border(self, oy: int, ox: int) -> np.ndarray:
        """The border plane for a view offset (cached: a handful of offsets per level)."""
        height, width = self.board.height, self.board.width
        key = (height, width, oy, ox)
        plane = self._borders.get(key)
        if plane is None:
            if self.view == "board":
                plane = np.zeros((height, width), np.uint8)
                plane[[0, -1], :] = plane[:, [0, -1]] = 1
            else:
                plane = np.ones((2 * height - 1, 2 * width - 1), np.uint8)
                plane[oy + 1:oy + height - 1, ox + 1:ox + width - 1] = 0
            self._borders[key] = plane
        return plane

    def _game_text(self) -> tuple[str, str]:
        active = [f"{noun} is {prop}" for noun, prop in rules(self.board)]
        lines = ["Active rules:", *active] if active else ["Active rules: none"]
        you = self._you_position()
        lines.append("")
        lines.append("Objects on the map:")
        for kind, x, y in sorted(self.board.entities(), key=lambda e: (e[2], e[1], e[0])):
            if you is not None and (x, y) == you and not is_text(kind) and \
                    kind in you_kinds(self.board):
                continue
            name = f"rule `{kind_name(kind).lower()}`" if is_text(kind) else kind_name(kind)
            lines.append(f"{name} {_offset(x, y, you)}")
        controls = [NOUNS[k] for k in you_kinds(self.board)]
        short = f"You control: {', '.join(controls)}." if controls else "Nothing is YOU."
        if self._just_reset:
            short = ("Your last move left nothing that IS YOU, so the level started again "
                     "with a new layout. " + short)
        return "\n".join(lines), short

    def _game_progress(self) -> float:
        return 1.0 if self._won else 0.0

    def _game_success(self) -> bool:
        return self._won

    def _game_metrics(self) -> dict[str, Any]:
        return {"level": self.level, "won": self._won, "lost": self._lost,
                "you_resets": self._you_resets}

    # -------------------------------------------------------------- rendering
    def _render_ansi(self) -> str:
        return self.board.to_ascii()

    def _render_rgb(self) -> np.ndarray:
        board = self.board
        image = np.zeros((board.height * TILE, board.width * TILE, 3), np.uint8)
        image[:TILE, :] = image[-TILE:, :] = image[:, :TILE] = image[:, -TILE:] = 60
        for code in board.state:  # objects first, then words on top (state is sorted)
            kind, y, x = code >> 16, (code >> 8) & 0xFF, code & 0xFF
            pad = 1 if is_text(kind) else 3
            image[y * TILE + pad:(y + 1) * TILE - pad, x * TILE + pad:(x + 1) * TILE - pad] = \
                _COLOURS[_PLANE[kind]]
        return image

    def _you_position(self) -> tuple[int, int] | None:
        kinds = set(you_kinds(self.board))
        for kind, x, y in self.board.entities():
            if kind in kinds:
                return x, y
        return None


def _offset(x: int, y: int, origin: tuple[int, int] | None) -> str:
    """'2 steps to the right and 1 step up' from the YOU object (BALROG's phrasing)."""
    if origin is None:
        return f"at column {x}, row {y}"
    dx, dy = x - origin[0], y - origin[1]
    parts = []
    if dx:
        parts.append(f"{abs(dx)} step{'s' if abs(dx) > 1 else ''} to the "
                     f"{'right' if dx > 0 else 'left'}")
    if dy:
        parts.append(f"{abs(dy)} step{'s' if abs(dy) > 1 else ''} {'down' if dy > 0 else 'up'}")
    return " and ".join(parts) if parts else "where you are"
