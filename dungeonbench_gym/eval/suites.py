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
    seed: 0                # optional; episode k of an env uses seed + k
    max_steps: null        # optional override of every env's limit
    envs:
      - id: BabyAI-GoTo-v0
        episodes: 20
      - family: babaisai   # every id of a family
        episodes: 3
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core import registry
from ..core.errors import DungeonBenchError, FileFormatError

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


def from_yaml(path: str | Path, episodes: int | None = None) -> Suite:
    """A custom suite from a YAML file (see the module docstring)."""
    import yaml

    path = Path(path)
    try:
        doc = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise FileFormatError(path, "(file)", f"is not valid YAML: {exc}",
                              "fix the syntax; see dungeonbench_gym/eval/suites.py") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("envs"), list) or not doc["envs"]:
        raise FileFormatError(path, "envs", "is missing or not a list",
                              "add `envs:` with items like `- id: BabyAI-GoTo-v0`")
    envs: list[tuple[str, int]] = []
    for n, item in enumerate(doc["envs"]):
        where = f"envs[{n}]"
        if not isinstance(item, dict) or ("id" in item) == ("family" in item):
            raise FileFormatError(path, where, "needs exactly one of `id` or `family`",
                                  "write `- id: <env id>` or `- family: <family>`")
        count = item.get("episodes", 10) if episodes is None else episodes
        if not isinstance(count, int) or count < 1:
            raise FileFormatError(path, f"{where}.episodes", f"is {count!r}",
                                  "use a positive whole number")
        if "id" in item:
            try:
                ids = [registry.resolve_id(str(item["id"])).id]
            except DungeonBenchError as exc:
                raise FileFormatError(path, f"{where}.id", str(exc),
                                      "use an id from `dungeonbench-gym list`") from None
        else:
            ids = registry.ids(str(item["family"]))
            if not ids:
                families = sorted({e.family for e in registry.REGISTRY.values()})
                raise FileFormatError(path, f"{where}.family", f"{item['family']!r} has no ids",
                                      f"use one of {', '.join(families)}")
        envs += [(i, count) for i in ids]
    seed = doc.get("seed", 0)
    if not isinstance(seed, int):
        raise FileFormatError(path, "seed", f"is {seed!r}", "use a whole number")
    max_steps = doc.get("max_steps")
    if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 1):
        raise FileFormatError(path, "max_steps", f"is {max_steps!r}",
                              "use a positive whole number or leave it out")
    return Suite(str(doc.get("name", path.stem)), envs, seed=seed, max_steps=max_steps)


def resolve(spec: str, episodes: int | None = None) -> Suite:
    """A built-in suite name or a YAML file path."""
    if spec.endswith((".yaml", ".yml")) or Path(spec).is_file():
        return from_yaml(spec, episodes)
    return builtin(spec, episodes)
