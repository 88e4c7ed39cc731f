"""BALROG's three TextWorld tasks, generated offline by TextWorld's own generator.

BALROG plays 25 pre-made games per task (made by intelligent-go-explore's scripts,
`textworld/misc/`, and downloaded by BALROG's post-install). Every such game
records the four seeds TextWorld's generator drew it from (map, objects, quest,
grammar); `balrog_games.json` lists them, in the order BALROG registers the
games (`scripts/read_balrog_textworld_seeds.py` reads them from its game files).
Game `i < 25` of a pool is BALROG's game `i`, made again here from its seeds with
BALROG's settings by the generator that ships in the `textworld` wheel (Inform 7
compiler included), and kept in the user's cache: the same world, quest,
objective and walkthrough as BALROG's file (`benchmarks/balrog_parity_textworld.py`
checks all 75):

* treasure_hunter: `tw-treasure_hunter --level 30` (20 rooms, locked doors and
  containers, quest length 20; BALROG kept the games whose walkthrough is 20 steps).
* cooking: `tw-cooking --recipe 5 --take 5 --go 12 --open --cook --cut --split test`.
* coin_collector: `tw-coin_collector --level 220`.

Treasure Hunter and Coin Collector were made by intelligent-go-explore's
`custom-tw-make.py`, which sets `grammar.only_last_action = True`, so the
objective names only the quest's last step ("... retrieve the key from the
table"), not the whole walkthrough. BALROG's cooking games come from a TextWorld
before 1.7, whose oven has no door: 1.7 made it a closed container (a `closed`
fact in every world, "open oven" in the commands), so cooking games are made with
the oven of before (`_oven_without_door`).

A pool holds `POOL_SIZE` games (BALROG: 25); `$DUNGEONBENCH_TEXTWORLD_POOL` may
make it smaller or larger. Past BALROG's 25, game `i` is ours: the first
acceptable game among the candidate generator seeds `1000 * i + 1, 1000 * i + 2,
...` (a Treasure Hunter game must have a 20-step walkthrough). Every index is
made on its own, lazily, the first time it is needed, the same in every process
and on every machine. `game_for_seed(task, seed)` picks game `seed % pool_size()`,
as BALROG's factory picks its game `seed % 25`.

Treasure Hunter's quest search (backward chaining over 20 rooms) sometimes runs
for many minutes before it finds a quest or gives up. For our own seeds we cap
it by work, not by time: a candidate seed whose search needs more than
`TREASURE_HUNTER_SEARCH_BUDGET` chaining expansions is skipped (BALROG's seeds are
known to finish: 4-44 s each on the development machine). While generating we
also let TextWorld's logic engine sort facts with a precomputed key instead of
its Python `__lt__` methods: the order is the same (the key is exactly the tuple
those methods compare), so the games are byte-identical, only made 2-4x faster.

Each game is made in a worker process with PYTHONHASHSEED=0: TextWorld writes some
parts of a game (the cooking game's losing conditions) in set order, which follows
the process's string hashing, so a fixed hash seed makes the files byte-identical in
every process and on every machine with the same Python and TextWorld.

Files are written atomically under `cache_dir("textworld", task)`: each game is made
in a private temporary folder, moved into place, and its `.meta.json` (seed,
walkthrough, generation seconds, TextWorld version) is written last, so a game
exists once its meta file does. A lock file per game keeps concurrent processes
(vector env workers, parallel evaluations) from making the same game twice.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.cache import cache_dir, write_text_atomic

TASKS = ("treasure_hunter", "cooking", "coin_collector")
POOL_SIZE = 25                      # games per task, as in BALROG's set
POOL_ENV_VAR = "DUNGEONBENCH_TEXTWORLD_POOL"  # override the pool size (tests, quick runs)
TREASURE_HUNTER_WALKTHROUGH = 20    # BALROG keeps the 20-step Treasure Hunter games
TREASURE_HUNTER_SEARCH_BUDGET = 150  # chaining expansions per candidate seed
MAX_ATTEMPTS = 1000                 # candidate seeds per pool index (seeds 1000*i+1 ...)
FORMAT_VERSION = 3                  # bump when the way games are made changes
HASH_SEED = "0"                     # PYTHONHASHSEED of the generating process
_MODULE = "dungeonbench_gym.games.textworld.games"

# (challenge name, settings as tw-make passes them: its argparse namespace)
# tasks whose objective names only the quest's last step (BALROG's generator setting)
ONLY_LAST_ACTION = {"treasure_hunter", "coin_collector"}
CHALLENGES: dict[str, tuple[str, dict[str, Any]]] = {
    "treasure_hunter": ("tw-treasure_hunter", {"level": 30}),
    "cooking": ("tw-cooking", {"recipe": 5, "take": 5, "go": 12, "open": True, "cook": True,
                               "cut": True, "drop": False, "recipe_seed": 0, "split": "test"}),
    "coin_collector": ("tw-coin_collector", {"level": 220}),
}


def _balrog_games() -> dict[str, list[dict[str, Any]]]:
    path = Path(__file__).with_name("balrog_games.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    return {task: data[task] for task in TASKS}


# per task, BALROG's games in its order: {"name", "seeds", "walkthrough_steps"}
BALROG_GAMES = _balrog_games()


class GenerationBudgetExceeded(Exception):
    """A candidate seed's quest search needed more work than its budget."""


