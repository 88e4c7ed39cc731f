"""parse_choice / parse_answer: every shape of answer a model gives, and never an illegal option."""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path

import pytest

from dungeonbench_gym.core.options import Option, option_table
from dungeonbench_gym.games.nethack.commands import INDEX, LETTER_INDEX
from dungeonbench_gym.games.nethack.commands import OPTION_TABLE as NETHACK
from dungeonbench_gym.llm import parsing
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


# ------------------------------------------------------------------ the answer corpus
ANSWERS = Path(__file__).parent / "data" / "llm_answers" / "answers.jsonl"


def _answer_cases() -> list[dict]:
    return [json.loads(line) for line in ANSWERS.read_text(encoding="utf-8").splitlines() if line.strip()]


def _answer_text(answer) -> str:
    """A record's answer: a string, or [piece, times] pairs joined (long answers)."""
    if isinstance(answer, str):
        return answer
    return "".join(piece * times for piece, times in answer)


def test_the_answer_corpus_is_large_and_well_formed():
    cases = _answer_cases()
    assert len(cases) >= 100
    assert len({case["id"] for case in cases}) == len(cases), "ids must be unique"
    for case in cases:
        assert set(case) == {"id", "answer", "labels", "legal", "table", "expected", "note"}, case["id"]
        assert case["note"], case["id"]
        assert all(0 <= i < len(case["labels"]) for i in case["legal"]), case["id"]
        assert case["expected"] is None or case["expected"] in case["legal"], case["id"]
    failures = sum(case["expected"] is None for case in cases)
    assert 0.25 < failures / len(cases) < 0.75, "both parses and failures are covered"


@pytest.mark.parametrize("case", _answer_cases(), ids=lambda case: case["id"])
def test_answer_corpus(case):
    table = option_table(case["labels"])
    legal = [table[i] for i in case["legal"]]
    result = parse_answer(_answer_text(case["answer"]), legal, table if case["table"] else ())
    parsed = None if result.option is None else result.option.index
    assert parsed == case["expected"], f"{case['note']} (reason given: {result.reason!r})"
    if parsed is None:
        assert result.reason, "a failure always says why, for the re-ask"


# ------------------------------------------------------------------ real answers of the shipped model
# Collected by scripts/collect_llm_answers.py (SmolLM2-135M on BabyAI, D&D and a text
# adventure), each labelled by hand from the module docstring's rule.
SMOLLM2 = Path(__file__).parent / "data" / "llm_answers" / "smollm2.jsonl"


