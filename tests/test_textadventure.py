"""Text adventures: achievement files, our valid-action detector, the env, our games."""

import copy
import pickle
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jericho")

import gymnasium as gym  # noqa: E402

import dungeonbench_gym  # noqa: E402,F401
from dungeonbench_gym import cli  # noqa: E402
from dungeonbench_gym.core.errors import FileFormatError  # noqa: E402
from dungeonbench_gym.games.textadventure import achievements as ach  # noqa: E402
from dungeonbench_gym.games.textadventure.check import read_walkthrough  # noqa: E402
from dungeonbench_gym.games.textadventure.env import (TextAdventureEnv, game_files,  # noqa: E402
                                                      shipped_games)

GAMES = ["greenhouse", "lighthouse"]          # registered
SOURCES = sorted(p.stem for p in (Path(__file__).resolve().parents[1] / "scenarios" /
                                  "textadventures").glob("*/*.inf"))   # and the measuring set
SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios" / "textadventures"


def walkthrough(game):
    return read_walkthrough(game_files(game)["walkthrough"])


# ------------------------------------------------------------------ achievement files
def test_achievement_file_parses_names_literals_and_regexes():
    spec = ach.parse("# a comment\n\nTURN_LIMIT 12\nOPEN_BOX You open the box.\n"
                     "LAMP /lamp (is|now) lit/\n", "t.ach")
    assert spec.turn_limit == 12 and spec.names == ["OPEN_BOX", "LAMP"]
    tracker = ach.Tracker(spec)
    assert tracker.observe("You open the\n   box.  Inside is a key.", 3) == ["OPEN_BOX"]
    assert tracker.observe("You open the box.", 4) == []          # earned once, at turn 3
    assert tracker.observe("The lamp now lit", 13) == []          # past TURN_LIMIT
    assert tracker.observe("The lamp is lit.", 12) == ["LAMP"]
    assert tracker.earned == {"OPEN_BOX": 3, "LAMP": 12} and tracker.complete


def test_achievement_text_is_case_sensitive_and_literal():
    tracker = ach.Tracker(ach.parse("TURN_LIMIT 5\nDOT a.b\n"))
    assert tracker.observe("A.B axb", 1) == []       # '.' is not a wildcard, case counts
    assert tracker.observe("xa.by", 2) == ["DOT"]


@pytest.mark.parametrize("text, line, words", [
    ("OPEN You open it.\n", "line 1", "expected 'TURN_LIMIT n' first"),
    ("TURN_LIMIT ten\nA x\n", "line 1", "is not a positive whole number"),
    ("TURN_LIMIT 5\n\nBAD-NAME text\n", "line 3", "is not an identifier"),
    ("TURN_LIMIT 5\nEMPTY\n", "line 2", "has no text"),
    ("TURN_LIMIT 5\nA x\nA y\n", "line 3", "already on line 2"),
    ("TURN_LIMIT 5\nR /(unclosed/\n", "line 2", "does not compile"),
    ("TURN_LIMIT 5\nA x\nTURN_LIMIT 6\n", "line 3", "a second TURN_LIMIT"),
    ("TURN_LIMIT 5\n", "end of file", "no achievements"),
    ("", "line 1", "the file is empty"),
])
def test_malformed_achievement_files_name_the_file_line_and_fix(text, line, words):
    with pytest.raises(FileFormatError) as info:
        ach.parse(text, "games/x.achievements")
    message = str(info.value)
    assert message.startswith("games/x.achievements: field '" + line + "'")
    assert words in message and "Fix:" in message


def test_the_essays_905_file_ships_and_parses():
    spec = ach.load(SCENARIOS / "905" / "905.achievements")
    assert spec.turn_limit == 40 and len(spec.achievements) == 13
    assert spec.names[0] == "ANSWER_PHONE" and spec.names[-1] == "CARD_SLOT"
    assert "905" not in shipped_games()    # the story itself is the user's to supply


