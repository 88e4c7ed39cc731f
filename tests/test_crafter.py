"""Crafter: same game as crafter itself, seeded, image-free, with a rule-exact mask.

The mask is checked by execution: from the same state (a pickled copy of the
game), an action the mask forbids must leave the whole game exactly as Noop
does, and a legal non-move action must change something; legal Make/Place
actions must have their effect.
"""

from __future__ import annotations

import io
import pickle

import crafter
import gymnasium as gym
import numpy as np
import pytest
from crafter import objects

import dungeonbench_gym
from dungeonbench_gym.agents import RandomAgent
from dungeonbench_gym.games.crafter import CrafterEnv, legal_mask
from dungeonbench_gym.games.crafter.agent import CrafterHeuristicAgent
from dungeonbench_gym.games.crafter.rules import (ACHIEVEMENTS, ACTIONS, DO, MAKE,
                                                  MAKE_IRON_PICKAXE, MAKE_WOOD_PICKAXE,
                                                  MOVE_SOUTH, MOVE_WEST, NOOP, PLACE, PLACE_PLANT,
                                                  PLACE_STONE, PLACE_TABLE, SLEEP)

NON_MOVES = list(range(5, 17))


# ----------------------------------------------------------------- helpers
def signature(game):
    """Everything the next steps of the game can depend on."""
    world, player = game.world, game.player
    rng = world.random.get_state()
    creatures = tuple(
        (type(o).__name__, tuple(o.pos.tolist()), o.health, getattr(o, "grown", None),
         getattr(o, "cooldown", None), getattr(o, "reload", None),
         tuple(np.asarray(getattr(o, "facing", ())).tolist()))
        for o in world.objects)
    return (world._mat_map.tobytes(), creatures, tuple(player.inventory.items()),
            tuple(player.achievements.items()), player.sleeping, player._hunger,
            player._thirst, player._fatigue, player._recover, rng[1].tobytes(), rng[2:],
            game.world_step, tuple(sorted(game.unlocked)), float(world.daylight))


class _Snapshot:
    """A game frozen as bytes; thawed copies share the (read-only) textures."""

    def __init__(self, game):
        self.textures = game._textures
        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
        pickler.persistent_id = lambda obj: "textures" if obj is self.textures else None
        pickler.dump(game)
        self.blob = buffer.getvalue()

    def thaw(self):
        unpickler = pickle.Unpickler(io.BytesIO(self.blob))
        unpickler.persistent_load = lambda pid: self.textures
        return unpickler.load()


def outcome(snapshot: _Snapshot, action: int):
    copy = snapshot.thaw()
    copy.step(action)
    return copy


def player_turn(snapshot: _Snapshot, action: int):
    """Only the player's part of a step (it acts first): the action's direct effect."""
    copy = snapshot.thaw()
    copy.player.action = crafter.constants.actions[action]
    copy.player.update()
    return copy


def check_mask_by_execution(game, mask, actions, coverage=None):
    """The mask's claims about `actions`, executed on copies of `game`.

    Forbidden: the whole step ends exactly as Noop's. Legal (non-move): the
    player's own turn differs from Noop's (the rest of the step may, rarely, even
    out a different draw of the dice, e.g. Do on grass that gives no sapling).
    """
    blob = _Snapshot(game)
    noop = signature(outcome(blob, NOOP))
    noop_turn = None
    player = game.player
    inv = dict(player.inventory)
    ach = dict(player.achievements)
    px, py = player.pos.tolist()
    target = (px + player.facing[0], py + player.facing[1])
    for a in actions:
        if coverage is not None:
            coverage[a][int(mask[a])] += 1
        if not mask[a]:
            after = outcome(blob, a)
            assert signature(after) == noop, f"{ACTIONS[a]} is masked out but changed the game"
            continue
        if a not in NON_MOVES:   # a move into a wall it already faces does nothing
            continue
        if noop_turn is None:
            noop_turn = signature(player_turn(blob, NOOP))
        after = player_turn(blob, a)
        assert signature(after) != noop_turn, f"{ACTIONS[a]} is legal but did nothing"
        p = after.player
        if a in PLACE:
            name, _, uses = PLACE[a]
            assert p.achievements[f"place_{name}"] == ach[f"place_{name}"] + 1
            for item, n in uses:
                assert p.inventory[item] == inv[item] - n, (ACTIONS[a], item)
            material, obj = after.world[target]
            assert (isinstance(obj, objects.Plant) if name == "plant" else material == name)
        if a in MAKE:
            name, _, uses = MAKE[a]
            assert p.achievements[f"make_{name}"] == ach[f"make_{name}"] + 1
            assert p.inventory[name] == min(9, inv[name] + 1)
            for item, n in uses:
                assert p.inventory[item] == inv[item] - n, (ACTIONS[a], item)


