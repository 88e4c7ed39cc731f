"""Read a language model's answer as one legal option.

Models answer in many shapes: a bare label, an index, "3: go forward", markdown,
JSON, `<action>...</action>`, a paragraph of reasoning that ends in
"Final answer: ...". The rule: an answer counts only when it names one option
unambiguously; anything else is a parse failure with a reason, which the agent
tells the model when it re-asks (and falls back after the last re-ask). The
parser looks, in order, for

1. the whole answer being an option (exact label first, then index number). An
   exact label is that option even when its words negate ("do not move", "Don't
   attack", "no" in a text adventure's yes/no question);
2. explicit answer markers (tags, JSON keys, "Final answer:", "Action:", ...):
   the LAST one that names anything decides, so a chain of thought may mention
   other options before its conclusion. A marked answer is its first mention
   ("Action: go forward, then turn left" is go forward now, and "Final answer:
   Dodge, not Dash" is Dodge: the marker says which words are the answer, and the
   rest of its line is comment). If that first mention is negated ("Final answer:
   not Dodge", "Final answer: don't dodge, dash"), the marked answer names no choice
   and the answer fails: the parser does not guess which other option was meant;
3. otherwise the options the prose mentions: exactly one option, named once or
   more, none of its mentions negated, is taken. Prose that mentions several options
   fails, and so does prose that negates any option it mentions, even beside another
   it affirms: "I would not Dodge here." and "I will attack, not dodge" both fail,
   since unmarked prose gives no sign of which words are the choice (issue 21's rule:
   prose that mentions several labels or negates one is a parse failure).

In a marked answer or in prose, a label outweighs a number ("3: go forward" is go
forward). A number alone counts when stated as an option's number: "option 3",
"action no. 3", "#3", and in a marked answer or a short one (60 characters) also
"number 3" and "3: ..."; in long prose "a door with a number 2" is a door's number.

A mention is negated when one of the four words before it, in its clause, is a
negation or rejection: "not", "no", "never", "nor", "neither", "without", "avoid",
"cannot", "except", "refuse", any "n't" ("don't", "won't", "shouldn't"; also
written "dont"), or the pairs "instead of", "rather than", "other than". A clause
ends at . , ; : ! ? or a line end, and before "but", "so", "then", "because",
"since", "instead", "however", "yet"... : "Not now. Dodge!" and "No goblin is near,
so dodge" choose Dodge. Index numbers are read the same way ("not option 2" fails),
except that the "no" of "no. 2" introduces the number. The words of a label are not
its own negation: the mention "do not move" is not negated by its "not", only by
words before it.

It never returns an option that is not legal. Passing the full command table
(`table=`) lets it tell "far north" (a known but illegal command) from "north"
(a legal one it contains), and keeps typo repair from turning an illegal
command into a similar legal one.

Labels are compared as words: case and punctuation inside words are ignored,
but a symbol standing alone is kept ("choose $" is not "choose -"), and case
breaks ties ("choose a" and "choose A" are different NetHack items). This is
why `core.options.find_option`, which drops both, is not used here.

Text is read as a person reads it: NFKC-normalised (full-width letters and digits
become plain ones; other scripts' decimal digits count as digits), invisible
format characters (zero-width spaces and joiners, soft hyphens, direction marks)
removed, and every Unicode minus and dash (U+2212, U+2010-U+2015, U+FE63, U+FF0D,
...) read as "-", so "−3" is the negative number -3, which names no option.

An opening tag never closed ("<action>turn left", an answer cut short by the
token limit) is a marker too, and markdown emphasis around a marker
("**Answer:** 2") is not part of the answer.

Parsing takes time linear in the answer's length: each marker's answer is read
up to the next marker, tags are paired through an index of closing tags, typo
repair is tried on the last `_REPAIRED_SPANS` distinct marked answers only (and
on the prose), a negation is looked for among a fixed number of words before each
mention, and answers over `_MAX_CHARS` are read from their end.
`benchmarks/parser_speed.py` times the worst shapes found.
"""

from __future__ import annotations

import bisect
import difflib
import functools
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
    r"selected\s+option|chosen\s+option|option|my\s+move)[*_\"']*\s*(?:is\s*)?[:=][*_]*"
    r"|\b(?:final\s+answer|answer|action|choice|move|decision)\s+is\b"
    r"|\bi\s+(?:will\s+|'ll\s+|would\s+)?(?:choose|pick|select|go\s+with)\b",
    re.IGNORECASE)
