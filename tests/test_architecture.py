"""The project's structure, kept: the import-linter contracts of ``pyproject.toml`` hold
(``lint-imports``: the service's ladder, the engine pure, the machine on the engine only,
storage free of the chat side, adapters apart); no two modules of ``chatbot/``, ``engine/``,
``fsm/``, ``storage/`` import each other in a circle; the arena's ISMCTS stays out of
production (and so does the 2026 Experte); no module of the chat side, the machine or storage
grows past ~400 lines.

Run as a script (``python tests/test_architecture.py``) it prints the graph's strongly
connected components of more than one module (and self-imports).

The graph: every ``import`` / ``from … import`` executed when a module is loaded — module
level and class bodies, not function bodies and not ``if TYPE_CHECKING:`` blocks — resolved to
modules of the four packages (``from . import x`` is an edge to the submodule ``x`` if there is
one, else to the package). The implicit import of a module's parent package is not an edge.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("chatbot", "engine", "fsm", "storage")
MAX_LINES = 400  # "split at ~400 lines"; the engine's game files are one game's rules each


def modules(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Dotted module name → file, for every .py file of the packages."""
    found = {}
    paths = [p for package in packages for p in (root / package).rglob("*.py")]
    for path in sorted(paths):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(body: list[ast.stmt], inner: bool = False
                  ) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements run when the module loads (not type-only); ``inner``: those in
    function bodies too (a lazy import that dodges a circle is a circle all the same)."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if inner:
                yield from _import_nodes(node.body, inner)
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _import_nodes(node.body, inner)
            yield from _import_nodes(node.orelse, inner)
        elif isinstance(node, ast.ClassDef):
            yield from _import_nodes(node.body, inner)
        elif isinstance(node, ast.Try):
            for block in (node.body, *(h.body for h in node.handlers), node.orelse,
                          node.finalbody):
                yield from _import_nodes(block, inner)
        elif isinstance(node, (ast.With, ast.AsyncWith, ast.For, ast.While)):
            yield from _import_nodes(node.body, inner)


def graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES,
          inner: bool = False) -> dict[str, set[str]]:
    """Module → the modules of the packages it imports at load time (``inner``: or in any of
    its functions)."""
    mods = modules(root, packages)
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        is_pkg = path.name == "__init__.py"
        for node in _import_nodes(ast.parse(path.read_text(encoding="utf-8")).body, inner):
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


def test_no_two_modules_import_each_other_in_a_circle():
    """No circle among the modules, counting the imports inside functions too."""
    edges = graph()
    # the graph was built, across the packages
    assert "engine.bots.registry" in edges and edges["engine.bots"]
    assert "chatbot.service.core.records" in edges["chatbot.service.core.play"]
    assert cycles(edges) == []
    inner = graph(inner=True)
    assert "chatbot.telegram.runner" in inner["chatbot.cli"]  # (imported in a function)
    assert cycles(inner) == []


def test_the_import_contracts_hold():
    """``lint-imports`` (import-linter) checks the contracts of ``pyproject.toml``."""
    tool = Path(sys.executable).parent / "lint-imports"
    out = subprocess.run([str(tool), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert " 0 broken" in out.stdout or "broken" not in out.stdout.split("Contracts:")[-1]


def test_modules_stay_small():
    """One concern per module: nothing of the chat side, the machine, storage, the tests or
    the benchmarks over ~400 lines (the engine's game files hold one game's rules each and
    are left out)."""
    big = {name: n for name, path in modules(ROOT, ("chatbot", "fsm", "storage", "tests",
                                                     "bench")).items()
           if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert big == {}


def test_no_engine_module_imports_ismcts():
    edges = graph()
    assert [m for m, targets in edges.items() if "engine.bots.ismcts" in targets] == []


def test_only_the_arena_players_import_the_2026_experte():
    """The 2026 Experte (``engine.bots.experte_2026``) is the arena's yardstick: only its own
    modules and ISMCTS (which samples its worlds the 2026 way) import it."""
    edges = graph()
    users = {m for m, targets in edges.items()
             if any(t.startswith("engine.bots.experte_2026") for t in targets)}
    assert {m for m in users if not m.startswith("engine.bots.experte_2026")} <= {
        "engine.bots.ismcts"}


def test_the_engines_bots_load_without_ismcts():
    code = ("import sys, engine, engine.bots, engine.bots.standin, fsm\n"
            "from engine.bots import get_bot, levels_for\n"
            "assert all(levels_for(g) for g in engine.GAMES)\n"
            "print('engine.bots.ismcts' in sys.modules,"
            " 'engine.bots.experte_2026' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True, env={"PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "False False"


def _contract_layers() -> list[tuple[str, list[list[str]]]]:
    """The layers contracts of ``pyproject.toml``: (container, layers top first, each a list
    of sibling modules)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    out = []
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["type"] == "layers":
            container = (contract.get("containers") or [""])[0]
            out.append((container, [[m.strip() for m in re.split(r"[|:]", layer)]
                                    for layer in contract["layers"]]))
    return out


def mermaid() -> str:
    """The layers of the contracts as Mermaid flowcharts, top layer first: each layer a row of
    boxes, an arrow from each layer to the one below (imports point down)."""
    blocks = []
    for container, layers in _contract_layers():
        lines = ["```mermaid", "flowchart TB"]
        for i, layer in enumerate(layers):
            names = [name.removeprefix("chatbot.") if not container else name
                     for name in layer]
            label = " · ".join(names)
            lines.append(f'    {_node(container, i)}["{label}"]')
        for i in range(len(layers) - 1):
            lines.append(f"    {_node(container, i)} --> {_node(container, i + 1)}")
        lines.append("```")
        title = f"`{container}`" if container else "`chatbot/`"
        blocks.append(f"{title}, top to bottom:\n\n" + "\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def _node(container: str, i: int) -> str:
    return f"{'s' if container else 'c'}{i}"


BEGIN, END = "<!-- layers: generated by tests/test_architecture.py -->", "<!-- /layers -->"


def test_the_architecture_page_draws_the_contracts():
    """docs/architecture.md shows the layers as the contracts have them (run
    ``python tests/test_architecture.py --write`` after changing a contract)."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawn = page.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert drawn == mermaid().strip(), \
        "docs/architecture.md is out of date: run python tests/test_architecture.py --write"


def write_page() -> None:
    path = ROOT / "docs" / "architecture.md"
    page = path.read_text(encoding="utf-8")
    head, rest = page.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    path.write_text(f"{head}{BEGIN}\n{mermaid()}{END}{tail}", encoding="utf-8")


if __name__ == "__main__" and "--write" in sys.argv:
    write_page()
elif __name__ == "__main__":
    edges = graph(inner=True)
    print(f"{len(edges)} modules, {sum(map(len, edges.values()))} import edges")
    for component in cycles(edges):
        print(f"circle of {len(component)}: {' '.join(component)}")
    print("no circles" if not cycles(edges) else "")
