"""`dungeonbench-gym achievements check`: what a command list earns in a story.

For authors of achievement files: play a walkthrough (one command per line) in
the story and report, per achievement, the turn it was earned, and which
patterns never matched (a typo, text the game never prints, or beyond the turn
limit).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

from . import achievements as ach
from .env import clean_output
from .zmachine import validate_story


@dataclass
class CheckReport:
    story: str
    achievements: ach.AchievementFile
    commands: int
    earned: dict[str, int] = field(default_factory=dict)           # within the limit
    late: dict[str, int] = field(default_factory=dict)             # matched after it
    transcript: list[tuple[str, str]] = field(default_factory=list)   # (command, output)

    @property
    def missing(self) -> list[str]:
        return [a.name for a in self.achievements.achievements
                if a.name not in self.earned and a.name not in self.late]

    @property
    def complete(self) -> bool:
        return len(self.earned) == len(self.achievements.achievements)

    def render(self) -> str:
        spec = self.achievements
        lines = [f"{self.story}: {self.commands} commands, TURN_LIMIT {spec.turn_limit}, "
                 f"{len(self.earned)}/{len(spec.achievements)} achievements earned"]
        for a in spec.achievements:
            if a.name in self.earned:
                state = f"earned at turn {self.earned[a.name]}"
            elif a.name in self.late:
                state = (f"matched at turn {self.late[a.name]}, after TURN_LIMIT "
                         f"{spec.turn_limit}: not earned")
            else:
                state = "never matched"
            lines.append(f"  {a.name:<28} {state:<44} (line {a.line}: {a.text})")
        if self.missing:
            lines.append("patterns that never matched: " + ", ".join(self.missing))
        return "\n".join(lines)


def read_walkthrough(path: str | Path) -> list[str]:
    """Commands, one per line; blank lines and lines starting with '#' are skipped."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def check_walkthrough(story_file: str | Path, achievements_file: str | Path,
                      commands: list[str], seed: int = 1) -> CheckReport:
    """Play `commands` from the start and record what they earn."""
    import jericho

    spec = ach.load(achievements_file)
    validate_story(story_file)   # Frotz exits the whole process on a file it cannot use
    # A tracker with no turn limit sees everything; the report splits in-limit from late.
    unlimited = ach.Tracker(ach.AchievementFile(spec.path, 10**9, spec.achievements))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frotz = jericho.FrotzEnv(str(story_file), seed=seed)
    output, _ = frotz.reset()
    report = CheckReport(str(story_file), spec, len(commands))
    unlimited.observe(clean_output(output), 0)
    for turn, command in enumerate(commands, start=1):
        output = clean_output(frotz.step(command)[0])
        report.transcript.append((command, output))
        unlimited.observe(output, turn)
    for name, turn in unlimited.earned.items():
        (report.earned if turn <= spec.turn_limit else report.late)[name] = turn
    frotz.close()
    return report
