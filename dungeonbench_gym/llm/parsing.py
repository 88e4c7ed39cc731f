"""Read a language model's answer as one legal option.

Models answer in many shapes: a bare label, an index, "3: go forward", markdown,
JSON, `<action>...</action>`, a paragraph of reasoning that ends in
"Final answer: ...". The parser looks, in order, for

1. the whole answer being an option (exact label first, then index number);
2. explicit answer markers (tags, JSON keys, "Final answer:", "Action:", ...):
   the LAST one that names anything decides, so a chain of thought may mention
   other options before its conclusion;
3. otherwise the options the prose mentions: one option (possibly named twice,
   or as "3: go forward") is taken, several different ones are ambiguous.

It never returns an option that is not legal. Passing the full command table
(`table=`) lets it tell "far north" (a known but illegal command) from "north"
(a legal one it contains), and keeps typo repair from turning an illegal
command into a similar legal one.

Labels are compared as words: case and punctuation inside words are ignored,
but a symbol standing alone is kept ("choose $" is not "choose -"), and case
breaks ties ("choose a" and "choose A" are different NetHack items). This is
why `core.options.find_option`, which drops both, is not used here.
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple

from ..core.options import Option

# Keys a JSON answer may carry its choice under.
JSON_KEYS = ("action", "answer", "final_answer", "choice", "option", "command", "move")
# Phrases after which a model states its answer ("Final answer: x", "I choose x").
_MARKER = re.compile(
    r"\b(?:final\s+answer|final\s+action|next\s+action|answer|action|choice|command|decision|"
    r"selected\s+option|chosen\s+option|my\s+move)[\"']?\s*(?:is\s*)?[:=]"
    r"|\b(?:final\s+answer|answer|action|choice|move|decision)\s+is\b"
    r"|\bi\s+(?:will\s+|'ll\s+|would\s+)?(?:choose|pick|select|go\s+with)\b",
    re.IGNORECASE)
_TAG = re.compile(r"<\s*(action|answer|choice|option|command)\s*>(.*?)<\s*/\s*\1\s*>",
                  re.IGNORECASE | re.DOTALL)
_JSON_OBJECT = re.compile(r"\{[^{}]*\}", re.DOTALL)
_JSON_FIELD = re.compile(r"[\"']?(" + "|".join(JSON_KEYS) + r")[\"']?\s*:\s*[\"']?([^\"'}\n,]*)",
                         re.IGNORECASE)
# An index stated as such: "option 3", "#3", "action no. 3", or "3:" / "3)" / "3." before a label.
_INDEX_WORD = re.compile(r"(?:\b(?:option|action|choice|number|index|no\.?)\s*#?\s*|#\s*)"
                         r"(\d{1,9})\b", re.IGNORECASE)
_INDEX_LEAD = re.compile(r"(?:^|\s)\[?(\d{1,9})\s*[\]:.)\-]\s+(?=\S)")
_NEGATIVE = re.compile(r"[\s*_`'\"(\[]*(-\d+)[\s*_`'\")\].]*")
_REFUSAL = re.compile(
    r"\b(?:i\s+(?:cannot|can\s*not|can't|won't|will\s+not|am\s+unable|'m\s+unable|"
    r"am\s+not\s+able|refuse)|as\s+an\s+ai|i'?m\s+sorry|i\s+am\s+sorry|unable\s+to\s+"
    r"(?:help|assist|play|comply))", re.IGNORECASE)
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*")
_BULLET = re.compile(r"^\s*[-*•+]\s+")
_WRAPPING = " \t\r\n*_`'\"“”‘’«»()[]<>.,;:!?"
_SENTENCE_PUNCT = ".,;:!?\"'`()[]{}<>“”‘’«»"
_FUZZY_CUTOFF = 0.85
_FUZZY_MAX_CHARS = 40
_MAX_CHARS = 20_000   # a runaway answer is read from its end, where conclusions are


class ParseResult(NamedTuple):
    """The chosen legal option, or None with the reason (told to the model on retry)."""

    option: Option | None
    reason: str = ""


class _Found(NamedTuple):
    """What a span names: a legal option, or a reason it names nothing usable."""

    option: Option | None
    named_something: bool   # an index or a known label, legal or not
    reason: str


def parse_choice(answer: str, options: Sequence[Option],
                 table: Sequence[Option] = ()) -> Option | None:
    """The legal option `answer` names, or None. See `parse_answer` for the reason."""
    return parse_answer(answer, options, table).option


def parse_answer(answer: str, options: Sequence[Option],
                 table: Sequence[Option] = ()) -> ParseResult:
    """Parse with the reason of a failure, so a retry can tell the model what was wrong.

    `options` are the legal options now; `table` optionally every option the game
    has (legal or not), so answers naming an illegal command are recognised as such.
    """
    options = list(options)
    if not isinstance(answer, str) or not answer.strip():
        return ParseResult(None, "the answer was empty")
    if not options:
        return ParseResult(None, "there are no legal options")
    text = unicodedata.normalize("NFKC", answer)
    if len(text) > _MAX_CHARS:
        text = text[-_MAX_CHARS:]
    text = _FENCE.sub(" ", text)
    labels = _Labels(options, table)

    whole = labels.find(text)
    if whole is not None:
        return ParseResult(whole)

    for span in reversed(_marked_spans(text)):
        found = _resolve(span, labels, first_wins=True)
        if found.option is not None:
            return ParseResult(found.option)
        if found.named_something:   # the final answer names an illegal or ambiguous choice
            return ParseResult(None, found.reason)

    if _REFUSAL.search(text):
        return ParseResult(None, "the answer declined to choose")
    found = _resolve(text, labels, first_wins=False)
    if found.option is not None:
        return ParseResult(found.option)
    return ParseResult(None, found.reason)


def words(text: str) -> str:
    """Text as words, for comparing labels and answers: punctuation inside or around a
    word becomes a space, a symbol standing alone ("$", "-") stays; case is kept."""
    out = []
    for token in unicodedata.normalize("NFKC", text).split():
        if any(c.isalnum() for c in token):
            out.append("".join(c if c.isalnum() else " " for c in token))
        else:
            symbol = token.strip(_SENTENCE_PUNCT)
            if symbol:
                out.append(symbol)
    return " ".join(" ".join(out).split())


# ------------------------------------------------------------------ labels
class _Labels:
    """The legal options and every known label, indexed by their words."""

    def __init__(self, options: Sequence[Option], table: Sequence[Option]):
        self.options = list(options)
        self.legal: dict[str, list[Option]] = {}
        for option in self.options:
            key = words(option.label).lower()
            if key:
                self.legal.setdefault(key, []).append(option)
        self.known = set(self.legal) | {words(o.label).lower() for o in table} - {""}
        # longest first, so "far north" is found before the "north" inside it
        alternatives = "|".join(re.escape(k) for k in sorted(self.known, key=len, reverse=True))
        self.pattern = re.compile(r"(?<!\S)(?:" + alternatives + r")(?!\S)", re.IGNORECASE) \
            if alternatives else None

    def find(self, text: str) -> Option | None:
        """The option the whole of `text` is: its exact label, else its index number."""
        text = _BULLET.sub("", text, count=1)
        stripped = text.strip(_WRAPPING)
        for option in self.options:
            if option.label == stripped or option.label == text.strip():
                return option
        said = words(text)
        option = self.by_words(said)
        if option is not None:
            return option
        if said.isdecimal() and len(said) <= 9 and not _NEGATIVE.fullmatch(text):
            return self.by_index(int(said))
        return None

    def by_words(self, said: str) -> Option | None:
        """The legal option with these words; case decides between "choose a" and "choose A"."""
        candidates = self.legal.get(said.lower(), [])
        if len(candidates) == 1:
            return candidates[0]
        exact = [o for o in candidates if words(o.label) == said]
        return exact[0] if len(exact) == 1 else None

    def by_index(self, index: int) -> Option | None:
        return next((o for o in self.options if o.index == index), None)


# ------------------------------------------------------------------ markers
def _marked_spans(text: str) -> list[str]:
    """The texts after each explicit answer marker, in order of where they occur."""
    spans: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []   # tags and JSON objects already read
    for m in _TAG.finditer(text):
        spans.append((m.start(), m.group(2)))
        taken.append(m.span())
    for m in _JSON_OBJECT.finditer(text):
        value = _json_value(m.group(0))
        if value is not None:
            spans.append((m.start(), value))
            taken.append(m.span())
    for m in _MARKER.finditer(text):
        if any(start <= m.start() < end for start, end in taken):
            continue
        spans.append((m.end(), _rest_of_line(text, m.end())))
    spans.sort(key=lambda s: s[0])
    return [s for _, s in spans]


def _json_value(blob: str) -> str | None:
    """The choice a JSON object carries; tolerant of single quotes and broken syntax."""
    try:
        data = json.loads(blob)
    except ValueError:
        data = None
    if isinstance(data, dict):
        lowered = {str(k).lower(): v for k, v in data.items()}
        for key in JSON_KEYS:
            value = lowered.get(key)
            if isinstance(value, (str, int)) and not isinstance(value, bool):
                return str(value)
        return None
    m = _JSON_FIELD.search(blob)
    return m.group(2).strip() if m else None


def _rest_of_line(text: str, start: int) -> str:
    """The answer after a marker: the rest of its line, or the next non-empty line."""
    lines = text[start:].split("\n")
    for line in lines:
        if words(line).strip("*-#"):
            return line
    return ""


# ------------------------------------------------------------------ spans
def _resolve(span: str, labels: _Labels, *, first_wins: bool) -> _Found:
    """The option one span names.

    A span after a marker (`first_wins`) takes its first mention ("go forward, then
    turn left" means go forward now); free prose must name exactly one option.
    """
    negative = _NEGATIVE.fullmatch(span)
    if negative:   # "-1" would otherwise read as 1 once punctuation is dropped
        return _Found(None, True, f"{negative.group(1)} is not the number of a legal option")
    direct = labels.find(span)
    if direct is not None:
        return _Found(direct, True, "")
    said = words(span)
    if not any(c.isalnum() for c in said):
        return _Found(None, False, "the answer named no option")

    mentions = [m.group(0) for m in labels.pattern.finditer(said)] if labels.pattern else []
    if mentions:
        chosen = mentions[:1] if first_wins else mentions
        distinct = list(dict.fromkeys(chosen))
        if len({d.lower() for d in distinct}) > 1:
            return _Found(None, True, "the answer named several options ("
                          + ", ".join(repr(d) for d in distinct[:4]) + "): choose one")
        option = labels.by_words(distinct[0])
        if option is not None:
            return _Found(option, True, "")
        if distinct[0].lower() in labels.legal:
            return _Found(None, True, f"{distinct[0]!r} matches several options: write the "
                          "label exactly as listed")
        return _Found(None, True, f"{distinct[0]!r} is not a legal option now")

    # "3: go forward" is an index; "1. The wall is ahead." in a reasoning list is not
    numbers = _index_mentions(span, leading=first_wins or len(span) <= 60)
    if said.isdecimal() and len(said) <= 9:
        numbers = [int(said)]
    if numbers:
        chosen_numbers = numbers[:1] if first_wins else numbers
        distinct_numbers = list(dict.fromkeys(chosen_numbers))
        if len(distinct_numbers) > 1:
            return _Found(None, True, "the answer named several option numbers ("
                          + ", ".join(str(d) for d in distinct_numbers[:4]) + "): choose one")
        option = labels.by_index(distinct_numbers[0])
        if option is not None:
            return _Found(option, True, "")
        return _Found(None, True,
                      f"{distinct_numbers[0]} is not the number of a legal option now")

    fuzzy = _fuzzy(said.lower(), labels)
    if fuzzy is not None:
        return fuzzy
    return _Found(None, False, "the answer named no legal option")


def _index_mentions(span: str, leading: bool) -> list[int]:
    found = [(m.start(), int(m.group(1))) for m in _INDEX_WORD.finditer(span)]
    if leading:
        found += [(m.start(1), int(m.group(1))) for m in _INDEX_LEAD.finditer(span)]
    return [n for _, n in sorted(found)]


def _fuzzy(said: str, labels: _Labels) -> _Found | None:
    """Repair a small typo in a short answer ("go foward"), never across to another
    command: the closest known label must be clearly closest, and legal."""
    if len(said) > _FUZZY_MAX_CHARS or len(said) < 3:
        return None
    scored = sorted(((difflib.SequenceMatcher(None, said, key).ratio(), key)
                     for key in labels.known), reverse=True)
    if not scored or scored[0][0] < _FUZZY_CUTOFF:
        return None
    if len(scored) > 1 and scored[0][0] - scored[1][0] < 0.05:
        return _Found(None, True, f"{said!r} is not an option (did you mean "
                      f"{scored[0][1]!r} or {scored[1][1]!r}?)")
    best = scored[0][1]
    if len(labels.legal.get(best, [])) == 1:
        return _Found(labels.legal[best][0], True, "")
    return _Found(None, True, f"{said!r} is not a legal option now")