class OrderedCrafter(crafter.Env):
    """crafter.Env, but handing creatures to the despawner in creation order (as ours
    does): crafter's set order follows memory addresses, so crafter.Env alone is not
    reproducible run to run."""

    def _balance_chunk(self, chunk, objs):
        index = self._world._obj_map
        return super()._balance_chunk(chunk, sorted(objs, key=lambda o: index[o.pos[0], o.pos[1]]))

    # the names signature() reads
    world = property(lambda self: self._world)
    player = property(lambda self: self._player)
    unlocked = property(lambda self: self._unlocked)
    world_step = property(lambda self: self._step)


def play(env, agent, seed, steps):
    obs, info = env.reset(seed=seed)
    agent.reset(env, seed)
    for _ in range(steps):
        obs, _, term, trunc, info = env.step(agent.act(obs, info))
        if term or trunc:
            break
    return info


# ------------------------------------------------------------------- tests
def test_registered_with_balrog_actions():
    env = gym.make("dungeonbench_gym:DungeonBench/Crafter-v0")
    assert env.action_space.n == 17
    assert env.unwrapped.option_labels() == list(ACTIONS)
    assert ACTIONS[5] == "Do" and ACTIONS[16] == "Make Iron Sword"
    assert env.unwrapped.fallback_index == NOOP
    assert len(ACHIEVEMENTS) == 22
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert obs["map"][3, 4] == 13            # the player in the middle of its view
    assert "image" not in obs and dungeonbench_gym.REGISTRY["Crafter-v0"].max_steps == 2000


def test_same_world_and_course_as_crafter():
    """Our world equals crafter's own for the seed; steps follow crafter's rules, nights too."""
    env = CrafterEnv()
    env.reset(seed=3)
    ours = env.game
    raw = OrderedCrafter(seed=env.crafter_seed)
    raw.reset()                                  # crafter's own (slow) world generator
    assert signature(raw) == signature(ours)
    rng = np.random.default_rng(0)
    nights = 0
    for t in range(400):
        a = int(rng.choice([0, 1, 2, 3, 4, 5, 5, 7, 8, 9, 10, 11, 14]))
        _, raw_reward, raw_done, _ = raw.step(a)
        _, reward, dead = ours.step(a)
        assert (reward, dead) == (raw_reward, raw_done), t
        assert signature(raw) == signature(ours), f"diverged at step {t + 1}"
        nights += ours.world.daylight < 0.5
        if dead:
            break
    assert nights > 0, "the run never reached the night (its picture noise path)"


def test_seeded_determinism():
    a, b = CrafterEnv(), CrafterEnv()
    oa, _ = a.reset(seed=11)
    ob, _ = b.reset(seed=11)
    assert signature(a.game) == signature(b.game)
    first = signature(a.game)
    rng = np.random.default_rng(5)
    for _ in range(250):
        act = int(rng.choice(np.flatnonzero(oa["action_mask"])))
        oa, ra, ta, _, _ = a.step(act)
        ob, rb, tb, _, _ = b.step(act)
        assert ra == rb and ta == tb and signature(a.game) == signature(b.game)
        assert all(np.array_equal(oa[k], ob[k]) for k in oa)
        if ta:
            break
    a.reset(seed=11)
    assert signature(a.game) == first                  # same seed, same world again
    b.reset(seed=12)
    assert b.game.world._mat_map.tobytes() != a.game.world._mat_map.tobytes()


