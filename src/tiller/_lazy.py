"""Exports of a package, loaded on first use.

A package lists its exports once, as imports under `if TYPE_CHECKING:` (what type
checkers and editors read). `lazy_exports(__name__, __file__)` reads that block
and gives the package its `__getattr__` and `__dir__` and the list for `__all__`,
so importing the package imports none of them until one is used.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_exports(
    package: str, init_file: str
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """`(__getattr__, __dir__, __all__)` for the package `package` whose `__init__` is
    `init_file`."""
    with open(init_file, encoding="utf-8") as file:
        sources = _type_checking_imports(file.read())
    names = sorted(sources)
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        source = sources.get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, original = source
        value = getattr(importlib.import_module(module), original)
        namespace[name] = value  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return [*names, *(n for n in namespace if n not in sources)]

    return __getattr__, __dir__, names


def _type_checking_imports(source: str) -> dict[str, tuple[str, str]]:
    """Each name imported under `if TYPE_CHECKING:`, with its module and original name."""
    found: dict[str, tuple[str, str]] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and _is_type_checking(node.test)):
            continue
        for statement in node.body:
            if isinstance(statement, ast.ImportFrom) and statement.module:
                for alias in statement.names:
                    found[alias.asname or alias.name] = (statement.module, alias.name)
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
