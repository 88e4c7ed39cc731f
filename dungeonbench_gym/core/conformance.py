"""Conformance checks: the contract, as tests anyone can run on their own env.

Each `check_*` takes an env factory: a picklable callable that builds a fresh env
and accepts keyword arguments for it (`text=True`), e.g.
`functools.partial(gymnasium.make, "DungeonBench/Crafter-v0")`. Each check raises
`ConformanceError` naming the broken rule. `check_all` runs them in order.

    from dungeonbench_gym.core.conformance import check_all, env_factory
    check_all(env_factory("DungeonBench/Crafter-v0"))
"""

from __future__ import annotations

import functools
import hashlib
import pickle
from typing import Callable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .env import INFO_KEYS
from .errors import ActionOutOfRange

EnvFactory = Callable[[], gym.Env]
NUMERIC_SPACES = (spaces.Box, spaces.Discrete, spaces.MultiBinary, spaces.MultiDiscrete)


class ConformanceError(AssertionError):
    pass


def _fail(rule: str, detail: str):
    raise ConformanceError(f"{rule}: {detail}")


def env_factory(env_id: str, **kwargs) -> EnvFactory:
    """A picklable factory (it crosses process boundaries in AsyncVectorEnv).

    Our ids get the `dungeonbench_gym:` prefix, so that a freshly spawned worker
    process imports the package (and its registry) before making the env.
    """
    if env_id.startswith("DungeonBench/"):
        env_id = "dungeonbench_gym:" + env_id
    return functools.partial(gym.make, env_id, **kwargs)


def _mask_of(env: gym.Env, obs) -> np.ndarray:
    return np.asarray(obs["action_mask"])


def _legal_choice(rng: np.random.Generator, mask: np.ndarray) -> int:
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        _fail("mask never all zero", "the action mask is all zero during play")
    return int(rng.choice(legal))


def _digest(obs: dict, reward=0.0, terminated=False, truncated=False, info=None,
            extra: str = "") -> str:
    """A fingerprint of one transition: every observation array, the outcome, `extra`."""
    h = hashlib.sha256()
    for key in sorted(obs):
        arr = np.ascontiguousarray(obs[key])
        h.update(key.encode())
        h.update(str(arr.dtype).encode())
        h.update(arr.tobytes())
    h.update(repr((float(reward), bool(terminated), bool(truncated))).encode())
    if info is not None:
        h.update(repr((round(float(info["progress"]), 12), bool(info["invalid_action"]))).encode())
    h.update(extra.encode())
    return h.hexdigest()


def _info_text(info: dict) -> str:
    """What a language agent reads: text, option labels, decision, metrics."""
    text = info.get("text") or {}
    metrics = sorted((k, _plain(v)) for k, v in info["metrics"].items())
    return repr((text.get("long_term"), text.get("short_term"), info["decision"],
                 [o.label for o in info["options"]], metrics))


def _plain(value):
    """numpy scalars as Python ones, so a value reads the same before and after batching."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


# ----------------------------------------------------------------------------- checks
def check_gymnasium(make: EnvFactory) -> None:
    """Gymnasium's own env checker, on the unwrapped env."""
    from gymnasium.utils.env_checker import check_env

    env = make()
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


