"""Evaluation suites: which envs, how many episodes each, from which seed.

Built in:
- `balrog`: BALROG's tasks with BALROG's episode counts (BabyAI 10 per task,
  Crafter 10, TextWorld 10 per task, Baba Is AI 3 per level, MiniHack 5 per
  task, NetHack 5); families not registered yet are reported, not run.
- `text-adventures`: every registered TextAdventure-<game>-v0 id (the shipped
  games, and any a user registers through $DUNGEONBENCH_ENVS_PATH, e.g. 9:05
  with its achievements file), 5 episodes each (interpreter seeds differ).
- `dnd-encounter`: every DnD-Encounter id, 3 seeds each (DungeonBench's count).
- `dnd-day`: every DnD-Day id, 1 fixed seed each (DungeonBench's protocol; seed 0
  unless the suite's seed says otherwise).
- `all`: every registered id, `--episodes` each.

Custom suites are YAML files:

    name: my-suite
    seed: 0                # optional, 0 or more; episode k of an env uses seed + k
    max_steps: null        # optional override of every env's limit (a positive number)
    envs:
      - id: BabyAI-GoTo-v0
        episodes: 20
      - family: babaisai   # every id of a family
        episodes: 3        # optional, 1 or more (default 10)

Every key is checked (`SUITE_SCHEMA`): an unknown or misspelt key, a wrong type or a value out of
range is a `FileFormatError` naming the file, the field (e.g. `envs[1].episodes`) and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core import registry
from ..core.errors import DungeonBenchError, FileFormatError
from ..core.schema import Field, did_you_mean, read_text, validate

# BALROG's episode counts per task, by family
BALROG_EPISODES = {"babyai": 10, "crafter": 10, "textworld": 10, "babaisai": 3, "minihack": 5,
                   "nethack": 5}
# ids BALROG runs where a family registers more (variants a user may want, not BALROG's)
BALROG_ONLY = {"nethack": ["NetHack-v0"]}
FUTURE_SUITES: dict[str, str] = {}   # suite name -> what it waits for (none at present)
SUITES = ("balrog", "all", "text-adventures", "dnd-encounter", "dnd-day", *FUTURE_SUITES)
DND_ENCOUNTER_SEEDS = 3
DND_DAY_SEEDS = 1
TEXT_ADVENTURE_EPISODES = 5
GENERIC_TEXT_ADVENTURE = "TextAdventure-v0"   # the any-story id; its default game is listed


@dataclass
class Suite:
    name: str
    envs: list[tuple[str, int]]               # (id, episodes)
    seed: int = 0
    max_steps: int | None = None
    notes: list[str] = field(default_factory=list)   # families left out, and why

    @property
    def episodes(self) -> int:
        return sum(n for _, n in self.envs)


def builtin(name: str, episodes: int | None = None) -> Suite:
    """A built-in suite; `episodes` overrides every count (None keeps the suite's)."""
    if name == "all":
        return Suite("all", [(i, episodes or 10) for i in registry.ids()])
    if name == "balrog":
        envs, notes = [], []
        for family, count in BALROG_EPISODES.items():
            ids = BALROG_ONLY.get(family) or registry.ids(family)
            ids = [i for i in ids if i in registry.REGISTRY]
            if not ids:
                notes.append(f"{family}: not registered yet, left out")
                continue
            envs += [(i, episodes or count) for i in ids]
        return Suite("balrog", envs, notes=notes)
    if name == "text-adventures":
        ids = [i for i in registry.ids("textadventure") if i != GENERIC_TEXT_ADVENTURE]
        if not ids:
            raise DungeonBenchError("suite 'text-adventures': no TextAdventure ids are "
                                    "registered (is the [textadventure] extra installed?)")
        return Suite("text-adventures", [(i, episodes or TEXT_ADVENTURE_EPISODES) for i in ids])
    if name == "dnd-encounter":
        ids = [i for i in registry.ids("dnd") if i.startswith("DnD-Encounter-")]
        return Suite("dnd-encounter", [(i, episodes or DND_ENCOUNTER_SEEDS) for i in ids])
    if name == "dnd-day":
        ids = [i for i in registry.ids("dnd") if i.startswith("DnD-Day-")]
        return Suite("dnd-day", [(i, episodes or DND_DAY_SEEDS) for i in ids])
    if name in FUTURE_SUITES:
        raise DungeonBenchError(f"suite {name!r} needs {FUTURE_SUITES[name]}, which is not "
                                f"built yet; available: balrog, all, or a YAML file")
    raise DungeonBenchError(f"unknown suite {name!r}: use one of {', '.join(SUITES)} "
                            "or the path of a YAML suite file")


SUITE_ENV_SCHEMA = {
    "id": Field(str, fix="an id from `dungeonbench-gym list`, e.g. `id: BabyAI-GoTo-v0`"),
    "family": Field(str, fix="a family name, e.g. `family: babaisai`"),
    "episodes": Field(int, low=1, fix="a positive whole number of episodes, e.g. `episodes: 3`"),
}
SUITE_SCHEMA = {
    "name": Field(str, fix="a name for the results, e.g. `name: my-suite` (quote it if it is a number)"),
    "seed": Field(int, low=0, fix="a whole number 0 or more, e.g. `seed: 0` (episode k uses seed + k)"),
    "max_steps": Field(int, nullable=True, low=1,
                       fix="a positive whole number, `null`, or leave it out (each env's own limit)"),
    "envs": Field(list, required=True, min_items=1,
                  items=Field(dict, fields=SUITE_ENV_SCHEMA,
                              fix="write each item as `- id: <env id>` or `- family: <family>`, "
                                  "optionally with `episodes: N` under it"),
                  fix="add `envs:` with items like `- id: BabyAI-GoTo-v0`"),
}


class _DuplicateKey(Exception):
    def __init__(self, key, first: int, second: int):
        super().__init__(key, first, second)
        self.key, self.first, self.second = key, first, second


def _load_yaml(path: Path, text: str):
    """yaml.safe_load that refuses a key written twice in one mapping (PyYAML keeps the last)."""
    import yaml

    class UniqueKeyLoader(yaml.SafeLoader):
        def construct_mapping(self, node, deep=False):
            lines: dict = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                try:
                    if key in lines:
                        raise _DuplicateKey(key, lines[key], key_node.start_mark.line + 1)
                    lines[key] = key_node.start_mark.line + 1
                except TypeError:   # an unhashable key: PyYAML's own error follows
                    pass
            return super().construct_mapping(node, deep)

    try:
        return yaml.load(text, Loader=UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except _DuplicateKey as dup:
        raise FileFormatError(path, str(dup.key), f"is written twice (lines {dup.first} and "
                              f"{dup.second}); YAML would silently keep only the last",
                              "keep one of them") from None
    except yaml.YAMLError as exc:
        raise FileFormatError(path, "(file)", f"is not valid YAML: {exc}",
                              "fix the syntax; see dungeonbench_gym/eval/suites.py") from None


def from_yaml(path: str | Path, episodes: int | None = None) -> Suite:
    """A custom suite from a YAML file (see the module docstring)."""
    path = Path(path)
    text = read_text(path, saved_as="UTF-8 YAML",
                     missing_fix=f"check the path, or use a built-in suite: {', '.join(SUITES)}")
    doc = _load_yaml(path, text)
    if doc is None:
        raise FileFormatError(path, "(file)", "is empty",
                              "write a suite: `envs:` with items like `- id: BabyAI-GoTo-v0`")
    validate(doc, SUITE_SCHEMA, path)
    envs: list[tuple[str, int]] = []
    for n, item in enumerate(doc["envs"]):
        where = f"envs[{n}]"
        if ("id" in item) == ("family" in item):
            raise FileFormatError(path, where, "needs exactly one of `id` or `family`",
                                  "write `- id: <env id>` or `- family: <family>`")
        count = item.get("episodes", 10) if episodes is None else episodes
        if "id" in item:
            try:
                ids = [registry.resolve_id(item["id"]).id]
            except DungeonBenchError as exc:
                raise FileFormatError(path, f"{where}.id", str(exc).rstrip("."),
                                      "use an id from `dungeonbench-gym list`") from None
        else:
            ids = registry.ids(item["family"])
            if not ids:
                families = sorted({e.family for e in registry.REGISTRY.values()})
                raise FileFormatError(path, f"{where}.family", f"{item['family']!r} has no ids",
                                      f"{did_you_mean(item['family'], families)}use one of "
                                      f"{', '.join(families)}")
        envs += [(i, count) for i in ids]
    return Suite(doc.get("name", path.stem), envs, seed=doc.get("seed", 0),
                 max_steps=doc.get("max_steps"))


def resolve(spec: str, episodes: int | None = None) -> Suite:
    """A built-in suite name or a YAML file path."""
    if spec.endswith((".yaml", ".yml")) or Path(spec).is_file():
        return from_yaml(spec, episodes)
    return builtin(spec, episodes)
