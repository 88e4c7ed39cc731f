"""Text commands as verb and object ids (core/textcommands.py) and the `option_ids` key of the
two text families: what the parser makes of commands, that ids are stable across processes, that
the spaces hold, and that two legal options with different commands almost never share a feature
row over random decisions on every registered text id."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dungeonbench_gym.core import textcommands as tc

ROOT = Path(__file__).resolve().parents[1]


def ids(command: str) -> tuple[int, int, int]:
    return tc.command_ids(command)


# ------------------------------------------------------------------ the parser
def test_take_from_has_verb_take_and_two_objects():
    c = tc.parse("take the brass key from the wooden table")
    assert (c.verb, c.preposition, c.first, c.second) == ("take", "from", "brass key", "wooden table")
    frame, first, second = ids("take the brass key from the wooden table")
    assert frame == tc.frame_id("take", "from")
    assert first == tc.object_id("brass key") and second == tc.object_id("wooden table")
    assert first != second


def test_a_direction_is_go_with_that_direction_however_it_is_written():
    north = ids("go north")
    assert ids("n") == ids("north") == ids("walk north") == ids("go n") == north
    assert north == (tc.frame_id("go"), tc.object_id("north"), 0)
    assert ids("s") == ids("go south") != north
    assert ids("u") == ids("up") != ids("d") == ids("down")
    assert ids("ne")[1] != ids("nw")[1] != ids("e")[1]


def test_articles_and_case_do_not_change_an_object():
    assert tc.object_id("the brass key") == tc.object_id("brass key") == tc.object_id("A Brass Key")
    assert tc.object_id("some water") == tc.object_id("water")
    assert ids("take the lamp") == ids("take a lamp") == ids("Take lamp")
    assert tc.object_id("brass key") != tc.object_id("key")   # a different phrase, another object


def test_synonyms_and_phrasal_verbs_share_a_verb():
    take = ids("take lamp")
    assert ids("get lamp") == ids("pick up lamp") == ids("pick lamp up") == take
    on = ids("switch on lamp")
    assert ids("turn on lamp") == ids("turn lamp on") == on
    assert ids("turn off lamp")[0] != on[0] and ids("turn off lamp")[1:] == on[1:]
    assert ids("x lamp") == ids("examine lamp") == ids("look at lamp")
    assert ids("l") == ids("look") and ids("i") == ids("inventory") and ids("z") == ids("wait")
    assert ids("look")[1:] == (0, 0)


def test_the_preposition_and_the_object_order_change_the_ids():
    in_box, on_box = ids("put coin in box"), ids("put coin on box")
    assert in_box[1:] == on_box[1:] and in_box[0] != on_box[0]
    assert ids("insert coin into box") == in_box               # TextWorld's form of "put in"
    assert ids("put box on coin") != on_box                     # swapped objects
    assert ids("put box on coin")[1:] == (on_box[2], on_box[1])
    assert ids("unlock door with key") == (tc.frame_id("unlock", "with"), tc.object_id("door"),
                                           tc.object_id("key"))
    assert ids("take coin")[0] != ids("take coin from box")[0]


def test_the_cooking_cuts_are_different_verbs():
    cuts = {ids(f"{verb} yellow potato with knife")[0] for verb in ("chop", "dice", "slice", "cut")}
    assert len(cuts) == 4


def test_unknown_verbs_get_a_stable_bucket_in_the_verb_range():
    tip = ids("tip frame")
    assert tip == ids("tip the frame")
    assert tc.UNKNOWN_VERB_BASE <= tip[0] < tc.OBJECT_BASE
    assert tip[1] == tc.object_id("frame")


def test_verbs_and_objects_live_in_disjoint_ranges_inside_the_vocabulary():
    commands = ["take the brass key from the wooden table", "put coin in box", "go north", "n",
                "look", "pick up lamp", "turn on lamp", "unlock door with key", "tip frame",
                "insert red apple into fridge", "take all from bench", "ask man about boat",
                "sit on chair", "take off coat", "", "   "]
    for command in commands:
        frame, first, second = ids(command)
        assert 0 <= frame < tc.OBJECT_BASE, command
        for obj in (first, second):
            assert obj == 0 or tc.OBJECT_BASE <= obj < tc.VOCAB_SIZE, command
    assert ids("") == ids("   ") == (0, 0, 0)


def test_menu_rows_of_a_split_choice_have_reserved_verbs():
    assert tc.menu_ids("back", "back") == (tc.BACK, 0, 0)
    group = tc.menu_ids("take ... (40 commands)", "group")
    assert group == (tc.GROUP, tc.frame_id("take"), 0)
    ranged = tc.menu_ids("drop can ... take key (12 commands)", "group")
    assert ranged == (tc.GROUP, tc.frame_id("drop"), tc.object_id("can"))
    # neighbouring groups of one verb and first object differ by the rest of their first command
    a = tc.menu_ids("put all on bench ... put all on nails (2 commands)", "group")
    b = tc.menu_ids("put all on rack ... put all on tins (2 commands)", "group")
    assert a[:2] == b[:2] == (tc.GROUP, tc.frame_id("put", "on")) and a[2] != b[2]
    assert tc.menu_ids("take key", "command") == ids("take key")


def test_encode_ids_fills_slots_and_leaves_the_rest_zero():
    out = tc.encode_ids([("look", "command"), ("back", "back")], 5)
    assert out.shape == (5, 3) and out.dtype == np.int32
    assert tuple(out[0]) == ids("look") and tuple(out[1]) == (tc.BACK, 0, 0)
    assert not out[2:].any()
    assert tc.encode_ids(["n", "s"], 2).tolist() == [list(ids("n")), list(ids("s"))]


def test_ids_are_the_same_in_another_process():
    commands = ["take the brass key from the wooden table", "go north", "tip frame",
                "lock Microsoft limited edition hatch with Microsoft limited edition latchkey"]
    code = ("import sys; from dungeonbench_gym.core import textcommands as t; "
            "print([t.command_ids(c) for c in sys.argv[1:]])")
    env = dict(os.environ, PYTHONHASHSEED="12345", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code, *commands], capture_output=True, text=True,
                         env=env, check=True, cwd=ROOT).stdout.strip()
    assert out == str([ids(c) for c in commands])


# ------------------------------------------------------------------ the envs
def _textworld_env(**kwargs):
    pytest.importorskip("textworld")
    from dungeonbench_gym.games.textworld.env import TextWorldEnv
    return TextWorldEnv("cooking", **kwargs)


def test_textworld_option_ids_follow_the_commands_and_stay_in_their_space():
    env = _textworld_env()
    space = env.observation_space["option_ids"]
    assert space.shape == (128, 3) and space.dtype == np.int32
    assert space.low.min() == 0 and space.high.max() == tc.VOCAB_SIZE - 1
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        assert env.observation_space.contains(obs)
        n = len(info["options"])
        for option in info["options"]:
            assert tuple(obs["option_ids"][option.index]) == ids(option.label)
            assert obs["option_ids"][option.index][0] != 0     # every command has a verb
        assert not obs["option_ids"][n:].any()
        obs, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if term or trunc:
            obs, info = env.reset(seed=1)
    env.close()


def test_textadventure_split_choice_gives_groups_and_back_their_ids():
    pytest.importorskip("jericho")
    from dungeonbench_gym.games.textadventure.env import TextAdventureEnv
    env = TextAdventureEnv(game="lighthouse", slots=6)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    kinds = {o.kind for o in info["options"]}
    assert "group" in kinds
    rows = obs["option_ids"]
    for option in info["options"]:
        row = tuple(rows[option.index])
        if option.kind == "group":
            # "take ... (40 commands)": [GROUP, take, 0]; "drop can ... take key (12 commands)":
            # [GROUP, the frame of its first command, that command's object words as one phrase]
            members = env.group_members(option.index)
            first = tc.parse(members[0])
            assert row[0] == tc.GROUP and row[1] == ids(members[0])[0]
            if option.label.split(" ... ")[1].startswith("("):
                assert len({tc.parse(m).verb for m in members}) == 1 and row[2] == 0
            else:
                words = " ".join(w for w in (first.first, first.preposition, first.second) if w) \
                    if first.second else first.first
                assert row[2] == tc.object_id(words)
        else:
            assert row == ids(option.label)
    group = next(o.index for o in info["options"] if o.kind == "group")
    obs, _, _, _, info = env.step(group)                    # open it: "back" is the last slot
    back = [o for o in info["options"] if o.kind == "back"]
    assert back and tuple(obs["option_ids"][back[0].index]) == (tc.BACK, 0, 0)
    assert env.observation_space.contains(obs)
    env.close()


# ------------------------------------------------------------------ different commands, different rows
sys.path.insert(0, str(ROOT / "benchmarks"))


def test_identical_finds_pairs_with_different_labels_only():
    from text_option_identity import identical
    rows = np.array([[1, 0], [1, 0], [0, 1], [1, 0]])
    assert identical(rows, ["a", "b", "c", "a"]) == [(0, 1), (1, 3)]


def test_options_with_different_commands_have_different_rows_on_every_text_id():
    """Random masked play on every registered TextWorld and TextAdventure id: the share of decisions
    where two legal options with different commands (so different effects: TextWorld's admissible
    commands are distinct, and the text adventures' detector merges commands with one effect) have
    the same (options row, option_ids row) stays under 1%. Text adventures cost ~50 ms a step, so
    they get fewer decisions."""
    pytest.importorskip("textworld")
    pytest.importorskip("jericho")
    from text_option_identity import run, text_ids
    ids_ = text_ids()
    families = {i.split("-")[0] for i in ids_}
    assert families == {"TextWorld", "TextAdventure"} and len(ids_) >= 5
    result = run(ids_, tw_decisions=700, ta_decisions=60, quiet=True)
    c = result["counts"]
    assert c["decisions"] >= 2000
    assert c["new_dec"] / c["decisions"] < 0.01, result["new_pairs"][:5]
    assert c["new_dec"] <= c["old_dec"] and c["new_dec"] <= c["ids_dec"]   # adding columns only helps
