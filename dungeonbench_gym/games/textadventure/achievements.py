"""Achievement files: how far a player got in a text adventure.

The format (from the text-adventure evaluation essay in shared/references):

    # comments and blank lines are ignored
    TURN_LIMIT 40
    ANSWER_PHONE Click.
    EXIT_BED You get out of bed.
    FED_KOI /koi rise in a\\s+flurry/

`TURN_LIMIT n` comes first; every other line is `NAME text`: the achievement is
earned the first time the game prints the text, within the turn limit. The text
is a literal substring, or a regular expression between slashes. Whitespace is
compared loosely (any run of spaces and line breaks matches any other), because
interpreters wrap lines differently; case is compared exactly.

Every fault (no or a second TURN_LIMIT, a limit that is not a positive whole number, a name that
is not an identifier or is used twice, a line with no text, a regular expression that does not
compile or matches empty text, an empty file) is a `FileFormatError` naming the file, the line
and the fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ...core.errors import FileFormatError
from ...core.schema import did_you_mean, read_text

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Achievement:
    name: str
    text: str                     # as written in the file
    pattern: re.Pattern
    line: int

    @property
    def is_regex(self) -> bool:
        return len(self.text) > 1 and self.text.startswith("/") and self.text.endswith("/")


@dataclass(frozen=True)
class AchievementFile:
    path: str
    turn_limit: int
    achievements: tuple[Achievement, ...]

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.achievements]


def normalise(text: str) -> str:
    """Game text as matched: runs of whitespace become one space."""
    return _SPACES.sub(" ", text)


def parse(text: str, path: str = "<achievements>") -> AchievementFile:
    """Parse an achievement file's text; errors name the file, the line and the fix."""
    turn_limit = None
    achievements: list[Achievement] = []
    seen: dict[str, int] = {}
    text = text.removeprefix("\ufeff")   # a byte-order mark some editors write is not text
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"line {number}"
        if turn_limit is None:
            head, rest = _split(line)
            if head != "TURN_LIMIT":
                hint = did_you_mean(head.upper(), ["TURN_LIMIT"], cutoff=0.7).strip()
                hint = f" ({hint})" if hint else ""
                raise FileFormatError(path, where, f"expected 'TURN_LIMIT n' first, found {line!r}",
                                      f"start the file with a line like 'TURN_LIMIT 40'{hint}")
            try:
                turn_limit = int(rest.strip())
            except ValueError:
                turn_limit = 0
            if turn_limit < 1:
                raise FileFormatError(path, where, f"TURN_LIMIT {rest.strip()!r} is not a "
                                      "positive whole number", "write e.g. 'TURN_LIMIT 40'")
            continue
        name, wanted = _split(line)
        if name == "TURN_LIMIT":
            raise FileFormatError(path, where, "a second TURN_LIMIT line",
                                  "keep one TURN_LIMIT line, at the top")
        if not _NAME.match(name):
            raise FileFormatError(path, where, f"achievement name {name!r} is not an identifier",
                                  "use letters, digits and underscores, e.g. OPEN_DOOR")
        if not wanted:
            raise FileFormatError(path, where, f"achievement {name} has no text",
                                  f"write '{name} <text the game prints>'")
        if name in seen:
            raise FileFormatError(path, where, f"achievement {name} is already on line "
                                  f"{seen[name]}", "give every achievement its own name")
        seen[name] = number
        if len(wanted) > 1 and wanted.startswith("/") and wanted.endswith("/"):
            try:
                pattern = re.compile(wanted[1:-1])
            except re.error as error:
                raise FileFormatError(path, where, f"the regular expression {wanted} does not "
                                      f"compile ({error})", "fix the expression, or drop the "
                                      "slashes to match the text literally") from None
            if pattern.search(""):   # it would be earned at the opening text, whatever happens
                raise FileFormatError(path, where, f"the regular expression {wanted} matches empty "
                                      "text, so the achievement is earned before any turn",
                                      "make the expression require at least one character, "
                                      "e.g. /koi rise/ rather than /(koi)*/")
        else:
            pattern = re.compile(re.escape(normalise(wanted)))
        achievements.append(Achievement(name, wanted, pattern, number))
    if turn_limit is None:
        raise FileFormatError(path, "line 1", "the file is empty",
                              "write 'TURN_LIMIT n' and then one 'NAME text' line per achievement")
    if not achievements:
        raise FileFormatError(path, "end of file", "no achievements are listed",
                              "add lines like 'OPEN_DOOR You open the door.'")
    return AchievementFile(path, turn_limit, tuple(achievements))


def _split(line: str) -> tuple[str, str]:
    """(first word, the rest) of a stripped line; any run of spaces or tabs separates them."""
    head, *rest = line.split(None, 1)
    return head, rest[0].strip() if rest else ""


def load(path: str | Path) -> AchievementFile:
    path = Path(path)
    text = read_text(path, field="file", saved_as="UTF-8 text",
                     missing_fix="give the path of an achievements file",
                     not_text_hint=" (is this the story file instead?)")
    return parse(text, str(path))


@dataclass
class Tracker:
    """Which achievements the game's output has earned so far, and at which turn."""
    spec: AchievementFile
    earned: dict[str, int] = field(default_factory=dict)     # name -> turn

    def observe(self, output: str, turn: int) -> list[str]:
        """Record what this output earns at `turn` (0: the opening text)."""
        if turn > self.spec.turn_limit:
            return []
        text = normalise(output)
        new = []
        for achievement in self.spec.achievements:
            if achievement.name not in self.earned and achievement.pattern.search(text):
                self.earned[achievement.name] = turn
                new.append(achievement.name)
        return new

    @property
    def progress(self) -> float:
        return len(self.earned) / len(self.spec.achievements)

    @property
    def complete(self) -> bool:
        return len(self.earned) == len(self.spec.achievements)
