"""Seeded single-room BabyAI levels, one class per task.

BALROG draws its BabyAI episodes from a mixed level and re-samples until the
mission is of the wanted kind, so a seed does not pin a layout. Here each task
has its own level: `reset(seed=s)` always builds the same room and mission for
the same `s`, and the task is fixed by the class.

Every level is one 8x8 room (a 1x1 room grid, 6x6 free cells inside the walls)
holding the objects its mission names, plus `num_dists` random distractors
(0 by default, like BALROG). Missions are built from minigrid's verifier
classes, so success is judged by minigrid itself.
"""

from __future__ import annotations

from typing import ClassVar

from minigrid.core.constants import COLOR_NAMES
from minigrid.core.roomgrid import RoomGrid
from minigrid.core.world_object import Door
from minigrid.envs.babyai.core.roomgrid_level import RejectSampling, RoomGridLevel
from minigrid.envs.babyai.core.verifier import (BeforeInstr, GoToInstr, ObjDesc, OpenInstr,
                                                PickupInstr, PutNextInstr)

OBJECT_KINDS = ("key", "ball", "box")
MAX_GENERATION_TRIES = 1000


class SingleRoomLevel(RoomGridLevel):
    """Base of the task levels: one room, a mission of one kind, quiet re-sampling.

    Subclasses implement `gen_mission`, which places the mission's objects, the
    distractors and the agent, and sets `self.instrs`.
    """

    task: ClassVar[str] = ""

    def __init__(self, num_dists: int = 0, room_size: int = 8, max_steps: int | None = None,
                 **kwargs):
        if num_dists < 0:
            raise ValueError(f"num_dists={num_dists}: must be 0 or more")
        self.num_dists = int(num_dists)
        super().__init__(room_size=room_size, num_rows=1, num_cols=1, max_steps=max_steps,
                         **kwargs)

    def _gen_grid(self, width, height):
        # minigrid's loop prints every rejected sample; this one retries silently
        # and gives up loudly if a configuration can never be satisfied.
        for _ in range(MAX_GENERATION_TRIES):
            RoomGrid._gen_grid(self, width, height)
            try:
                self.gen_mission()
                self.validate_instrs(self.instrs)
            except RejectSampling:
                continue
            break
        else:
            raise RuntimeError(f"{type(self).__name__}: no valid layout after "
                               f"{MAX_GENERATION_TRIES} tries (num_dists={self.num_dists})")
        self.surface = self.instrs.surface(self)
        self.mission = self.surface

    # ------------------------------------------------------------ helpers
    def _random_kind_color(self, avoid=()) -> tuple[str, str]:
        """A (kind, color) pair of a pickable object, different from those in `avoid`."""
        while True:
            pair = (self._rand_elem(OBJECT_KINDS), self._rand_elem(COLOR_NAMES))
            if pair not in avoid:
                return pair

    def _add(self, kind: str, color: str):
        obj, _ = self.add_object(0, 0, kind, color)
        return obj

    def _finish_layout(self) -> None:
        """Distractors, then the agent (it goes last so nothing lands on it)."""
        if self.num_dists:
            self.add_distractors(0, 0, num_distractors=self.num_dists, all_unique=False)
        self.place_agent(0, 0)
        self.check_objs_reachable()


class GoToLevel(SingleRoomLevel):
    """'go to the <color> <kind>': stand facing the object."""

    task = "goto"

    def gen_mission(self):
        kind, color = self._random_kind_color()
        self._add(kind, color)
        self._finish_layout()
        self.instrs = GoToInstr(ObjDesc(kind, color))


class PickupLevel(SingleRoomLevel):
    """'pick up the <color> <kind>'."""

    task = "pickup"

    def gen_mission(self):
        kind, color = self._random_kind_color()
        self._add(kind, color)
        self._finish_layout()
        self.instrs = PickupInstr(ObjDesc(kind, color))


class OpenLevel(SingleRoomLevel):
    """'open the <color> door': a closed, unlocked door set in one of the room's walls.

    The door is placed after the objects, in a wall cell whose inside neighbour
    is free, so it can always be reached and toggled without moving anything.
    """

    task = "open"

    def gen_mission(self):
        if self.num_dists:
            self.add_distractors(0, 0, num_distractors=self.num_dists, all_unique=False)
        color = self._rand_elem(COLOR_NAMES)
        last = self.room_size - 1
        # (wall cell, the free cell inside it) for every non-corner wall cell
        spots = []
        for k in range(1, last):
            spots += [((k, 0), (k, 1)), ((k, last), (k, last - 1)),
                      ((0, k), (1, k)), ((last, k), (last - 1, k))]
        spots = [s for s in spots if self.grid.get(*s[1]) is None]
        if not spots:
            raise RejectSampling("no free wall cell for the door")
        (x, y), _ = self._rand_elem(spots)
        door = Door(color, is_open=False, is_locked=False)
        self.grid.set(x, y, door)
        door.cur_pos = (x, y)
        self.place_agent(0, 0)
        self.check_objs_reachable()
        self.instrs = OpenInstr(ObjDesc("door", color))


class PutNextLevel(SingleRoomLevel):
    """'put the <color> <kind> next to the <color> <kind>' (two distinct objects)."""

    task = "putnext"

    def gen_mission(self):
        moved = self._random_kind_color()
        fixed = self._random_kind_color(avoid=(moved,))
        self._add(*moved)
        self._add(*fixed)
        self._finish_layout()
        # validate_instrs (run by _gen_grid) rejects layouts where they already touch
        self.instrs = PutNextInstr(ObjDesc(*moved), ObjDesc(*fixed))


class PickUpSeqGoToLevel(SingleRoomLevel):
    """'pick up the <color> <kind>, then go to the <color> <kind>' (two distinct objects)."""

    task = "pick_up_seq_go_to"

    def gen_mission(self):
        first = self._random_kind_color()
        second = self._random_kind_color(avoid=(first,))
        self._add(*first)
        self._add(*second)
        self._finish_layout()
        self.instrs = BeforeInstr(PickupInstr(ObjDesc(*first)), GoToInstr(ObjDesc(*second)))


LEVELS: dict[str, type[SingleRoomLevel]] = {
    cls.task: cls for cls in (GoToLevel, PickupLevel, OpenLevel, PutNextLevel, PickUpSeqGoToLevel)
}
TASKS = tuple(LEVELS)


def make_level(task: str, **kwargs) -> SingleRoomLevel:
    """The minigrid level object of a task (what BabyAIEnv wraps)."""
    try:
        cls = LEVELS[task]
    except KeyError:
        raise ValueError(f"task={task!r}: use one of {TASKS}") from None
    return cls(**kwargs)
