"""`Workspace`: the directory built-in tools are confined to.

Every path a model or user gives goes through `Workspace.resolve`, which walks
it one component at a time from the root, resolving each symbolic link as it
meets it and refusing, never following, anything that leaves the root: `..`
above the root, an absolute path elsewhere, a symlink (file or parent
directory) whose target is outside. The result is the real path (no symlinks
left), so callers open what was checked; opening it with `NOFOLLOW` means a
link swapped in afterwards as the last component is not followed either.
"""

from __future__ import annotations

import os
from pathlib import Path

from tiller.errors import ConfigError, ToolError


class WorkspaceError(ToolError):
    """A path the workspace refuses; the message says why and what to give instead."""


class Workspace:
    """A root directory and the rules for paths inside it."""

    __slots__ = ("_given", "root")

    def __init__(self, root: str | os.PathLike[str]) -> None:
        given = Path(root).expanduser()
        if not given.is_dir():
            raise ConfigError(
                f"workspace {str(given)!r} is not a directory; create it or pick another"
            )
        self._given = given.absolute()
        self.root = given.resolve(strict=True)

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """The real location of `path` (relative to the root, or absolute inside it).

        Raises `WorkspaceError` when it would leave the workspace. The path need
        not exist; whatever part of it exists is resolved.
        """
        text = os.fspath(path)
        if "\0" in text:
            raise WorkspaceError(f"Path {text!r} contains a NUL character; give a plain file path.")
        if text.startswith("~"):
            raise WorkspaceError(
                f"Path {text!r} is home-relative ('~' is not expanded). Give a path relative "
                f"to the workspace root ({self.root}), e.g. 'notes.txt'."
            )
        relative = self._relative_part(text)
        current = self.root
        walked: list[str] = []
        for part in relative.parts:
            walked.append(part)
            if part == ".":
                continue
            if part == "..":
                if current == self.root:
                    raise WorkspaceError(
                        f"Path {text!r} leaves the workspace with '..' (the root is "
                        f"{self.root}). Give a path inside the workspace, relative to its root."
                    )
                current = current.parent
                continue
            candidate = current / part
            if candidate.is_symlink():
                target = Path(os.path.realpath(candidate))
                if not self.contains(target):
                    link = "/".join(walked)
                    raise WorkspaceError(
                        f"Path {text!r} goes through the symbolic link {link!r}, which points "
                        f"outside the workspace (to {target}). Links out of the workspace are "
                        "not followed; use a path whose files are inside the workspace."
                    )
                current = target
            else:
                current = candidate
        return current

    def contains(self, path: Path) -> bool:
        """Whether the absolute, resolved `path` is the root or below it."""
        return path == self.root or self.root in path.parents

    def relative(self, path: Path) -> str:
        """`path` (inside the workspace) as the model should write it: POSIX, from the root."""
        if path == self.root:
            return "."
        return path.relative_to(self.root).as_posix()

    def _relative_part(self, text: str) -> Path:
        given = Path(text or ".")
        if not given.is_absolute():
            return given
        for base in (self.root, self._given):
            try:
                return given.relative_to(base)
            except ValueError:
                continue
        raise WorkspaceError(
            f"Path {text!r} is outside the workspace ({self.root}). Give a path relative to "
            "the workspace root, e.g. 'src/main.py'."
        )


# Open flags for a path returned by `resolve`: the last component must not be a link
# swapped in after the check.
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
