"""Seeded BabyAI levels, one class per task, built as BALROG's BabyAI-MixedTrainLocal builds them.

BALROG plays `BabyAI-MixedTrainLocal-v0` from its Minigrid fork
(BartekCupial/Minigrid, `minigrid/envs/babyai/mixed_seq_levels.py`): the level
draws its task when it is constructed, from an unseeded generator, and BALROG
constructs it again until the task is the one it wants. Here each task has its
own class, so `reset(seed=s)` always builds the same layout and mission for the
same `s`; the layouts and missions follow upstream's construction:

- goto, pickup: one 8x8 room; the agent is placed first (never facing an
  object), then `num_dists + 1` random objects (key, ball or box of any
  colour; none next to the agent); the target is one of them.
- putnext, pick_up_seq_go_to: the same with `num_dists + 2` objects; the
  second object may only share the first one's colour and type when two such
  objects exist. pick_up_seq_go_to says "pick up A, then go to B" or "go to B
  after you pick up A", half and half.
- open: two 8x8 rooms side by side (15x8) joined by one locked door on the
  shared wall, yellow, green, blue or purple; a key of its colour, the
  distractors and the agent in the other room. The mission is "open the door"
  or "open the <colour> door", half and half.
- every task: a layout is redrawn until every object is reachable and the
  mission names none of the pairs upstream keeps out of its training missions
  (yellow box, red key, red door, green ball, grey door); minigrid's
  `validate_instrs` then rejects, e.g., putnext objects that already touch.

`num_dists` is 0 by default, BALROG's setting. Missions are minigrid's
verifier classes, so success is judged by minigrid itself, and the step limit
is minigrid's: 64 per navigation the mission needs, per room (goto and pickup
64, the others 128).
"""

from __future__ import annotations

from typing import ClassVar

from minigrid.core.roomgrid import RoomGrid
from minigrid.envs.babyai.core.roomgrid_level import RejectSampling, RoomGridLevel
from minigrid.envs.babyai.core.verifier import (AfterInstr, BeforeInstr, GoToInstr, ObjDesc,
                                                OpenInstr, PickupInstr, PutNextInstr)

MAX_GENERATION_TRIES = 1000
# pairs upstream's MixedTrainLocal keeps out of every mission (held out for its test split)
EXCLUDED_PAIRS = ("yellow box", "red key", "red door", "green ball", "grey door")
OPEN_DOOR_COLORS = ("yellow", "green", "blue", "purple")


class TaskLevel(RoomGridLevel):
    """Base of the task levels: a room grid, a mission of one kind, quiet re-sampling.

    Subclasses set `num_cols` and implement `gen_mission`, which places the
    mission's objects, the distractors and the agent, and sets `self.instrs`;
    it raises `RejectSampling` for a layout upstream would draw again.
    """

    task: ClassVar[str] = ""
    num_cols_of_task: ClassVar[int] = 1

    def __init__(self, num_dists: int = 0, room_size: int = 8, max_steps: int | None = None,
                 **kwargs):
        if num_dists < 0:
            raise ValueError(f"num_dists={num_dists}: must be 0 or more")
        self.num_dists = int(num_dists)
        super().__init__(room_size=room_size, num_rows=1, num_cols=self.num_cols_of_task,
                         max_steps=max_steps, **kwargs)

    def _gen_grid(self, width, height):
        # one rejection loop for upstream's two (its per-task redraw and minigrid's
        # validate_instrs), silent, and loud if a setting can never be satisfied
        for _ in range(MAX_GENERATION_TRIES):
            RoomGrid._gen_grid(self, width, height)
            try:
                self.gen_mission()
                if not self.check_objs_reachable(raise_exc=False):
                    raise RejectSampling("an object cannot be reached")
                surface = self.instrs.surface(self)
                if any(pair in surface for pair in EXCLUDED_PAIRS):
                    raise RejectSampling("the mission names a held-out pair")
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
    def _agent_then_objects(self, count: int) -> list:
        """The agent first (so no object lands next to it), then `count` random objects."""
        self.place_agent(0, 0)
        return self.add_distractors(0, 0, num_distractors=count, all_unique=False)

    def _second(self, first, objs):
        """Upstream's second object: any of `objs`, but not one just like `first`
        unless another object shares its colour and type."""
        second = self._rand_elem(objs)
        alike = [o for o in objs if (o.type, o.color) == (first.type, first.color)]
        if len(alike) < 2:
            while (second.type, second.color) == (first.type, first.color):
                second = self._rand_elem(objs)
        return second


def _desc(obj) -> ObjDesc:
    return ObjDesc(obj.type, obj.color)


class GoToLevel(TaskLevel):
    """'go to the <color> <kind>': stand facing the object."""

    task = "goto"

    def gen_mission(self):
        objs = self._agent_then_objects(self.num_dists + 1)
        self.instrs = GoToInstr(_desc(self._rand_elem(objs)))


class PickupLevel(TaskLevel):
    """'pick up the <color> <kind>'."""

    task = "pickup"

    def gen_mission(self):
        objs = self._agent_then_objects(self.num_dists + 1)
        self.instrs = PickupInstr(_desc(self._rand_elem(objs)))


class OpenLevel(TaskLevel):
    """'open the door' / 'open the <color> door': two rooms, the door between them
    locked, its key in the agent's room."""

    task = "open"
    num_cols_of_task = 2

    def gen_mission(self):
        color = self._rand_elem(OPEN_DOOR_COLORS)
        locked = self._rand_int(0, 2)
        # the only wall with a neighbour: right of the left room, left of the right one
        door, _ = self.add_door(locked, 0, 0 if locked == 0 else 2, color=color, locked=True)
        self.locked_room = self.get_room(locked, 0)
        self.add_object(1 - locked, 0, "key", color)
        if self.num_dists:
            self.add_distractors(1 - locked, 0, num_distractors=self.num_dists, all_unique=False)
        self.place_agent(1 - locked, 0)
        self.instrs = OpenInstr(ObjDesc("door", self._rand_elem([None, color])))


class PutNextLevel(TaskLevel):
    """'put the <color> <kind> next to the <color> <kind>'."""

    task = "putnext"

    def gen_mission(self):
        objs = self._agent_then_objects(self.num_dists + 2)
        moved = self._rand_elem(objs)
        fixed = self._second(moved, objs)
        # validate_instrs (run by _gen_grid) rejects layouts where they already touch
        self.instrs = PutNextInstr(_desc(moved), _desc(fixed))


class PickUpSeqGoToLevel(TaskLevel):
    """'pick up A, then go to B' or 'go to B after you pick up A'."""

    task = "pick_up_seq_go_to"

    def gen_mission(self):
        objs = self._agent_then_objects(self.num_dists + 2)
        first = self._rand_elem(objs)
        second = self._second(first, objs)
        pick, go = PickupInstr(_desc(first)), GoToInstr(_desc(second))
        if self._rand_elem(["Before", "After"]) == "Before":
            self.instrs = BeforeInstr(pick, go)
        else:
            self.instrs = AfterInstr(go, pick)


LEVELS: dict[str, type[TaskLevel]] = {
    cls.task: cls for cls in (GoToLevel, PickupLevel, OpenLevel, PutNextLevel, PickUpSeqGoToLevel)
}
TASKS = tuple(LEVELS)


def make_level(task: str, **kwargs) -> TaskLevel:
    """The minigrid level object of a task (what BabyAIEnv wraps)."""
    try:
        cls = LEVELS[task]
    except KeyError:
        raise ValueError(f"task={task!r}: use one of {TASKS}") from None
    return cls(**kwargs)