# Opening and closing tags are found separately and paired by name (see `_tags`): a
# lazy "<action>(.*?)</action>" rescans the rest of the text for every unclosed tag.
_TAG_NAMES = r"(action|answer|choice|option|command)"
_TAG_OPEN = re.compile(r"<\s*" + _TAG_NAMES + r"\s*>", re.IGNORECASE)
_TAG_CLOSE = re.compile(r"<\s*/\s*" + _TAG_NAMES + r"\s*>", re.IGNORECASE)
_JSON_OBJECT = re.compile(r"\{[^{}]*\}", re.DOTALL)
_JSON_FIELD = re.compile(r"[\"']?(" + "|".join(JSON_KEYS) + r")[\"']?\s*:\s*[\"']?([^\"'}\n,]*)",
                         re.IGNORECASE)
# An index stated as such: "option 3", "#3", "action no. 3", or "3:" / "3)" / "3." before a label.
_INDEX_WORD = re.compile(r"(?:\b(?:option|action|choice|number|index|no\.?)\s*#?\s*|#\s*)"
                         r"(\d{1,9})\b", re.IGNORECASE)
# In long prose only an option's number counts: "a door with the number 2" is not option 2.
_INDEX_NAMED = re.compile(r"(?:\b(?:option|action|choice)\s*(?:(?:number|index|no\.?)\s*)?#?\s*"
                          r"|#\s*)(\d{1,9})\b", re.IGNORECASE)
_INDEX_LEAD = re.compile(r"(?:^|\s)\[?(\d{1,9})\s*[\]:.)\-]\s+(?=\S)")
_NEGATIVE = re.compile(r"[\s*_`'\"(\[]*(-\d+)[\s*_`'\")\].]*")
_REFUSAL = re.compile(
    r"\b(?:i\s+(?:cannot|can\s*not|can't|won't|will\s+not|am\s+unable|'m\s+unable|"
    r"am\s+not\s+able|refuse)|as\s+an\s+ai|i'?m\s+sorry|i\s+am\s+sorry|unable\s+to\s+"
    r"(?:help|assist|play|comply))", re.IGNORECASE)
# Markdown emphasis closing a marker ("**Answer:** 2", "**The answer is** 2"), not a symbol.
_LEADING_EMPHASIS = re.compile(r"^\s*[*_]+(?=\s)")
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*")
_BULLET = re.compile(r"^\s*[-*•+]\s+")
_WRAPPING = " \t\r\n*_`'\"“”‘’«»()[]<>.,;:!?"
_SENTENCE_PUNCT = ".,;:!?\"'`()[]{}<>“”‘’«»"
_FUZZY_CUTOFF = 0.85
_FUZZY_MARGIN = 0.05   # a runner-up this close makes a repair ambiguous
_FUZZY_MAX_CHARS = 40
# Negation: a word of `_NEGATORS` (or "n't", "instead of", "rather than", "other than")
# among the `_NEGATION_REACH` words before a mention, with no clause break between,
# rejects it. `words` splits "don't" into "don t", so the contractions are listed bare.
_NEGATORS = frozenset({
    "not", "no", "never", "nor", "neither", "without", "avoid", "avoids", "avoiding",
    "cannot", "except", "refuse", "dont", "wont", "cant", "shouldnt", "wouldnt", "couldnt",
    "didnt", "doesnt", "isnt", "mustnt"})
_NEGATING_PAIRS = frozenset({("instead", "of"), ("rather", "than"), ("other", "than")})
# Words that open a new clause: a negation before them does not reach past them.
_CLAUSE_WORDS = frozenset({"but", "so", "then", "therefore", "thus", "hence", "because",
                           "since", "instead", "however", "yet"})
