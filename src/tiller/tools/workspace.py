"""`Workspace`: the directory built-in tools are confined to.

The rules for a path: relative to the root (or absolute inside it); `..` never
above the root; symbolic links followed only while they stay inside. Tools
apply them with `tiller.tools.confined_fs.locate`, which walks the path with
directory descriptors, so what is opened is what was checked, also while the
tree changes underneath. `Workspace.resolve` applies the same walk and gives
back the real path, for messages and for code that needs a path.

Names are shown to a model with `tiller.tools.file_names.shown_name` (a byte
that is not UTF-8 as `\\xe9`) and read back the same way.
"""

from __future__ import annotations

import os
from pathlib import Path

from tiller.errors import ConfigError
from tiller.tools.confined_fs import WorkspaceError, locate
from tiller.tools.file_names import shown_name


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
        not exist; whatever part of it exists is resolved. The answer describes
        the tree as it was: to act on a file, use `confined_fs.locate`, which
        holds the directories open.
        """
        with locate(self, os.fspath(path)) as entry:
            return self.root / entry.rel

    def contains(self, path: Path) -> bool:
        """Whether the absolute, resolved `path` is the root or below it."""
        return path == self.root or self.root in path.parents

    def relative(self, path: Path) -> str:
        """`path` (inside the workspace) as the model should write it: POSIX, from the root,
        with bytes that are not UTF-8 escaped (see `tiller.tools.file_names`)."""
        if path == self.root:
            return "."
        return shown_name(path.relative_to(self.root).as_posix())

    def parts_inside(self, text: str) -> list[str]:
        """The components of `text` relative to the root (`..` kept as given); an
        absolute path elsewhere raises `WorkspaceError`."""
        if not text.startswith("/"):
            return text.split("/")
        parts = self.parts_below_root(text)
        if parts is None:
            raise WorkspaceError(
                f"Path '{shown_name(text)}' is outside the workspace "
                f"({shown_name(str(self.root))}). Give a path relative to the workspace root, "
                "e.g. 'src/main.py'."
            )
        return parts

    def parts_below_root(self, absolute: str) -> list[str] | None:
        """The components of the `absolute` path relative to the root (lexically, by either
        the root's real name or the name it was given), or None when it is elsewhere."""
        given = Path(absolute)
        for base in (self.root, self._given):
            try:
                return list(given.relative_to(base).parts)
            except ValueError:
                continue
        return None


# Open flag for a path returned by `resolve`: the last component must not be a link
# swapped in after the check (tools use `confined_fs.locate` instead).
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

__all__ = ["NOFOLLOW", "Workspace", "WorkspaceError"]
