"""BabyAIEnv: BALROG's five BabyAI-Text tasks on minigrid's BabyAI engine (levels.py).

Actions (Discrete(6), index i is always the same command, minigrid's action i):

    0 turn left   1 turn right   2 go forward   3 pick up   4 drop   5 toggle

minigrid's seventh action, "done", is not offered. A masked-out index runs
"go forward" if that is legal, else the first legal action; with
`on_invalid="passthrough"` it runs as BALROG runs it, a wasted step (minigrid
executes any action).

Mask rule (computed from the cell in front of the agent and what it carries):

- turn left, turn right: always legal (so the mask is never all zero);
- go forward: the front cell can be entered: it is empty or an open door, and
  it is not on the outer boundary of the grid (a door in the outer wall opens
  onto nothing, so it is never walked through);
- pick up: hands are empty and the front cell holds a key, ball or box;
- drop: something is carried and the front cell is empty;
- toggle: the front cell is a box, an unlocked door (open or closed), or a
  locked door while carrying a key of the door's color.

Observation (a Dict, all numeric, accepted by SB3's MultiInputPolicy as is):
`image` minigrid's 7x7x3 encoded egocentric view (object, color, state
indices, bounded by their true maxima so SB3 flattens it instead of trying a
CNN), `direction` the agent's heading 0..3, `mission` the mission as token ids
(see `text.VOCAB`), computed once per episode, and `action_mask`.

Text (`text=True`): long_term = what the agent sees now, BabyAI-Text's lines
("You carry a blue key", "a wall 2 steps forward", "a red ball 1 step left
and 2 steps forward"; see `text.describe_view`); short_term = "Your goal:
<mission>".

Progress and success: 1 / True once minigrid's verifier reports the mission
done (a step with reward > 0), else 0 / False.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from minigrid.core.constants import COLOR_TO_IDX, OBJECT_TO_IDX, STATE_TO_IDX
from minigrid.core.world_object import Key

from ...core.env import DecisionEnv
from ...core.options import option_table
from .levels import TASKS, TaskLevel, make_level
from .text import MISSION_LENGTH, VOCAB_SIZE, describe_view, tokenize

ACTIONS = ("turn left", "turn right", "go forward", "pick up", "drop", "toggle")
LEFT, RIGHT, FORWARD, PICKUP, DROP, TOGGLE = range(6)
# (dx, dy) of minigrid's headings 0..3: right, down, left, up
_HEADING = ((1, 0), (0, 1), (-1, 0), (0, -1))
# the true upper bounds of minigrid's cell encoding, per channel
IMAGE_HIGH = np.array([max(OBJECT_TO_IDX.values()), max(COLOR_TO_IDX.values()),
                       max(STATE_TO_IDX.values())], np.uint8)
# Every possible mask, indexed by forward | pick up << 1 | drop << 2 | toggle << 3 (turns are
# always legal); legal_mask hands out copies, so callers may keep or edit theirs.
_MASKS = tuple(np.array([1, 1, k & 1, k >> 1 & 1, k >> 2 & 1, k >> 3 & 1], np.int8)
               for k in range(16))


def legal_mask(level: TaskLevel) -> np.ndarray:
    """The mask rule of the module docstring, as a fresh int8 array of length 6."""
    x, y = level.agent_pos
    dx, dy = _HEADING[level.agent_dir]
    fx, fy = int(x) + dx, int(y) + dy
    grid = level.grid
    inside = 0 < fx < grid.width - 1 and 0 < fy < grid.height - 1
    cell = grid.grid[fy * grid.width + fx]
    carrying = level.carrying
    if cell is None:
        # go forward if inside; drop if carrying
        return _MASKS[inside | (carrying is not None) << 2].copy()
    kind = cell.type
    if kind == "door":
        forward = inside and cell.is_open
        toggle = not cell.is_locked or (isinstance(carrying, Key) and carrying.color == cell.color)
        return _MASKS[forward | toggle << 3].copy()
    if kind == "box":
        return _MASKS[(carrying is None) << 1 | 8].copy()
    if cell.can_pickup():
        return _MASKS[(carrying is None) << 1].copy()
    return _MASKS[inside and cell.can_overlap()].copy()


class BabyAIEnv(DecisionEnv):
    """One BabyAI task (8x8 rooms: one, or two for "open"); see the module docstring.

    Args:
        task: "goto", "pickup", "open", "putnext" or "pick_up_seq_go_to".
        num_dists: distractor objects added to the room (BALROG: 0).
        room_size: side of the room including its walls (8).
        text, on_invalid, render_mode, max_steps: as in `DecisionEnv`. The step
            limit is also given to the minigrid level, so its reward
            (1 - 0.9 * steps / limit) is scaled to the same limit.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    family = "babyai"
    option_table = option_table(ACTIONS)
    fallback_index = FORWARD
    executes_any_action = True

    def __init__(self, task: str = "goto", num_dists: int = 0, room_size: int = 8, *,
                 text: bool = False, on_invalid: str = "fallback",
                 render_mode: str | None = None, max_steps: int | None = None):
        if task not in TASKS:
            raise ValueError(f"task={task!r}: use one of {TASKS}")
        self.task = task
        self.level = make_level(task, num_dists=num_dists, room_size=room_size,
                                max_steps=max_steps)
        super().__init__(
            n_actions=len(ACTIONS),
            observation_spaces={
                "image": spaces.Box(0, np.broadcast_to(IMAGE_HIGH, (7, 7, 3)), (7, 7, 3),
                                    np.uint8),
                "direction": spaces.Discrete(4),
                "mission": spaces.Box(0, VOCAB_SIZE - 1, (MISSION_LENGTH,), np.uint8),
            },
            text=text, on_invalid=on_invalid, render_mode=render_mode, max_steps=max_steps)
        self._image = None
        self.layout_seed: int | None = None
        self._tokens = np.zeros(MISSION_LENGTH, np.uint8)
        self._solved = False

    # ------------------------------------------------------------------ hooks
    def _game_reset(self, seed: int, options: dict | None) -> None:
        self.layout_seed = seed   # make_level(task).reset(seed=layout_seed) rebuilds this room
        obs, _ = self.level.reset(seed=seed)
        self._image = obs["image"]
        self._solved = False
        self._tokens = tokenize(self.level.mission)   # once per episode

    def _game_step(self, action: int) -> tuple[float, bool, bool]:
        obs, reward, terminated, truncated, _ = self.level.step(action)
        self._image = obs["image"]
        if reward > 0:
            self._solved = True
        return reward, terminated, truncated

    def _game_mask(self) -> np.ndarray:
        return legal_mask(self.level)

    def _game_observation(self) -> dict[str, np.ndarray]:
        return {"image": self._image, "direction": int(self.level.agent_dir),
                "mission": self._tokens.copy()}   # fresh arrays: callers may keep them

    def _game_text(self) -> tuple[str, str]:
        return (describe_view(self._image, self.level.carrying),
                f"Your goal: {self.level.mission}")

    def _game_progress(self) -> float:
        return 1.0 if self._solved else 0.0

    def _game_success(self) -> bool:
        return self._solved

    def _game_metrics(self) -> dict[str, Any]:
        return {"task": self.task, "mission": self.level.mission, "solved": self._solved}

    # -------------------------------------------------------------- rendering
    def _render_ansi(self) -> str:
        return render_grid(self.level) + f"\nmission: {self.level.mission}"

    def _render_rgb(self) -> np.ndarray:
        return self.level.get_frame(highlight=True)

    @property
    def mission(self) -> str:
        return self.level.mission


