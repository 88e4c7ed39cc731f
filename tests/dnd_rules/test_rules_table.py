"""docs/dnd-rules.md stays what scripts/dnd_rules_table.py makes of the rule tests and
tests/dnd_rules/unmodelled.json, and each rule test names its SRD section and its rule."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import dnd_rules_table as table  # noqa: E402


def test_every_rule_test_names_its_srd_section_and_rule():
    rules = table.tested_rules()
    assert rules, "no rule tests found"
    for r in rules:
        assert r["section"].count(" > ") >= 1 and len(r["rule"]) > 20, r


def test_the_rules_doc_is_up_to_date():
    assert table.DOC.read_text(encoding="utf-8") == table.render(table.all_rules()), \
        "docs/dnd-rules.md is stale: run python scripts/dnd_rules_table.py"


def test_a_rule_test_without_its_section_is_refused(tmp_path, monkeypatch):
    bad = tmp_path / "test_bad.py"
    bad.write_text('def test_x():\n    """A natural 20 hits."""\n')
    monkeypatch.setattr(table, "TESTS", tmp_path)
    monkeypatch.setattr(table, "ROOT", tmp_path)
    with pytest.raises(table.RuleError, match="does not name an SRD chapter"):
        table.tested_rules()


def test_every_simplification_the_code_names_is_in_the_table():
    """The table lists each place the engine's code says it simplifies a rule (found by scanning
    dnd/ for "simplification"/"simplified"), so a new simplification shows up in docs/dnd-rules.md."""
    found = table.code_simplifications()
    assert len(found) >= 40   # about 46 on 2026-12-05; a scan that finds none is broken
    doc = table.DOC.read_text(encoding="utf-8")
    for module, note in found:
        assert f"| `{module}` | {table._cell(note)} |" in doc, (module, note)
