"""Every D&D id, every seed, a valid start (issue 19, Build 1).

The SRD lets the enemies act first and drop the party before its first turn. Such a seed is not
rerolled: its reset opens on exactly one option, decision "over", with
``info["ended_before_first_decision"]``, and the step that takes it ends the episode as the loss
it is (reward 0, success False), so an evaluation records it like any other episode. Also here:
the Day vector stays inside its Box when Flexible Casting makes more slots than the maximum, and
the engine invariants the conformance fuzz checks at every step notice when they break.
"""

import functools

import gymnasium as gym
import numpy as np
import pytest

import dungeonbench_gym  # noqa: F401 - registers the ids
from dungeonbench_gym.core import conformance
from dungeonbench_gym.core.errors import EpisodeOver, IllegalAction
from dungeonbench_gym.eval.runner import EpisodeTask, run_episode
from dungeonbench_gym.agents.spec import AgentSpec
from dungeonbench_gym.games.dnd.day_env import DnDDayEnv, _slot_share

from toy_env import CounterEnv

ENCOUNTER_LABEL = "The battle ended before the party could act (continue)"
DAY_LABEL = "The day ended before the party could act (continue)"
# Found by `python benchmarks/fuzz.py --reset-scan 1000`: the only ids and seeds in 0-999 whose
# battle is over before the party's first decision (the enemies win initiative and the fight).
ENDED_AT_RESET = [("OrcRaid", 71), ("OrcRaid", 434), ("OrcRaid", 828), ("OrcRaid", 848),
                  ("OrcRaid", 906), ("HarpyCliffs", 34), ("HarpyCliffs", 707)]


def _make(name, **kwargs):
    return gym.make(f"dungeonbench_gym:DungeonBench/DnD-Encounter-{name}-v0", **kwargs)


# ------------------------------------------------------------------ the reproduction
def test_orc_raid_seed_71_starts_over_and_its_step_reports_the_loss():
    env = _make("OrcRaid", text=True)
    obs, info = env.reset(seed=71)
    assert env.observation_space.contains(obs)
    assert info["ended_before_first_decision"] is True
    assert np.flatnonzero(obs["action_mask"]).tolist() == [0]
    assert [(o.index, o.label, o.kind) for o in info["options"]] == [(0, ENCOUNTER_LABEL, "over")]
    assert info["decision"] == "over" and not info["success"] and info["progress"] == 0.0
    assert "The battle is over: loss" in info["text"]["short_term"]
    battle = env.unwrapped.battle
    assert battle.outcome == "loss" and battle.round == 1   # lost in the first round

    obs, reward, terminated, truncated, info = env.step(0)   # raised "the battle is over" before
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert env.observation_space.contains(obs)
    assert not info["invalid_action"] and not info["success"] and info["progress"] == 0.0
    assert info["metrics"]["win"] == 0.0 and info["metrics"]["decisions"] == 0
    assert info["metrics"]["ended_before_first_decision"] is True
    with pytest.raises(EpisodeOver):
        env.step(0)

    obs, info = env.reset(seed=0)   # the next reset is an ordinary one again
    assert "ended_before_first_decision" not in info and info["decision"] not in ("over", "none")
    assert "ended_before_first_decision" not in info["metrics"]
    assert obs["action_mask"].sum() > 1


@pytest.mark.parametrize("name, seed", ENDED_AT_RESET)
def test_every_seed_found_ending_at_reset_plays_to_a_recorded_loss(name, seed):
    env = _make(name)
    obs, info = env.reset(seed=seed)
    assert info["ended_before_first_decision"] and obs["action_mask"].sum() == 1
    conformance._check_invariants(env, f"{name} seed {seed}")
    # a masked-out index takes the usual fallback path: flagged, counted, then the same end
    obs, reward, terminated, truncated, info = env.step(5)
    assert info["invalid_action"] and info["metrics"]["invalid_actions"] == 1
    assert terminated and not truncated and reward == 0.0
    assert not info["success"] and info["metrics"]["win"] == 0.0