def check_spaces(make: EnvFactory, expected_actions: int | None = None) -> None:
    """Discrete(N) actions; Dict observation with an int8 (N,) mask; numeric keys only."""
    env = make()
    try:
        if not isinstance(env.action_space, spaces.Discrete):
            _fail("Discrete actions", f"action_space is {env.action_space}")
        n = int(env.action_space.n)
        if expected_actions is not None and n != expected_actions:
            _fail("documented N", f"registry says {expected_actions} actions, env has {n}")
        space = env.observation_space
        if not isinstance(space, spaces.Dict) or "action_mask" not in space.spaces:
            _fail("Dict observation with action_mask", f"observation_space is {space}")
        mask_space = space["action_mask"]
        if not (isinstance(mask_space, spaces.Box) and mask_space.shape == (n,)
                and mask_space.dtype == np.int8 and np.all(mask_space.low == 0)
                and np.all(mask_space.high == 1)):
            _fail("mask space", f"action_mask must be Box(0, 1, ({n},), int8), got {mask_space}")
        for key, sub in space.spaces.items():
            if not isinstance(sub, NUMERIC_SPACES):
                _fail("numeric observation", f"key {key!r} is {type(sub).__name__}; "
                      "use Box/Discrete/MultiBinary/MultiDiscrete (text goes in info)")
        obs, info = env.reset(seed=0)
        if not space.contains(obs):
            _fail("observation in space", "reset observation is outside observation_space")
        masks = env.get_wrapper_attr("action_masks")()
        if np.asarray(masks).shape != (n,) or not np.array_equal(
                np.asarray(masks, bool), _mask_of(env, obs).astype(bool)):
            _fail("action_masks()", "must be reachable through wrappers and equal the obs mask")
    finally:
        env.close()


def check_play(make: EnvFactory, seed: int = 0, steps: int = 200, text: bool = True,
               probe_every: int = 40) -> None:
    """Random legal play: masks, options, info keys, progress, text, space membership.

    Every `probe_every` steps, each legal index is tried on a pickled copy of
    the env: every one must be accepted without `invalid_action`.
    """
    env = make()
    rng = np.random.default_rng(seed)
    try:
        obs, info = env.reset(seed=seed)
        _check_info(env, obs, info, text_expected=False, where="reset")
        last_progress = info["progress"]
        for t in range(steps):
            if t % probe_every == 0:
                _probe_every_legal_index(env, _mask_of(env, obs), f"step {t}")
            action = _legal_choice(rng, _mask_of(env, obs))
            obs, reward, terminated, truncated, info = env.step(action)
            where = f"step {t + 1}"
            _check_info(env, obs, info, text_expected=False, where=where)
            if info["invalid_action"]:
                _fail("legal index accepted", f"{where}: legal action {action} flagged invalid")
            if info["progress"] < last_progress - 1e-12:
                _fail("progress never decreases",
                      f"{where}: {last_progress} -> {info['progress']}")
            last_progress = info["progress"]
            if not np.isfinite(reward):
                _fail("finite reward", f"{where}: reward {reward}")
            if terminated or truncated:
                obs, info = env.reset()
                _check_info(env, obs, info, text_expected=False, where=f"reset after {where}")
                last_progress = info["progress"]
    finally:
        env.close()
    if text:
        check_text(make, seed)


def _probe_every_legal_index(env, mask: np.ndarray, where: str) -> None:
    blob = pickle.dumps(env)
    for action in np.flatnonzero(mask).tolist():
        copy = pickle.loads(blob)
        obs, _, _, _, info = copy.step(action)
        if info["invalid_action"]:
            _fail("every legal index accepted", f"{where}: legal action {action} flagged invalid")
        copy.close()


def _check_info(env, obs, info, text_expected: bool, where: str) -> None:
    missing = [k for k in INFO_KEYS if k not in info]
    if missing:
        _fail("required info keys", f"{where}: missing {missing}")
    if not env.observation_space.contains(obs):
        bad = [k for k, v in obs.items() if not env.observation_space[k].contains(v)]
        _fail("observation in space", f"{where}: keys outside their space: {bad}")
    mask = _mask_of(env, obs)
    if not mask.any():
        _fail("mask never all zero", f"{where}: all-zero mask")
    indices = sorted(int(o.index) for o in info["options"])
    if indices != np.flatnonzero(mask).tolist():
        _fail("options index-aligned with the mask",
              f"{where}: options {indices} vs legal {np.flatnonzero(mask).tolist()}")
    for o in info["options"]:
        if not isinstance(o.label, str) or not o.label or not isinstance(o.kind, str):
            _fail("option fields", f"{where}: option {o!r} needs a label and a kind")
    progress = info["progress"]
    if not (isinstance(progress, float) and 0.0 <= progress <= 1.0):
        _fail("progress in [0, 1]", f"{where}: progress {progress!r}")
    if not isinstance(info["success"], bool) or not isinstance(info["invalid_action"], bool):
        _fail("bool flags", f"{where}: success/invalid_action must be bool")
    if not isinstance(info["metrics"], dict) or not isinstance(info["decision"], str):
        _fail("metrics and decision", f"{where}: metrics must be a dict, decision a str")
    if text_expected:
        text = info.get("text")
        if not (isinstance(text, dict) and isinstance(text.get("long_term"), str)
                and isinstance(text.get("short_term"), str)
                and (text["long_term"] or text["short_term"])):
            _fail("text when text=True", f"{where}: info['text'] is {text!r}")


