"""Walking a workspace directory (skipping `.git`, `node_modules` and the like) and globs.

Glob rules, as a model expects them: `*` and `?` stay within one path
component, `**` spans any number of them, `[abc]` is a class, `{a,b}` an
alternative. A pattern without `/` matches a name at any depth (`*.py`); one
with `/` matches the whole path from the directory searched (`src/*.py`).
Symbolic links are listed but never descended into.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tiller.errors import ToolError

IGNORED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".hypothesis",
        ".eggs",
        ".idea",
        ".gradle",
        ".next",
        ".terraform",
    }
)


@dataclass(slots=True, frozen=True)
class Entry:
    path: Path  # absolute (not resolved: a link is itself)
    relative: str  # from the directory walked, POSIX
    is_dir: bool
    is_link: bool


def walk(start: Path) -> Iterator[Entry]:
    """Every entry under `start` in sorted order, pruning ignored directories."""
    for directory, dirnames, filenames in os.walk(start, followlinks=False):
        base = Path(directory)
        prefix = base.relative_to(start).as_posix()
        prefix = "" if prefix == "." else prefix + "/"
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS)
        for name in dirnames:
            full = base / name
            yield Entry(full, prefix + name, True, full.is_symlink())
        for name in sorted(filenames):
            full = base / name
            yield Entry(full, prefix + name, False, full.is_symlink())


class Glob:
    """A compiled glob (see the module docstring for its rules)."""

    __slots__ = ("_by_name", "_regex", "pattern")

    def __init__(self, pattern: str) -> None:
        cleaned = pattern.strip()
        while cleaned.startswith("./"):
            cleaned = cleaned[2:]
        if not cleaned:
            cleaned = "*"
        self.pattern = pattern
        self._by_name = "/" not in cleaned.rstrip("/")
        try:
            self._regex = re.compile(_translate(cleaned.rstrip("/")))
        except re.error as exc:
            raise ToolError(f"Invalid glob pattern {pattern!r}: {exc}.") from None

    def matches(self, relative: str) -> bool:
        subject = relative.rsplit("/", 1)[-1] if self._by_name else relative
        return self._regex.fullmatch(subject) is not None


def _translate(glob: str) -> str:
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = glob.find("]", i + 2)
            if end == -1:
                out.append(re.escape(c))
                i += 1
            else:
                body = glob[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end + 1
        elif c == "{":
            end = glob.find("}", i)
            if end == -1:
                out.append(re.escape(c))
                i += 1
            else:
                options = glob[i + 1 : end].split(",")
                out.append("(?:" + "|".join(_translate(o) for o in options) + ")")
                i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)
