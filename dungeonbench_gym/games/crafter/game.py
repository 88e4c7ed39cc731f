"""The Crafter game itself: crafter 1.8.3 with pictures only when asked.

`CrafterGame` subclasses `crafter.Env` and keeps every rule of the game (the
player, creatures, chunk balancing, rewards are crafter's own objects and
methods). It changes four things, none of which changes the rules:

1. **No picture unless asked.** crafter draws a 64x64 frame on every reset and
   step (about two thirds of its step time). With `draw=False` the frame is not
   drawn. One detail keeps the game identical: at night crafter's picture adds
   noise drawn from the *world's* random generator, so drawing a frame moves the
   game's dice. When the frame is skipped, the same numbers are drawn and thrown
   away, so a game with pictures and one without (and crafter itself) follow the
   same course for the same seed and actions.
2. **Reproducible despawning.** crafter picks the creature to despawn by an
   index into a set of objects, whose order follows memory addresses, so
   `crafter.Env` itself can differ between two runs with the same seed. We hand
   the creatures over in creation order: the same odds, the same choice every run.
3. **No per-step info dict.** crafter's `step` builds a semantic map of the
   whole world and copies the inventory on every step; our `step` returns
   `(frame or None, reward, dead)` and callers read the state they need.
4. **Faster world generation, same worlds.** crafter evaluates OpenSimplex noise
   about 27,000 times per world through `opensimplex`'s pure-Python path, whose
   cost is numpy scalar arithmetic. `FastSimplex` runs opensimplex's own noise
   function with plain Python lists and tuples in place of numpy arrays: the same
   floating-point operations in the same order, so the same bits (checked in
   the tests against crafter's own reset); benchmarks/crafter_speed.py times both resets.
   If opensimplex's internals ever differ, crafter's own generator is used.
"""

from __future__ import annotations

import types

import numpy as np
import crafter
from crafter import constants, objects
from crafter import worldgen as crafter_worldgen

# --------------------------------------------------------------------- noise
try:  # opensimplex >= 0.4 keeps its noise function in `internals`
    from opensimplex import constants as _os_constants
    from opensimplex import internals as _os_internals

    _GRADIENTS3 = tuple(int(v) for v in _os_constants.GRADIENTS3)

    def _gradient_dot3(perm, grad_index, xsb, ysb, zsb, dx, dy, dz):
        # The gradient picked for a lattice point, dotted with the offset to it;
        # the same hashing and arithmetic as opensimplex, on Python ints/floats.
        i = grad_index[(perm[(perm[xsb & 0xFF] + ysb) & 0xFF] + zsb) & 0xFF]
        return _GRADIENTS3[i] * dx + _GRADIENTS3[i + 1] * dy + _GRADIENTS3[i + 2] * dz

    # opensimplex's 3D noise, rebound to the helper above (its code, our globals).
    _namespace = dict(vars(_os_internals), _extrapolate3=_gradient_dot3)
    _noise3 = types.FunctionType(_os_internals._noise3.__code__, _namespace, "_noise3")
    _init_permutation = _os_internals._init
except (ImportError, AttributeError):  # another opensimplex: use crafter's own path
    _noise3 = None


class FastSimplex:
    """What crafter's world generator needs of `opensimplex.OpenSimplex`: `noise3`."""

    __slots__ = ("_perm", "_grad_index")

    def __init__(self, seed: int):
        perm, grad_index = _init_permutation(seed)
        self._perm = perm.tolist()
        self._grad_index = grad_index.tolist()

    def noise3(self, x: float, y: float, z: float) -> float:
        return _noise3(x, y, z, self._perm, self._grad_index)


def fast_noise_available() -> bool:
    return _noise3 is not None


def generate_world(world, player) -> None:
    """Fill a freshly reset world exactly as `crafter.worldgen.generate_world` does.

    The cells are visited in the same order and crafter's own per-cell functions
    decide each material and creature, so the world's random generator is drawn
    in the same sequence; only the noise source is the faster one.
    """
    simplex = FastSimplex(world.random.randint(0, 2 ** 31 - 1))
    width, height = world.area
    tunnels = np.zeros(world.area, bool)
    set_material, set_object = crafter_worldgen._set_material, crafter_worldgen._set_object
    for x in range(width):
        for y in range(height):
            set_material(world, (x, y), player, tunnels, simplex)
    for x in range(width):
        for y in range(height):
            set_object(world, (x, y), player, tunnels)


