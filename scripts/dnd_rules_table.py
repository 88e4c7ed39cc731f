"""Write docs/dnd-rules.md: every SRD combat rule the D&D engine is held to, with its test and status.

The rules come from two places:

* the rule tests, ``tests/dnd_rules/test_<chapter>.py``: each test's docstring starts with the
  SRD section on its first line (``Combat > Making an Attack > Rolling 1 or 20``), then the rule
  in the test's own words; a line ``Simplified: <why>`` marks a rule the engine plays in a
  simpler form than the SRD, and the test pins that form;
* ``tests/dnd_rules/unmodelled.json``: rules with no test, because the engine does not model
  them or models them only in part, each with the reason.

    python scripts/dnd_rules_table.py          # rewrite docs/dnd-rules.md
    python scripts/dnd_rules_table.py --check  # exit 1 when the file differs (the test does this)
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests" / "dnd_rules"
UNMODELLED = TESTS / "unmodelled.json"
DOC = ROOT / "docs" / "dnd-rules.md"
ENGINE = ROOT / "dungeonbench_gym" / "dnd"
# the SRD 5.1 chapters the engine claims, in the order of the table
CHAPTERS = ("Combat", "Conditions", "Spellcasting", "Monsters", "Classes")
STATUSES = ("modelled", "simplified", "not modelled")
NOT_RULES = ("test_rules_table.py",)   # the test of this table, not a rule


class RuleError(ValueError):
    pass


def _docstring_rule(path: Path, fn: ast.FunctionDef) -> dict:
    doc = ast.get_docstring(fn)
    where = f"{path.relative_to(ROOT)}::{fn.name}"
    if not doc:
        raise RuleError(f"{where}: no docstring; start it with the SRD section, e.g. "
                        "'Combat > Making an Attack > Rolling 1 or 20', then the rule in your own words")
    lines = doc.splitlines()
    section = lines[0].strip()
    if section.split(" > ")[0] not in CHAPTERS:
        raise RuleError(f"{where}: the docstring's first line {section!r} does not name an SRD chapter "
                        f"({', '.join(CHAPTERS)}) followed by ' > ' and the section")
    body = [line.strip() for line in lines[1:]]
    simplified = [line for line in body if line.startswith("Simplified:")]
    text = " ".join(line for line in body if line and not line.startswith("Simplified:"))
    if not text:
        raise RuleError(f"{where}: the docstring names the section but not the rule")
    return {"section": section, "rule": text, "test": where,
            "status": "simplified" if simplified else "modelled",
            "reason": simplified[0][len("Simplified:"):].strip() if simplified else ""}


def tested_rules() -> list[dict]:
    rules = []
    for path in sorted(TESTS.glob("test_*.py")):
        if path.name in NOT_RULES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                rules.append(_docstring_rule(path, node))
    return rules


def unmodelled_rules() -> list[dict]:
    rows = json.loads(UNMODELLED.read_text(encoding="utf-8"))
    for i, row in enumerate(rows):
        missing = {"section", "rule", "status", "reason"} - set(row)
        if missing:
            raise RuleError(f"{UNMODELLED.name}: entry {i} lacks {sorted(missing)}")
        if row["status"] not in STATUSES[1:]:
            raise RuleError(f"{UNMODELLED.name}: entry {i} ({row['rule']!r}): status {row['status']!r}, "
                            f"use one of {STATUSES[1:]}")
        if row["section"].split(" > ")[0] not in CHAPTERS or not row["reason"].strip():
            raise RuleError(f"{UNMODELLED.name}: entry {i} ({row['rule']!r}): name the section as "
                            "'<Chapter> > <Section>' and give the reason")
    return [{**row, "test": ""} for row in rows]


def all_rules() -> list[dict]:
    rules = tested_rules() + unmodelled_rules()
    return sorted(rules, key=lambda r: (CHAPTERS.index(r["section"].split(" > ")[0]), r["section"], r["test"]))


_SIMPLIFICATION = re.compile(r"(?i)\bsimplifications?\b(?!\))|\bsimplified\b")


def code_simplifications() -> list[tuple[str, str]]:
    """(module, sentence) for every place the engine's code names a simplification of an SRD rule
    (a docstring or comment saying "Simplification: ..." or "(simplified ...)"), so that the rules
    table lists every one of them, not only those a rule test or unmodelled.json states."""
    out = []
    for path in sorted(ENGINE.rglob("*.py")):
        rel = path.relative_to(ENGINE)
        if rel.parts[0] == "verification":   # probes and coverage tables, not rules
            continue
        text = path.read_text(encoding="utf-8")
        for m in _SIMPLIFICATION.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            line = text[line_start:text.find("\n", m.start())]
            if "#" in text[line_start:m.start()]:   # a comment: the comment is the note
                note = line[line.index("#") + 1:]
            else:
                rest = text[m.start():m.start() + 600]
                before = text[max(line_start - 300, 0):m.start()]
                before = before[before.rfind("\n\n") + 1:]   # this paragraph
                inside = before.count("(") > before.count(")")
                end = rest.find(")") if inside else -1
                if end < 0:
                    cut = [i for i in (rest.find(". "), rest.find(".\n"), rest.find('"""')) if i >= 0]
                    end = min(cut) + 1 if cut else len(rest)
                note = rest[:end]
                if len(note) < 25:   # "simplified." alone: its line says what
                    note = line
            note = " ".join(note.replace('"""', " ").split()).rstrip(".")
            if note.count('"') % 2 and note.endswith('"'):   # a docstring's closing quote
                note = note[:-1].rstrip(".")
            out.append((str(rel), note + "."))
    return out