def test_pictures_do_not_change_the_game():
    """pixels=True, rgb_array renders on demand, and no pictures: one and the same game."""
    plain = CrafterEnv()
    pixels = CrafterEnv(pixels=True, render_mode="rgb_array")
    viewed = CrafterEnv(render_mode="rgb_array")
    envs = (plain, pixels, viewed)
    outs = [e.reset(seed=21) for e in envs]
    agent = CrafterHeuristicAgent()
    agent.reset(plain, 0)
    nights = 0
    for t in range(320):
        action = agent.act(*outs[0])
        outs = [e.step(action)[::4] for e in envs]     # (obs, info)
        frame = viewed.render()
        assert frame.shape == (64, 64, 3) and frame.dtype == np.uint8
        image = outs[1][0]["image"]
        assert image.shape == (64, 64, 3) and image.dtype == np.uint8
        assert pixels.observation_space.contains(outs[1][0])
        sigs = {signature(e.game) for e in envs}
        assert len(sigs) == 1, f"pictures changed the game at step {t + 1}"
        for key, value in outs[0][0].items():
            assert np.array_equal(value, outs[1][0][key]) and np.array_equal(value, outs[2][0][key])
        nights += plain.game.world.daylight < 0.5
        if plain.game.player.health <= 0:
            break
    assert nights > 20
    assert np.array_equal(pixels.render(), image)


def test_mask_matches_execution_over_play():
    """Two thousand steps of mixed play (the heuristic, a fifth of the time a random
    legal action): every forbidden action is a no-op, every legal non-move action
    does something, legal Make/Place actions have their effect."""
    coverage = {a: [0, 0] for a in range(17)}
    rng = np.random.default_rng(1)
    checked, seed = 0, 0
    while checked < 2000:
        seed += 1
        env = CrafterEnv(max_steps=1000)
        obs, info = env.reset(seed=seed)
        agent = CrafterHeuristicAgent()
        agent.reset(env, seed)
        while checked < 2000:
            mask = obs["action_mask"]
            game = env.game
            assert np.array_equal(mask, legal_mask(game))
            legal = [a for a in NON_MOVES if mask[a]]
            illegal = [a for a in range(1, 17) if not mask[a]]
            if illegal:
                legal += [int(a) for a in rng.choice(illegal, min(3, len(illegal)), replace=False)]
            check_mask_by_execution(game, mask, legal, coverage)
            checked += 1
            action = agent.act(obs, info) if rng.random() < 0.8 else int(
                rng.choice(np.flatnonzero(mask)))
            obs, _, term, trunc, info = env.step(action)
            assert not info["invalid_action"]
            if term or trunc:
                break
    for a in NON_MOVES:
        assert coverage[a][0] > 0, f"{ACTIONS[a]} never seen illegal"
    for a in (DO, SLEEP, PLACE_STONE, PLACE_TABLE, PLACE_PLANT, MAKE_WOOD_PICKAXE, 14, 12):
        assert coverage[a][1] > 0, f"{ACTIONS[a]} never seen legal"


def _fresh_game(seed=0):
    env = CrafterEnv()
    env.reset(seed=seed)
    return env, env.game


def _set(game, pos, material):
    assert game.world[pos][1] is None
    game.world[pos] = material


def _clear_objects_near(game, radius=3):
    px, py = game.player.pos.tolist()
    for obj in game.world.objects:
        if obj is not game.player and abs(obj.pos[0] - px) + abs(obj.pos[1] - py) <= radius:
            game.world.remove(obj)


