"""The D&D engine's layering: each module imports only from layers below its own.

An import analysis of `dungeonbench_gym/dnd/` (module-level imports and those inside
functions, which Python runs late but which tie modules together just the same):

* `LAYERS` names each module's layer (docs/dnd-architecture.md); an import of a module
  in a higher layer is *upward*;
* an import inside a function is *local* (most exist only to dodge an import cycle).

The allow-list file lists today's upward and local imports and the modules tied in import
cycles. Each list may only shrink: a new entry fails the test, and so does an entry that no
longer occurs (delete it from the list). The goal is all three empty.
"""

from __future__ import annotations

import ast
import json
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "dungeonbench_gym" / "dnd"
ALLOWED_FILE = Path(__file__).resolve().parent / "data" / "dnd_layers_allowed.json"

# Lowest first. A module's layer is that of the longest prefix named here.
LAYERS = (
    ("core", ("dice", "grid", "areas", "content")),
    ("model", ("model", "state")),
    ("rules", ("rules",)),
    ("mechanics", ("classes", "spellbook", "spell_buffs", "spell_guardians", "spell_heat",
                   "spell_control", "spell_counter", "spell_plants", "spell_spiritual", "spell_summons",
                   "spell_utility", "spell_walls", "spell_wards", "spell_zones",
                   "monster_traits", "items", "lighting")),
    ("builders", ("builders",)),
    ("engine", ("engine", "battle")),
    ("scenario", ("scenario", "day")),
    ("planner", ("heuristic", "fastpaths", "lookup", "advice")),
    ("verification", ("verification",)),
    ("package", ("",)),   # dnd/__init__.py
)


def module_names() -> dict[str, Path]:
    """Dotted names relative to the package ("spellbook", "content.convert", "")."""
    names = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def layer_of(module: str) -> int:
    best, best_len = None, -1
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            hit = module == prefix or (prefix and module.startswith(prefix + "."))
            if (hit or (prefix == "" and module == "")) and len(prefix) > best_len:
                best, best_len = rank, len(prefix)
    assert best is not None, f"dnd.{module} has no layer: add it to LAYERS"
    return best


def _targets(module: str, node: ast.AST, names: dict[str, Path]) -> list[str]:
    """The dnd modules an import statement names (relative or absolute)."""
    is_package = names[module].name == "__init__.py"
    here = module.split(".") if module else []
    package = here if is_package else here[:-1]
    found = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.startswith("dungeonbench_gym.dnd"):
                found.append(alias.name[len("dungeonbench_gym.dnd"):].lstrip("."))
        return [t for t in found if t in names]
    if node.level:
        base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
        base_name = ".".join(base + (node.module.split(".") if node.module else []))
    elif node.module and node.module.startswith("dungeonbench_gym.dnd"):
        base_name = node.module[len("dungeonbench_gym.dnd"):].lstrip(".")
    else:
        return []
    for alias in node.names:
        sub = f"{base_name}.{alias.name}" if base_name else alias.name
        found.append(sub if sub in names else base_name)
    return [t for t in found if t in names]


def imports() -> list[tuple[str, str, bool]]:
    """(importer, imported, inside a function) for every import between dnd modules."""
    names = module_names()
    out = set()
    for module, path in names.items():
        def visit(node, local):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in _targets(module, child, names):
                        if target != module:
                            out.add((module, target, local))
                visit(child, local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                         ast.Lambda)))
        visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return sorted(out)


def findings() -> dict[str, list[list[str]]]:
    """{"upward": [[importer, imported], ...], "local": [...]}, sorted."""
    upward, local = set(), set()
    for importer, imported, inside in imports():
        if layer_of(imported) > layer_of(importer):
            upward.add((importer, imported))
        if inside:
            local.add((importer, imported))
    return {"upward": sorted(map(list, upward)), "local": sorted(map(list, local))}


def cycles() -> list[list[str]]:
    """Strongly connected groups of more than one module, counting every import."""
    graph = defaultdict(set)
    for importer, imported, _ in imports():
        graph[importer].add(imported)
    index, low, stack, on_stack, groups, counter = {}, {}, [], set(), [], [0]

    def connect(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(module_names()):
        if v not in index:
            connect(v)
    return groups


def test_every_module_has_a_layer():
    for module in module_names():
        layer_of(module)


def test_upward_and_local_imports_only_shrink():
    allowed = json.loads(ALLOWED_FILE.read_text(encoding="utf-8"))
    now = findings()
    for kind in ("upward", "local"):
        new = [pair for pair in now[kind] if pair not in allowed[kind]]
        gone = [pair for pair in allowed[kind] if pair not in now[kind]]
        assert not new, (f"{len(new)} new {kind} import(s) in dnd/ (import from a lower layer, "
                         f"at module level): {new[:10]}")
        assert not gone, (f"{len(gone)} {kind} import(s) in {ALLOWED_FILE.name} no longer occur: "
                          f"delete them from the list: {gone[:10]}")


def in_cycles() -> list[str]:
    """Every module that sits in an import cycle (module-level and local imports alike)."""
    return sorted(m for group in cycles() for m in group)


def test_import_cycles_only_shrink():
    """Modules tied in import cycles, counting imports at module level too (hoisting a local
    import inside a cycle shortens the local list but leaves the cycle): the list in the
    allow-list file may only shrink, and the goal is none."""
    allowed = json.loads(ALLOWED_FILE.read_text(encoding="utf-8"))
    now = in_cycles()
    new = [m for m in now if m not in allowed["cycle"]]
    gone = [m for m in allowed["cycle"] if m not in now]
    assert not new, f"{len(new)} module(s) newly in an import cycle: {new}"
    assert not gone, f"no longer in an import cycle, delete from {ALLOWED_FILE.name}: {gone}"


if __name__ == "__main__":   # python tests/test_dnd_layers.py: rewrite the allow-list from today's code
    found = dict(findings(), cycle=in_cycles())
    ALLOWED_FILE.write_text("{\n" + ",\n".join(
        f'"{kind}": [' + ",".join("\n  " + json.dumps(item) for item in items) + "\n]"
        for kind, items in found.items()) + "\n}\n", encoding="utf-8")
    print({k: len(v) for k, v in found.items()}, "cycles:", [len(c) for c in cycles()])
