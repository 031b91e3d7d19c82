"""Reaching paths inside a workspace through directory descriptors only.

`locate(workspace, path)` opens the workspace root, then every directory on
the path relative to the descriptor of the one before it, with `O_NOFOLLOW |
O_DIRECTORY` (as `openat` users do). Nothing is checked first and opened
later: the descriptor held is the directory the rules were applied to, so a
directory swapped for a symbolic link halfway through is never followed out.

Symbolic links are followed by this walk itself, one at a time: it reads the
link relative to the directory that holds it and walks the target's components
the same way, so a link inside the workspace that points inside works, and one
whose target leaves it (an absolute path elsewhere, or a `..` above the root)
is refused, as is `..` above the root in the path itself. `..` is physical: it
goes back to the directory the walk came from. A chain of more than
`MAX_LINK_HOPS` links is refused.

Names are read with `tiller.tools.file_names.name_from_shown`, so a name
shown to a model with escapes reaches the real file. The result is a `Location`:
the descriptor of the directory that holds the entry, and the entry's name in
it, for `openat`-style calls (`os.open(name, ..., dir_fd=location.dir_fd)`).

What this guards against is change inside the workspace: a command the agent
ran, or anyone else who can write there, renaming and linking while a tool
works. The root itself (opened by its real path) and the directories above it
are trusted, as moving a directory out of the workspace needs write access
outside it.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from tiller.errors import ToolError
from tiller.tools.file_names import name_from_shown, quoted, shown_name


class Root(Protocol):
    """What a walk needs of its workspace (`tiller.tools.workspace.Workspace` is one)."""

    @property
    def root(self) -> Path: ...

    def parts_inside(self, text: str) -> list[str]: ...

    def parts_below_root(self, absolute: str) -> list[str] | None: ...


MAX_LINK_HOPS = 40
DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class WorkspaceError(ToolError):
    """A path the workspace refuses; the message says why and what to give instead."""


@dataclass(slots=True, frozen=True)
class Location:
    """Where a path leads: a directory held open, and a name in it.

    `name` is None when the path is that directory itself. `missing` lists the
    directories between `dir_fd` and `name` that do not exist (a write creates
    them); when it is not empty, `name` does not exist either.
    """

    dir_fd: int
    name: str | None
    rel: str  # the path from the root (real names, '.' for the root)
    missing: tuple[str, ...] = ()

    @property
    def shown(self) -> str:
        """The path in quotes, as a model should write it."""
        return quoted(self.rel)


@dataclass(slots=True, frozen=True)
class _Link:
    rel: str  # the link's own path from the root
    target: str  # where it points, for messages


@contextmanager
def locate(workspace: Root, path: str, *, follow_last: bool = True) -> Iterator[Location]:
    """The `Location` that `path` (relative to the root, or absolute inside it) leads to.

    A symbolic link as the last component is followed too (unless not
    `follow_last`), so the entry is never a link the walk has seen. Raises
    `WorkspaceError` for a path that leaves the workspace and `ToolError` when a
    directory on the way is a file. The descriptors are closed when the block ends.
    """
    walk = _Walk(workspace, path, follow_last)
    try:
        yield walk.run()
    finally:
        walk.close()


def open_directory(entry: Location) -> int:
    """A new descriptor of the directory `entry` names (the caller closes it)."""
    if entry.missing:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT))
    if entry.name is None:
        return os.dup(entry.dir_fd)
    return os.open(entry.name, DIRECTORY_FLAGS, dir_fd=entry.dir_fd)


def make_directories(entry: Location) -> int:
    """Create `entry.missing` one by one (each relative to its parent's descriptor) and
    return a new descriptor of the last, which is where `entry.name` goes."""
    fd = os.dup(entry.dir_fd)
    try:
        for name in entry.missing:
            # Made meanwhile: opened below as any directory, never through a link.
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o777, dir_fd=fd)
            try:
                child = os.open(name, DIRECTORY_FLAGS, dir_fd=fd)
            except OSError:
                raise ToolError(
                    f"{quoted(name)} changed while its directory was being made (it is not a "
                    "plain directory now); try again."
                ) from None
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


class _Walk:
    """One walk from the root along a path; holds a descriptor per directory entered."""

    __slots__ = ("fds", "follow_last", "hops", "names", "text", "todo", "workspace")

    def __init__(self, workspace: Root, given: str, follow_last: bool) -> None:
        self.workspace = workspace
        self.follow_last = follow_last
        self.text = name_from_shown(given)
        self._check_text()
        parts = workspace.parts_inside(self.text)
        # A stack, next component last; each with the link whose target it comes from.
        self.todo: list[tuple[str, _Link | None]] = [(p, None) for p in reversed(parts)]
        self.names: list[str] = []
        self.hops = 0
        try:
            self.fds = [os.open(workspace.root, DIRECTORY_FLAGS)]
        except OSError as exc:
            raise ToolError(
                f"The workspace directory {workspace.root} cannot be opened ({exc.strerror}); "
                "it may have been removed."
            ) from None

    def close(self) -> None:
        while self.fds:
            os.close(self.fds.pop())

    def run(self) -> Location:
        while self.todo:
            part, link = self.todo.pop()
            if part in ("", "."):
                continue
            if part == "..":
                self._up(link)
            elif self._is_last():
                if not (self.follow_last and self._follow(part)):
                    return Location(self.fds[-1], part, self._rel(part))
            else:
                beneath = self._enter(part)
                if beneath is not None:
                    return beneath
        return Location(self.fds[-1], None, self._rel())

    def _is_last(self) -> bool:
        # A trailing '/' leaves an empty part; a trailing '.' asks for the directory itself.
        return all(part == "" for part, _ in self.todo)

    def _enter(self, name: str) -> Location | None:
        """Step into the directory `name`, or queue its target when it is a link; when it
        does not exist, the entry the rest of the path names beneath it."""
        try:
            fd = os.open(name, DIRECTORY_FLAGS, dir_fd=self.fds[-1])
        except FileNotFoundError:
            return self._missing(name)
        except OSError as exc:
            if exc.errno in (errno.ENOTDIR, errno.ELOOP) and self._follow(name):
                return None
            if exc.errno == errno.ENOTDIR:
                raise ToolError(
                    f"Path {quoted(self.text)} goes through {quoted(self._rel(name))}, which "
                    "is a file, not a directory. Check the path with list_files."
                ) from None
            raise ToolError(
                f"Cannot open the directory {quoted(self._rel(name))}: {exc.strerror}."
            ) from None
        self.fds.append(fd)
        self.names.append(name)
        return None

    def _missing(self, name: str) -> Location | None:
        """The rest of the path beneath the missing directory `name`, taken lexically
        (nothing beneath it exists, so nothing there is a link); None when a `..` comes
        back out of it and the walk goes on."""
        pending = [name]
        while self.todo:
            part, _link = self.todo.pop()
            if part in ("", "."):
                continue
            if part == "..":
                pending.pop()
                if not pending:
                    return None
                continue
            pending.append(part)
        return Location(self.fds[-1], pending[-1], self._rel(*pending), missing=tuple(pending[:-1]))

    def _up(self, link: _Link | None) -> None:
        if len(self.fds) == 1:
            if link is not None:
                raise self._link_out(link)
            raise WorkspaceError(
                f"Path {quoted(self.text)} leaves the workspace with '..' (the root is "
                f"{shown_name(str(self.workspace.root))}). Give a path inside the workspace, "
                "relative to its root."
            )
        os.close(self.fds.pop())
        self.names.pop()

    def _follow(self, name: str) -> bool:
        """When `name` is a symbolic link, queue its target's components and return True."""
        try:
            target = os.readlink(name, dir_fd=self.fds[-1])
        except OSError as exc:
            if exc.errno in (errno.EINVAL, errno.ENOENT):
                return False  # not a link (or gone): the caller treats it as it is
            raise ToolError(
                f"Cannot read the link {quoted(self._rel(name))}: {exc.strerror}."
            ) from None
        self.hops += 1
        here = Path(self.workspace.root, *self.names)
        link = _Link(self._rel(name), os.path.normpath(here / target))
        if self.hops > MAX_LINK_HOPS:
            raise ToolError(
                f"Path {quoted(self.text)} goes through more than {MAX_LINK_HOPS} symbolic "
                f"links (the last was {quoted(link.rel)}); they may form a loop. Give the "
                "path of a file directly."
            )
        if os.path.isabs(target):
            parts = self.workspace.parts_below_root(target)
            if parts is None:
                raise self._link_out(link)
            while len(self.fds) > 1:
                os.close(self.fds.pop())
            self.names.clear()
        else:
            parts = target.split("/")
        self.todo.extend((p, link) for p in reversed(parts))
        return True

    def _link_out(self, link: _Link) -> WorkspaceError:
        return WorkspaceError(
            f"Path {quoted(self.text)} goes through the symbolic link {quoted(link.rel)}, which "
            f"points outside the workspace (to {shown_name(link.target)}). Links out of the "
            "workspace are not followed; use a path whose files are inside the workspace."
        )

    def _rel(self, *more: str) -> str:
        return "/".join([*self.names, *more]) or "."

    def _check_text(self) -> None:
        if "\0" in self.text:
            raise WorkspaceError(
                f"Path {quoted(self.text)} contains a NUL character; give a plain file path."
            )
        try:
            os.fsencode(self.text)
        except UnicodeEncodeError:
            raise WorkspaceError(
                f"Path {quoted(self.text)} contains characters that cannot be part of a file "
                "name (unpaired surrogates); give the path as list_files shows it."
            ) from None
        if self.text.startswith("~"):
            raise WorkspaceError(
                f"Path {quoted(self.text)} is home-relative ('~' is not expanded). Give a path "
                f"relative to the workspace root ({shown_name(str(self.workspace.root))}), "
                "e.g. 'notes.txt'."
            )
