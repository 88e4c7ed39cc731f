"""Files in, clear errors out: every malformation of every input format is a FileFormatError.

One table (CASES) drives the tests and the tables of docs/input-errors.md. Each case changes one
thing in a valid file (a suite, an encounter, a day, an achievements file, a registry file, a
story file); the test asserts the error type, that the message names the file, the exact field
and a fix, and words of its own. The docs are rendered from the same cases and must equal the
file (`test_the_docs_tables_are_current`); after changing a message, regenerate them with

    python tests/test_input_errors.py --update
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

import dungeonbench_gym  # noqa: F401  (registers the ids the suite cases name)
from dungeonbench_gym import cli
from dungeonbench_gym.core.errors import FileFormatError
from dungeonbench_gym.core.registry import parse_registry_file
from dungeonbench_gym.dnd.day import load_day
from dungeonbench_gym.dnd.scenario import load_encounter
from dungeonbench_gym.eval import suites
from dungeonbench_gym.games.textadventure import achievements as ach
from dungeonbench_gym.games.textadventure.zmachine import Story

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "input-errors.md"
STORY_BYTES = (ROOT / "scenarios" / "textadventures" / "lighthouse" / "lighthouse.z5").read_bytes()

# ------------------------------------------------------------------ valid files, one per format
SUITE = """name: mine
seed: 0
envs:
  - id: BabyAI-GoTo-v0
    episodes: 2
  - family: crafter
    episodes: 1
"""

ENCOUNTER = """name = "Test Duel"
family = "duel"
round_limit = 5
description = "One fighter, one goblin."

[map]
layout = ["#######", "#.....#", "#.....#", "#######"]

[objective]
type = "defeat"

[[party]]
id = "fighter"
archetype = "fighter"
level = 2
at = [1, 1]

[[enemies]]
id = "goblin_1"
monster = "goblin"
at = [5, 2]
"""

DAY = """name = "Test Road"
short_rests = 1

[[party]]
id = "fighter"
archetype = "fighter"
level = 2

[[party]]
id = "rogue"
archetype = "rogue"
level = 2

[[party]]
id = "cleric"
archetype = "cleric"
level = 2
gp = 100

[[encounters]]
scenario = "goblin_ambush"
place = { cleric = [2, 3] }

[[encounters]]
scenario = "kobold_warren"
place = { cleric = [1, 3] }

[[encounters]]
scenario = "gate_lever"
"""

ACHIEVEMENTS = """# a test game
TURN_LIMIT 20
OPEN_BOX You open the box.
LAMP /lamp (is|now) lit/
"""

REGISTRY = """family = "toy"
entry_point = "toy_env:CounterEnv"
metric = "value / 5"
actions = 4
max_steps = 20