def check_text(make: EnvFactory, seed: int = 0, steps: int = 20) -> None:
    """With text=True, every reset and step carries {'long_term', 'short_term'}."""
    env = make(text=True)
    rng = np.random.default_rng(seed)
    try:
        obs, info = env.reset(seed=seed)
        _check_info(env, obs, info, text_expected=True, where="reset (text=True)")
        for t in range(steps):
            obs, _, term, trunc, info = env.step(_legal_choice(rng, _mask_of(env, obs)))
            _check_info(env, obs, info, text_expected=True, where=f"step {t + 1} (text=True)")
            if term or trunc:
                break
    finally:
        env.close()


def check_invalid_actions(make: EnvFactory, seed: int = 0, steps: int = 50) -> None:
    """A masked-out index runs the fallback, sets invalid_action, is counted, never raises.

    An index outside the action space raises ActionOutOfRange with a clear message.
    """
    env = make()
    rng = np.random.default_rng(seed)
    found = 0
    try:
        obs, info = env.reset(seed=seed)
        n = int(env.action_space.n)
        for t in range(steps):
            mask = _mask_of(env, obs)
            illegal = np.flatnonzero(mask == 0)
            if illegal.size:
                before = info["metrics"].get("invalid_actions")
                fallback = getattr(env.unwrapped, "fallback_action", None)
                expected = None
                if fallback is not None:  # what the fallback alone would have done
                    twin = pickle.loads(pickle.dumps(env))
                    expected = _digest(twin.step(fallback())[0])
                    twin.close()
                obs, _, term, trunc, info = env.step(int(rng.choice(illegal)))
                found += 1
                if expected is not None and _digest(obs) != expected:
                    _fail("fallback runs", f"step {t + 1}: a masked-out action did something "
                          "other than the env's fallback_action()")
                if not info["invalid_action"]:
                    _fail("invalid_action flag", f"step {t + 1}: masked-out action not flagged")
                after = info["metrics"].get("invalid_actions")
                if before is not None and after != before + 1:
                    _fail("invalid actions counted", f"count went {before} -> {after}")
            else:
                obs, _, term, trunc, info = env.step(_legal_choice(rng, mask))
            if term or trunc:
                obs, info = env.reset()
        for bad in (n, -1):
            try:
                env.step(bad)
            except ActionOutOfRange as exc:
                if str(n - 1) not in str(exc):
                    _fail("clear out-of-range error", f"message does not give the range: {exc}")
            except Exception as exc:  # noqa: BLE001 - any other error type is the failure
                _fail("clear out-of-range error", f"action {bad} raised {type(exc).__name__}: {exc}")
            else:
                _fail("clear out-of-range error", f"action {bad} was accepted")
    finally:
        env.close()
    if found == 0:
        # Nothing was ever masked out: the fallback path is untested for this env.
        _fail("fallback exercised", f"no masked-out action appeared in {steps} steps; "
              "raise steps or check the mask")


def _trajectory(env, seed: int, steps: int, actions: list[int] | None = None):
    """Digests of a seeded rollout; actions are drawn from a seeded rng over the mask."""
    rng = np.random.default_rng(seed + 1)
    obs, info = env.reset(seed=seed)
    digests, chosen = [_digest(obs, info=info, extra=_info_text(info))], []
    for t in range(steps if actions is None else len(actions)):
        a = actions[t] if actions is not None else _legal_choice(rng, _mask_of(env, obs))
        chosen.append(a)
        obs, r, term, trunc, info = env.step(a)
        digests.append(_digest(obs, r, term, trunc, info, _info_text(info)))
        if term or trunc:
            break
    return digests, chosen


