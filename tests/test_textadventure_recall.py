"""Valid-action recall (issue 22): every walkthrough step has an option that does the same
to the world, on our games, on games written in the classic style, and on games TextWorld
makes; and the options alone finish each game."""

import os

import pytest

from dungeonbench_gym.games.textadventure import recall
from dungeonbench_gym.games.textadventure.actions import _META_WORDS, ActionDetector, own_verbs
from dungeonbench_gym.games.textadventure.check import read_walkthrough
from dungeonbench_gym.games.textadventure.env import game_files, shipped_games
from dungeonbench_gym.games.textadventure.zmachine import Story

SOURCES = shipped_games()


def files(game):
    found = game_files(game)
    return found["story"], found["walkthrough"], found["achievements"]


def test_the_classic_style_games_are_there():
    # the measuring set: our two games and three written in the classic style
    assert {"lighthouse", "greenhouse", "boathouse", "clearance", "ferry"} <= set(SOURCES)


@pytest.mark.parametrize("game", SOURCES)
def test_walkthrough_steps_are_options_and_the_options_earn_every_achievement(game):
    report = recall.measure(*files(game))
    assert report.recall >= 0.95, [s.command for s in report.misses]    # the bar
    assert report.walkthrough_earned and report.lost == []
    assert len(report.replay_earned) == report.achievements      # the game is won


def _jericho(path):
    import warnings

    import jericho
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frotz = jericho.FrotzEnv(str(path), seed=1)
    frotz.reset()
    return frotz


@pytest.mark.parametrize("game", SOURCES)
def test_no_two_options_of_a_state_have_the_same_effect(game):
    story, walkthrough, _ = files(game)
    frotz = _jericho(story)
    detector = ActionDetector(frotz, Story(story))
    for command in read_walkthrough(walkthrough):
        actions = detector.detect()
        effects = [e for e in actions.effects if e]
        assert len(effects) == len(set(effects)), actions.labels
        assert len(set(actions.labels)) == len(actions.labels)
        frotz.step(command)
    frotz.close()


# Quest lengths 3 and 6; the house and basic grammars; names with and without adjectives.
TEXTWORLD = [2, 5, 7]


@pytest.mark.parametrize("index", TEXTWORLD)
def test_textworld_games_are_covered_by_the_detector(index):
    name, story, walkthrough, achievements = recall.textworld_game(index)
    settings = recall.textworld_settings(index)
    assert story.suffix == ".z8" and len(read_walkthrough(walkthrough)) >= settings["quest_length"]
    report = recall.measure(story, walkthrough, achievements)
    assert [s.command for s in report.misses] == []
    assert set(report.replay_earned) == {"quest_done", "full_score"}


def test_out_of_world_verbs_are_never_tried(tmp_path, monkeypatch):
    """Trying `transcript` would write a file and `quit` would end the game: no verb of
    the library's out-of-world groups is ever a candidate, under any of its words."""
    _, story, walkthrough, _ = recall.textworld_game(TEXTWORLD[0])
    cut = {Story(story).cut(w) for w in _META_WORDS}
    for path in [story, *(files(g)[0] for g in SOURCES)]:
        assert not set(own_verbs(Story(path))) & cut, path
    monkeypatch.chdir(tmp_path)
    frotz = _jericho(story)
    detector = ActionDetector(frotz, Story(story))
    for command in read_walkthrough(walkthrough):
        labels = detector.detect().labels
        assert not {label.split()[0] for label in labels} & cut
        frotz.step(command)
    frotz.close()
    assert os.listdir(tmp_path) == []


def test_the_grammar_table_reads_as_the_inform_library_declares_it():
    """Inform 6 library 6.12 grammar.h: Verb 'put' * multiexcept 'in'/'inside'/'into' noun
    -> Insert; Verb 'unlock' * noun 'with' held -> Unlock; 'ask' creature 'about' topic.
    Tokens (Technical Manual 8.2): noun 0, held 1, multi 2, multiexcept 4, creature 6."""
    grammar = Story(files("greenhouse")[0]).grammar
    put = [line.slots for line in grammar["put"]]
    assert (("object", 4), ("prep", ("in", "inside", "into")), ("object", 0)) in put
    assert [line.slots for line in grammar["unlock"]] == [
        (("object", 0), ("prep", ("with",)), ("object", 1))]
    assert (("object", 6), ("prep", ("about",)), ("topic",)) in \
        [line.slots for line in grammar["ask"]]
    # the story's own `Extend only 'feed'` lines are its own verb's
    assert (("object", 0),) in [line.slots for line in grammar["feed"]]


def test_templates_follow_the_grammar_of_each_game():
    """The stock library's 'fill' takes `noun` and `noun 'from' noun` only, so "fill X
    with Y" is not tried in ferry; greenhouse extends 'fill' with a 'with' line. A line's
    beginning up to a preposition stays: the parser can infer the rest ("unlock van")."""
    def templates(game):
        return [t.text for t in ActionDetector(_jericho(files(game)[0]),
                                               Story(files(game)[0])).templates]
    assert "fill {o} with {h}" not in templates("ferry")
    assert "fill {o} with {h}" in templates("greenhouse")
    assert {"unlock {o}", "ask {o} about {t}", "take all from {o}"} <= set(templates("ferry"))


def test_dictionary_words_are_cut_by_z_characters_not_letters():
    """Z-machine Standard 3.7 and 13.3: a version 5 dictionary word holds 9 Z-characters;
    a lower-case letter is one, a character of alphabet A2 (digits, '-') two."""
    story = Story(files("greenhouse")[0])
    assert story.cut("photography") == "photograp"
    assert story.cut("non-euclidean") == "non-eucl"      # n,o,n 3 + '-' 2 + e,u,c,l 4
    assert story.cut("room11") == "room11" and story.cut("room111") == "room11"
    assert story.knows("watering") and not story.knows("zqxvzqxv")


BODIES = r"""
Constant Story "BODIES";
Constant Headline "^A test of ChangePlayer.^";
Include "Parser";
Include "VerbLib";
Object Kitchen "Kitchen"
  with description "A kitchen. The garden is east.", e_to Garden,
  has  light;
Object Garden "Garden"
  with description "A garden. The kitchen is west.", w_to Kitchen,
  has  light;
Object -> cat "tabby cat"
  with name 'tabby' 'cat', number 0,
  has  animate;
[ SwapSub; ChangePlayer(cat); "You are the cat now."; ];
Verb 'swap' * -> Swap;
[ Initialise; location = Kitchen; ];
Include "Grammar";
"""


def test_the_player_is_followed_into_another_body(tmp_path):
    """Inform's ChangePlayer(obj) makes obj the player (DM4 section 21): the exits
    offered are then those of the new body's room, not those of the old body's."""
    import shutil
    import subprocess
    assert shutil.which("inform6"), "no inform6: scripts/setup installs Debian's inform6-compiler"
    source, story = tmp_path / "bodies.inf", tmp_path / "bodies.z5"
    source.write_text(BODIES)
    subprocess.run(["inform6", "-v5", "+include_path=/usr/share/inform6/library",
                    str(source), str(story)], check=True, capture_output=True)
    frotz = _jericho(story)
    detector = ActionDetector(frotz, Story(story))
    assert "east" in detector.detect().labels and "west" not in detector.detect().labels
    assert "You are the cat now." in frotz.step("swap")[0]
    labels = detector.detect().labels
    assert "west" in labels and "east" not in labels
    frotz.close()
