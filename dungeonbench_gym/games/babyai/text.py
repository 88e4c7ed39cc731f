"""BabyAI language: the mission vocabulary (for the numeric observation) and the
BabyAI-Text style description of what the agent sees (for LLMs).
"""

from __future__ import annotations

import numpy as np
from minigrid.core.constants import COLOR_NAMES, IDX_TO_COLOR, IDX_TO_OBJECT

# ------------------------------------------------------------------ mission tokens
PAD, UNKNOWN = 0, 1
# Every word the BabyAI grammar can produce (minigrid's verifier surfaces), in a
# fixed order: token ids never change between versions of this file, only grow.
WORDS = (
    "go", "to", "pick", "up", "open", "put", "next", "then", "after", "you", "and",
    "the", "a", "in", "front", "of", "behind", "on", "your", "left", "right", "object",
    "key", "ball", "box", "door", *COLOR_NAMES,
)
VOCAB: dict[str, int] = {w: i + 2 for i, w in enumerate(WORDS)}
VOCAB_SIZE = len(VOCAB) + 2          # ids 0..VOCAB_SIZE-1 (0 pads, 1 is an unknown word)
MISSION_LENGTH = 16                  # longest BabyAI mission here has 11 words


def tokenize(mission: str, length: int = MISSION_LENGTH) -> np.ndarray:
    """Token ids of a mission, zero-padded (or cut) to `length`, as uint8."""
    words = mission.lower().replace(",", " ").split()
    ids = [VOCAB.get(w, UNKNOWN) for w in words[:length]]
    out = np.zeros(length, np.uint8)
    out[:len(ids)] = ids
    return out


def detokenize(tokens) -> str:
    names = {i: w for w, i in VOCAB.items()}
    return " ".join(names.get(int(t), "<unk>") for t in tokens if t != PAD)


# --------------------------------------------------------------- observation text
# The agent sits at view cell (3, 6) of minigrid's 7x7 egocentric image, facing
# towards row 0; image[x, y] is the cell x columns right, 6 - y rows ahead.
_DOOR_STATES = {0: "open", 1: "closed", 2: "locked"}
_WALL, _EMPTY, _UNSEEN, _DOOR = 2, 1, 0, 4


def _steps(n: int, word: str) -> str:
    return f"{n} step{'s' if n != 1 else ''} {word}"


def _where(dx: int, ahead: int) -> str:
    """'2 steps left and 3 steps forward' for an offset (dx right, ahead forward)."""
    parts = []
    if dx:
        parts.append(_steps(abs(dx), "left" if dx < 0 else "right"))
    if ahead:
        parts.append(_steps(ahead, "forward"))
    return " and ".join(parts)


def _name(kind: str, color_idx: int, state: int) -> str:
    color = IDX_TO_COLOR[color_idx]
    if kind == "door":   # BabyAI-Text writes "a open ... door"; kept for the same text
        return f"a {_DOOR_STATES[state]} {color} door"
    return f"a {color} {kind}"


def describe_view(image: np.ndarray, carrying=None) -> str:
    """BabyAI-Text's description of minigrid's encoded 7x7 view (BALROG's
    Minigrid fork, `MiniGridEnv.gen_graph`, less its "You see " prefix).

    "You carry a <color> <kind>" first when carrying; then the nearest wall
    straight ahead, to the left and to the right, each only when nothing but
    empty or unseen cells lies between it and the agent; then one line per
    visible object ("a red ball 1 step left and 2 steps forward", doors as "a
    closed blue door 3 steps forward"), column by column from the left, far
    to near within a column.
    """
    size = image.shape[0]
    ax, ay = size // 2, size - 1
    cells = image.tolist()             # python lists: much faster than indexing numpy
    lines = [f"You carry a {carrying.color} {carrying.type}"] if carrying is not None else []
    for steps, word, cell_at in ((ay, "forward", lambda d: cells[ax][ay - d]),
                                 (ax, "left", lambda d: cells[ax - d][ay]),
                                 (size - 1 - ax, "right", lambda d: cells[ax + d][ay])):
        for d in range(1, steps + 1):
            k = cell_at(d)[0]
            if k in (_UNSEEN, _EMPTY):
                continue
            if k == _WALL:
                lines.append(f"a wall {_steps(d, word)}")
            break
    for x in range(size):
        for y in range(size):
            k, color, state = cells[x][y]
            if k <= _WALL or (x == ax and y == ay):   # unseen, empty, wall, the agent
                continue
            lines.append(f"{_name(IDX_TO_OBJECT[k], color, state)} {_where(x - ax, ay - y)}")
    return "\n".join(lines)