def check_determinism(make: EnvFactory, seed: int = 0, steps: int = 100) -> None:
    """Two fresh envs, same seed and actions: identical trajectories (observations,
    rewards, text, options, metrics); a pickled copy continues identically too."""
    a, b = make(text=True), make(text=True)
    try:
        da, acts = _trajectory(a, seed, steps)
        db, _ = _trajectory(b, seed, steps, acts)
        if da != db:
            first = next(i for i, (x, y) in enumerate(zip(da, db)) if x != y)
            _fail("seeded determinism", f"trajectories diverge at step {first}")
        # Mid-episode pickle: the copy must continue exactly like the original.
        rng = np.random.default_rng(seed)
        obs, _ = a.reset(seed=seed)
        for _ in range(min(steps, 10)):
            obs, _, term, trunc, _ = a.step(_legal_choice(rng, _mask_of(a, obs)))
            if term or trunc:
                obs, _ = a.reset()
        clone = pickle.loads(pickle.dumps(a))
        for t in range(min(steps, 30)):
            act = _legal_choice(rng, _mask_of(a, obs))
            out_a, out_c = a.step(act), clone.step(act)
            if _digest(out_a[0], *out_a[1:4], out_a[4]) != _digest(out_c[0], *out_c[1:4], out_c[4]):
                _fail("pickle round trip", f"a pickled copy diverges {t + 1} steps later")
            obs = out_a[0]
            if out_a[2] or out_a[3]:
                break
    finally:
        a.close()
        b.close()


def check_process_boundary(make: EnvFactory, seed: int = 0, steps: int = 50) -> None:
    """The same seeded trajectory in a freshly spawned worker process as here.

    The worker is spawned, not forked: it imports everything anew under its own
    hash seed, so state that leaks from the parent cannot hide nondeterminism.
    """
    local = make(text=True)
    try:
        digests, actions = _trajectory(local, seed, steps)
    finally:
        local.close()
    vec = gym.vector.AsyncVectorEnv([functools.partial(make, text=True)], context="spawn",
                                    autoreset_mode=gym.vector.AutoresetMode.NEXT_STEP)
    try:
        obs, info = vec.reset(seed=seed)
        remote = [_digest({k: v[0] for k, v in obs.items()}, info=_first(info),
                          extra=_info_text(_first(info)))]
        for a in actions:
            obs, r, term, trunc, info = vec.step(np.array([a]))
            remote.append(_digest({k: v[0] for k, v in obs.items()}, r[0], term[0], trunc[0],
                                  _first(info), _info_text(_first(info))))
    finally:
        vec.close()
    if remote != digests:
        first = next(i for i, (x, y) in enumerate(zip(remote, digests)) if x != y)
        _fail("determinism across processes", f"worker trajectory diverges at step {first}")


def _first(vector_info: dict) -> dict:
    """Env 0's info out of a vector env's batched info (nested dicts are batched too)."""
    def pick(value):
        if isinstance(value, dict):
            return {k: pick(v) for k, v in value.items() if not k.startswith("_")}
        item = value[0]
        return item.item() if isinstance(item, np.generic) else item
    return pick(vector_info)


def check_vector(make: EnvFactory, steps: int = 20) -> None:
    """SyncVectorEnv and AsyncVectorEnv with two copies run and batch the mask."""
    for cls in (gym.vector.SyncVectorEnv, gym.vector.AsyncVectorEnv):
        vec = cls([make, make])
        try:
            rng = np.random.default_rng(0)
            obs, _ = vec.reset(seed=[0, 1])
            for _ in range(steps):
                masks = np.asarray(obs["action_mask"])
                if masks.shape != (2, int(vec.single_action_space.n)):
                    _fail("vectorised mask", f"{cls.__name__} mask shape {masks.shape}")
                acts = np.array([_legal_choice(rng, m) for m in masks])
                obs, *_ = vec.step(acts)
        finally:
            vec.close()