# ---------------------------------------------------------------------- game
class CrafterGame(crafter.Env):
    """crafter.Env (64x64 area, 9x9 view) that draws frames only when `draw` is set.

    Args:
        draw: draw the 64x64 frame on every reset and step (the observation
            picture); otherwise `reset`/`step` return None in its place.
        fast_worldgen: generate worlds with `fast_noise` (identical worlds).
        seed: crafter's seed; with the episode counter it picks the world
            (crafter seeds the world with hash((seed, episode))).
    """

    def __init__(self, draw: bool = False, fast_worldgen: bool = True, seed: int = 0):
        # length=None: crafter never ends an episode by time; the caller does.
        super().__init__(area=(64, 64), view=(9, 9), size=(64, 64), reward=True,
                         length=None, seed=seed)
        self.draw = bool(draw)
        self.fast_worldgen = bool(fast_worldgen) and fast_noise_available()
        unit = self._size // self._view
        # the shape of the night noise crafter's LocalView draws per frame
        self._noise_shape = tuple(int(v) for v in self._local_view._grid * unit)
        self.reach = 2 * max(self._view)   # creatures farther than this stand still

    # crafter.Env.reset, with the faster generator
    def reset(self):
        self._episode += 1
        self._step = 0
        self._world.reset(seed=hash((self._seed, self._episode)) % (2 ** 31 - 1))
        self._update_time()
        center = (self._world.area[0] // 2, self._world.area[1] // 2)
        self._player = objects.Player(self._world, center)
        self._last_health = self._player.health
        self._world.add(self._player)
        self._unlocked = set()
        if self.fast_worldgen:
            generate_world(self._world, self._player)
        else:
            crafter_worldgen.generate_world(self._world, self._player)
        return self._obs()

    def step(self, action: int):
        """One step of crafter's rules; returns (frame or None, reward, dead)."""
        self._step += 1
        self._update_time()
        player = self._player
        player.action = constants.actions[action]
        reach = self.reach
        for obj in self._world.objects:   # a snapshot: creatures added now wait a step
            ox, oy = obj.pos.tolist()
            px, py = player.pos.tolist()
            if abs(ox - px) + abs(oy - py) < reach:
                obj.update()
        if self._step % 10 == 0:
            self._balance_chunks()
        frame = self._obs()
        health = player.health
        reward = (health - self._last_health) / 10
        self._last_health = health
        fresh = [name for name, count in player.achievements.items()
                 if count > 0 and name not in self._unlocked]
        if fresh:
            self._unlocked.update(fresh)
            reward += 1.0
        return frame, reward, health <= 0

    def _balance_chunks(self) -> None:
        # crafter hands each chunk's creatures over as a set, whose order follows
        # memory addresses, and despawns creatures[randint(len)]: which creature
        # goes then differs between runs. Handing them over in creation order
        # keeps the same odds and makes the choice reproducible.
        obj_map = self._world._obj_map
        for chunk, objs in self._world.chunks.items():
            ordered = sorted(objs, key=lambda obj: obj_map[obj.pos[0], obj.pos[1]])
            self._balance_chunk(chunk, ordered)

    def _obs(self):
        if self.draw:
            return self.render()
        if self._world.daylight < 0.5:
            # the numbers a drawn night frame would take from the world's dice
            self._world.random.uniform(32, 127, self._noise_shape)
        return None

    def picture(self, size: int | None = None) -> np.ndarray:
        """Draw the current frame (size x size pixels) without moving the game's dice."""
        state = self._world.random.get_state()
        try:
            return self.render(None if size is None else (int(size), int(size)))
        finally:
            self._world.random.set_state(state)

    @property
    def player(self) -> objects.Player:
        return self._player

    @property
    def world(self):
        return self._world

    @property
    def unlocked(self) -> set[str]:
        return self._unlocked

    @property
    def world_step(self) -> int:
        return self._step
