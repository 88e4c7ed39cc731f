"""The tables the D&D rules register into (dungeonbench_gym/dnd/rules/hooks.py).

The engine carries out a chosen option by looking its kind up in ``OPTION_KINDS`` (a pending
reaction in ``REACTIONS``, a destination chosen for a teleport-like use in
``DESTINATION_USES``, the creatures a target decision offers and what picking one does in
``TARGET_USES``, a spell mechanism's steps in ``SPELL_MECHANISMS``), so which module answers
which kind is decided by registration, not by an ``if/elif`` chain; a rule moment several
mechanics take part in runs their steps by order number (the pipelines, e.g. ``SPELL_SCREENS``).
``tests/data/dnd_hooks.json`` pins every entry by qualified name, and every pipeline's steps in
order: a plugin that claims a kind, a move of a handler or a change of order shows up here as a
deliberate change (``python tests/test_dnd_hooks.py`` rewrites it from the code: check its diff).
"""

import json
from pathlib import Path

import pytest

from dungeonbench_gym.dnd import engine  # noqa: F401  (importing the engine fills and freezes the tables)
from dungeonbench_gym.dnd.rules import hooks

PINNED_FILE = Path(__file__).parent / "data" / "dnd_hooks.json"
PINNED = json.loads(PINNED_FILE.read_text())
TABLES = hooks.REGISTRIES   # every table and pipeline


def _now() -> dict:
    """The tables as the pinned file stores them (through JSON: tuples become lists)."""
    return json.loads(json.dumps({t.name: t.described() for t in TABLES}))


def test_every_entry_is_pinned():
    now = _now()
    assert set(now) == set(PINNED), f"tables pinned {sorted(PINNED)}, registered {sorted(now)}"
    for name, entries in now.items():
        added = sorted(set(entries) - set(PINNED[name]))
        gone = sorted(set(PINNED[name]) - set(entries))
        moved = sorted(k for k in entries if k in PINNED[name] and PINNED[name][k] != entries[k])
        assert not (added or gone or moved), (
            f"{name} table: added {added}, gone {gone}, handled elsewhere now {moved}; if deliberate, "
            f"rewrite {PINNED_FILE.name} with `python tests/test_dnd_hooks.py` and check its diff")


def test_a_key_registered_twice_is_an_error_naming_both():
    table = hooks.Table("test kind")

    def first(*a): pass

    def second(*a): pass

    table.register("dash", first)
    with pytest.raises(ValueError, match=r"'dash' is registered twice .*first.*second"):
        table.register("dash", second)


def test_a_pipeline_runs_its_steps_by_order_number_and_refuses_a_taken_number():
    pipe = hooks.Pipeline("test moment")

    @pipe.step(20)
    def later(x): return x + ["later"]

    @pipe.step(10)
    def sooner(x): return x + ["sooner"]

    out = []
    for step in pipe:
        out = step(out)
    assert out == ["sooner", "later"]
    assert list(pipe.described()) == ["0010", "0020"]
    with pytest.raises(ValueError, match=r"order 10 is taken twice .*sooner.*again"):
        @pipe.step(10)
        def again(x): return x
    pipe.freeze()
    with pytest.raises(RuntimeError, match="after the pipeline was frozen"):
        pipe.step(30)(lambda x: x)


def test_the_engine_freezes_its_tables():
    for table in TABLES:
        assert table.frozen
    with pytest.raises(RuntimeError, match="after the table was frozen"):
        hooks.OPTION_KINDS.register("a_new_kind", lambda *a: None)


def test_every_option_kind_the_rules_offer_has_a_handler():
    """Every option of every decision met in random play (every encounter, 2 seeds, up to 400
    decisions each) is one the tables can carry out."""
    import random

    from dungeonbench_gym.dnd.scenario import encounter_names, load_encounter

    missing = set()
    for name in encounter_names():
        for seed in (0, 1):
            battle = load_encounter(name).build(seed)
            rng = random.Random(seed)
            for _ in range(400):
                if battle.outcome is not None:
                    break
                p = battle.pending
                if p["kind"] == "target" and p["use"][0] not in hooks.TARGET_USES:
                    missing.add(("target use", p["use"][0]))
                for o in battle.visible_options():
                    if p["kind"] == "reaction":
                        ok = (p.get("reaction") or "opportunity") in hooks.REACTIONS
                    elif o.kind == "destination" and p.get("use"):
                        ok = True   # a teleport-like use: DESTINATION_USES or the plain teleport
                    else:
                        ok = o.kind in hooks.OPTION_KINDS
                    if not ok:
                        missing.add((p["kind"], o.kind))
                battle.choose(rng.randrange(len(battle.decision.options)))
    assert not missing, f"options no table answers: {sorted(missing)}"


if __name__ == "__main__":   # rewrite the pinned tables from the code
    PINNED_FILE.write_text(json.dumps(_now(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {PINNED_FILE}")