# one character per object kind, then one per color (grey is 'e': green has 'g')
_KIND_CHAR = {"wall": "#", "key": "K", "ball": "O", "box": "B", "goal": "G", "lava": "~",
              "floor": "."}
_COLOR_CHAR = {"red": "r", "green": "g", "blue": "b", "purple": "p", "yellow": "y", "grey": "e"}
_AGENT_CHAR = ">v<^"


def render_grid(level: TaskLevel) -> str:
    """The room as text, two characters per cell: kind then color.

    `##` wall, `K`/`O`/`B` key/ball/box, doors `D` closed, `L` locked, `_` open,
    colors r g b p y e(grey); the agent is its heading doubled (`>>`, `vv`, ...),
    empty floor is `  `. A last line names what the agent carries.
    """
    ax, ay = (int(v) for v in level.agent_pos)
    rows = []
    for y in range(level.grid.height):
        row = []
        for x in range(level.grid.width):
            cell = level.grid.get(x, y)
            if (x, y) == (ax, ay):
                row.append(_AGENT_CHAR[level.agent_dir] * 2)
            elif cell is None:
                row.append("  ")
            elif cell.type == "wall":
                row.append("##")
            elif cell.type == "door":
                mark = "_" if cell.is_open else "L" if cell.is_locked else "D"
                row.append(mark + _COLOR_CHAR[cell.color])
            else:
                row.append(_KIND_CHAR.get(cell.type, "?") + _COLOR_CHAR.get(cell.color, "?"))
        rows.append("".join(row))
    carried = level.carrying
    rows.append(f"carrying: {carried.color} {carried.type}" if carried else "carrying: nothing")
    return "\n".join(rows)