def test_the_same_seeds_on_other_ids_start_normally():
    # the start that ends is the seed's dice on that battle, not a property of the seed
    env = _make("GoblinAmbush")
    for _, seed in ENDED_AT_RESET:
        _, info = env.reset(seed=seed)
        assert "ended_before_first_decision" not in info and info["decision"] != "over"


def test_on_invalid_raise_and_terminate_hold_on_an_ended_start():
    env = _make("OrcRaid", on_invalid="raise")
    env.reset(seed=71)
    with pytest.raises(IllegalAction):
        env.step(3)
    env = _make("OrcRaid", on_invalid="terminate")
    env.reset(seed=71)
    _, reward, terminated, _, info = env.step(3)
    assert terminated and reward == 0.0 and info["invalid_action"]


@pytest.mark.parametrize("agent", ["random", "baseline"])
def test_the_harness_records_an_ended_start_as_a_loss(agent):
    task = EpisodeTask(AgentSpec.create(agent), "DnD-Encounter-OrcRaid-v0", episode=0, seed=71)
    record = run_episode(task)
    assert record["terminated"] and not record["truncated"]
    assert record["steps"] == 1 and record["return"] == 0.0
    assert record["progress"] == 0.0 and record["success"] is False
    assert record["metrics"]["win"] == 0.0 and record["metrics"]["ended_before_first_decision"] is True
    assert record["trajectory"][0]["decision"] == "over" and not record["trajectory"][0]["invalid"]
    assert record["trajectory"][0]["label"] == ENCOUNTER_LABEL


def test_reset_scan_passes_on_the_seeds_that_end_at_reset():
    conformance.check_reset_scan(conformance.env_factory("DungeonBench/DnD-Encounter-OrcRaid-v0"),
                                 seeds=[70, 71, 72, 434])
    conformance.check_reset_scan(conformance.env_factory("DungeonBench/DnD-Encounter-HarpyCliffs-v0"),
                                 seeds=[34, 707])


# ------------------------------------------------------------------ the Day track
ORC_DAY = """
name = "Orc Day"
description = "Three orc raids in a row: the first fight can be lost before the party acts."
short_rests = 1

[[party]]
id = "fighter"
archetype = "fighter"
level = 3

[[party]]
id = "rogue"
archetype = "rogue"
level = 3

[[party]]
id = "apprentice"
archetype = "wizard"
level = 2

[[encounters]]
scenario = "orc_raid"

[[encounters]]
scenario = "orc_raid"

[[encounters]]
scenario = "orc_raid"
"""
# seeds 0-999 of ORC_DAY whose first fight is over before the party's first decision
DAY_ENDED_AT_RESET = [130, 178]


@pytest.fixture
def orc_day(tmp_path):
    path = tmp_path / "orc_day.toml"
    path.write_text(ORC_DAY)
    return path


@pytest.mark.parametrize("seed", DAY_ENDED_AT_RESET)
def test_a_day_whose_first_fight_is_lost_before_the_party_acts(orc_day, seed):
    env = DnDDayEnv(str(orc_day))
    obs, info = env.reset(seed=seed)
    assert env.observation_space.contains(obs)
    assert info["ended_before_first_decision"] is True and info["decision"] == "over"
    assert [(o.index, o.label, o.kind) for o in info["options"]] == [(0, DAY_LABEL, "over")]
    assert env.run.over and env.run.results == ["loss"]
    obs, reward, terminated, truncated, info = env.step(0)
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert env.observation_space.contains(obs)
    assert info["progress"] == 0.0 and not info["success"]
    assert info["metrics"]["encounters_won"] == 0 and info["metrics"]["full_clear"] == 0.0
    assert info["metrics"]["ended_before_first_decision"] is True


