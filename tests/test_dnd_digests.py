"""Byte-identical battles: the D&D engine plays exactly as it did when the digests were saved.

`tests/data/dnd_digests.json` holds scripts/dnd_battle_digest.py's fingerprints of every
encounter and Day-track day (2 seeds, self-play, options included) and of every executable
coverage row's probe. A change that must not alter play (a refactor, a speed-up) leaves them
all identical; a change that alters play on purpose saves them again, and its commit says
which changed and why:

    python scripts/dnd_battle_digest.py --seeds 2 --labels --days --probes \\
        --save tests/data/dnd_digests.json
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import dnd_battle_digest  # noqa: E402
from dungeonbench_gym.dnd.day import day_names  # noqa: E402
from dungeonbench_gym.dnd.scenario import encounter_names  # noqa: E402

SAVED = json.loads((ROOT / "tests" / "data" / "dnd_digests.json").read_text())
FIX = ("if the change is meant to alter play, save the digests again (see this file's "
       "docstring) and say in the commit which changed and why")


def _kind(key: str) -> str:
    return key.split(":")[0] if key.startswith(("day:", "probe:")) else "battle"


def _check(now: dict, kind: str) -> None:
    moved = sorted(k for k in now if SAVED.get(k) != now[k])
    missing = sorted(k for k in SAVED if _kind(k) == kind and k not in now)
    assert not moved, f"{len(moved)} of {len(now)} digests changed: {moved[:20]}; {FIX}"
    assert not missing, f"{len(missing)} saved digests are no longer produced: {missing[:20]}"


def test_self_play_battles_are_unchanged():
    _check({f"{name}:{seed}": dnd_battle_digest.digest(name, seed, labels=True)
            for name in encounter_names() for seed in range(2)}, "battle")


def test_day_track_days_are_unchanged():
    _check({f"day:{name}:{seed}": dnd_battle_digest.digest_day(name, seed, labels=True)
            for name in day_names() for seed in range(2)}, "day")


def test_coverage_probes_are_unchanged():
    _check(dnd_battle_digest.probe_digests(), "probe")