def _smollm2_cases() -> list[dict]:
    return [json.loads(line) for line in SMOLLM2.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def test_the_real_answer_corpus_covers_the_games_strategies_and_temperatures():
    cases = _smollm2_cases()
    assert len(cases) >= 60
    assert len({case["id"] for case in cases}) == len(cases), "ids must be unique"
    for case in cases:
        assert set(case) == {"id", "answer", "labels", "legal", "table", "expected", "note",
                             "source"}, case["id"]
        assert case["note"] and isinstance(case["answer"], str), case["id"]
        assert case["expected"] is None or case["expected"] in case["legal"], case["id"]
    sources = [case["source"] for case in cases]
    assert {s["env"] for s in sources} == {"BabyAI-GoTo-v0", "DnD-Encounter-GoblinAmbush-v0",
                                           "TextAdventure-Lighthouse-v0"}
    assert {(s["strategy"], s["temperature"]) for s in sources} == {
        ("direct", 0.0), ("cot", 0.0), ("direct", 0.7), ("cot", 0.7)}
    assert any(case["expected"] is not None for case in cases)


@pytest.mark.parametrize("case", _smollm2_cases(), ids=lambda case: case["id"])
def test_real_smollm2_answers(case):
    table = option_table(case["labels"])
    legal = [table[i] for i in case["legal"]]
    result = parse_answer(case["answer"], legal, table if case["table"] else ())
    parsed = None if result.option is None else result.option.index
    assert parsed == case["expected"], f"{case['note']} (reason given: {result.reason!r})"
    if parsed is None:
        assert result.reason, "a failure always says why, for the re-ask"


# ------------------------------------------------------------------ signs and speed
@pytest.mark.parametrize("dash", ["\u2212", "\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015",
                                  "\ufe63", "\uff0d", "\u207b", "\u208b", "\u2796", "\ufe58", "-"])
def test_every_unicode_minus_before_a_number_is_a_sign(dash):
    everything = list(BABYAI)          # index 3 is legal, so a misread sign would be visible
    for answer in (f"{dash}3", f"Final answer: {dash}3", f'{{"action": "{dash}3"}}',
                   f"<action>{dash}3</action>", f"**{dash}3**"):
        result = parse_answer(answer, everything, BABYAI)
        assert result.option is None, (answer, result)
        assert "-3" in result.reason, (answer, result.reason)


MEGABYTE = 1_000_000
# At 1 MB the first four took 7 to 13 s each before parsing was made linear (every marker
# re-read the rest of its line) and unclosed tags 0.25 s; the others each stress one path.
SLOW_SHAPES = {
    "final answer markers": "Final answer: ",
    "I choose": "I choose ",
    "answer is": "answer is ",
    "open JSON": '{"action": ',
    "unclosed tags": "<action>",
    "option 3": "option 3 ",
    "brackets": "[",
    "the the": "the ",
    "label": "go forward ",
    "digits": "1",
    "digits and spaces": "1 ",
    "distinct junk after markers": None,
}


def _megabyte_answer(piece: str | None) -> str:
    if piece is None:   # every span different, so no cache helps
        return " ".join(f"Action: zq{n:x}" for n in range(MEGABYTE // 12))[:MEGABYTE]
    return (piece * (MEGABYTE // len(piece) + 1))[:MEGABYTE]


@pytest.mark.parametrize("shape", list(SLOW_SHAPES))
@pytest.mark.parametrize("table", ["babyai", "nethack"])
def test_a_megabyte_answer_parses_in_under_50_ms(shape, table):
    answer = _megabyte_answer(SLOW_SHAPES[shape])
    known = BABYAI if table == "babyai" else NETHACK
    legal = OPEN_FIELD if table == "babyai" else list(NETHACK[::2])
    best = float("inf")
    for _ in range(3):      # best of 3 cold parses: the machine may be busy, the parser is not
        parsing._words.cache_clear()
        started = time.perf_counter()
        parse_answer(answer, legal, known)
        best = min(best, time.perf_counter() - started)
    assert best < 0.050, f"{shape}: {best * 1e3:.1f} ms for a 1 MB answer"


def test_parsing_is_linear_without_the_read_limit(monkeypatch):
    """The 20,000-character read limit is not what keeps parsing fast: lifted, 16x the text
    costs about 16x the time (quadratic would be 256x; the bound allows noise)."""
    monkeypatch.setattr(parsing, "_MAX_CHARS", 10 ** 9)
    ratios = {}
    for shape in ("final answer markers", "unclosed tags", "I choose", "open JSON"):
        times = []
        for size in (20_000, 320_000):
            answer = (SLOW_SHAPES[shape] * (size // len(SLOW_SHAPES[shape]) + 1))[:size]
            best = float("inf")
            for _ in range(3):
                parsing._words.cache_clear()
                started = time.perf_counter()
                parse_answer(answer, OPEN_FIELD, BABYAI)
                best = min(best, time.perf_counter() - started)
            times.append(best)
        ratios[shape] = times[1] / times[0]
    assert max(ratios.values()) < 64, ratios


# ------------------------------------------------------------------ the fast paths match the plain definitions
_LAZY_TAG = re.compile(r"<\s*(action|answer|choice|option|command)\s*>(.*?)<\s*/\s*\1\s*>",
                       re.IGNORECASE | re.DOTALL)


def _plain_words(text: str) -> str:
    """words() as its docstring defines it, one token and one character at a time."""
    out = []
    for token in parsing._readable(text).split():
        if any(c.isalnum() for c in token):
            out.append("".join(c if c.isalnum() else " " for c in token))
        else:
            symbol = token.strip(parsing._SENTENCE_PUNCT)
            if symbol:
                out.append(symbol)
    return " ".join(" ".join(out).split())


def test_linear_tag_pairing_finds_what_the_lazy_regex_finds():
    rng = random.Random(7)
    pieces = ["<action>", "</action>", "<Action>", "</ACTION>", "<answer>", "</answer>", "< action >",
              "</ action>", "x", " ", "\n", "go forward", "<", ">", "/"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        expected = [(m.start(), m.end(), m.group(2)) for m in _LAZY_TAG.finditer(text)]
        assert parsing._tags(text) == expected, text


def test_regex_words_equal_the_plain_definition():
    rng = random.Random(11)
    alphabet = list("ab1 _-$.,*[](){}<>\"'`\n\t\u00a0ÉΩ٣３²\u2212—!?#@\u200b\u3000\x1c")
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert words(text) == _plain_words(text), repr(text)


def test_a_typo_in_the_final_answer_is_repaired_after_many_unreadable_markers():
    chatter = "\n".join(f"Action: zz{n}" for n in range(200))
    assert label(chatter + "\nFinal answer: go foward") == "go forward"
    assert label(chatter + "\nFinal answer: 2") == "go forward"
    assert label(chatter) is None


# ------------------------------------------------------------------ negation (issue 21)
# A D&D turn's options (labels as the encounter lists them), and a yes/no question.
DND_TURN = option_table(["Move (30 ft left)", "Attack with Longsword (+5, 1d8+3)", "Dash",
                         "Disengage", "Dodge", "End turn"])
DODGE, DASH, ATTACK = DND_TURN[4], DND_TURN[2], DND_TURN[1]


def dnd(answer):
    return parse_answer(answer, list(DND_TURN), DND_TURN)


def test_the_issues_example_prose_that_negates_a_label_is_not_that_label():
    result = dnd("I would not Dodge here.")
    assert result.option is None
    assert "rejects 'Dodge'" in result.reason and "name the one option you choose" in result.reason


@pytest.mark.parametrize("answer", [
    "I would not Dodge here.",
    "Dodge is not it... I'd say never dodge.",
    "I don't want to dodge.",
    "I won't dodge",
    "We shouldn't dodge now",
    "Dont dodge",
    "No dodge this turn",
    "Avoid Dodge, the goblins are far",
    "Better to stay without Dodge",
    "Anything except Dodge",
    "I cannot Dodge",
    "Take the Dash action instead of Dodge",   # Dash affirmed too: prose names two options
    "Dash rather than dodge",
    "I will attack with longsword (+5, 1d8+3), not dodge",
])
def test_free_prose_that_negates_an_option_fails_and_says_so(answer):
    result = dnd(answer)
    assert result.option is None, answer
    assert "rejects" in result.reason and "dodge" in result.reason.lower(), result.reason


@pytest.mark.parametrize("answer, expected", [
    ("Not now. Dodge!", DODGE),                        # the negation ends with its sentence
    ("No goblin is in reach, so Dodge.", DODGE),       # ... or before "so"
    ("The goblins are not close; I Dodge", DODGE),
    ("Not the longsword:\nDodge", DODGE),              # a line end is a clause break
    ("I do not know the odds well enough to risk it, Dodge.", DODGE),
    ("Nothing suggests otherwise. I dodge.", DODGE),
    ("It is not a good moment to attack goblins at range; the Dash is what I want.", DASH),
])
def test_a_negation_in_another_clause_or_out_of_reach_does_not_negate(answer, expected):
    assert dnd(answer).option == expected, (answer, dnd(answer).reason)


def test_a_negated_marked_answer_fails_and_the_last_marker_still_decides():
    for answer in ("Final answer: not Dodge", "Final answer: don't dodge, dash",
                   "Action: Dodge\nFinal answer: not Dodge", "<action>not Dodge</action>",
                   '{"action": "never Dodge"}', "The answer is not option 4."):
        result = dnd(answer)
        assert result.option is None, answer
        assert "rejects" in result.reason, (answer, result.reason)
    # a marked answer is its first mention: what follows on its line is comment
    assert dnd("Final answer: Dodge, not Dash").option == DODGE
    assert dnd("Action: Dash (rather than dodge)").option == DASH
    # a negated mention in the reasoning is no matter once a marker concludes
    assert dnd("I would not Dodge here.\nFinal answer: Dash").option == DASH


def test_labels_whose_words_negate_are_still_their_labels():
    options = option_table(["do not move", "move", "Don't attack", "attack", "no", "yes"])
    for answer, expected in [("do not move", 0), ("Do not move.", 0), ("Don't attack", 2),
                             ("no", 4), ("No.", 4), ("Final answer: no", 4), ("I say no.", 4),
                             ("Final answer: Don't attack", 2), ("I'll go with do not move", 0),
                             ("I do not move this turn", 0)]:
        choice = parse_choice(answer, list(options), options)
        assert choice is not None and choice.index == expected, (answer, choice)
    # a negation before a label that negates is still a negation
    assert parse_choice("I would not do not move", list(options), options) is None


def test_negated_index_numbers_are_rejected_but_the_no_of_no_2_is_not_a_negation():
    assert dnd("not option 4").option is None
    assert "rejects option 4" in dnd("avoid option 4, the goblins are far").reason
    assert dnd("action no. 4").option == DODGE
    assert dnd("Option no 2").option == DASH
    assert dnd("The answer is 2. Not 4.").option == DASH   # the marked answer is the first number


def _plain_clauses(text: str) -> tuple[list[str], list[bool]]:
    """The words of `text` (as `_plain_words` reads them, lower case) and, before each,
    whether a clause break (. , ; : ! ? or a line end) stands between it and the last."""
    out, breaks, pending = [], [], True
    for line in re.split(r"[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]", parsing._readable(text)):
        pending = True
        for token in line.split():
            if any(c.isalnum() for c in token):
                for run in re.findall(r"[^\W_]+|(?:[^\w\s]|_)+", token):
                    if any(c.isalnum() for c in run):
                        out.append(run.lower())
                        breaks.append(pending)
                        pending = False
                    elif any(c in ".,;:!?" for c in run):
                        pending = True
            else:
                symbol = token.strip(parsing._SENTENCE_PUNCT)
                if symbol:
                    out.append(symbol.lower())
                    breaks.append(pending)
                    pending = False
                if any(c in ".,;:!?" for c in token):
                    pending = True
    breaks.append(pending)
    return out, breaks


def _plain_negated(words_: list[str], breaks: list[bool], index: int) -> bool:
    """The negation rule as the module docstring states it, read backwards from word `index`."""
    for j in range(index - 1, max(-1, index - 5), -1):
        if breaks[j + 1]:
            return False
        previous = words_[j - 1] if j > 0 and not breaks[j] else ""
        if (words_[j] in parsing._NEGATORS or (previous, words_[j]) in parsing._NEGATING_PAIRS
                or (words_[j] == "t" and previous.endswith("n"))):
            return True
        if words_[j] in parsing._CLAUSE_WORDS:
            return False
    return False


def test_the_negation_reader_equals_the_plain_definition():
    """`_clauses` reads words as `words` does and marks what a negation reaches in one
    pass; checked against the rule read backwards from each word."""
    rng = random.Random(5)
    pieces = list("ab1 _-$.,;:!?*()[]\"'`\n\t\u00a0É٣３\u2212—#\u200b\u2028") + [
        " not ", " no ", " don't ", "n't", " instead of ", " rather than ", " but ", " so ",
        " never", " go forward ", " dodge", " won’t ", " t "]
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        tokens, negated = parsing._clauses(text)
        assert list(tokens) == words(text).lower().split(), repr(text)
        plain_words, breaks = _plain_clauses(text)
        assert list(tokens) == plain_words, repr(text)
        assert list(negated) == [_plain_negated(plain_words, breaks, i)
                                 for i in range(len(plain_words) + 1)], repr(text)
    assert parsing._clauses("I would not Dodge. Dodge")[1] == (False, False, False, True, False,
                                                                 False)