@dataclass(frozen=True)
class GameFile:
    """One generated game of a task's pool."""

    task: str
    index: int
    # what the generator was given: BALROG's four seeds, or our one number
    seed: int | dict[str, int]
    path: str                      # the .z8 story file (its .json sits beside it)
    walkthrough: tuple[str, ...]   # the walkthrough the generator stored with the game
    max_score: int
    seconds: float                 # generation time of the accepted seed
    total_seconds: float           # including rejected candidate seeds
    rejected: tuple[int, ...] = field(default=())
    # TextWorld's winning policy from the start (its quest tracker's plan): the same as
    # the walkthrough for Treasure Hunter and Coin Collector, much shorter for cooking,
    # whose stored walkthrough walks back and forth (up to ~95 steps, past BALROG's 80)
    policy: tuple[str, ...] = field(default=())
    name: str = ""                 # BALROG's name for its game ("seed_10033"), or "ours-<seed>"

    @property
    def json_path(self) -> str:
        return os.path.splitext(self.path)[0] + ".json"


def check_task(task: str) -> str:
    if task not in CHALLENGES:
        raise ValueError(f"task={task!r}: use one of {', '.join(TASKS)}")
    return task


def pool_size() -> int:
    """Games per task: `POOL_SIZE`, or `$DUNGEONBENCH_TEXTWORLD_POOL` when set."""
    value = os.environ.get(POOL_ENV_VAR, "").strip()
    if not value:
        return POOL_SIZE
    try:
        size = int(value)
    except ValueError:
        raise ValueError(f"${POOL_ENV_VAR}={value!r}: give a positive number of games") from None
    if size < 1:
        raise ValueError(f"${POOL_ENV_VAR}={value!r}: give a positive number of games")
    return size


def candidate_seeds(index: int, task: str | None = None) -> Sequence[int | dict[str, int]]:
    """The generator seeds tried, in order, for pool index `index`: BALROG's game's
    seeds where the task's index is one of BALROG's games, else ours."""
    if task is not None and index < len(BALROG_GAMES[check_task(task)]):
        return [BALROG_GAMES[task][index]["seeds"]]
    return range(1000 * index + 1, 1000 * index + 1 + MAX_ATTEMPTS)


def balrog_name(task: str, index: int) -> str:
    """BALROG's name for game `index` of a task ("" past its 25)."""
    games = BALROG_GAMES[check_task(task)]
    return games[index]["name"] if index < len(games) else ""


def textworld_version() -> str:
    import textworld
    return textworld.__version__


def _stem(task: str, index: int) -> str:
    return f"{task}-{index:03d}"


def folder(task: str) -> Path:
    """The cache folder of a task's games."""
    return cache_dir("textworld", task)


def _meta_path(task: str, index: int) -> Path:
    return folder(task) / f"{_stem(task, index)}.meta.json"


