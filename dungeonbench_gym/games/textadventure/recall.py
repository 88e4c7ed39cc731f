"""How much of a walkthrough the valid-action detector offers: recall, the way Jericho means it.

A walkthrough step is *covered* when one of the options the detector offers in that
state does to the world what the walkthrough's command does. The world is what the
detector compares (`ActionDetector.option_for`): the object tree with every object's
attributes and property tables (so the player's location too) and the game's global
variables, less what changes when nothing happens (the turn counter, the parser's
scratch variables). That is Jericho's test (same world state after the command as
after the option) with the globals added, so a covered step also keeps a game's
flags ("the guard has seen the pass") as the walkthrough sets them.

A command that changes nothing in that world (examining, reading a note that only
prints) is covered by `look`, `inventory` or `wait`, which are always offered and do
no more; such steps are counted apart, because an achievement that is only printed
text is then lost (the replay says so).

`measure` plays the walkthrough by choosing options only: at each step it plays the
covering option's label; a step with no covering option is a miss, and then the
walkthrough's own command is played so the rest can still be measured. The replay's
achievements are compared with the walkthrough's own (`check_walkthrough`): a game
whose every step is covered and whose replay earns every achievement the walkthrough
earns can be finished from the mask alone.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from ...core.cache import cache_dir, write_text_atomic
from . import achievements as ach
from .actions import ActionDetector
from .check import check_walkthrough, read_walkthrough
from .env import clean_output
from .zmachine import Story

TEXTWORLD_FORMAT = 1      # bump when the made games' files or settings change


_ALWAYS_TYPED = frozenset({"look", "l", "inventory", "inv", "i", "wait", "z"})


@dataclass(frozen=True)
class Step:
    turn: int
    command: str              # the walkthrough's
    option: str | None        # the covering option's label (None: a miss)
    no_effect: bool           # the command changes nothing the detector sees
    options: tuple[str, ...]  # what was offered
    seconds: float            # detection time for this state (cold cache)


@dataclass
class Recall:
    story: str
    steps: list[Step] = field(default_factory=list)
    walkthrough_earned: dict[str, int] = field(default_factory=dict)
    replay_earned: dict[str, int] = field(default_factory=dict)
    achievements: int = 0

    @property
    def covered(self) -> int:
        return sum(s.option is not None for s in self.steps)

    @property
    def recall(self) -> float:
        return self.covered / len(self.steps) if self.steps else 1.0

    @property
    def misses(self) -> list[Step]:
        return [s for s in self.steps if s.option is None]

    @property
    def lost(self) -> list[str]:
        """Achievements the walkthrough earns that the options-only replay did not."""
        return sorted(set(self.walkthrough_earned) - set(self.replay_earned))

    @property
    def finished_from_options(self) -> bool:
        return not self.misses and not self.lost

    @property
    def median_ms(self) -> float:
        return 1000 * statistics.median(s.seconds for s in self.steps) if self.steps else 0.0


def measure(story_file: str | Path, walkthrough: str | Path | list[str],
            achievements_file: str | Path, *, seed: int = 1, workers: int = 1) -> Recall:
    """Recall of the detector over one walkthrough, and what an options-only replay earns."""
    import jericho

    commands = read_walkthrough(walkthrough) if isinstance(walkthrough, (str, Path)) \
        else list(walkthrough)
    walked = check_walkthrough(story_file, achievements_file, commands, seed=seed)
    spec = walked.achievements     # loaded and the story checked by check_walkthrough
    report = Recall(str(story_file), walkthrough_earned=dict(walked.earned),
                    achievements=len(spec.achievements))
    tracker = ach.Tracker(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frotz = jericho.FrotzEnv(str(story_file), seed=seed)
    output, _ = frotz.reset()
    tracker.observe(clean_output(output), 0)
    detector = ActionDetector(frotz, Story(story_file), workers=workers)
    detector.hear(clean_output(output))
    try:
        for turn, command in enumerate(commands, start=1):
            actions = detector.detect()
            index = detector.option_for(command, actions)
            no_effect = False
            if index is None:      # covered by look, inventory or wait: it does no more
                index = detector.always_for(command, actions)
                no_effect = index is not None and \
                    " ".join(command.lower().split()) not in _ALWAYS_TYPED
            label = actions.labels[index] if index is not None else None
            report.steps.append(Step(turn, command, label, no_effect, tuple(actions.labels),
                                     actions.seconds))
            output = clean_output(frotz.step(label if label is not None else command)[0])
            tracker.observe(output, turn)
            detector.hear(output)
    finally:
        detector.close()
        frotz.close()
    report.replay_earned = dict(tracker.earned)
    return report


def render(report: Recall, misses: int = 10) -> str:
    lines = [f"{Path(report.story).name}: recall {report.covered}/{len(report.steps)} "
             f"({100 * report.recall:.1f}%), no-effect steps "
             f"{sum(s.no_effect for s in report.steps)}, achievements walkthrough "
             f"{len(report.walkthrough_earned)}/{report.achievements} replay "
             f"{len(report.replay_earned)}/{report.achievements}, detection median "
             f"{report.median_ms:.1f} ms"]
    for step in report.misses[:misses]:
        lines.append(f"  miss at {step.turn}: {step.command!r}; offered "
                     + ", ".join(step.options[3:40]))
    if report.lost:
        lines.append("  achievements lost by the options-only replay: " + ", ".join(report.lost))
    return "\n".join(lines)


# --------------------------------------------- a set of games nobody here wrote
def textworld_settings(index: int) -> dict:
    """Game `index` of the set: every combination of theme and adjectives recurs every
    4 games, quest lengths cycle 1..10, rooms 2..10, objects 4..22."""
    return {"theme": ("house", "basic")[index % 2], "include_adj": bool(index // 2 % 2),
            "quest_length": 1 + index % 10, "nb_rooms": 2 + index % 9,
            "nb_objects": 4 + 2 * (index % 10), "seed": 7000 + index}


def textworld_game(index: int) -> tuple[str, Path, Path, Path]:
    """Game `index` of the TextWorld set, made by TextWorld's own generator (offline: the
    wheel ships its Inform 7 compiler) and cached: (name, story, walkthrough, achievements).
    Its achievements are the quest's end banner and the full score. Made in a process with
    string hashing fixed, as the TextWorld family does, so the bytes are the same anywhere."""
    folder = cache_dir("textadventure_recall", "textworld")
    stem = f"tw-{index:03d}"
    meta_path = folder / f"{stem}.meta.json"
    story, walk, achieve = (folder / f"{stem}{ext}" for ext in (".z8", ".walkthrough",
                                                                 ".achievements"))
    settings = textworld_settings(index)
    if meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        if meta.get("format") == TEXTWORLD_FORMAT and meta.get("settings") == settings \
                and story.is_file():
            return stem, story, walk, achieve
    if os.environ.get("PYTHONHASHSEED") != "0":
        package_root = str(Path(__file__).resolve().parents[3])
        env = dict(os.environ, PYTHONHASHSEED="0")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
        code = f"from {__name__} import textworld_game; textworld_game({int(index)})"
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, check=False)
        if done.returncode != 0 or not meta_path.is_file():
            raise RuntimeError(f"TextWorld game {stem} could not be made (exit "
                               f"{done.returncode}):\n{done.stderr[-2000:]}")
        return stem, story, walk, achieve
    import textworld
    from textworld.generator import QuestGenerationError, compile_game

    rejected: list[int] = []
    for attempt in range(20):          # a map can admit no quest of that length: next seed
        options = textworld.GameOptions()
        options.nb_rooms = settings["nb_rooms"]
        options.nb_objects = settings["nb_objects"]
        options.quest_length = settings["quest_length"]
        options.grammar.theme = settings["theme"]
        options.grammar.include_adj = settings["include_adj"]
        options.seeds = settings["seed"] + 100_000 * attempt
        try:
            game = textworld.generator.make_game(options)
        except QuestGenerationError:
            continue
        if not game.walkthrough:
            continue
        options.path = str(story)
        options.force_recompile = True
        compile_game(game, options)
        commands = list(game.walkthrough)
        write_text_atomic(walk, "\n".join(commands) + "\n")
        score = int(game.max_score)
        write_text_atomic(achieve, (
            f"# TextWorld game {stem}: the quest's end and its full score\n"
            f"TURN_LIMIT {3 * len(commands) + 10}\n"
            "quest_done *** The End ***\n"
            f"full_score You scored {score} out of a possible {score}\n"))
        # TextWorld sometimes stores a walkthrough its own parser cannot follow (two
        # objects whose names share words): such a game measures nothing, take the next
        if check_walkthrough(story, achieve, commands).complete:
            break
        rejected.append(options.seeds)
    else:
        raise RuntimeError(f"TextWorld made no game for {settings}")
    write_text_atomic(meta_path, json.dumps({"format": TEXTWORLD_FORMAT, "settings": settings,
                                             "seed": options.seeds, "rejected": rejected,
                                             "textworld": textworld.__version__}) + "\n")
    return stem, story, walk, achieve
