"""No two modules of the package import each other, even through a deferred import
(inside a function, or for type checkers only): a circle means neither module can be
read, tested or moved without the other."""

from __future__ import annotations

import ast
from pathlib import Path

import tiller

PACKAGE = Path(tiller.__file__).parent


def module_names() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports(path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that `path` imports anywhere in its text."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.update(f"{node.module}.{a.name}" for a in node.names)
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found & known.keys()


def circles() -> list[list[str]]:
    known = module_names()
    # A package's __init__ only re-exports (lazily): edges into it are not dependencies.
    packages = {name for name, path in known.items() if path.name == "__init__.py"}
    graph = {
        name: imports(path, known) - packages - {name}
        for name, path in known.items()
        if name not in packages
    }
    # Tarjan's strongly connected components: each of more than one module is a circle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for after in graph.get(node, ()):
            if after not in index:
                visit(after)
                low[node] = min(low[node], low[after])
            elif after in stack:
                low[node] = min(low[node], index[after])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_no_two_modules_import_each_other() -> None:
    assert circles() == []