def render(rules: list[dict]) -> str:
    counts = {s: sum(r["status"] == s for r in rules) for s in STATUSES}
    tests = sum(bool(r["test"]) for r in rules)
    out = ["# D&D rules: the SRD held to the text", "",
           "Generated by `python scripts/dnd_rules_table.py` from the rule tests in `tests/dnd_rules/` "
           "(each test names its SRD 5.1 section and states the rule; scripted dice, exact outcomes) and "
           "`tests/dnd_rules/unmodelled.json` (rules not modelled, or modelled in a simpler form, with the "
           "reason). `tests/dnd_rules/test_rules_table.py` fails when this file is stale.", "",
           f"{len(rules)} rules: {counts['modelled']} modelled, {counts['simplified']} simplified, "
           f"{counts['not modelled']} not modelled; {tests} tests.", ""]
    for chapter in CHAPTERS:
        rows = [r for r in rules if r["section"].split(" > ")[0] == chapter]
        if not rows:
            continue
        out += [f"## {chapter}", "", "| SRD section | rule | test | status |", "|---|---|---|---|"]
        for r in rows:
            status = r["status"] + (f": {r['reason']}" if r["reason"] else "")
            test = f"`{r['test'].split('::')[1]}` ({Path(r['test'].split('::')[0]).name})" if r["test"] else ""
            section = " > ".join(r["section"].split(" > ")[1:])
            out.append(f"| {section} | {_cell(r['rule'])} | {test} | {_cell(status)} |")
        out.append("")
    simple = code_simplifications()
    out += ["## Simplifications named in the code", "",
            f"Every place the engine's code says it simplifies an SRD rule ({len(simple)}), found by "
            "`scripts/dnd_rules_table.py` in `dungeonbench_gym/dnd/`; the module's docstring says more.", "",
            "| module | simplification |", "|---|---|"]
    out += [f"| `{module}` | {_cell(text)} |" for module, text in simple]
    out.append("")
    return "\n".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="exit 1 when docs/dnd-rules.md is stale")
    args = p.parse_args(argv)
    try:
        text = render(all_rules())
    except RuleError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.check:
        if DOC.read_text(encoding="utf-8") != text:
            print(f"{DOC.relative_to(ROOT)} is stale: run python scripts/dnd_rules_table.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