def test_the_day_reset_scan_passes_and_other_seeds_start_normally(orc_day):
    make = functools.partial(DnDDayEnv, str(orc_day))
    conformance.check_reset_scan(make, seeds=[129, 130, 131, 178])
    env = make()
    _, info = env.reset(seed=131)
    assert "ended_before_first_decision" not in info and info["decision"] not in ("over", "none")


def test_a_rested_day_plays_on_past_a_first_fight_lost_before_the_party_acts(orc_day):
    # the control condition plays every fight, so the day is not over: the party decides next
    env = DnDDayEnv(str(orc_day), rested=True)
    _, info = env.reset(seed=130)
    assert "ended_before_first_decision" not in info
    assert env.run.results == ["loss"] and env.run.stage == 1 and info["decision"] not in ("over", "none")


# ------------------------------------------------------------------ the Day vector's slot share
def test_flexible_casting_slots_above_the_maximum_keep_the_day_vector_in_its_box():
    # GorgonRoad seed 2 of the fuzz: the sorcerer creates a level-2 slot on a full table
    env = gym.make("dungeonbench_gym:DungeonBench/DnD-Day-GorgonRoad-v0")
    rng = np.random.default_rng(2)
    obs, _ = env.reset(seed=2)
    sorcerer = env.unwrapped.run.party["sorcerer"]
    above = False
    for _ in range(60):
        mask = obs["action_mask"]
        illegal = np.flatnonzero(mask == 0)
        deliberate = bool(illegal.size) and rng.random() < 0.1   # conformance.fuzz_episode's draw
        obs, _, terminated, truncated, _ = env.step(
            int(rng.choice(illegal)) if deliberate else int(rng.choice(np.flatnonzero(mask))))
        assert env.observation_space["day"].contains(obs["day"])
        if sum(sorcerer.resources["slots"]) > sum(sorcerer.resources["slots_max"]):
            above = True
            party = list(env.unwrapped.run.party)
            column = 3 * 5 + 4 + 5 * party.index("sorcerer") + 3   # its 'slots left' entry
            assert obs["day"][column] == 1.0
        if terminated or truncated:
            break
    assert above, "the replay no longer reaches slots above the maximum: pick another seed"


def test_slot_share_reads_full_or_more_as_one_and_none_as_zero():
    assert _slot_share({"slots": (4, 4, 3), "slots_max": (4, 3, 3)}) == 1.0
    assert _slot_share({"slots": (2, 1, 0), "slots_max": (4, 2, 0)}) == 0.5
    assert _slot_share({}) == 0.0
    assert _slot_share({"slots": (0, 0), "slots_max": (0, 0)}) == 0.0


# ------------------------------------------------------------------ the engine invariants
def test_invariants_hold_in_play_and_name_what_breaks():
    env = _make("GoblinAmbush")
    env.reset(seed=1)
    u = env.unwrapped
    assert u.check_invariants() == []
    b = u.battle
    hero = next(c for c in b.creatures.values() if c.side == b.party_side)
    hero.hp = hero.max_hp + 1
    assert any(f"{hero.cid}: hp {hero.max_hp + 1}" in p for p in u.check_invariants())
    hero.hp = hero.max_hp
    b.order.remove(b.decision.actor)
    assert any("not in the initiative order" in p for p in u.check_invariants())
    with pytest.raises(conformance.ConformanceError, match="family invariants"):
        conformance._check_invariants(env, "tampered")


def test_day_invariants_between_fights():
    env = gym.make("dungeonbench_gym:DungeonBench/DnD-Day-GoblinRoad-v0")
    u = env.unwrapped
    for seed in range(20):   # random play to the first intermission some seed reaches
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while u.run.phase == "battle" and not u.run.over:
            obs, *_ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            assert u.check_invariants() == []
        if u.run.phase == "intermission":
            break
    assert u.run.phase == "intermission" and u.check_invariants() == []
    pc = next(iter(u.run.party.values()))
    pc.hp = -1
    assert any(f"{pc.cid}: hp -1" in p for p in u.check_invariants())