_NEGATION_REACH = 4
_CONTRACTED_NOT = re.compile(r"n t(?!\S)")   # "don't" in words is "don t"
_LOOKBACK_CHARS = 80     # raw text read before a number for its negation
_CLAUSE_PUNCT = re.compile(r"[.,;:!?]")
_LINE_END = re.compile(r"[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_BREAK = "\u200b"        # a clause-break token: `_readable` removes it, so no text has one
_REPAIRED_SPANS = 16   # marked answers, from the last, that typo repair is tried on
_MAX_CHARS = 20_000   # a runaway answer is read from its end, where conclusions are

# Every minus sign and dash reads as "-" (so "−3" is negative, "go‐forward" two words).
# The wave dashes U+301C and U+3030 mean "to" or "about" and are left alone; NFKC has already
# turned U+207B/U+208B (super-/subscript minus) into U+2212 and U+FE58/U+FE31/U+FE32 into dashes.
_DASHES = ("\u2212\u2010\u2011\u2012\u2013\u2014\u2015\ufe63\uff0d\u2e3a\u2e3b\u2e17\u2e1a\u2e40"
           "\u2e5d\u058a\u05be\u1400\u1806\u2796\u02d7\u2043\ufe58\ufe31\ufe32\U00010ead")
# Invisible format characters a reader never sees: zero-width space/joiners, word joiner,
# soft hyphen, byte-order mark, direction marks and embeddings.
_INVISIBLE = ("\u00ad\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
              "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\u206a\u206b\u206c\u206d"
              "\u206e\u206f\ufeff")
_READABLE = {**{ord(c): "-" for c in _DASHES}, **{ord(c): None for c in _INVISIBLE}}


class ParseResult(NamedTuple):
    """The chosen legal option, or None with the reason (told to the model on retry)."""

    option: Option | None
    reason: str = ""


class _Found(NamedTuple):
    """What a span names: a legal option, or a reason it names nothing usable."""

    option: Option | None
    named_something: bool   # an index or a known label, legal or not
    reason: str
    rejects: bool = False   # it names an option only to negate it ("not Dodge")


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
    if len(answer) > 2 * _MAX_CHARS:   # normalise only what will be read
        answer = answer[-2 * _MAX_CHARS:]
    text = _readable(answer)
    if len(text) > _MAX_CHARS:
        text = text[-_MAX_CHARS:]
    text = _FENCE.sub(" ", text)
    labels = _Labels(options, table)

    whole = labels.find(text)
    if whole is not None:
        return ParseResult(whole)

    seen: dict[str, _Found] = {}   # a repetitive answer repeats its spans: read each once
    for span in reversed(_marked_spans(text)):
        found = seen.get(span)
        if found is None:
            # typo repair only for the last few distinct spans: a flood of distinct junk
            # answers must not cost a fuzzy comparison with every label each
            repair = len(seen) < _REPAIRED_SPANS
            found = seen[span] = _resolve(span, labels, first_wins=True, repair=repair)
        if found.option is not None:
            return ParseResult(found.option)
        if found.named_something:   # the final answer names an illegal or ambiguous choice
            return ParseResult(None, found.reason)

    found = _resolve(text, labels, first_wins=False)
    if found.rejects:   # "I won't dodge": more use to the re-ask than "declined to choose"
        return ParseResult(None, found.reason)
    if _REFUSAL.search(text):
        return ParseResult(None, "the answer declined to choose")
    if found.option is not None:
        return ParseResult(found.option)
    return ParseResult(None, found.reason)


def _readable(text: str) -> str:
    """Text as a reader sees it: NFKC, invisible characters dropped, every dash a "-"."""
    return unicodedata.normalize("NFKC", text).translate(_READABLE)


def words(text: str) -> str:
    """Text as words, for comparing labels and answers: punctuation inside or around a
    word becomes a space, a symbol standing alone ("$", "-") stays; case is kept."""
    return _words(text) if isinstance(text, str) else _words(str(text))


@functools.lru_cache(maxsize=256)   # one parse reads the same answer and labels several times
def _words(text: str) -> str:
    return " ".join(_NOT_WORD.sub(_word_gap, _readable(text)).split())


# One pass of the regex engine instead of a Python loop per character: a token of
# symbols only (alternative 1) keeps its symbol, a run of punctuation elsewhere
# (alternative 2, inside a token with letters or digits) becomes a space.
# "[^\w\s]|_" is "neither alphanumeric (str.isalnum) nor whitespace".
_NOT_WORD = re.compile(r"(?<!\S)((?:[^\w\s]|_)+)(?!\S)|(?:[^\w\s]|_)+")


def _word_gap(m: re.Match) -> str:
    symbol = m.group(1)
    return f" {symbol.strip(_SENTENCE_PUNCT)} " if symbol else " "


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
        self.known = frozenset(set(self.legal) | {words(o.label).lower() for o in table} - {""})
        # exact label -> (position, option), the first option with that label
        self.exact: dict[str, tuple[int, Option]] = {}
        for position, option in enumerate(self.options):
            self.exact.setdefault(option.label, (position, option))
        # longest first, so "far north" is found before the "north" inside it
        alternatives = "|".join(re.escape(k) for k in sorted(self.known, key=len, reverse=True))
        self.pattern = re.compile(r"(?<!\S)(?:" + alternatives + r")(?!\S)", re.IGNORECASE) \
            if alternatives else None

    def find(self, text: str) -> Option | None:
        """The option the whole of `text` is: its exact label, else its index number."""
        text = _BULLET.sub("", text, count=1)
        # the first option (in the legal order) whose label is the text, bare or unwrapped
        hits = [hit for hit in (self.exact.get(text.strip(_WRAPPING)), self.exact.get(text.strip()))
                if hit is not None]
        if hits:
            return min(hits, key=lambda hit: hit[0])[1]
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
    """The texts after each explicit answer marker, in order of where they occur.

    A marker's text ends at the end of its line or at the next marker, whichever
    comes first, so the texts never overlap and reading all of them stays linear."""
    spans: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []   # tags and JSON objects already read
    for start, end, content in _tags(text):
        spans.append((start, content))
        taken.append((start, end))
    for m in _JSON_OBJECT.finditer(text):
        value = _json_value(m.group(0))
        if value is not None:
            spans.append((m.start(), value))
            taken.append(m.span())
    inside = _Intervals(taken)
    # (start, end) of each marker outside tags and JSON; an opening tag never closed
    # (an answer cut short: "<action>turn left") is a marker too
    markers = [m.span() for m in _MARKER.finditer(text) if not inside.contains(m.start())]
    markers += [m.span() for m in _TAG_OPEN.finditer(text) if not inside.contains(m.start())]
    markers.sort()
    for n, (_, end) in enumerate(markers):
        limit = markers[n + 1][0] if n + 1 < len(markers) else len(text)
        spans.append((end, _rest_of_line(text, end, limit)))
    spans.sort(key=lambda s: s[0])
    return [s for _, s in spans]


def _tags(text: str) -> list[tuple[int, int, str]]:
    """(start, end, content) of each <action>...</action> (any name of `_TAG_NAMES`, any
    case), as `re.finditer` of "<name>(.*?)</name>" would find them, in linear time:
    each opening tag is paired with the first closing tag of its name after it."""
    closes: dict[str, list[tuple[int, int]]] = {}
    for m in _TAG_CLOSE.finditer(text):
        closes.setdefault(m.group(1).lower(), []).append(m.span())
    found: list[tuple[int, int, str]] = []
    resume = 0   # a found tag's text is not searched again for opening tags
    for m in _TAG_OPEN.finditer(text):
        if m.start() < resume:
            continue
        candidates = closes.get(m.group(1).lower(), [])
        i = bisect.bisect_left(candidates, (m.end(), -1))
        if i == len(candidates):
            continue
        close_start, close_end = candidates[i]
        found.append((m.start(), close_end, text[m.end():close_start]))
        resume = close_end
    return found


class _Intervals:
    """Sorted, merged [start, end) intervals answering "is this position inside one?"."""

    def __init__(self, intervals: list[tuple[int, int]]):
        merged: list[list[int]] = []
        for start, end in sorted(intervals):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self.starts = [start for start, _ in merged]
        self.ends = [end for _, end in merged]

    def contains(self, position: int) -> bool:
        i = bisect.bisect_right(self.starts, position) - 1
        return i >= 0 and position < self.ends[i]


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


def _rest_of_line(text: str, start: int, limit: int) -> str:
    """The answer after a marker: the rest of its line, or the next non-empty line,
    never reaching `limit`, where the next marker starts."""
    while start < limit:
        newline = text.find("\n", start, limit)
        end = limit if newline < 0 else newline
        line = _LEADING_EMPHASIS.sub("", text[start:end], count=1)
        if words(line).strip("*-#"):
            return line
        if newline < 0:
            break
        start = newline + 1
    return ""


# ------------------------------------------------------------------ spans
def _resolve(span: str, labels: _Labels, *, first_wins: bool, repair: bool = True) -> _Found:
    """The option one span names.

    A span after a marker (`first_wins`) takes its first mention ("go forward, then
    turn left" means go forward now); free prose must name exactly one option.
    `repair=False` skips typo repair, the costliest rule.
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

    mentions = [(m.start(), m.group(0)) for m in labels.pattern.finditer(said)] \
        if labels.pattern else []
    if mentions:
        rejected = _negated_mentions(span, said, mentions[:1] if first_wins else mentions) \
            if _may_negate(said) else []
        if rejected:
            return _Found(None, True, _rejection(mentions, rejected), rejects=True)
        chosen = [mention for _, mention in (mentions[:1] if first_wins else mentions)]
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
        numbers = [(0, int(said))]
    if numbers:
        chosen_numbers = numbers[:1] if first_wins else numbers
        distinct_numbers = list(dict.fromkeys(n for _, n in chosen_numbers))
        if len(distinct_numbers) > 1:
            return _Found(None, True, "the answer named several option numbers ("
                          + ", ".join(str(d) for d in distinct_numbers[:4]) + "): choose one")
        rejected_number = next((n for start, n in chosen_numbers
                                if _negated_before(span[max(0, start - _LOOKBACK_CHARS):start],
                                                   cut=start > _LOOKBACK_CHARS)), None) \
            if _may_negate(said) else None
        if rejected_number is not None:
            return _Found(None, True, f"the answer rejects option {rejected_number} rather than "
                          "naming one option: name the one option you choose", rejects=True)
        option = labels.by_index(distinct_numbers[0])
        if option is not None:
            return _Found(option, True, "")
        return _Found(None, True,
                      f"{distinct_numbers[0]} is not the number of a legal option now")

    fuzzy = _fuzzy(said.lower(), labels) if repair else None
    if fuzzy is not None:
        return fuzzy
    return _Found(None, False, "the answer named no legal option")


def _index_mentions(span: str, leading: bool) -> list[tuple[int, int]]:
    """(where, number) of each index the span states, in order: "option 3" from its
    first word (so the "no" of "no. 3" is not read as a negation), "3:" from the digit.
    `leading` (a marked answer or short prose) also reads "number 3", "no. 3" and "3: ..."
    alone; long prose needs an option word: "option 3", "action no. 3", "#3"."""
    found = [(m.start(), int(m.group(1)))
             for m in (_INDEX_WORD if leading else _INDEX_NAMED).finditer(span)]
    if leading:
        found += [(m.start(1), int(m.group(1))) for m in _INDEX_LEAD.finditer(span)]
    return sorted(found)


# ------------------------------------------------------------------ negation
def _negated_mentions(span: str, said: str, mentions: list[tuple[int, str]]) -> list[str]:
    """The mentions (offsets in `said`, the span's words) that a negation in their clause
    rejects, in order, each label once."""
    negated = _clauses(span)[1]
    rejected: dict[str, None] = {}
    index, last = 0, 0
    for start, mention in mentions:   # in order, so counting the words between is linear
        index += said.count(" ", last, start)
        last = start
        if negated[index]:
            rejected.setdefault(mention, None)
    return list(rejected)


def _may_negate(said: str) -> bool:
    """Whether the words `said` hold any negation at all: most answers negate nothing,
    and then their clauses need no reading."""
    lowered = said.lower()
    return (not _NEGATORS.isdisjoint(lowered.split())
            or ("n t" in lowered and _CONTRACTED_NOT.search(lowered) is not None)
            or any(f"{first} {second}" in lowered for first, second in _NEGATING_PAIRS))


def _negated_before(text: str, cut: bool) -> bool:
    """Whether a negation at the end of `text` reaches what follows it.
    `cut`: `text` starts inside the answer, so its first word may be a partial one."""
    if cut:
        space = next((i for i, c in enumerate(text) if c.isspace()), len(text))
        text = text[space:]
    return _clauses(text)[1][-1]


@functools.lru_cache(maxsize=256)   # a span and its lookback windows are read once per mention
def _clauses(text: str) -> tuple[tuple[str, ...], tuple[bool, ...]]:
    """The words of `text` as `words` gives them, in lower case, and for each position
    0..len(words) whether a negation reaches it: one of the `_NEGATION_REACH` words
    before it is a negation ("not", "don't" ("don t"), "instead of", ...) with no clause
    break (.,;:!? or a line end) and no clause word ("but", "so", ...) between. The last
    entry is for what would follow the text."""
    marked = _NOT_WORD.sub(_clause_gap, _LINE_END.sub(f" {_BREAK} ", _readable(text)))
    tokens: list[str] = []
    negated: list[bool] = []
    reach = 0          # how many more words the last negation reaches
    previous = ""      # the word before, in this clause
    for token in marked.split():
        if token == _BREAK:
            reach, previous = 0, ""
            continue
        word = token.lower()
        tokens.append(word)
        negated.append(reach > 0)
        if (word in _NEGATORS or (previous, word) in _NEGATING_PAIRS
                or (word == "t" and previous.endswith("n"))):   # "n't" is split: "don t"
            reach = _NEGATION_REACH
        elif word in _CLAUSE_WORDS:
            reach = 0
        elif reach:
            reach -= 1
        previous = word
    negated.append(reach > 0)
    return tuple(tokens), tuple(negated)


def _clause_gap(m: re.Match) -> str:
    """`_word_gap`, followed by a break token where the punctuation ends a clause."""
    run, symbol = m.group(0, 1)
    gap = f" {symbol.strip(_SENTENCE_PUNCT)} " if symbol else " "
    return f"{gap}{_BREAK} " if _CLAUSE_PUNCT.search(run) else gap


def _rejection(mentions: list[tuple[int, str]], rejected: list[str]) -> str:
    """The re-ask's reason for an answer that negates an option it mentions."""
    rejected_words = {r.lower() for r in rejected}
    named = list(dict.fromkeys(m for _, m in mentions if m.lower() not in rejected_words))
    reason = "the answer rejects " + ", ".join(repr(r) for r in rejected[:4])
    if named:
        reason += " and mentions " + ", ".join(repr(n) for n in named[:4])
    return reason + " rather than naming one option: name the one option you choose"


@functools.lru_cache(maxsize=64)   # the same few tables are parsed against all run long
def _fuzzy_index(known: frozenset[str]) -> tuple[list[int], list[str], list[dict[int, None]]]:
    """The known labels sorted by length, each with a str.translate table deleting its letters."""
    keys = sorted(known, key=lambda k: (len(k), k))
    return [len(k) for k in keys], keys, [dict.fromkeys(map(ord, k)) for k in keys]


def _fuzzy(said: str, labels: _Labels) -> _Found | None:
    """Repair a small typo in a short answer ("go foward"), never across to another
    command: the closest known label must be clearly closest, and legal."""
    if len(said) > _FUZZY_MAX_CHARS or len(said) < 3:
        return None
    # Only labels that could score within the ambiguity margin of the cutoff can change
    # the outcome. Two cheap upper bounds of difflib's ratio 2 * matches / (a + b) skip the
    # others before the full comparison: from the lengths (matches <= the shorter), then
    # from the letters in common (a letter of one that the other lacks never matches),
    # counted with str.translate so the loop over labels stays short.
    worth = _FUZZY_CUTOFF - _FUZZY_MARGIN
    lengths, keys, deletions = _fuzzy_index(labels.known)
    # 2 * min(a, b) / (a + b) >= worth  <=>  b within [a * worth / (2 - worth), a * (2 - worth) / worth]
    low = bisect.bisect_left(lengths, len(said) * worth / (2 - worth))
    high = bisect.bisect_right(lengths, len(said) * (2 - worth) / worth)
    said_deletion = dict.fromkeys(map(ord, said))
    scored = []
    for key, key_deletion in zip(keys[low:high], deletions[low:high]):
        matchable = min(len(key) - len(key.translate(said_deletion)),
                        len(said) - len(said.translate(key_deletion)))
        if 2 * matchable / (len(said) + len(key)) >= worth:
            scored.append((difflib.SequenceMatcher(None, said, key).ratio(), key))
    scored.sort(reverse=True)
    if not scored or scored[0][0] < _FUZZY_CUTOFF:
        return None
    if len(scored) > 1 and scored[0][0] - scored[1][0] < _FUZZY_MARGIN:
        return _Found(None, True, f"{said!r} is not an option (did you mean "
                      f"{scored[0][1]!r} or {scored[1][1]!r}?)")
    best = scored[0][1]
    if len(labels.legal.get(best, [])) == 1:
        return _Found(labels.legal[best][0], True, "")
    return _Found(None, True, f"{said!r} is not a legal option now")
