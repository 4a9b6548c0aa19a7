"""The engine's module-level import graph has no circles, and the arena's ISMCTS stays out of
production: no module of engine/ imports ``engine.bots.ismcts``, and loading the engine's bots
(``engine.bots``) does not load it.

Run as a script (``python tests/engine/test_import_graph.py``) it prints the graph's strongly
connected components of more than one module (and self-imports).

The graph: every ``import`` / ``from … import`` executed when a module of engine/ is loaded —
module level and class bodies, not function bodies and not ``if TYPE_CHECKING:`` blocks —
resolved to modules of engine/ (``from . import x`` is an edge to the submodule ``x`` if there
is one, else to the package). The implicit import of a module's parent package is not an edge.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "engine"


def modules(root: Path = ROOT, package: str = PACKAGE) -> dict[str, Path]:
    """Dotted module name → file, for every .py file of the package."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements run when the module loads (not in functions, not type-only)."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _import_nodes(node.body)
            yield from _import_nodes(node.orelse)
        elif isinstance(node, ast.ClassDef):
            yield from _import_nodes(node.body)
        elif isinstance(node, ast.Try):
            for block in (node.body, *(h.body for h in node.handlers), node.orelse,
                          node.finalbody):
                yield from _import_nodes(block)
        elif isinstance(node, (ast.With, ast.For, ast.While)):
            yield from _import_nodes(node.body)


def graph(root: Path = ROOT, package: str = PACKAGE) -> dict[str, set[str]]:
    """Module → the modules of the package it imports at load time."""
    mods = modules(root, package)
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        is_pkg = path.name == "__init__.py"
        for node in _import_nodes(ast.parse(path.read_text(encoding="utf-8")).body):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                if node.level:
                    base = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = base[:len(base) - (node.level - 1)]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                targets = []
                for alias in node.names:
                    sub = f"{source}.{alias.name}"
                    targets.append(sub if sub in mods else source)
            for target in targets:
                while target and target not in mods:  # ``import engine.bots.x as y`` etc.
                    target = target.rpartition(".")[0]
                if target:
                    edges[name].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module, and self-imports
    (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges[v]:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_engine_has_no_import_circles():
    edges = graph()
    assert "engine.bots.registry" in edges and edges["engine.bots"]  # the graph was built
    assert cycles(edges) == []


def test_no_engine_module_imports_ismcts():
    edges = graph()
    assert [m for m, targets in edges.items() if "engine.bots.ismcts" in targets] == []


def test_the_engines_bots_load_without_ismcts():
    code = ("import sys, engine, engine.bots, engine.bots.standin, fsm\n"
            "from engine.bots import get_bot, levels_for\n"
            "assert all(levels_for(g) for g in engine.GAMES)\n"
            "print('engine.bots.ismcts' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True, env={"PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "False"


if __name__ == "__main__":
    edges = graph()
    print(f"{len(edges)} modules, {sum(map(len, edges.values()))} import edges")
    for component in cycles(edges):
        print(f"circle of {len(component)}: {' '.join(component)}")
    print("no circles" if not cycles(edges) else "")
