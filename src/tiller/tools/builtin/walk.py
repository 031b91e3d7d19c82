"""Walking a workspace directory (skipping `.git`, `node_modules` and the like) and globs.

The walk holds a descriptor of each directory it lists and opens every
subdirectory relative to it with `O_NOFOLLOW | O_DIRECTORY`, so a directory
swapped for a symbolic link while it runs is never entered. Symbolic links are
listed but never descended into. Names are given as a model should see them
(`tiller.tools.file_names.shown_name`: bytes that are not UTF-8 escaped).

Glob rules, as a model expects them: `*` and `?` stay within one path
component, `**` spans any number of them, `[abc]` is a class, `{a,b}` an
alternative. A pattern without `/` matches a name at any depth (`*.py`); one
with `/` matches the whole path from the directory searched (`src/*.py`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tiller.errors import ToolError
from tiller.tools.confined_fs import DIRECTORY_FLAGS
from tiller.tools.file_names import is_writing_name, shown_name

# Deeper directories are not listed: past this a tree is generated or hostile, and each
# level holds a descriptor open.
MAX_DEPTH = 64

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
    path: Path  # absolute, real names (not resolved: a link is itself)
    relative: str  # from the directory walked, POSIX, as shown to a model
    is_dir: bool  # a directory itself (a link to one is not)
    is_link: bool
    name: str  # the real name in its directory
    dir_fd: int  # that directory's descriptor: open only until the walk moves on


def walk(start: Path) -> Iterator[Entry]:
    """Every entry under the directory `start` in sorted order, pruning ignored
    directories: per directory, its subdirectories, then its other entries, then
    what is in each subdirectory."""
    try:
        fd = os.open(start, DIRECTORY_FLAGS)
    except OSError:
        return
    try:
        yield from walk_open(fd, start)
    finally:
        os.close(fd)


def walk_open(dir_fd: int, start: Path) -> Iterator[Entry]:
    """`walk` of the directory open as `dir_fd` (whose path is `start`); `dir_fd` stays open."""
    yield from _walk(dir_fd, start, ())


def _walk(fd: int, start: Path, parts: tuple[str, ...]) -> Iterator[Entry]:
    try:
        with os.scandir(fd) as listing:
            found = [(e.name, _is_dir(e), e.is_symlink()) for e in listing]
    except OSError:
        return
    found.sort()
    dirs = [name for name, is_dir, _ in found if is_dir and name not in IGNORED_DIRS]
    for name in dirs:
        yield _entry(start, (*parts, name), True, False, fd)
    for name, is_dir, is_link in found:
        if not is_dir and not is_writing_name(name):  # a write of ours under way
            yield _entry(start, (*parts, name), False, is_link, fd)
    if len(parts) >= MAX_DEPTH:
        return
    for name in dirs:
        try:
            child = os.open(name, DIRECTORY_FLAGS, dir_fd=fd)
        except OSError:
            continue  # gone, or no longer a directory (never followed when now a link)
        try:
            yield from _walk(child, start, (*parts, name))
        finally:
            os.close(child)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _entry(start: Path, parts: tuple[str, ...], is_dir: bool, is_link: bool, fd: int) -> Entry:
    relative = shown_name("/".join(parts))
    return Entry(start.joinpath(*parts), relative, is_dir, is_link, parts[-1], fd)


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