# ------------------------------------------------------------------------ our games
@pytest.mark.parametrize("game", GAMES)
def test_walkthrough_earns_every_achievement_and_every_command_is_an_option(game):
    env = TextAdventureEnv(game=game)
    _, info = env.reset(seed=0)
    spec = env.achievement_file
    commands = walkthrough(game)
    assert len(commands) <= spec.turn_limit
    for turn, command in enumerate(commands, start=1):
        actions = env.valid_actions
        index = env.detector.option_for(command, actions)
        assert index is not None, (f"{game} turn {turn}: {command!r} is not among the "
                                   f"options {actions.labels}")
        assert info["options"][index].label == actions.labels[index]
        _, _, terminated, truncated, info = env.step(index)   # play the option, not the text
        assert not truncated
    assert terminated and info["success"] and info["progress"] == 1.0
    assert info["metrics"]["won"] and info["metrics"]["game_over"]
    earned = info["metrics"]["achievements"]
    assert set(earned) == set(spec.names)
    assert all(1 <= t <= spec.turn_limit for t in earned.values())
    assert list(earned.values()) == sorted(earned.values())   # the story's order
    env.close()


@pytest.mark.parametrize("game", GAMES)
def test_achievements_check_command_reports_the_walkthrough(game, capsys):
    files = game_files(game)
    code = cli.main(["achievements", "check", str(files["story"]), str(files["achievements"]),
                     "--walkthrough", str(files["walkthrough"])])
    out = capsys.readouterr().out
    assert code == 0
    assert "7/7 achievements earned" in out and "never matched" not in out


def test_achievements_check_names_patterns_that_never_match(tmp_path, capsys):
    files = game_files("lighthouse")
    bad = tmp_path / "bad.achievements"
    bad.write_text("TURN_LIMIT 3\nKEY your fingers close on the heavy key\n"
                   "TYPO The lamp flares into lfie\nLATE the rusted lock gives way\n")
    code = cli.main(["achievements", "check", str(files["story"]), str(bad),
                     "--walkthrough", str(files["walkthrough"])])
    out = capsys.readouterr().out
    assert code == 1
    assert "KEY" in out and "earned at turn 2" in out
    assert "patterns that never matched: TYPO" in out
    assert "after TURN_LIMIT 3: not earned" in out      # LATE matched at turn 12


@pytest.mark.parametrize("game", SOURCES)
def test_rebuilding_our_game_from_source_gives_the_same_story_file(game, tmp_path):
    if shutil.which("inform6") is None:
        pytest.skip("inform6 is not installed (scripts/setup installs inform6-compiler)")
    source = SCENARIOS / game / f"{game}.inf"
    out = tmp_path / f"{game}.z5"
    subprocess.run(["inform6", "-v5", "+include_path=/usr/share/inform6/library",
                    str(source), str(out)], check=True, capture_output=True)
    assert out.read_bytes() == (SCENARIOS / game / f"{game}.z5").read_bytes()


# ------------------------------------------------------------------------- detector
def test_detector_keeps_the_game_state_and_finds_only_world_changes():
    env = TextAdventureEnv(game="lighthouse")
    env.reset(seed=0)
    frotz = env._frotz
    before = frotz.get_state()
    actions = env.detector.detect()
    after = frotz.get_state()
    assert all(np.array_equal(a, b) for a, b in zip(before[:2], after[:2]))
    assert before[2:] == after[2:]
    labels = actions.labels
    assert labels[:3] == ["look", "inventory", "wait"]
    assert "south" in labels and "north" not in labels          # the cottage's one exit
    assert "take lantern" in labels and "take matches" in labels
    assert not any(label.startswith("examine") for label in labels)  # changes nothing
    assert "take desk" not in labels                            # static: refused
    # the same command under another verb is the same option
    assert env.detector.option_for("get lantern", actions) == labels.index("take lantern")
    assert env.detector.option_for("examine desk", actions) is None
    env.close()


def test_detector_results_do_not_depend_on_threads_or_the_cache():
    one = TextAdventureEnv(game="greenhouse", detector_workers=1)
    two = TextAdventureEnv(game="greenhouse", detector_workers=2)
    one.reset(seed=0)
    two.reset(seed=0)
    for command in walkthrough("greenhouse")[:8]:
        assert one.valid_actions.labels == two.valid_actions.labels
        assert one.valid_actions.effects == two.valid_actions.effects
        one.step(command)
        two.step(command)
    first = one.detector.detect()
    again = one.detector.detect()
    assert again.cached and not first.cached or first.cached
    assert again.labels == first.labels and again.candidates == 0
    one.close()
    two.close()


def test_detection_time_is_kept_out_of_info():
    env = TextAdventureEnv(game="lighthouse")
    _, info = env.reset(seed=0)
    assert env.valid_actions.seconds > 0 and env.valid_actions.candidates > 0
    assert "detect_ms" not in info["metrics"]          # info is the same in every run
    assert info["metrics"]["valid_actions"] == len(info["options"])
    env.close()