@pytest.mark.parametrize("case", [
    "table_diagonal", "table_too_far", "iron_needs_furnace", "iron_with_furnace",
    "cow_in_front", "unripe_plant", "ripe_plant", "edge_of_world", "stone_without_pickaxe",
    "stone_with_pickaxe", "lava_in_front", "water_in_front", "asleep", "rested_sleeper",
    "full_energy", "arrow_in_front", "grass_in_front"])
def test_mask_rule_cases(case):
    env, game = _fresh_game()
    player, world = game.player, game.world
    _clear_objects_near(game)
    px, py = player.pos.tolist()
    player.facing = (-1, 0)
    west = (px - 1, py)
    for dx in (-2, -1, 0, 1, 2):
        for dy in (-2, -1, 0, 1, 2):
            if (dx, dy) != (0, 0):
                world[(px + dx, py + dy)] = "grass"
    inv = player.inventory
    expect = {}
    if case.startswith("table") or case.startswith("iron"):
        inv.update(wood=5, stone=2, coal=1, iron=1)
        if case == "table_diagonal":
            _set(game, (px + 1, py + 1), "table")
            expect = {MAKE_WOOD_PICKAXE: 1, 12: 1, 14: 1, 15: 1, MAKE_IRON_PICKAXE: 0}
        elif case == "table_too_far":
            _set(game, (px + 2, py), "table")
            expect = {MAKE_WOOD_PICKAXE: 0, 12: 0}
        elif case == "iron_needs_furnace":
            _set(game, (px, py + 1), "table")
            expect = {MAKE_IRON_PICKAXE: 0, 16: 0, MAKE_WOOD_PICKAXE: 1}
        else:
            _set(game, (px, py + 1), "table")
            _set(game, (px + 1, py - 1), "furnace")
            expect = {MAKE_IRON_PICKAXE: 1, 16: 1}
    elif case == "cow_in_front":
        world.add(objects.Cow(world, west))
        inv.update(stone=3, wood=3, sapling=1)
        expect = {DO: 1, PLACE_STONE: 0, PLACE_TABLE: 0, PLACE_PLANT: 0}
    elif case in ("unripe_plant", "ripe_plant"):
        plant = objects.Plant(world, west)
        plant.grown = 10 if case == "unripe_plant" else 400
        world.add(plant)
        expect = {DO: int(case == "ripe_plant"), PLACE_STONE: 0}
        inv.update(stone=1)
    elif case == "arrow_in_front":
        world.add(objects.Arrow(world, west, (1, 0)))
        expect = {DO: 0}
    elif case == "edge_of_world":
        for obj in world.objects:
            if obj is not player and obj.pos[0] <= 2 and abs(obj.pos[1] - py) <= 2:
                world.remove(obj)
        world[(0, py)] = world[(1, py)] = "grass"
        world.move(player, (0, py))
        inv.update(stone=3, wood=3, sapling=1)
        expect = {DO: 0, PLACE_STONE: 0, PLACE_TABLE: 0, PLACE_PLANT: 0, MOVE_WEST: 1}
    elif case.startswith("stone_"):
        world[west] = "stone"
        inv["wood_pickaxe"] = int(case == "stone_with_pickaxe")
        expect = {DO: inv["wood_pickaxe"]}
    elif case == "lava_in_front":
        world[west] = "lava"
        inv.update(stone=1, wood=3)
        expect = {DO: 0, PLACE_STONE: 1, PLACE_TABLE: 0}
    elif case == "water_in_front":
        world[west] = "water"
        inv.update(stone=1, wood=3, sapling=1)
        expect = {DO: 1, PLACE_STONE: 1, PLACE_TABLE: 0, PLACE_PLANT: 0}
    elif case == "grass_in_front":
        inv.update(stone=1, wood=1, sapling=1)
        expect = {DO: 1, PLACE_STONE: 1, PLACE_TABLE: 0, PLACE_PLANT: 1}
    elif case == "asleep":
        player.sleeping, inv["energy"] = True, 4
        expect = {a: int(a <= MOVE_SOUTH) for a in range(17)}  # noop and moves only
    elif case == "rested_sleeper":
        player.sleeping, inv["energy"] = True, 9
        expect = {NOOP: 1, MOVE_WEST: 1, DO: 1, SLEEP: 0}
    elif case == "full_energy":
        inv["energy"] = 9
        expect = {SLEEP: 0}
    mask = legal_mask(game)
    for a, want in expect.items():
        assert mask[a] == want, f"{case}: {ACTIONS[a]} mask {mask[a]}, want {want}"
    check_mask_by_execution(game, mask, range(1, 17))
    # and through the env: a masked-out choice runs Noop and is flagged
    env._mask = env._game_mask()
    illegal = np.flatnonzero(env._mask == 0)
    if illegal.size:
        before = _Snapshot(game)
        _, _, _, _, info = env.step(int(illegal[-1]))
        assert info["invalid_action"]
        assert signature(env.game) == signature(outcome(before, NOOP))