def check_maskable_ppo(make: EnvFactory, total_timesteps: int = 128) -> None:
    """A short sb3-contrib MaskablePPO run on the env exactly as gymnasium.make returns it."""
    from sb3_contrib import MaskablePPO

    env = make()
    try:
        model = MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=32, n_epochs=1,
                            seed=0, device="cpu", verbose=0)
        model.learn(total_timesteps=total_timesteps)
        obs, _ = env.reset(seed=0)
        action, _ = model.predict(obs, action_masks=env.get_wrapper_attr("action_masks")())
        if not np.asarray(obs["action_mask"])[int(action)]:
            _fail("masked prediction", f"MaskablePPO predicted masked-out action {action}")
    finally:
        env.close()


def _check_invariants(env, where: str) -> None:
    """The family's own invariants, where the env states them: `check_invariants()` on the
    unwrapped env returns what is broken now, in words (D&D: dnd/env.py's `battle_problems`)."""
    hook = getattr(env.unwrapped, "check_invariants", None)
    if hook is None:
        return
    problems = hook()
    if problems:
        _fail("family invariants", f"{where}: " + "; ".join(problems))


def _check_ended_start(obs, info, where: str) -> None:
    """A game over at reset (DecisionEnv's `_game_over`): exactly one legal option, decision 'over'."""
    mask = np.asarray(obs["action_mask"])
    if int(mask.sum()) != 1 or len(info["options"]) != 1 or info["decision"] != "over":
        _fail("one option when the game ended before the first decision",
              f"{where}: {int(mask.sum())} legal indices, {len(info['options'])} options, "
              f"decision {info['decision']!r} (want 1, 1, 'over')")


def _checked_reset(env, seed: int, where: str):
    """reset(seed=seed) with the start's checks (info, invariants, an ended start's one option);
    returns (obs, info, whether the game was over at reset)."""
    obs, info = env.reset(seed=seed)
    _check_info(env, obs, info, text_expected=False, where=where)
    _check_invariants(env, where)
    ended = bool(info.get("ended_before_first_decision"))
    if ended:
        _check_ended_start(obs, info, where)
    return obs, info, ended


def check_start(env, seed: int, rng: np.random.Generator | None = None) -> bool:
    """One seed a valid start: the reset's observation inside its space, its mask non-empty and
    aligned with its options, the family's invariants kept, and a first step with a legal index
    that plays without error. A game already over at reset (the enemies won before the party's
    first turn) must offer exactly one option, decision 'over', whose step ends the episode with
    reward 0. Returns whether the game was over at reset."""
    rng = rng if rng is not None else np.random.default_rng(seed)
    where = f"reset(seed={seed})"
    obs, info, ended = _checked_reset(env, seed, where)
    action = _legal_choice(rng, _mask_of(env, obs))
    try:
        obs, reward, terminated, truncated, info = env.step(action)
    except Exception as exc:  # noqa: BLE001 - any error on a legal first step is the failure
        raise ConformanceError(f"playable first step: {where}, step({action}) raised "
                               f"{type(exc).__name__}: {exc}") from exc
    where = f"{where}, first step({action})"
    _check_info(env, obs, info, text_expected=False, where=where)
    if info["invalid_action"]:
        _fail("legal index accepted", f"{where}: flagged invalid")
    if ended and not (terminated and reward == 0.0 and info.get("ended_before_first_decision")):
        _fail("an ended start's step ends the episode",
              f"{where}: terminated={terminated}, reward={reward}, "
              f"flag={info.get('ended_before_first_decision')!r}")
    if not (terminated or truncated):
        _check_invariants(env, where)
    return ended


def check_reset_scan(make: EnvFactory, seeds=range(10)) -> None:
    """Many seeds, each a valid start (see `check_start`)."""
    env = make()
    rng = np.random.default_rng(0)
    try:
        for seed in seeds:
            check_start(env, seed, rng)
    finally:
        env.close()