def _load(task: str, index: int) -> GameFile | None:
    """The cached game, if it is complete and made the way we make games now."""
    meta_path = _meta_path(task, index)
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (meta.get("format") != FORMAT_VERSION or meta.get("textworld") != textworld_version()
            or meta.get("settings") != CHALLENGES[task][1]):
        return None
    if "policy" not in meta or "name" not in meta:
        return None
    z8 = meta_path.parent / meta["file"]
    if not (z8.is_file() and z8.with_suffix(".json").is_file()):
        return None
    return GameFile(task=task, index=index, seed=meta["seed"], path=str(z8),
                    walkthrough=tuple(meta["walkthrough"]), max_score=meta["max_score"],
                    seconds=meta["seconds"], total_seconds=meta["total_seconds"],
                    rejected=tuple(meta.get("rejected", ())), policy=tuple(meta["policy"]),
                    name=meta["name"])


def game(task: str, index: int) -> GameFile:
    """Game `index` of a task's pool, generated (and cached) if missing."""
    check_task(task)
    if index < 0:
        raise ValueError(f"index={index}: pool indices start at 0")
    found = _load(task, index)
    if found is not None:
        return found
    with _lock(folder(task) / f".{_stem(task, index)}.lock"):
        found = _load(task, index)  # another process may have made it meanwhile
        if found is None:
            found = _generate(task, index)
    return found


def game_for_seed(task: str, seed: int) -> GameFile:
    """The game an episode seeded with `seed` plays: pool index `seed % pool_size()`."""
    return game(task, int(seed) % pool_size())


def prepare(task: str, count: int | None = None, progress: bool = True) -> list[GameFile]:
    """Make sure games 0..count-1 of a task exist (default: the whole pool)."""
    check_task(task)
    count = pool_size() if count is None else int(count)
    games = []
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=count, desc=f"TextWorld {task}", unit="game")
    try:
        for index in range(count):
            games.append(game(task, index))
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return games


# ------------------------------------------------------------------- generation
def make_game(task: str, seed: int | dict[str, int], budget: int | None = None):
    """TextWorld's `Game` for one generator seed (not compiled), as `tw-make` makes it.
    `seed` is tw-make's one number, or the four seeds a game records in its
    metadata (map, objects, quest, grammar), which make that very game again.

    Raises `GenerationBudgetExceeded` when the quest search needs more than
    `budget` chaining expansions, and TextWorld's `QuestGenerationError` when the
    map admits no quest.
    """
    import textworld
    import textworld.challenges

    challenge, settings = CHALLENGES[check_task(task)]
    make = textworld.challenges.CHALLENGES[challenge][1]
    options = textworld.GameOptions()
    options.seeds = dict(seed) if isinstance(seed, dict) else int(seed)
    options.grammar.only_last_action = task in ONLY_LAST_ACTION
    with _quiet(), _faster_logic(), _search_budget(budget), _oven_without_door(task):
        return make(settings=dict(settings), options=options)


def winning_policy(game_obj) -> list[str]:
    """The commands of TextWorld's winning policy for a fresh game (its quest plan)."""
    from textworld.generator.game import GameProgression
    from textworld.generator.inform7 import Inform7Game

    policy = GameProgression(game_obj, track_quests=True).winning_policy
    return list(Inform7Game(game_obj).gen_commands_from_actions(policy)) if policy else []


def _accept(task: str, index: int, game_obj) -> bool:
    balrog = BALROG_GAMES[task]
    if index < len(balrog):   # BALROG's game made again: its walkthrough's length
        if len(game_obj.walkthrough or ()) != balrog[index]["walkthrough_steps"]:
            raise RuntimeError(
                f"TextWorld {task}: BALROG's game {balrog[index]['name']} made again with "
                f"TextWorld {textworld_version()} has a {len(game_obj.walkthrough or ())}-step "
                f"walkthrough, not {balrog[index]['walkthrough_steps']}: this TextWorld does "
                "not make BALROG's games (the project pins textworld 1.7)")
        return True
    if task == "treasure_hunter":
        return len(game_obj.walkthrough or ()) == TREASURE_HUNTER_WALKTHROUGH
    return bool(game_obj.walkthrough)


