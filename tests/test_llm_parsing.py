"""parse_choice / parse_answer: every shape of answer a model gives, and never an illegal option."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from dungeonbench_gym.core.options import Option, option_table
from dungeonbench_gym.games.nethack.commands import INDEX, LETTER_INDEX
from dungeonbench_gym.games.nethack.commands import OPTION_TABLE as NETHACK
from dungeonbench_gym.llm.parsing import ParseResult, parse_answer, parse_choice, words

BABYAI = option_table(["turn left", "turn right", "go forward", "pick up", "drop", "toggle"])
# BabyAI facing a wall with nothing to carry: forward, pick up and drop are masked out
LEGAL = [BABYAI[0], BABYAI[1], BABYAI[5]]
OPEN_FIELD = [BABYAI[0], BABYAI[1], BABYAI[2], BABYAI[5]]
CORPUS = Path(__file__).parent / "data" / "llm_malformed_answers.txt"


def label(answer, options=OPEN_FIELD, table=BABYAI):
    choice = parse_choice(answer, options, table)
    return None if choice is None else choice.label


@pytest.mark.parametrize("answer, expected", [
    ("go forward", "go forward"),
    ("Go Forward", "go forward"),
    ("  go forward.  ", "go forward"),
    ("**go forward**", "go forward"),
    ("`turn left`", "turn left"),
    ('"toggle"', "toggle"),
    ("- go forward", "go forward"),
    ("2", "go forward"),
    ("2.", "go forward"),
    ("[2]", "go forward"),
    ("option 2", "go forward"),
    ("Option #2", "go forward"),
    ("2: go forward", "go forward"),
    ("I think the best move is 2: go forward.", "go forward"),
    ("I think the best move is 3: go forward.", "go forward"),   # the label outweighs the number
    ("Action: turn left", "turn left"),
    ("ACTION: TURN LEFT", "turn left"),
    ("action = toggle", "toggle"),
    ("The answer is 0.", "turn left"),
    ("I choose to toggle the door.", "toggle"),
    ("I'll go with turn right", "turn right"),
    ("<action>toggle</action>", "toggle"),
    ("<Action> turn right </Action>", "turn right"),
    ('{"action": "go forward"}', "go forward"),
    ('{"Action": 1}', "turn right"),
    ("{'action': 'turn left'}", "turn left"),
    ('{"action": "go forward"', "go forward"),                      # broken JSON
    ('```json\n{"action": "turn right"}\n```', "turn right"),
    ("```\ngo forward\n```", "go forward"),
    ("Final answer:\n\n**turn right**", "turn right"),
    ("Ｇｏ ｆｏｒｗａｒｄ", "go forward"),                               # full-width unicode
    ("go foward", "go forward"),                                     # a small typo
    ("trun left", "turn left"),
    ("Action: go forward, then turn left", "go forward"),           # a plan: its first step
    ("go forward go forward", "go forward"),
])
def test_well_formed_and_tolerated_answers(answer, expected):
    assert label(answer) == expected


def test_the_last_explicit_answer_wins_over_a_chain_of_thought():
    answer = ("The wall is ahead, so go forward would fail. Action: turn left is possible, "
              "but the key is on the right.\nFinal answer: turn right")
    assert label(answer) == "turn right"
    assert label("Step 1: look around.\nStep 2: decide.\nFinal answer: 2") == "go forward"
    assert label("<action>go forward</action> ... <action>turn left</action>") == "turn left"
    # a later marker followed by mere prose does not hide the answer before it
    assert label("<action>toggle</action>\nThis action: opens the door for me.") == "toggle"


def test_a_final_answer_naming_something_illegal_is_not_rescued_by_earlier_mentions():
    answer = "Action: turn left.\nFinal answer: pick up"
    result = parse_answer(answer, OPEN_FIELD, BABYAI)
    assert result.option is None and "pick up" in result.reason
    assert label("Action: go forward\nFinal answer: option 99") is None


@pytest.mark.parametrize("answer, reason", [
    ("", "empty"),
    ("   \n\t", "empty"),
    ("option 99", "99"),
    ("42", "42"),
    ("-1", "-1"),
    ("pick up", "not a legal option"),
    ("turn left or turn right", "several options"),
    ("I cannot play games.", "declined"),
    ("I'm sorry, but I can't help with that.", "declined"),
    ("banana", "no legal option"),
    ("Final answer: N/A", "no legal option"),
])
def test_unusable_answers_say_why(answer, reason):
    result = parse_answer(answer, OPEN_FIELD, BABYAI)
    assert isinstance(result, ParseResult)
    assert result.option is None
    assert reason in result.reason


def test_index_numbers_are_env_indices_not_list_positions():
    # legal: 0, 1, 5: "2" is masked out even though the list has a third entry
    assert label("2", LEGAL) is None
    assert label("5", LEGAL) == "toggle"


def test_never_picks_an_illegal_option():
    assert label("go forward", LEGAL) is None
    assert label("Final answer: go forward", LEGAL) is None
    assert label('{"action": 2}', LEGAL) is None
    # a typo of an illegal command is not repaired into a legal look-alike
    crafter = option_table(["Noop", "Move West", "Move East"])
    assert parse_choice("Move Wset", [crafter[0], crafter[2]], crafter) is None
    assert parse_choice("Move Wset", [crafter[0], crafter[1]], crafter).label == "Move West"


def test_known_illegal_command_is_not_read_as_the_legal_one_inside_it():
    north, far_east = NETHACK[INDEX["north"]], NETHACK[INDEX["far east"]]
    legal = [north, far_east]
    assert parse_choice("far north", legal, NETHACK) is None
    assert parse_choice("north", legal, NETHACK) == north
    assert parse_choice("far east", legal, NETHACK) == far_east
    assert parse_choice("I'll head north.", legal, NETHACK) == north
    # without the table "far north" is unknown, and the legal "north" is what it mentions
    assert parse_choice("far north", legal) == north


def test_symbols_and_letter_case_tell_nethack_items_apart():
    letters = [NETHACK[LETTER_INDEX[c]] for c in "aA$-"]
    assert parse_choice("choose A", letters, NETHACK).label == "choose A"
    assert parse_choice("choose a", letters, NETHACK).label == "choose a"
    assert parse_choice("choose $", letters, NETHACK).label == "choose $"
    assert parse_choice("Final answer: choose -", letters, NETHACK).label == "choose -"
    assert parse_choice("Action: choose A.", letters, NETHACK).label == "choose A"
    assert parse_choice("choose *", letters, NETHACK) is None
    # neither case matches exactly: ambiguous, so nothing is picked
    assert parse_choice("Choose a", letters, NETHACK) is None


def test_labels_with_digits_exact_label_wins():
    options = [Option(0, "3"), Option(1, "attack goblin 2"), Option(2, "attack goblin 12"),
               Option(3, "wait")]
    assert parse_choice("3", options).index == 0          # the label "3", not index 3
    assert parse_choice("attack goblin 2", options).index == 1
    assert parse_choice("Attack Goblin 12!", options).index == 2
    assert parse_choice("Action: attack goblin 12", options).index == 2
    assert parse_choice("I attack goblin 2 first.", options).index == 1
    assert parse_choice("option 3", options).index == 0  # "3" names the label "3" first
    assert parse_choice("Final answer: wait", options).index == 3


def test_words_keeps_standalone_symbols():
    assert words("choose $.") == "choose $"
    assert words("**Go-Forward!**") == "Go Forward"
    assert words("  - 1 ") == "- 1"


def test_no_options_or_non_text_answers():
    assert parse_answer("go forward", []).option is None
    assert parse_answer(None, OPEN_FIELD).option is None     # type: ignore[arg-type]


def test_huge_and_strange_inputs_do_not_crash():
    for answer in ["9" * 5000, "²", "\U00010A40", "x" * 100_000 + " go forward", "\x00" * 10,
                   "{" * 500, "<action>" * 200, "Final answer: " * 300]:
        result = parse_answer(answer, OPEN_FIELD, BABYAI)
        assert result.option is None or result.option in OPEN_FIELD


def _corpus() -> list[str]:
    chunks = CORPUS.read_text(encoding="utf-8").split("\n%%\n")[1:]
    chunks[-1] = chunks[-1].removesuffix("\n")
    return chunks


def test_corpus_answers_never_yield_an_illegal_option():
    """Fuzz: each corpus answer, and splices of it with labels, against random legal sets."""
    corpus = _corpus()
    assert len(corpus) >= 50
    rng = random.Random(0)
    tables = [BABYAI, NETHACK, option_table(["Noop", "Move West", "Move East", "Do", "Sleep"])]
    for answer in corpus:
        for table in tables:
            legal = sorted(rng.sample(list(table), rng.randint(1, len(table))))
            spliced = f"{answer} {rng.choice(table).label} {rng.randint(-3, 200)}"
            for text in (answer, spliced):
                for known in (table, ()):
                    choice = parse_choice(text, legal, known)
                    assert choice is None or choice in legal, (text, choice)
