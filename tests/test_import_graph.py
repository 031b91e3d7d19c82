"""The package's import graph.

No two modules import each other, even through a deferred import (inside a function,
or for type checkers only): a circle means neither module can be read, tested or moved
without the other. And no module imports a higher layer than its own, in the layer
order that docs/architecture.md lists; imports for type checkers count there too (see
`dependencies`). A violation prints as `module → imported module (layer A imports
higher layer B)`."""

from __future__ import annotations

import ast
import re
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


# The layer order: docs/architecture.md lists the layers bottom to top, one numbered
# item each: `N. **Name**: `tiller.a`, `tiller.b`. What the layer holds.` (its modules in
# backticks up to the first full stop). A module belongs to the layer that names it or
# the package holding it; it may import its own layer and the layers below.
ARCHITECTURE = Path(__file__).parents[1] / "docs" / "architecture.md"


def layer_order(text: str) -> list[list[str]]:
    """The modules of each layer, bottom first, from the numbered list under `## Layers`."""
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    layers: list[list[str]] = []
    for line in section.splitlines():
        item = re.match(r"(\d+)\. (.*)", line)
        if item:
            assert int(item[1]) == len(layers) + 1, f"layer {item[1]} is out of order"
            modules = item[2].split(". ", 1)[0]
            layers.append(re.findall(r"`(tiller(?:\.\w+)*)`", modules))
    return layers


def layer_of(module: str, layers: list[list[str]]) -> int | None:
    """The index of the layer that names `module` or the package nearest above it.

    The root `tiller` names only the package's own `__init__`: a module under no
    other named package is in no layer (and the test says so), not in the root's."""
    best: tuple[int, int] | None = None  # (length of the matching name, layer)
    for number, names in enumerate(layers):
        for name in names:
            inside = name != "tiller" and module.startswith(name + ".")
            if (module == name or inside) and (best is None or len(name) > best[0]):
                best = (len(name), number)
    return None if best is None else best[1]


def dependencies(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Every module of the package that `name` imports, wherever the import stands.

    Imports at module level, inside functions and under `if TYPE_CHECKING:` all count
    (an annotation naming a higher layer's type ties the lower layer to it as surely as
    a call does), and so do modules named by string for a deferred import
    (`importlib.import_module("tiller.x")`, a registry's `"tiller.x:factory"`).
    `from tiller import errors` depends on the module `tiller.errors`, not on the package.
    """
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
    }  # a string standing alone as a statement is prose, not an import
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            source = ".".join(
                [*base[: len(base) - node.level + 1], *([node.module] if node.module else [])]
                if node.level
                else [node.module or ""]
            )
            submodules = {f"{source}.{a.name}" for a in node.names} & known.keys()
            found.update(submodules)
            if len(submodules) < len(node.names) or source != "tiller":
                found.add(source)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and re.fullmatch(r"tiller(\.\w+)+(:\w+)?", node.value)
        ):
            found.add(node.value.partition(":")[0])
    # an import of a module's own parent packages is no dependency (they run first anyway)
    return {m for m in found & known.keys() if m != name and not name.startswith(m + ".")}


def layer_violations() -> tuple[list[str], list[str]]:
    """(imports that go up a layer, modules in no layer), each as a line to print."""
    layers = layer_order(ARCHITECTURE.read_text(encoding="utf-8"))
    known = module_names()

    def label(number: int) -> str:
        return f"{number + 1} ({layers[number][0].removeprefix('tiller.') or 'tiller'})"

    upward: list[str] = []
    unplaced: list[str] = []
    for name, path in sorted(known.items()):
        own = layer_of(name, layers)
        if own is None:
            unplaced.append(f"{name} is in no layer of docs/architecture.md")
            continue
        for imported in sorted(dependencies(name, path, known)):
            other = layer_of(imported, layers)
            if other is not None and other > own:
                upward.append(
                    f"{name} → {imported} (layer {label(own)} imports higher layer {label(other)})"
                )
    return upward, unplaced


def test_the_architecture_lists_layers_of_modules_that_exist() -> None:
    layers = layer_order(ARCHITECTURE.read_text(encoding="utf-8"))
    assert len(layers) >= 5
    known = module_names()
    named = [name for names in layers for name in names]
    assert all(names for names in layers), "every layer names its modules"
    assert [n for n in named if n not in known] == [], "a layer names a module that is gone"
    assert len(named) == len(set(named)), "a module is named in two layers"


def test_every_import_goes_to_the_same_layer_or_below() -> None:
    upward, unplaced = layer_violations()
    for line in [*unplaced, *upward]:
        print(line)
    assert unplaced == [], "\n".join(unplaced)
    assert upward == [], "\n".join(upward)


def test_deferred_type_checking_relative_and_named_imports_all_count(tmp_path: Path) -> None:
    known = {
        name: tmp_path / f"{name}.py"
        for name in ("tiller.a", "tiller.a.x", "tiller.b", "tiller.c", "tiller.d", "tiller.e")
    }
    source = tmp_path / "x.py"
    source.write_text(
        '"""Docstrings naming tiller.e are prose."""\n'
        "from typing import TYPE_CHECKING\n"
        "from tiller import b\n"
        "if TYPE_CHECKING:\n"
        "    from tiller.c import Thing\n"
        "def later() -> None:\n"
        "    from . import y\n"
        "    import importlib\n"
        '    importlib.import_module("tiller.d")\n'
        '    "tiller.e"\n',
        encoding="utf-8",
    )
    assert dependencies("tiller.a.x", source, known) == {"tiller.b", "tiller.c", "tiller.d"}
    assert dependencies("tiller.a.x", source, known | {"tiller.a.y": source}) == {
        "tiller.a.y",
        "tiller.b",
        "tiller.c",
        "tiller.d",
    }


def test_a_module_belongs_to_the_nearest_named_package_and_the_root_to_itself() -> None:
    layers = [["tiller.messages"], ["tiller.models", "tiller.models.local"], ["tiller"]]
    assert layer_of("tiller.messages", layers) == 0
    assert layer_of("tiller.models.local.chat", layers) == 1
    assert layer_of("tiller", layers) == 2
    assert layer_of("tiller.solve.goals", layers) is None  # a new package must be placed