# ----------------------------------------------------------------------- typed text
def test_typed_commands_are_turns_scored_like_options():
    env = TextAdventureEnv(game="lighthouse", text=True)
    _, info = env.reset(seed=0)
    assert info["free_text"]
    _, _, _, _, info = env.step("open the drawer")
    assert "revealing a brass key" in info["text"]["long_term"]
    _, _, _, _, info = env.step("get the brass key")
    assert info["metrics"]["achievements"] == {"found_tower_key": 2}
    assert info["metrics"]["turns"] == 2 and not info["invalid_action"]
    env.close()


@pytest.mark.parametrize("command", ["save", "RESTORE", "restart", "quit", "undo", "q", ""])
def test_meta_commands_are_refused_and_cost_a_turn(command):
    env = TextAdventureEnv(game="lighthouse", text=True)
    env.reset(seed=0)
    env.step("open drawer")
    state = env._frotz.get_state()
    _, _, terminated, _, info = env.step(command)
    assert info["invalid_action"] and info["metrics"]["invalid_actions"] == 1
    assert "is not available here" in info["text"]["long_term"]
    assert info["metrics"]["turns"] == 2 and not terminated
    assert np.array_equal(env._frotz.get_state()[0], state[0])   # the game never saw it
    _, _, _, _, info = env.step("take key")                       # and goes on as before
    assert "found_tower_key" in info["metrics"]["achievements"]
    env.close()


def test_option_only_envs_refuse_text_actions():
    from dungeonbench_gym.core.errors import ActionOutOfRange

    env = dungeonbench_gym.make("Crafter-v0")
    env.reset(seed=0)
    with pytest.raises(ActionOutOfRange, match="is text"):
        env.step("noop")
    env.close()


# --------------------------------------------------------------------- episode rules
def test_turn_limit_truncates_and_later_text_earns_nothing():
    env = TextAdventureEnv(game="lighthouse", turn_limit=2)
    env.reset(seed=0)
    env.step("open drawer")
    _, _, terminated, truncated, info = env.step("wait")
    assert truncated and not terminated and info["progress"] == 0.0
    env.close()


def test_registered_ids_and_a_story_file_of_ones_own(tmp_path):
    for game in GAMES:
        assert f"TextAdventure-{game.capitalize()}-v0" in dungeonbench_gym.ids()
    files = game_files("greenhouse")
    story = tmp_path / "copy.z5"
    story.write_bytes(files["story"].read_bytes())
    env = gym.make("DungeonBench/TextAdventure-v0", story_file=str(story),
                   achievements=str(files["achievements"]))
    _, info = env.reset(seed=0)
    assert info["metrics"]["game"] == "copy" and info["metrics"]["achievements_listed"] == 7
    env.close()
    bare = TextAdventureEnv(story_file=str(story))          # no achievements: progress 0
    _, info = bare.reset(seed=0)
    assert info["progress"] == 0.0 and bare.turn_limit is None
    bare.close()
    with pytest.raises(FileFormatError, match="does not exist"):
        TextAdventureEnv(story_file=str(story), achievements=str(tmp_path / "none"))
    with pytest.raises(ValueError, match="no such game"):
        TextAdventureEnv(game="zork9")


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))])
def test_copies_continue_the_same_game(copier):
    env = TextAdventureEnv(game="greenhouse", text=True)
    env.reset(seed=5)
    for command in walkthrough("greenhouse")[:6]:
        env.step(command)
    twin = copier(env)
    for command in walkthrough("greenhouse")[6:12]:
        a = env.step(command)
        b = twin.step(command)
        assert a[4]["text"] == b[4]["text"]
        assert a[4]["metrics"]["achievements"] == b[4]["metrics"]["achievements"]
        assert [o.label for o in a[4]["options"]] == [o.label for o in b[4]["options"]]
    env.close()
    twin.close()