# ------------------------------------------------------------------ the core's ended start
class _EndsAtReset(CounterEnv):
    ended_label = "The counter was already finished (continue)"

    def _game_reset(self, seed, options):
        super()._game_reset(seed, options)
        self.value, self.finished = 5, True

    def _game_over(self):
        return self.finished

    def _game_step(self, action):   # the core never steps a game that is over
        raise AssertionError("stepped a finished game")


def test_the_core_offers_one_continue_option_and_ends_with_the_real_outcome():
    env = _EndsAtReset(text=True)
    obs, info = env.reset(seed=0)
    assert obs["action_mask"].tolist() == [1, 0, 0, 0]
    assert env.action_masks().tolist() == [True, False, False, False]
    assert [(o.index, o.label, o.kind) for o in info["options"]] == [(0, _EndsAtReset.ended_label, "over")]
    assert info["ended_before_first_decision"] and info["progress"] == 1.0 and info["success"]
    obs, reward, terminated, truncated, info = env.step(2)   # masked out: the fallback, then the end
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["invalid_action"] and info["metrics"]["invalid_actions"] == 1
    assert info["success"] and info["progress"] == 1.0 and info["ended_before_first_decision"]
    typed = _EndsAtReset()
    typed.accepts_text = True
    typed.reset(seed=0)
    assert typed.step("look")[2] is True   # a typed command continues past it too


# ------------------------------------------------------------------ benchmarks/fuzz.py
def _fuzz_script():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz.py"
    spec = importlib.util.spec_from_file_location("fuzz_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_fuzz_benchmark_lists_ended_starts_and_passes(capsys):
    fuzz = _fuzz_script()
    assert fuzz.main(["--reset-scan", "72", "--ids", "DnD-Encounter-OrcRaid-v0"]) == 0
    assert fuzz.main(["--decisions", "300", "--ids", "DnD-Encounter-OrcRaid-v0,DnD-Day-GoblinRoad-v0"]) == 0
    out = capsys.readouterr().out
    assert "DnD-Encounter-OrcRaid-v0: seeds [71]" in out
    assert "fuzz: 300 decisions" in out and "failures: 0" in out


def test_the_fuzz_benchmark_reports_a_crash_with_its_id_and_seed(capsys, monkeypatch):
    from dungeonbench_gym.games.dnd.env import DnDEncounterEnv
    play = DnDEncounterEnv._game_step

    def crash_on_the_third(self, action):
        if self._agent_decisions == 2:
            raise RuntimeError("injected engine fault")
        return play(self, action)

    monkeypatch.setattr(DnDEncounterEnv, "_game_step", crash_on_the_third)
    fuzz = _fuzz_script()
    assert fuzz.main(["--decisions", "20", "--ids", "DnD-Encounter-GoblinAmbush-v0"]) == 1
    out = capsys.readouterr().out
    assert "DnD-Encounter-GoblinAmbush-v0 seed 0: ConformanceError: no crash: seed 0, step 3" in out
    assert "injected engine fault" in out and "--replay DnD-Encounter-GoblinAmbush-v0:0" in out


def test_the_llm_agent_takes_an_ended_start_without_asking_the_model():
    """A start where the party was downed before its turn has one "continue" option: asking a
    model about it would only cost tokens (or a fallback from a confused answer)."""
    from dungeonbench_gym.llm.agent import LLMAgent
    from dungeonbench_gym.llm.fake import ScriptedClient

    env = dungeonbench_gym.make("DnD-Encounter-OrcRaid-v0", text=True)
    client = ScriptedClient(["no idea"])
    agent = LLMAgent(client)
    agent.reset(env, 71)
    obs, info = env.reset(seed=71)
    action = agent.act(obs, info)
    assert action == info["options"][0].index and client.calls == []
    assert not agent.last_record["fell_back"] and agent.last_record["prompt_tokens"] == 0
    _, _, terminated, _, info = env.step(action)
    assert terminated and not info["invalid_action"]