def test_progress_metrics_and_success():
    env = CrafterEnv(max_steps=400)
    obs, info = env.reset(seed=4)
    agent = CrafterHeuristicAgent()
    agent.reset(env, 4)
    last = 0.0
    while True:
        obs, _, term, trunc, info = env.step(agent.act(obs, info))
        unlocked = sorted(n for n, c in env.game.player.achievements.items() if c > 0)
        assert info["metrics"]["achievements"] == unlocked
        assert info["metrics"]["num_achievements"] == len(unlocked)
        assert info["progress"] == pytest.approx(len(unlocked) / 22)
        assert info["progress"] >= last and info["success"] is False
        last = info["progress"]
        if term or trunc:
            break
    assert trunc or term
    assert len(info["metrics"]["achievements"]) >= 5
    for key in ("health", "food", "drink", "energy"):
        assert 0 <= info["metrics"][key] <= 9


def test_text_and_ansi_describe_the_view():
    env = CrafterEnv(text=True, render_mode="ansi")
    env.reset(seed=0)
    game = env.game
    _clear_objects_near(game, 8)
    px, py = game.player.pos.tolist()
    for dx in range(-4, 5):
        for dy in range(-3, 4):
            if (dx, dy) != (0, 0):
                game.world[(px + dx, py + dy)] = "grass"
    game.world[(px - 2, py - 1)] = "tree"
    game.player.facing = (0, 1)
    long_term, short_term = env._game_text()
    assert "- tree 2 steps to your west and 1 step to your north" in long_term
    assert "You face south, toward grass." in long_term
    game.world[(px - 1, py)] = "tree"
    game.player.facing = (-1, 0)
    game.player.inventory.update(wood=2, sapling=1)
    text = env.text_observation()
    assert "- tree 1 step to your west" in text["long_term"]
    assert "You face west, toward a tree." in text["long_term"]
    assert "- health: 9/9" in text["short_term"] and "- wood: 2" in text["short_term"]
    assert "It is day." in text["short_term"]
    rows = env.render().splitlines()
    assert rows[3][3:5] == "T<" and "wood:2" in rows[-1]
    # text=True puts it in info on every step
    _, _, _, _, info = env.step(NOOP)
    assert set(info["text"]) == {"long_term", "short_term"}


def test_heuristic_beats_random():
    heuristic, random = [], []
    for seed in range(4):
        env = CrafterEnv(max_steps=500)
        heuristic.append(play(env, CrafterHeuristicAgent(), seed, 500)["progress"])
        random.append(play(env, RandomAgent(), seed, 500)["progress"])
    h, r = float(np.mean(heuristic)), float(np.mean(random))
    assert h >= r + 0.25 and h >= 2 * r, (heuristic, random)