[[envs]]
id = "Toy-Counter-v0"
kwargs = { start = 0 }
"""

MISSING, FOLDER = object(), object()   # no file at the path; a folder at the path


def sub(base: str, old: str, new: str) -> str:
    """`base` with the first `old` replaced (the case fails loudly if the base changed)."""
    assert old in base, old
    return base.replace(old, new, 1)


def story(*patches: tuple[int, bytes], cut: int | None = None) -> bytes:
    """The shipped Lighthouse story with bytes overwritten at offsets, or cut to `cut` bytes."""
    data = bytearray(STORY_BYTES if cut is None else STORY_BYTES[:cut])
    for at, new in patches:
        data[at:at + len(new)] = new
    return bytes(data)


def word(value: int) -> bytes:
    return value.to_bytes(2, "big")


def resized(size: int, *patches: tuple[int, bytes]) -> bytes:
    """The story cut to `size` bytes with its length word and checksum made to agree, so that
    only the header's addresses can give the cut away."""
    data = bytearray(story(*patches, cut=size))
    data[0x1A:0x1C] = word(size // 4)          # version 5: the length word counts 4-byte units
    data[0x1C:0x1E] = word(sum(data[0x40:size]) & 0xFFFF)
    return bytes(data)


@dataclass(frozen=True)
class Format:
    title: str
    filename: str
    load: Callable


FORMATS = {
    "suite": Format("Suite YAML (`dungeonbench-gym eval --suite FILE`, eval/suites.py)", "suite.yaml",
                    suites.resolve),
    "encounter": Format("Encounter TOML (scenarios/dnd/encounters/, dnd/scenario.py)", "encounter.toml",
                        load_encounter),
    "day": Format("Day TOML (scenarios/dnd/days/, dnd/scenario.py + dnd/day.py)", "day.toml", load_day),
    "achievements": Format("Achievements file (games/textadventure/achievements.py)", "game.achievements",
                           ach.load),
    "registry": Format("Registry TOML (envs/*.toml, $DUNGEONBENCH_ENVS_PATH; core/registry.py)", "toy.toml",
                       parse_registry_file),
    "story": Format("Z-machine story file (checked before the interpreter starts; "
                    "games/textadventure/zmachine.py)", "story.z5", Story),
}


@dataclass(frozen=True)
class Case:
    fmt: str
    tried: str                      # the malformation, as the docs table shows it
    make: Callable[[], object]      # the file's content: str, bytes, MISSING or FOLDER
    field: str                      # the field the message must name, exactly
    says: str                       # words the message must contain

    @property
    def id(self) -> str:
        return f"{self.fmt}: {self.tried}"


C = Case
CASES = [
    # ---------------------------------------------------------------------------- suite YAML
    C("suite", "`episode: 3` (misspelt key in an env)", lambda: sub(SUITE, "episodes: 2", "episode: 3"),
      "envs[0].episode", "did you mean 'episodes'"),
    C("suite", "`sed: 1` (misspelt top-level key)", lambda: sub(SUITE, "seed: 0", "sed: 1"),
      "sed", "did you mean 'seed'"),
    C("suite", "`colour: red` (unknown key)", lambda: SUITE + "colour: red\n", "colour", "known fields"),
    C("suite", "`episodes: 0`", lambda: sub(SUITE, "episodes: 2", "episodes: 0"),
      "envs[0].episodes", "is not positive"),
    C("suite", "`episodes: -2`", lambda: sub(SUITE, "episodes: 2", "episodes: -2"),
      "envs[0].episodes", "is not positive"),
    C("suite", '`episodes: "3"` (a string)', lambda: sub(SUITE, "episodes: 2", 'episodes: "3"'),
      "envs[0].episodes", "must be a whole number"),
    C("suite", "`episodes: 2.5`", lambda: sub(SUITE, "episodes: 2", "episodes: 2.5"),
      "envs[0].episodes", "must be a whole number"),
    C("suite", "`episodes: true`", lambda: sub(SUITE, "episodes: 2", "episodes: true"),
      "envs[0].episodes", "must be a whole number"),
    C("suite", "`seed: -5`", lambda: sub(SUITE, "seed: 0", "seed: -5"), "seed", "is negative"),
    C("suite", "`seed: zero`", lambda: sub(SUITE, "seed: 0", "seed: zero"), "seed", "whole number"),
    C("suite", "`max_steps: 0`", lambda: SUITE + "max_steps: 0\n", "max_steps", "is not positive"),
    C("suite", "`name: 2024` (a number)", lambda: sub(SUITE, "name: mine", "name: 2024"),
      "name", "must be a string"),
    C("suite", "no `envs:`", lambda: "name: mine\nseed: 0\n", "envs", "is missing"),
    C("suite", "`envs: []`", lambda: "name: mine\nenvs: []\n", "envs", "is empty"),
    C("suite", "`envs: BabyAI-GoTo-v0` (not a list)", lambda: "envs: BabyAI-GoTo-v0\n",
      "envs", "must be a list"),
    C("suite", "an env item that is a bare string", lambda: "envs:\n  - BabyAI-GoTo-v0\n",
      "envs[0]", "must be a table"),
    C("suite", "an env with both `id` and `family`",
      lambda: sub(SUITE, "  - family: crafter", "  - family: crafter\n    id: Crafter-v0"),
      "envs[1]", "exactly one of `id` or `family`"),
    C("suite", "an env with neither `id` nor `family`", lambda: "envs:\n  - episodes: 3\n",
      "envs[0]", "exactly one of `id` or `family`"),
    C("suite", "`id: BabyAI-GoTo-v9` (unknown id)", lambda: sub(SUITE, "BabyAI-GoTo-v0", "BabyAI-GoTo-v9"),
      "envs[0].id", "Did you mean BabyAI-GoTo-v0"),
    C("suite", "`family: crafterr` (unknown family)", lambda: sub(SUITE, "family: crafter", "family: crafterr"),
      "envs[1].family", "did you mean 'crafter'"),
    C("suite", "`seed:` written twice", lambda: SUITE + "seed: 4\n", "seed", "written twice"),
    C("suite", "YAML syntax error", lambda: "envs: [\n", "(file)", "is not valid YAML"),
    C("suite", "an empty file", lambda: "", "(file)", "is empty"),
    C("suite", "the whole file is a list", lambda: "- id: BabyAI-GoTo-v0\n", "(file)",
      "must be a table of named fields"),
    C("suite", "not UTF-8", lambda: b"name: caf\xe9\nenvs: []\n", "(file)", "is not UTF-8"),
    C("suite", "no such file", lambda: MISSING, "(file)", "does not exist"),
    # ------------------------------------------------------------------------ encounter TOML
    C("encounter", "`levle = 2` in a [[party]] entry", lambda: sub(ENCOUNTER, "level = 2", "levle = 2"),
      "party[0].levle", "did you mean 'level'"),
    C("encounter", "`hp = -5` in an [[enemies]] entry (HP is not a field)",
      lambda: ENCOUNTER + "hp = -5\n", "enemies[0].hp", "hit points come from"),
    C("encounter", "`level = -1`", lambda: sub(ENCOUNTER, "level = 2", "level = -1"),
      "party[0].level", "is out of range (1 to 20)"),
    C("encounter", "`level = 21`", lambda: sub(ENCOUNTER, "level = 2", "level = 21"),
      "party[0].level", "is out of range (1 to 20)"),
    C("encounter", '`level = "2"` (a string)', lambda: sub(ENCOUNTER, "level = 2", 'level = "2"'),
      "party[0].level", "must be a whole number"),
    C("encounter", "`round_limit = 0`", lambda: sub(ENCOUNTER, "round_limit = 5", "round_limit = 0"),
      "round_limit", "is not positive"),
    C("encounter", "`rounds_limit = 5` (misspelt top-level key)",
      lambda: sub(ENCOUNTER, "round_limit = 5", "rounds_limit = 5"), "rounds_limit", "did you mean 'round_limit'"),
    C("encounter", 'no `round_limit`', lambda: sub(ENCOUNTER, "round_limit = 5\n", ""), "round_limit", "is missing"),
    C("encounter", '`family = "duell"`', lambda: sub(ENCOUNTER, 'family = "duel"', 'family = "duell"'),
      "family", "did you mean 'duel'"),
    C("encounter", '`type = "defet"` in [objective]', lambda: sub(ENCOUNTER, 'type = "defeat"', 'type = "defet"'),
      "objective.type", "did you mean 'defeat'"),
    C("encounter", "`layuot = [...]` in [map]", lambda: sub(ENCOUNTER, "layout = ", "layuot = "),
      "map.layuot", "did you mean 'layout'"),
    C("encounter", "no [map] table", lambda: re.sub(r"\[map\]\nlayout = .*\n", "", ENCOUNTER), "map", "is missing"),
    C("encounter", "no [[enemies]]", lambda: ENCOUNTER.split("[[enemies]]")[0], "enemies", "is missing"),
    C("encounter", "`at = 5` (not a square)", lambda: sub(ENCOUNTER, "at = [1, 1]", "at = 5"),
      "party[0].at", "must be a list"),
    C("encounter", "`at = [1, 1, 1]`", lambda: sub(ENCOUNTER, "at = [1, 1]", "at = [1, 1, 1]"),
      "party[0].at", "is not [x, y]"),
    C("encounter", "two creatures on one square", lambda: sub(ENCOUNTER, "at = [5, 2]", "at = [1, 1]"),
      "enemies[0].at", "overlaps"),
    C("encounter", '`monster = "gobln"` (unknown monster)', lambda: sub(ENCOUNTER, '"goblin"', '"gobln"'),
      "enemies[0].monster", "did you mean ['goblin'"),
    C("encounter", '`archetype = "figher"` (unknown archetype)',
      lambda: sub(ENCOUNTER, 'archetype = "fighter"', 'archetype = "figher"'), "party[0].archetype",
      "is not a PC archetype"),
    C("encounter", '`underwater = "yes"`', lambda: sub(ENCOUNTER, "description", 'underwater = "yes"\ndescription'),
      "underwater", "must be true or false"),
    C("encounter", "`seeds = [-1]`", lambda: sub(ENCOUNTER, "description", "seeds = [-1]\ndescription"),
      "seeds", "not a list of seeds"),
    C("encounter", "TOML syntax error", lambda: sub(ENCOUNTER, 'name = "Test Duel"', 'name = "Test Duel'),
      "(syntax)", "not valid TOML"),
    C("encounter", "no such file", lambda: MISSING, "(file)", "does not exist"),
    # ------------------------------------------------------------------------------ day TOML
    C("day", "`short_rest = 1` (misspelt key)", lambda: sub(DAY, "short_rests = 1", "short_rest = 1"),
      "short_rest", "did you mean 'short_rests'"),
    C("day", "`short_rests = 9`", lambda: sub(DAY, "short_rests = 1", "short_rests = 9"),
      "short_rests", "is out of range (0 to 5)"),
    C("day", "`short_rests = -1`", lambda: sub(DAY, "short_rests = 1", "short_rests = -1"),
      "short_rests", "is out of range (0 to 5)"),
    C("day", "`levle = 2` in a [[party]] entry", lambda: sub(DAY, "level = 2", "levle = 2"),
      "party[0].levle", "did you mean 'level'"),
    C("day", "`hp = 30` in a [[party]] entry", lambda: sub(DAY, "level = 2", "level = 2\nhp = 30"),
      "party[0].hp", "hit points come from"),
    C("day", "`level = 0`", lambda: sub(DAY, "level = 2", "level = 0"), "party[0].level",
      "is out of range (1 to 20)"),
    C("day", "`gp = -5`", lambda: sub(DAY, "gp = 100", "gp = -5"), "party[2].gp", "is negative"),
    C("day", '`scenaro = "..."` in an [[encounters]] entry', lambda: sub(DAY, 'scenario = "gate', 'scenaro = "gate'),
      "encounters[2].scenaro", "did you mean 'scenario'"),
    C("day", "only two [[encounters]]", lambda: DAY.rsplit("[[encounters]]", 1)[0], "encounters",
      "a day links 3 to 5 encounters"),
    C("day", '`place = { cleric = "here" }`', lambda: sub(DAY, "cleric = [2, 3]", 'cleric = "here"'),
      "encounters[0].place.cleric", "must be a list"),
    C("day", "`place` names a member the day lacks", lambda: sub(DAY, "cleric = [2, 3]", "bard = [2, 3]"),
      "encounters[0].place.bard", "is not a day party member"),
    C("day", "no [[party]]", lambda: re.sub(r"\[\[party\]\]\n(.+\n)+\n", "", DAY), "party", "is missing"),
    C("day", "TOML syntax error", lambda: DAY + "[[party]\n", "(syntax)", "not valid TOML"),
    C("day", "no such file", lambda: MISSING, "(file)", "does not exist"),
    # -------------------------------------------------------------------------- achievements
    C("achievements", "no TURN_LIMIT line first", lambda: sub(ACHIEVEMENTS, "TURN_LIMIT 20\n", ""),
      "line 2", "expected 'TURN_LIMIT n' first"),
    C("achievements", "`TURN_LIMT 20` (misspelt)", lambda: sub(ACHIEVEMENTS, "TURN_LIMIT", "TURN_LIMT"),
      "line 2", "did you mean 'TURN_LIMIT'"),
    C("achievements", "`turn_limit 20` (lower case)", lambda: sub(ACHIEVEMENTS, "TURN_LIMIT", "turn_limit"),
      "line 2", "did you mean 'TURN_LIMIT'"),
    C("achievements", "`TURN_LIMIT twenty`", lambda: sub(ACHIEVEMENTS, "TURN_LIMIT 20", "TURN_LIMIT twenty"),
      "line 2", "is not a positive whole number"),
    C("achievements", "`TURN_LIMIT 0`", lambda: sub(ACHIEVEMENTS, "TURN_LIMIT 20", "TURN_LIMIT 0"),
      "line 2", "is not a positive whole number"),
    C("achievements", "`TURN_LIMIT -3`", lambda: sub(ACHIEVEMENTS, "TURN_LIMIT 20", "TURN_LIMIT -3"),
      "line 2", "is not a positive whole number"),
    C("achievements", "`TURN_LIMIT` with no number", lambda: sub(ACHIEVEMENTS, "TURN_LIMIT 20", "TURN_LIMIT"),
      "line 2", "is not a positive whole number"),
    C("achievements", "a second TURN_LIMIT line", lambda: ACHIEVEMENTS + "TURN_LIMIT 30\n",
      "line 5", "a second TURN_LIMIT"),
    C("achievements", "the same name twice", lambda: ACHIEVEMENTS + "LAMP The lamp is lit.\n",
      "line 5", "already on line 4"),
    C("achievements", "a name with no text", lambda: ACHIEVEMENTS + "EMPTY\n", "line 5", "has no text"),
    C("achievements", "a name that is not an identifier", lambda: ACHIEVEMENTS + "OPEN-DOOR You open it.\n",
      "line 5", "is not an identifier"),
    C("achievements", "a regular expression that does not compile", lambda: ACHIEVEMENTS + "R /(unclosed/\n",
      "line 5", "does not compile"),
    C("achievements", "a regular expression that matches empty text", lambda: ACHIEVEMENTS + "ANY /(koi)*/\n",
      "line 5", "matches empty text"),
    C("achievements", "a blank file", lambda: "\n\n", "line 1", "the file is empty"),
    C("achievements", "only comments", lambda: "# nothing yet\n", "line 1", "the file is empty"),
    C("achievements", "TURN_LIMIT and no achievements", lambda: "TURN_LIMIT 20\n", "end of file",
      "no achievements are listed"),
    C("achievements", "not UTF-8 (e.g. the story file given instead)", lambda: STORY_BYTES[:200], "file",
      "is not UTF-8"),
    C("achievements", "a folder", lambda: FOLDER, "file", "cannot be read"),
    C("achievements", "no such file", lambda: MISSING, "file", "does not exist"),
    # ------------------------------------------------------------------------- registry TOML
    C("registry", "`max_step = 20` (misspelt key)", lambda: sub(REGISTRY, "max_steps = 20", "max_step = 20"),
      "max_step", "did you mean 'max_steps'"),
    C("registry", "`kwarg = {...}` in [[envs]]", lambda: sub(REGISTRY, "kwargs = {", "kwarg = {"),
      "envs[0].kwarg", "did you mean 'kwargs'"),
    C("registry", "`actions = 0`", lambda: sub(REGISTRY, "actions = 4", "actions = 0"), "actions",
      "is not positive"),
    C("registry", '`actions = "four"`', lambda: sub(REGISTRY, "actions = 4", 'actions = "four"'), "actions",
      "must be a whole number"),
    C("registry", "`max_steps = -1` in [[envs]]", lambda: REGISTRY + "max_steps = -1\n", "envs[0].max_steps",
      "is not positive"),
    C("registry", "no `family`", lambda: sub(REGISTRY, 'family = "toy"\n', ""), "family", "is missing"),
    C("registry", "`entry_point` without a colon", lambda: sub(REGISTRY, "toy_env:CounterEnv", "toy_env.CounterEnv"),
      "entry_point", "is not 'module:Class'"),
    C("registry", "an id without `-v<version>`", lambda: sub(REGISTRY, "Toy-Counter-v0", "Toy Counter"),
      "envs[0].id", "is not a valid id"),
    C("registry", "the same id twice", lambda: REGISTRY + '\n[[envs]]\nid = "Toy-Counter-v0"\n', "envs[1].id",
      "is also the id of envs[0]"),
    C("registry", "no [[envs]]", lambda: REGISTRY.split("[[envs]]")[0], "envs", "is missing"),
    C("registry", "`metric = 5` in [[envs]]", lambda: REGISTRY + "metric = 5\n", "envs[0].metric",
      "must be a string"),
    C("registry", "TOML syntax error", lambda: sub(REGISTRY, "[[envs]]", "[[envs]"), "(syntax)",
      "is not valid TOML"),
    C("registry", "not UTF-8", lambda: REGISTRY.encode() + b'description = "caf\xe9"\n', "(file)",
      "is not UTF-8"),
    C("registry", "no such file", lambda: MISSING, "(file)", "does not exist"),
    # --------------------------------------------------------------------------- story files
    C("story", "an empty file", lambda: b"", "(file)", "is empty"),
    C("story", "cut to 40 bytes (inside the header)", lambda: story(cut=40), "header", "cut short"),
    C("story", "cut to half its length", lambda: story(cut=len(STORY_BYTES) // 2),
      "header.length (word 0x1A)", "it is truncated"),
    C("story", "the header's length word larger than the file", lambda: story((0x1A, word(0xFFFF))),
      "header.length (word 0x1A)", "it is truncated"),
    C("story", "version byte 0", lambda: story((0, b"\x00")), "header.version (byte 0x00)",
      "not a Z-machine version"),
    C("story", "version byte 9", lambda: story((0, b"\x09")), "header.version (byte 0x00)",
      "not a Z-machine version"),
    C("story", "a text file given as the story", lambda: ACHIEVEMENTS.encode() * 8, "header.version (byte 0x00)",
      "not a Z-machine story file"),
    C("story", "one byte changed in the middle", lambda: story((len(STORY_BYTES) // 2,
                                                               bytes([STORY_BYTES[len(STORY_BYTES) // 2] ^ 0xFF]))),
      "header.checksum (word 0x1C)", "the file is corrupt"),
    C("story", "cut to 4000 bytes, length word and checksum rewritten to match", lambda: resized(4000),
      "header.static_memory (word 0x0E)", "outside 64"),
    C("story", "static memory base inside the header", lambda: story((0x0E, word(0x20))),
      "header.static_memory (word 0x0E)", "outside 64"),
    C("story", "cut to 8000 bytes, length word and checksum rewritten to match", lambda: resized(8000),
      "header.high_memory (word 0x04)", "beyond the end"),
    C("story", "dictionary address beyond the file", lambda: resized(60000, (0x08, word(0xFFF0))),
      "header.dictionary (word 0x08)", "beyond the end"),
    C("story", "a Blorb file", lambda: b"FORM\x00\x01\x00\x00IFRS" + bytes(100), "(file)", "Blorb"),
    C("story", "a Glulx story", lambda: b"Glul\x00\x03\x01\x02" + bytes(100), "(file)", "Glulx"),
    C("story", "a folder", lambda: FOLDER, "(file)", "cannot be read"),
    C("story", "no such file", lambda: MISSING, "(file)", "does not exist"),
]


def _write(case: Case, folder: Path) -> Path:
    path = folder / FORMATS[case.fmt].filename
    content = case.make()
    if content is FOLDER:
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not MISSING:
        path.write_text(content, encoding="utf-8")
    return path


def error_of(case: Case, folder: Path) -> tuple[Path, FileFormatError]:
    """The error the case's file raises (it must raise: a malformation silently accepted fails)."""
    path = _write(case, folder)
    try:
        FORMATS[case.fmt].load(str(path))
    except FileFormatError as exc:
        return path, exc
    raise AssertionError(f"{case.id}: silently accepted")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_each_malformation_names_the_file_the_field_and_a_fix(case, tmp_path):
    path, err = error_of(case, tmp_path)
    message = str(err)
    assert err.path == str(path) and message.startswith(f"{path}: ")            # the file
    assert err.field == case.field and f"field '{case.field}'" in message      # the field
    assert err.fix.strip() and message.endswith(f"Fix: {err.fix}")            # a fix
    assert case.says in message, message


def test_every_format_is_tried_at_least_eight_ways():
    counts = {fmt: sum(c.fmt == fmt for c in CASES) for fmt in FORMATS}
    assert min(counts.values()) >= 8 and len(CASES) >= 40, counts


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_valid_file_still_loads(fmt, tmp_path):
    path = tmp_path / FORMATS[fmt].filename
    base = {"suite": SUITE, "encounter": ENCOUNTER, "day": DAY, "achievements": ACHIEVEMENTS,
            "registry": REGISTRY}.get(fmt)
    if base is None:
        path.write_bytes(STORY_BYTES)
    else:
        path.write_text(base, encoding="utf-8")
    got = FORMATS[fmt].load(str(path))
    if fmt == "suite":
        assert got.envs == [("BabyAI-GoTo-v0", 2), ("Crafter-v0", 1)] and got.seed == 0
    elif fmt == "encounter":
        assert got.name == "Test Duel" and got.round_limit == 5 and len(got.enemies) == 1
    elif fmt == "day":
        assert len(got.stages) == 3 and got.party[2]["gp"] == 100
    elif fmt == "achievements":
        assert got.turn_limit == 20 and got.names == ["OPEN_BOX", "LAMP"]
    elif fmt == "registry":
        assert [e.id for e in got] == ["Toy-Counter-v0"] and got[0].actions == 4
    else:
        assert got.version == 5


def test_the_shipped_files_all_validate():
    from dungeonbench_gym.dnd import day, scenario
    from dungeonbench_gym.games.textadventure.env import game_files, shipped_games

    assert all(load_encounter(n) for n in scenario.encounter_names())
    assert all(load_day(n) for n in day.day_names())
    for game in shipped_games():
        Story(game_files(game)["story"])
    for f in (ROOT / "scenarios" / "textadventures").glob("*/*.achievements"):
        ach.load(f)
    for f in (ROOT / "suites").glob("*.yaml"):
        suites.from_yaml(f)


def test_achievement_lines_may_use_tabs_and_a_byte_order_mark():
    spec = ach.parse("\ufeffTURN_LIMIT\t12\nOPEN_BOX\tYou open the box.\n")
    assert spec.turn_limit == 12 and spec.achievements[0].text == "You open the box."


# ------------------------------------------------------------ story files and the interpreter
def _refuse(*args, **kwargs):
    raise AssertionError("an interpreter was started")


@pytest.fixture
def no_interpreter(monkeypatch):
    """A jericho whose interpreter fails the test if anything starts it."""
    monkeypatch.setitem(sys.modules, "jericho", types.SimpleNamespace(FrotzEnv=_refuse))


@pytest.mark.parametrize("content", [b"", STORY_BYTES[:40], STORY_BYTES[:len(STORY_BYTES) // 2],
                                     bytes([9]) + STORY_BYTES[1:]],
                         ids=["empty", "header-cut", "truncated", "version-9"])
def test_a_bad_story_is_refused_before_the_interpreter_starts(content, tmp_path, no_interpreter):
    from dungeonbench_gym.games.textadventure.env import TextAdventureEnv

    path = tmp_path / "bad.z5"
    path.write_bytes(content)
    with pytest.raises(FileFormatError) as err:
        TextAdventureEnv(story_file=str(path)).reset(seed=0)
    assert str(path) in str(err.value) and "Fix:" in str(err.value)


def test_a_good_story_does_reach_the_interpreter(tmp_path, no_interpreter):
    """The guard above is real: an intact story goes on to start the (refusing) interpreter."""
    from dungeonbench_gym.games.textadventure.env import TextAdventureEnv

    path = tmp_path / "good.z5"
    path.write_bytes(STORY_BYTES)
    with pytest.raises(AssertionError, match="interpreter was started"):
        TextAdventureEnv(story_file=str(path)).reset(seed=0)


# ------------------------------------------------------------------------------ the CLI
def _cli(argv: list[str]) -> tuple[int, str]:
    """(exit status, stderr) of `dungeonbench-gym argv`, run in this process."""
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            status = cli.main(argv)
        except SystemExit as exc:   # argparse's usage errors
            status = exc.code
    return status, err.getvalue()


@dataclass(frozen=True)
class CliCase:
    tried: str
    argv: Callable[[Path], list[str]]
    says: str


CLI_CASES = [
    CliCase("`eval --seed -5`", lambda d: ["eval", "--seed", "-5"], "argument --seed: -5 is below 0"),
    CliCase("`eval --seed five`", lambda d: ["eval", "--seed", "five"], "'five' is not a whole number"),
    CliCase("`eval --episodes 0`", lambda d: ["eval", "--episodes", "0"], "argument --episodes: 0 is below 1"),
    CliCase("`eval --workers 0`", lambda d: ["eval", "--workers", "0"], "argument --workers: 0 is below 1"),
    CliCase("`eval --max-steps 0`", lambda d: ["eval", "--max-steps", "0"], "argument --max-steps: 0 is below 1"),
    CliCase("`eval --max-tokens -1`", lambda d: ["eval", "--max-tokens", "-1"], "argument --max-tokens"),
    CliCase("`play BabyAI-GoTo-v0 --seed -1`", lambda d: ["play", "BabyAI-GoTo-v0", "--seed", "-1"],
            "argument --seed: -1 is below 0"),
    CliCase("`eval --suite nosuch.yaml` (no such file)",
            lambda d: ["eval", "--agent", "random", "--suite", str(d / "nosuch.yaml"), "--out", str(d / "out")],
            "nosuch.yaml: field '(file)': does not exist"),
    CliCase("`eval --suite suite.yaml` with `episode: 3`",
            lambda d: ["eval", "--agent", "random", "--suite", _file(d, "suite.yaml", sub(SUITE, "episodes", "episode")),
                       "--out", str(d / "out")], "did you mean 'episodes'"),
    CliCase("`achievements check` with a truncated story",
            lambda d: ["achievements", "check", _file(d, "story.z5", STORY_BYTES[:5000]),
                       _file(d, "game.achievements", ACHIEVEMENTS), "--walkthrough", _file(d, "walk.txt", "look\n")],
            "story.z5: field 'header.length (word 0x1A)'"),
]


def _file(folder: Path, name: str, content) -> str:
    path = folder / name
    path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
    return str(path)


@pytest.mark.parametrize("case", CLI_CASES, ids=[c.tried for c in CLI_CASES])
def test_bad_cli_values_exit_with_a_message_not_a_traceback(case, tmp_path, no_interpreter):
    status, stderr = _cli(case.argv(tmp_path))
    assert status == 2 and case.says in stderr and "Traceback" not in stderr, stderr
    assert not (tmp_path / "out").exists()   # nothing ran


def test_negative_seed_from_the_shell_is_refused_before_any_episode(tmp_path):
    res = subprocess.run([sys.executable, "-m", "dungeonbench_gym.cli", "eval", "--seed", "-5",
                          "--envs", "BabyAI-GoTo-v0", "--out", str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "argument --seed: -5 is below 0; give a seed of 0 or more" in res.stderr
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------------------ the docs
def _stable(text: str, folder: Path) -> str:
    """A message as the docs show it: the temporary folder dropped, whitespace on one line."""
    text = text.replace(str(folder) + os.sep, "")
    text = re.sub(r"the \d+ registered ids", "the N registered ids", text)
    return " ".join(text.split()).replace("|", "\\|")


def render_docs() -> str:
    out = [DOC_HEADER]
    for fmt, spec in FORMATS.items():
        out += [f"## {spec.title}", "", "| Malformation tried | Field | Message |", "|---|---|---|"]
        for case in (c for c in CASES if c.fmt == fmt):
            with tempfile.TemporaryDirectory() as tmp:
                _, err = error_of(case, Path(tmp))
                out.append(f"| {case.tried} | `{case.field}` | `` {_stable(str(err), Path(tmp))} `` |")
        out.append("")
    out += ["## Command-line values (`dungeonbench-gym`, cli.py)", "",
            "Each exits with status 2 and the message below (argparse's usage line comes first for "
            "option values); no episode runs.", "", "| Tried | Message (last line of stderr) |", "|---|---|"]
    for case in CLI_CASES:
        with tempfile.TemporaryDirectory() as tmp:
            with _refusing_jericho():   # no real interpreter, as in the tests
                _, stderr = _cli(case.argv(Path(tmp)))
            last = [line for line in stderr.splitlines() if line.strip()][-1]
            out.append(f"| {case.tried} | `` {_stable(last, Path(tmp))} `` |")
    return "\n".join(out) + "\n"


@contextlib.contextmanager
def _refusing_jericho():
    saved = sys.modules.get("jericho")
    sys.modules["jericho"] = types.SimpleNamespace(FrotzEnv=_refuse)
    try:
        yield
    finally:
        if saved is None:
            sys.modules.pop("jericho")
        else:
            sys.modules["jericho"] = saved


DOC_HEADER = """# Input errors: what each malformed file says

Every file DungeonBench reads is checked before it is used: suite YAML, encounter and day TOML,
achievements files, registry TOML and Z-machine story files (the story before an interpreter
touches it). A fault is a `FileFormatError` (`dungeonbench_gym.core.errors`) whose message names
the file, the field (a dotted path such as `envs[0].episodes` or `party[0].level`, a line of an
achievements file, a header word of a story) and the fix; an unknown or misspelt key gets a
"did you mean". The shapes of the TOML and YAML formats are declared once, as schemas
(`dungeonbench_gym/core/schema.py`: `SUITE_SCHEMA`, `ENCOUNTER_SCHEMA`, `DAY_SCHEMA`,
`REGISTRY_SCHEMA`). On the command line the error is one line, `error: <message>`, with exit
status 2; never a traceback.

The tables below are every malformation the tests try (`tests/test_input_errors.py`), each with
the message it gives, verbatim (the temporary folder left out of the path). They are generated:
`test_the_docs_tables_are_current` fails when a message changes and this page does not. To
regenerate it after changing a message:

    python tests/test_input_errors.py --update
"""


def test_the_docs_tables_are_current():
    assert DOC.read_text(encoding="utf-8") == render_docs(), \
        "docs/input-errors.md is stale: run `python tests/test_input_errors.py --update`"


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/test_input_errors.py --update   (rewrites docs/input-errors.md)")
    DOC.write_text(render_docs(), encoding="utf-8")
    print(f"wrote {DOC}")