def _generate(task: str, index: int) -> GameFile:
    """Make game `index` in a worker process whose string hashing is fixed.

    TextWorld walks Python sets while it writes a game (e.g. the cooking game's
    losing conditions), so their order, and the files' bytes, would follow each
    process's random hash seed. The worker runs with PYTHONHASHSEED=0: the same
    bytes in every process and on every machine (same Python and TextWorld).
    It also keeps our generator patches out of the caller's process.
    """
    if os.environ.get("PYTHONHASHSEED") == HASH_SEED:
        return _generate_here(task, index)
    package_root = str(Path(__file__).resolve().parents[3])
    env = dict(os.environ, PYTHONHASHSEED=HASH_SEED)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", _MODULE, "--worker", task, str(index)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    found = _load(task, index)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"TextWorld {task}: generating game {index} failed "
                           f"(exit {done.returncode}):\n{done.stderr[-3000:]}")
    return found


def _generate_here(task: str, index: int) -> GameFile:
    from textworld.generator import QuestGenerationError

    ours = index >= len(BALROG_GAMES[task])
    budget = TREASURE_HUNTER_SEARCH_BUDGET if task == "treasure_hunter" and ours else None
    start = time.perf_counter()
    rejected: list[int] = []
    for seed in candidate_seeds(index, task):
        t0 = time.perf_counter()
        try:
            game_obj = make_game(task, seed, budget)
        except (GenerationBudgetExceeded, QuestGenerationError):
            rejected.append(seed)
            continue
        if not _accept(task, index, game_obj):
            rejected.append(seed)
            continue
        path = _compile(task, index, seed, game_obj)
        seconds = time.perf_counter() - t0
        meta = {
            "format": FORMAT_VERSION, "textworld": textworld_version(), "task": task,
            "index": index, "seed": seed, "settings": CHALLENGES[task][1],
            "file": path.name, "walkthrough": list(game_obj.walkthrough),
            "policy": winning_policy(game_obj),
            "max_score": int(game_obj.max_score), "seconds": round(seconds, 3),
            "total_seconds": round(time.perf_counter() - start, 3), "rejected": rejected,
            "uuid": game_obj.metadata.get("uuid", ""),
            "name": f"ours-{seed}" if ours else balrog_name(task, index),
        }
        write_text_atomic(_meta_path(task, index), json.dumps(meta, indent=1) + "\n")
        loaded = _load(task, index)
        assert loaded is not None
        return loaded
    raise RuntimeError(f"TextWorld {task}: no acceptable game among seeds "
                       f"{candidate_seeds(index)[0]}..{candidate_seeds(index)[-1]}")


