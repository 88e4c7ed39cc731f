"""The D&D envs' option features (games/dnd/option_features.py): options told apart, numbers from
the rules, stable vocabulary ids, the legacy encoding still selectable."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import dungeonbench_gym  # noqa: F401
from dungeonbench_gym.dnd import lookup
from dungeonbench_gym.games.dnd import option_features as of
from dungeonbench_gym.games.dnd import views

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from dnd_option_identity import dnd_ids, identical, measure  # noqa: E402

F = of.F


def _decision(u):
    return u.run.decision if hasattr(u, "run") else u.battle.decision


def _play_until(env_id, want, seeds=range(6), limit=400, **kw):
    """Random masked play until want(env, decision) is true; returns (env, obs). The seeds are
    fixed, so a decision that no longer comes up is a change in play that the test must report."""
    env = gym.make(env_id, **kw)
    u = env.unwrapped
    for seed in seeds:
        rng = np.random.default_rng(seed)
        obs, _ = env.reset(seed=seed)
        for _ in range(limit):
            d = _decision(u)
            if d is not None and want(u, d):
                return env, obs
            obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if term or trunc:
                break
    raise AssertionError(f"{env_id}: no such decision in seeds {list(seeds)} within {limit} steps each; "
                         "pick other seeds or a longer limit")


# ------------------------------------------------------------------ numbers written from the rules
def test_hit_chance_of_plus_5_against_ac_15_is_55_percent():
    p_hit, p_crit = lookup.hit_chance(5, 15)
    assert p_hit == pytest.approx(0.55) and p_crit == pytest.approx(0.05)
    # advantage: 1 - 0.45^2; disadvantage: 0.55^2 (SRD: roll two d20s)
    assert lookup.hit_chance(5, 15, adv=True)[0] == pytest.approx(1 - 0.45 ** 2)
    assert lookup.hit_chance(5, 15, dis=True)[0] == pytest.approx(0.55 ** 2)
    # a natural 20 hits whatever the AC, a natural 1 misses whatever the bonus
    assert lookup.hit_chance(0, 30)[0] == pytest.approx(0.05) and lookup.hit_chance(30, 5)[0] == pytest.approx(0.95)


def test_attack_target_rows_match_the_lookup_odds():
    env, obs = _play_until("DungeonBench/DnD-Encounter-GoblinAmbush-v0",
                           lambda u, d: d.kind == "target" and u.battle.pending["use"][0] == "attack")
    b = env.unwrapped.battle
    d, use = b.decision, b.pending["use"]
    for i, o in enumerate(d.options):
        if o.kind != "target":
            continue
        odds = lookup.attack_odds(b, d.actor, use[1], o.data[0])
        row = obs["options"][i]
        assert row[F["p_hit"]] == pytest.approx(odds["p_hit"], abs=1e-6)
        assert row[F["p_crit"]] == pytest.approx(odds["p_crit"], abs=1e-6)
        assert row[F["expected_damage"]] * 40 == pytest.approx(odds["expected_damage"], abs=0.3)
        assert row[F["target_ac"]] * 30 == pytest.approx(odds["ac"], abs=1e-4)
        t = b.creatures[o.data[0]]
        assert row[F["x"]] * 32 == pytest.approx(t.pos[0]) and row[F["y"]] * 32 == pytest.approx(t.pos[1])
        assert row[F["target_enemy"]] == 1 and row[F["is_target"]] == 1
        assert obs["option_ids"][i] == of.token_id(f"attack:{use[1]}")


def test_an_area_counts_the_creatures_it_catches_by_side():
    def aiming(u, d):
        return d.kind in ("direction", "point_y") and u.battle.pending["use"][0] == "spell"
    env, obs = _play_until("DungeonBench/DnD-Encounter-OgreBridge-v0", aiming, seeds=range(30))
    b = env.unwrapped.battle
    d, p = b.decision, b.pending
    c = b.creatures[d.actor]
    for i, o in enumerate(d.options):
        where = tuple(o.data[0]) if d.kind == "direction" else (p["x"], o.data[0])
        hits = lookup.area_preview(b, d.actor, p["use"], where)
        foes = sum(b.creatures[h].side != c.side for h in hits)
        row = obs["options"][i]
        assert row[F["enemies_caught"]] * 8 == pytest.approx(min(8, foes))
        assert row[F["allies_caught"]] * 8 == pytest.approx(min(8, len(hits) - foes))
        assert row[F["spell_level"]] * 9 == pytest.approx(p["use"][2])


def test_a_spell_option_carries_its_slot_level_and_its_spell_id():
    def two_levels(u, d):
        return d.kind == "action" and sum(o.kind == "spell" and o.data[0] == "magic-missile" for o in d.options) >= 2
    env, obs = _play_until("DungeonBench/DnD-Encounter-OgreBridge-v0", two_levels, seeds=range(30))
    d = env.unwrapped.battle.decision
    mm = [(i, o.data[1]) for i, o in enumerate(d.options) if o.kind == "spell" and o.data[0] == "magic-missile"]
    for i, level in mm:
        row = obs["options"][i]
        assert row[F["spell_level"]] * 9 == pytest.approx(level)
        assert row[F["is_spell"]] == 1 and row[F["spell"]] == 1
        assert obs["option_ids"][i] == of.token_id("spell:magic-missile") > 1
    assert len({obs["options"][i].tobytes() for i, _ in mm}) == len(mm)   # levels apart


# ------------------------------------------------------------------ stable ids
def test_end_turn_and_a_spell_keep_their_id_at_any_index_and_across_resets():
    env = gym.make("DungeonBench/DnD-Encounter-OgreBridge-v0")
    u = env.unwrapped
    end, mm = of.token_id("kind:end_turn"), of.token_id("spell:magic-missile")
    assert end > 1 and mm > 1 and end != mm
    at_end, at_mm = set(), set()
    for seed in range(4):
        rng = np.random.default_rng(seed)
        obs, _ = env.reset(seed=seed)
        for _ in range(150):
            d = u.battle.decision
            if d is not None and d.kind == "action":
                for i, o in enumerate(d.options):
                    if o.kind == "end_turn":
                        assert obs["option_ids"][i] == end
                        at_end.add(i)
                    if o.kind == "spell" and o.data[0] == "magic-missile":
                        assert obs["option_ids"][i] == mm
                        at_mm.add(i)
                    if obs["option_ids"][i] == end:
                        assert o.kind == "end_turn"
            obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if term or trunc:
                break
    assert len(at_end) >= 2, "End turn was seen at one index only: the test proves nothing"
    assert at_mm


def test_the_vocabulary_is_the_same_in_every_process():
    here = hashlib.sha256("\n".join(of.vocabulary()).encode()).hexdigest()
    code = ("import hashlib; from dungeonbench_gym.games.dnd import option_features as f; "
            "print(hashlib.sha256('\\n'.join(f.vocabulary()).encode()).hexdigest())")
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
        assert out.stdout.strip() == here, out.stderr
    assert of.vocab_size() <= 1 << of.ID_BITS   # the id bits in the rows are the id itself
    assert of.token_id("no-such-token") == 1


# ------------------------------------------------------------------ told apart, across every id
def test_options_with_different_labels_have_different_rows_on_every_dnd_id():
    """Under 1% of decisions with two options of identical rows (row + id) but different labels,
    over thousands of random masked decisions across every registered D&D id; every observation
    inside its space."""
    decisions = bad = 0
    for env_id in dnd_ids():
        m = measure(env_id, decisions=70, seed=3)
        decisions += m["decisions"]
        bad += m["new_dec"]
    assert decisions >= 2000
    assert bad / decisions < 0.01, f"{bad} of {decisions} decisions have options the rows cannot tell apart"
    assert not of.ERRORS, f"features that fell back: {of.ERRORS.most_common(5)}"


def test_identical_finds_pairs_with_different_labels_only():
    rows = np.array([[1, 0], [1, 0], [0, 1], [1, 0]], np.float32)
    assert identical(rows, ["a", "b", "c", "a"]) == [(0, 1), (1, 3)]


# ------------------------------------------------------------------ the legacy encoding
@pytest.mark.parametrize("env_id", ["DungeonBench/DnD-Encounter-GoblinAmbush-v0", "DungeonBench/DnD-Day-GoblinRoad-v0"])
def test_legacy_features_reproduce_the_old_observation(env_id):
    legacy = gym.make(env_id, option_features="legacy")
    rich = gym.make(env_id)
    assert set(legacy.observation_space.spaces) - {"day"} == {"grid", "creatures", "options", "decision", "action_mask"}
    assert legacy.observation_space["options"].shape == (64, len(views.OPTION_FEATURES)) == (64, 12)
    assert "option_ids" not in legacy.observation_space.spaces
    assert rich.observation_space["options"].shape == (64, of.N_FEATURES)
    assert rich.observation_space["option_ids"].shape == (64,)
    rng = np.random.default_rng(0)
    a_obs, _ = legacy.reset(seed=1)
    b_obs, _ = rich.reset(seed=1)
    u = legacy.unwrapped
    for _ in range(120):
        d = u.state()["decision"]
        by_id = {c["id"]: c for c in u.state()["combatants"]}
        want = np.zeros((64, 12), np.float32)
        for i, o in enumerate(d["options"] if d else ()):
            want[i] = views._option_row(o, by_id, u.state()["party_side"])
        assert np.array_equal(a_obs["options"], want)
        for k in a_obs:   # everything but the option rows is the same in both
            if k != "options":
                assert np.array_equal(a_obs[k], b_obs[k]), k
        assert legacy.observation_space.contains(a_obs) and rich.observation_space.contains(b_obs)
        a = int(rng.choice(np.flatnonzero(a_obs["action_mask"])))
        a_obs, _, t1, r1, _ = legacy.step(a)
        b_obs, _, t2, r2, _ = rich.step(a)
        if t1 or r1:
            break


def test_an_unknown_option_features_name_is_refused():
    with pytest.raises(ValueError, match="option_features"):
        gym.make("DungeonBench/DnD-Encounter-GoblinAmbush-v0", option_features="fancy")