def fuzz_episode(env, seed: int, steps: int,
                 illegal_fraction: float = 0.1) -> tuple[int, bool, bool]:
    """One episode from `reset(seed=seed)` of random masked play, at most `steps` steps, about
    `illegal_fraction` of them a deliberately illegal index (masked out but inside the action
    space; none when every index is legal). Checked at every step: the observation inside its
    declared space, a non-empty mask aligned with `info["options"]` (same indices, a labelled
    option for every legal one), progress in [0, 1] and never decreasing, a finite reward,
    `invalid_action` set (and counted) exactly for the illegal indices, and the family's own
    invariants (`check_invariants()`). Raises `ConformanceError` naming the seed and step.
    The actions come from a generator seeded with `seed`, so (env, seed, steps, fraction)
    replays an episode exactly.

    Returns (steps played, whether the episode ended, whether it started already over)."""
    rng = np.random.default_rng(seed)
    obs, info, ended_at_reset = _checked_reset(env, seed, f"seed {seed}, reset")
    progress, invalid_count = info["progress"], info["metrics"].get("invalid_actions")
    for t in range(1, steps + 1):
        mask = _mask_of(env, obs)
        illegal = np.flatnonzero(mask == 0)
        deliberate = bool(illegal.size) and rng.random() < illegal_fraction
        action = int(rng.choice(illegal)) if deliberate else _legal_choice(rng, mask)
        try:
            obs, reward, terminated, truncated, info = env.step(action)
        except Exception as exc:  # noqa: BLE001 - a crash is what the fuzz looks for
            raise ConformanceError(f"no crash: seed {seed}, step {t}, action {action} "
                                   f"({'illegal' if deliberate else 'legal'}) raised "
                                   f"{type(exc).__name__}: {exc}") from exc
        where = f"seed {seed}, step {t} (action {action}, {'illegal' if deliberate else 'legal'})"
        _check_info(env, obs, info, text_expected=False, where=where)
        if info["invalid_action"] != deliberate:
            _fail("invalid_action flags exactly the masked-out indices",
                  f"{where}: invalid_action={info['invalid_action']}")
        count = info["metrics"].get("invalid_actions")
        if invalid_count is not None and count != invalid_count + deliberate:
            _fail("invalid actions counted", f"{where}: count went {invalid_count} -> {count}")
        invalid_count = count
        if info["progress"] < progress - 1e-12:
            _fail("progress never decreases", f"{where}: {progress} -> {info['progress']}")
        progress = info["progress"]
        if not np.isfinite(reward):
            _fail("finite reward", f"{where}: reward {reward}")
        _check_invariants(env, where)
        if terminated or truncated:
            return t, True, ended_at_reset
    return steps, False, ended_at_reset


def check_fuzz(make: EnvFactory, seed: int = 0, steps: int = 300,
               illegal_fraction: float = 0.1) -> None:
    """Long random masked play, `illegal_fraction` of it deliberately illegal indices, with
    every step checked (see `fuzz_episode`); a finished episode is followed by the next seed."""
    env = make()
    try:
        episode_seed, left = seed, steps
        while left > 0:
            played, _, _ = fuzz_episode(env, episode_seed, left, illegal_fraction)
            left -= played
            episode_seed += 1
    finally:
        env.close()


ALL_CHECKS: dict[str, Callable[..., None]] = {
    "gymnasium": check_gymnasium,
    "spaces": check_spaces,
    "play": check_play,
    "invalid_actions": check_invalid_actions,
    "determinism": check_determinism,
    "process_boundary": check_process_boundary,
    "vector": check_vector,
    "maskable_ppo": check_maskable_ppo,
    "reset_scan": check_reset_scan,
    "fuzz": check_fuzz,
}


def check_all(make: EnvFactory, *, expected_actions: int | None = None,
              skip: tuple[str, ...] = ()) -> list[str]:
    """Run every check (except `skip`); returns the names of the checks that ran."""
    ran = []
    for name, check in ALL_CHECKS.items():
        if name in skip:
            continue
        if name == "spaces":
            check(make, expected_actions=expected_actions)
        else:
            check(make)
        ran.append(name)
    return ran
