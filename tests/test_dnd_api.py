"""The battle surface the D&D mechanics use (dungeonbench_gym/dnd/rules/api.py).

The mechanics modules are handed the running battle and must not import the engine; the
``BattleAPI`` protocol names what they may use of it. Read from the code: every attribute a
mechanics module reads or calls on its battle parameter is declared there, and every declared
member is something the engine's ``Battle`` really has, so the protocol neither lags behind the
mechanics nor names what no battle provides.
"""

import ast
from pathlib import Path

from dungeonbench_gym.dnd.engine import Battle
from dungeonbench_gym.dnd.rules.api import BattleAPI
from dungeonbench_gym.dnd.scenario import load_encounter

PACKAGE = Path(__file__).resolve().parent.parent / "dungeonbench_gym" / "dnd"
# file paths under dnd/ without ".py": every module of the classes/ and monster_traits/ packages, then the others
MECHANICS = (*(f"{pkg}/{p.stem}" for pkg in ("classes", "monster_traits")
               for p in sorted((PACKAGE / pkg).glob("*.py")) if p.stem != "__init__"),
             "spellbook", "spell_buffs", "spell_control", "spell_counter", "spell_plants", "spell_summons",
             "spell_utility", "spell_walls", "spell_wards", "spell_zones", "items", "lighting")
BATTLE_PARAMS = ("b", "battle")


def _declared() -> set[str]:
    names = set(getattr(BattleAPI, "__annotations__", {}))
    names |= {k for k in vars(BattleAPI) if not k.startswith("__") and k not in ("_is_protocol",)}
    return names - {"_abc_impl", "_is_runtime_protocol"}


def _used_and_set() -> tuple[dict[str, set[str]], set[str]]:
    """Per member, the modules that use it on a battle parameter; the members they assign."""
    used: dict[str, set[str]] = {}
    assigned: set[str] = set()
    for name in MECHANICS:
        tree = ast.parse((PACKAGE / f"{name}.py").read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.Lambda)):
                continue
            params = {a.arg for a in fn.args.args if a.arg in BATTLE_PARAMS}
            for node in ast.walk(fn):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in params:
                    if node.attr != "__dict__":
                        used.setdefault(node.attr, set()).add(name)
                        if isinstance(node.ctx, ast.Store):
                            assigned.add(node.attr)
                # b.__dict__["name"] = ... / b.__dict__.setdefault("name", ...): a member it adds
                if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
                        and node.value.attr == "__dict__" and isinstance(node.slice, ast.Constant)):
                    assigned.add(node.slice.value)
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr == "setdefault" and isinstance(node.func.value, ast.Attribute)
                        and node.func.value.attr == "__dict__" and node.args
                        and isinstance(node.args[0], ast.Constant)):
                    assigned.add(node.args[0].value)
    return used, assigned


def test_every_member_the_mechanics_use_is_declared():
    used, _ = _used_and_set()
    missing = {m: sorted(mods) for m, mods in used.items() if m not in _declared()}
    assert not missing, (f"mechanics use battle members BattleAPI does not declare: {missing}; "
                         "declare them in dnd/rules/api.py (or use a declared one)")


def test_every_declared_member_exists_on_a_battle():
    battle = load_encounter("goblin_ambush").build(0)
    _, assigned = _used_and_set()
    absent = sorted(m for m in _declared() if not hasattr(battle, m) and m not in assigned)
    assert not absent, f"BattleAPI declares members no Battle has and no mechanic sets: {absent}"
    methods = [m for m, v in vars(BattleAPI).items() if callable(v) and not m.startswith("__")]
    assert methods and all(callable(getattr(Battle, m)) for m in methods)


def test_the_mechanics_name_the_protocol_not_the_engine():
    for name in MECHANICS:
        source = (PACKAGE / f"{name}.py").read_text()
        assert "from .engine import" not in source and "import engine" not in source, name


def test_no_module_outside_the_engine_reads_a_private_member_of_the_battle():
    """Battle's underscored members (its caches, its internal steps) belong to the engine layer
    (engine.py and battle/); every other dnd module, the planner and the probes included, uses
    the public surface. Battles are named b, b2, battle or bt across the package."""
    battle = load_encounter("goblin_ambush").build(0)
    private = {n for n in set(dir(Battle)) | set(vars(battle)) if n.startswith("_") and not n.startswith("__")}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "engine.py" or rel.startswith("battle/"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in ("b", "b2", "battle", "bt") and node.attr in private):
                found.append(f"{rel}:{node.lineno} .{node.attr}")
    assert not found, f"private Battle members used outside the engine: {found[:20]}"