# ------------------------------------------------------------- agents and the suite
def test_llm_agent_can_type_commands_and_pick_options():
    from dungeonbench_gym.llm.agent import LLMAgent, typed_command
    from dungeonbench_gym.llm.fake import ScriptedClient

    assert typed_command("I think so.\n> Open the drawer.") == "Open the drawer"
    assert typed_command("Final answer: > take key") == "take key"
    assert typed_command("3") is None and typed_command(">   ") is None
    replies = iter(["Let me look.\n> open the drawer", "> take lantern", "0"])
    prompt = []

    def answer(messages):
        prompt.append(messages[-1]["content"])
        return next(replies)
    agent = LLMAgent(ScriptedClient(answer), history=2)
    env = gym.make("DungeonBench/TextAdventure-Lighthouse-v0", text=True)
    obs, info = env.reset(seed=0)
    agent.reset(env, seed=0)
    action = agent.act(obs, info)
    assert action == "open the drawer" and "type a command of your own" in prompt[0]
    obs, _, _, _, info = env.step(action)
    assert "revealing a brass key" in info["text"]["long_term"]
    action = agent.act(obs, info)            # a typed label is that option
    assert action == [o.label for o in info["options"]].index("take lantern")
    assert agent.trajectory[0]["action"] == {"typed": True, "label": "open the drawer"}
    obs, _, _, _, info = env.step(action)
    assert agent.act(obs, info) == 0          # an index still works
    env.close()


def test_text_adventures_suite_runs_the_exploring_baseline(tmp_path):
    import json

    from dungeonbench_gym.eval.suites import builtin

    suite = builtin("text-adventures")
    assert sorted(i for i, _ in suite.envs) == ["TextAdventure-Greenhouse-v0",
                                                "TextAdventure-Lighthouse-v0"]
    assert all(n == 5 for _, n in suite.envs)
    out = tmp_path / "run"
    code = cli.main(["eval", "--quiet", "--suite", "text-adventures", "--episodes", "1",
                     "--agent", "baseline", "--out", str(out), "--workers", "1"])
    assert code == 0
    for env_id, limit in (("TextAdventure-Greenhouse-v0", 81),
                          ("TextAdventure-Lighthouse-v0", 69)):
        folder = out / "episodes" / "baseline" / env_id
        record = json.loads((folder / "episode-0000.json").read_text())
        assert 0 < record["steps"] <= limit
        assert record["metrics"]["turns"] == record["steps"]


def test_a_choice_larger_than_the_slots_is_split_into_groups_never_cut():
    env = TextAdventureEnv(game="lighthouse", slots=4, text=True)
    _, info = env.reset(seed=0)
    opened = 0
    for command in walkthrough("lighthouse"):
        labels = env.valid_actions.labels
        target = labels[env.detector.option_for(command, env.valid_actions)]
        turns = info["metrics"]["turns"]
        shown = [o.label for o in info["options"]]
        while target not in shown:      # open the group that holds it: not a turn
            assert info["decision"] == "group" and len(shown) <= 4
            group = next(o for o in info["options"] if o.kind == "group" and
                         target in env.group_members(o.index))
            _, _, _, _, info = env.step(group.index)
            opened += 1
            assert info["metrics"]["turns"] == turns
            shown = [o.label for o in info["options"]]
        assert len(shown) <= 4 and np.count_nonzero(env.action_masks()) == len(shown)
        _, _, terminated, _, info = env.step(shown.index(target))
    assert terminated and info["success"] and opened > 0
    env.close()


def test_every_command_is_reachable_in_a_split_choice_and_back_returns():
    env = TextAdventureEnv(game="greenhouse", slots=4)
    env.reset(seed=0)
    for command in ("take can", "take pane", "take food", "take key"):
        env.step(command)
    labels = set(env.valid_actions.labels)
    assert len(labels) > 4

    def leaves(depth=0):
        found = set()
        menu = list(env._menu)
        for i, (label, kind) in enumerate(menu):
            if kind == "command":
                found.add(label)
            elif kind == "group":
                env.step(i)
                found |= leaves(depth + 1)
                back = [k for _, k in env._menu].index("back")
                env.step(back)
                assert env._menu == menu            # back where it was
        return found
    assert leaves() == labels
    turns = env._turns
    assert turns == 4                               # moving in the menu took no turns
    env.close()


def test_fallback_in_a_split_choice_runs_no_command():
    env = TextAdventureEnv(game="lighthouse", slots=4)
    env.reset(seed=0)
    _, _, _, _, info = env.step("open drawer")
    group = next(o for o in info["options"] if o.kind == "group")
    _, _, _, _, info = env.step(group.index)
    fallback = info["options"][env.fallback_action()].label
    # "look" where it is shown (harmless, but a turn, as BALROG's fallback), else "back"
    assert fallback == ("look" if "look" in [o.label for o in info["options"]] else "back")
    _, _, _, _, info = env.step(int(np.flatnonzero(env.action_masks() == 0)[0]))
    assert info["invalid_action"] and info["metrics"]["turns"] == (2 if fallback == "look" else 1)
    env.close()
