"""The coverage tables: the generated docs are current, and every row a table lists as
executable really happens through the engine's decision options (its probe)."""

from pathlib import Path

import pytest

from dungeonbench_gym.dnd import engine
from dungeonbench_gym.dnd.verification import coverage

ROOT = Path(__file__).resolve().parent.parent


def _executable_rows():
    out = []
    for name in coverage.TABLES:
        rows, _ = coverage.table(name)
        for r in rows or ():
            if r["status"] == "executable":
                out.append(pytest.param(name, r["key"], id=f"{name}:{r['key']}"))
    return out


EXECUTABLE = _executable_rows()


def test_generated_docs_are_up_to_date():
    stale = coverage.stale(ROOT / "docs")
    assert not stale, f"regenerate with `python scripts/dnd_coverage.py`: stale {stale}"


def test_rows_follow_the_protocol():
    for name in coverage.TABLES:
        rows, note = coverage.table(name)
        if rows is None:
            assert note
            continue
        keys = [r["key"] for r in rows]
        assert len(keys) == len(set(keys)), f"{name}: duplicate keys"
        for r in rows:
            assert r["status"] in coverage.STATUSES, (name, r)
            assert bool(r["reason"]) == (r["status"] != "executable"), (name, r["key"], r["reason"])


@pytest.mark.parametrize("table,key", EXECUTABLE)
def test_executable_entry_can_be_executed(table, key):
    coverage.probe(table, key)


def test_monster_status_follows_its_parts():
    rows = {r["key"]: r for r in coverage.monster_coverage()}
    assert len(rows) == 334
    wolf = {p["key"]: p["status"] for p in coverage.monster_parts("wolf")}
    assert wolf == {"bite": "executable", "keen-hearing-and-smell": "out of scope", "pack-tactics": "executable"}
    assert rows["wolf"]["status"] == "executable"
    from dungeonbench_gym.dnd import content  # a spellcasting trait waits exactly on the spells not yet cast
    for key in ("acolyte", "mage", "archmage", "lich"):
        part = next(p for p in coverage.monster_parts(key) if p["key"] == "spellcasting")
        missing = coverage._spells_missing(content.monster(key), "spellcasting")
        assert (part["status"] == "not yet") == bool(missing) and all(s in part["reason"] for s in missing)
        assert not missing or (rows[key]["status"] == "not yet" and "Spellcasting" in rows[key]["reason"])
    dragon = {p["key"]: p["status"] for p in coverage.monster_parts("adult-red-dragon")}
    assert dragon["wing-attack"] == dragon["tail-attack"] == dragon["fire-breath"] == "executable"
    assert dragon["detect"] == "out of scope"


def test_a_probe_fails_when_the_engine_does_not_offer_the_action(monkeypatch):
    coverage.probe_monster("adult-red-dragon")
    monkeypatch.setattr(engine.Battle, "_save_action_options", lambda self, c: [])
    with pytest.raises(AssertionError, match="not offered"):
        coverage.probe_monster("adult-red-dragon")


def test_combatant_count_adds_executable_monsters_and_pc_builds():
    rows = coverage.monster_coverage()
    n = coverage.combatants(rows)
    assert n["monsters"] == sum(r["status"] == "executable" for r in rows) > 150
    assert n["total"] == n["monsters"] + n["pc_builds"] and n["pc_builds"] >= n["archetypes"] >= 4