def _compile(task: str, index: int, seed: int | dict[str, int], game_obj) -> Path:
    """Compile into a private temporary folder, then move the files into place."""
    import textworld
    from textworld.generator import compile_game

    target = folder(task)
    stem = _stem(task, index)
    tmp = Path(tempfile.mkdtemp(prefix=f".{stem}.", dir=target))
    try:
        options = textworld.GameOptions()
        options.path = str(tmp / f"{stem}.z8")
        options.force_recompile = True
        with _quiet():
            compile_game(game_obj, options)
        _normalise_json(tmp / f"{stem}.json")
        _stamp_serial(tmp / f"{stem}.z8", seed)
        for ext in (".json", ".z8"):
            os.replace(tmp / f"{stem}{ext}", target / f"{stem}{ext}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target / f"{stem}.z8"


def serial_number(seed: int | dict[str, int]) -> int:
    """The number stamped as a game's serial: our seed, or BALROG's map seed."""
    return seed["map"] if isinstance(seed, dict) else int(seed)


def _stamp_serial(path: Path, seed: int | dict[str, int]) -> None:
    """Replace the story file's serial number, which Inform writes as the compile date
    (YYMMDD, header bytes 0x12-0x17), with the generator seed, so a game compiled after
    midnight is byte-identical to one compiled before. The Z-machine checksum covers
    bytes from 0x40 on, so the header stays valid."""
    data = bytearray(path.read_bytes())
    data[0x12:0x18] = f"{serial_number(seed) % 1_000_000:06d}".encode("ascii")
    path.write_bytes(bytes(data))


def _normalise_json(path: Path) -> None:
    """Sort the one list TextWorld writes from a set, so files are byte-identical
    across processes (Python's string hashing changes set order per process)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    grammar = data.get("grammar")
    if isinstance(grammar, dict) and isinstance(grammar.get("names_to_exclude"), list):
        grammar["names_to_exclude"] = sorted(grammar["names_to_exclude"], key=json.dumps)
    path.write_text(json.dumps(data), encoding="utf-8")


# ------------------------------------------------------------ generator patches
@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Hide TextWorld's grammar notes and Jericho's "not fully supported" notes (TextWorld
    tracks score and state itself), which it prints for every game it makes."""
    import textworld

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", textworld.GenerationWarning)
        warnings.filterwarnings("ignore", message=".*is not fully supported.*")
        yield


@contextlib.contextmanager
def _oven_without_door(task: str) -> Iterator[None]:
    """Cooking: the oven of TextWorld before 1.7 (no `closed` property), BALROG's."""
    if task != "cooking":
        yield
        return
    from textworld.challenges.tw_cooking import cooking

    oven = cooking.ENTITIES["oven"]
    before = oven["properties"]
    oven["properties"] = [p for p in before if p != "closed"]
    try:
        yield
    finally:
        oven["properties"] = before


@contextlib.contextmanager
def _faster_logic() -> Iterator[None]:
    """Let textworld.logic sort propositions by a cached key (same order, less Python)."""
    from textworld import logic

    proposition = logic.Proposition
    keys: dict = {}

    def key_of(prop):
        key = keys.get(prop)
        if key is None:
            # exactly what Proposition.__lt__ compares: (name, arguments), and
            # Variable.__lt__ compares (name, type)
            key = keys[prop] = (prop.name, tuple((v.name, v.type) for v in prop.arguments))
        return key

    def sorted_facts(iterable, *, key=None, reverse=False):
        items = list(iterable)
        if key is None and items and all(type(item) is proposition for item in items):
            key = key_of
        return builtins.sorted(items, key=key, reverse=reverse)

    had = "sorted" in vars(logic)
    previous = vars(logic).get("sorted")
    logic.sorted = sorted_facts
    try:
        yield
    finally:
        if had:
            logic.sorted = previous
        else:
            del logic.sorted


@contextlib.contextmanager
def _search_budget(budget: int | None) -> Iterator[None]:
    """Count the quest search's expansions; stop it past `budget` (None: no limit)."""
    if budget is None:
        yield
        return
    from textworld.generator import chaining

    original = chaining._Chainer.apply
    count = 0

    def counted_apply(self, node, action):
        nonlocal count
        count += 1
        if count > budget:
            raise GenerationBudgetExceeded(f"quest search passed {budget} expansions")
        return original(self, node, action)

    chaining._Chainer.apply = counted_apply
    try:
        yield
    finally:
        chaining._Chainer.apply = original


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    """An exclusive lock between processes (POSIX); a no-op where flock is missing."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def main(argv: list[str] | None = None) -> None:
    """`python -m dungeonbench_gym.games.textworld.games [task ...] [--count N]`."""
    import argparse

    parser = argparse.ArgumentParser(description="Generate BALROG's TextWorld game pools.")
    parser.add_argument("tasks", nargs="*", metavar="TASK",
                        help=f"one of {', '.join(TASKS)} (default: all three)")
    parser.add_argument("--count", type=int, default=None, help="games per task (default: pool)")
    parser.add_argument("--worker", nargs=2, metavar=("TASK", "INDEX"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:   # one game, in this process (see _generate)
        _generate_here(check_task(args.worker[0]), int(args.worker[1]))
        return
    for task in args.tasks or TASKS:
        games = prepare(check_task(task), args.count)
        made = [g.seconds for g in games]
        print(f"{task}: {len(games)} games in {folder(task)}; "
              f"seconds per game (accepted seed) mean {sum(made) / len(made):.1f}, "
              f"with rejected seeds {sum(g.total_seconds for g in games) / len(games):.1f}")


if __name__ == "__main__":
    main()
