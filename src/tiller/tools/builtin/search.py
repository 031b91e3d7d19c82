"""`search`: a regular expression over the text files of the workspace, capped results.

Patterns run on a linear-time engine (see `line_matcher`): no pattern can stall a
search, and a cancelled search stops at the next file.

Files are reached the way the other file tools reach them: the path searched is
found by the descriptor walk (`tiller.tools.confined_fs.locate`), its tree is
listed by `walk.walk_open` (each directory opened relative to its parent), and
every file is opened with `O_NOFOLLOW` relative to the descriptor the walk holds
for its directory, so a directory swapped for a symbolic link while the search runs is never
followed out of the workspace. Symbolic links met on the way are not searched.

Only regular files are searched. As `read_file` does, a regular file with more
than one hard link is not read (its other names may lie outside the workspace):
such files are left out of the results, and a note at the end says how many.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Annotated

from pydantic import Field

from tiller.errors import ToolError
from tiller.tools.base import ToolContext
from tiller.tools.builtin.file_access import BINARY_SNIFF_BYTES, FILE_FLAGS, looks_binary
from tiller.tools.builtin.line_matcher import LineMatcher
from tiller.tools.builtin.walk import Glob, walk_open
from tiller.tools.confined_fs import Location, locate
from tiller.tools.effects import ToolEffect
from tiller.tools.file_names import shown_name
from tiller.tools.function_tool import FunctionTool
from tiller.tools.workspace import Workspace

MAX_LINE_CHARS = 300


class _Skipped(Exception):
    """A file that is not searched; `hard_links` when that is why."""

    def __init__(self, *, hard_links: bool = False) -> None:
        self.hard_links = hard_links


class _Capped(Exception):
    """The results reached `max_results`."""


class SearchTool(FunctionTool):
    def __init__(
        self, workspace: Workspace, *, max_results: int = 100, max_file_bytes: int = 4_000_000
    ) -> None:
        self.workspace = workspace
        self.max_results = max_results
        self.max_file_bytes = max_file_bytes
        super().__init__(self.search, effect=ToolEffect.READ)

    def search(
        self,
        pattern: Annotated[
            str,
            Field(
                description="Regular expression to look for (Python syntax without "
                "backreferences or lookaround)."
            ),
        ],
        ctx: ToolContext,
        path: Annotated[
            str, Field(description="File or directory to search, relative to the root.")
        ] = ".",
        glob: Annotated[
            str | None, Field(description="Only files matching this glob, e.g. '*.py'.")
        ] = None,
        ignore_case: bool = False,
    ) -> str:
        """Search the workspace's text files for a regular expression; returns matching lines
        as path:line: text. Skips binary files, .git, node_modules and similar."""
        matcher = LineMatcher(pattern, ignore_case=ignore_case)
        only = Glob(glob) if glob else None
        with locate(self.workspace, path) as location:
            fd = _open_start(location)
        report = _Report(self, pattern)
        try:
            if _is_directory(fd):
                try:
                    self._search_tree(fd, location.rel, matcher, only, ctx, report)
                finally:
                    os.close(fd)
            elif not ctx.cancel.cancelled:
                self._search_file(fd, shown_name(location.rel), matcher, report)
            else:
                os.close(fd)
        except _Capped:
            return report.text(capped=True)
        return report.text(capped=False)

    def _search_tree(
        self,
        fd: int,
        rel: str,
        matcher: LineMatcher,
        only: Glob | None,
        ctx: ToolContext,
        report: _Report,
    ) -> None:
        shown = shown_name(rel)
        prefix = "" if shown == "." else shown + "/"
        for entry in walk_open(fd, self.workspace.root / rel):
            if entry.is_dir or entry.is_link:
                continue
            if only is not None and not only.matches(entry.relative):
                continue
            if ctx.cancel.cancelled:
                return
            try:
                file_fd = os.open(entry.name, FILE_FLAGS, dir_fd=entry.dir_fd)
            except OSError:
                report.skipped += 1  # gone, or swapped for a link or directory meanwhile
                continue
            self._search_file(file_fd, prefix + entry.relative, matcher, report)

    def _search_file(self, fd: int, shown: str, matcher: LineMatcher, report: _Report) -> None:
        """Search the file open as `fd` (closed here), adding its lines to `report`."""
        try:
            content = self._text(fd)
        except _Skipped as skipped:
            if skipped.hard_links:
                report.hard_linked += 1
            else:
                report.skipped += 1
            return
        for number, line in matcher.matching_lines(content):
            report.add(f"{shown}:{number}: {_clip(line)}")

    def _text(self, fd: int) -> str:
        """The text of the file open as `fd` (closed here); `_Skipped` when it is not a
        regular file, has several hard links, is too big, binary or unreadable."""
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise _Skipped
            if info.st_nlink > 1:
                raise _Skipped(hard_links=True)
            if info.st_size > self.max_file_bytes:
                raise _Skipped
            try:
                data = f.read()
            except OSError:
                raise _Skipped from None
        if looks_binary(data[:BINARY_SNIFF_BYTES]):
            raise _Skipped
        return data.decode("utf-8", errors="replace")


class _Report:
    """The lines found so far and the files left out, as the search returns them."""

    __slots__ = ("hard_linked", "hits", "pattern", "skipped", "tool")

    def __init__(self, tool: SearchTool, pattern: str) -> None:
        self.tool = tool
        self.pattern = pattern
        self.hits: list[str] = []
        self.skipped = 0
        self.hard_linked = 0

    def add(self, hit: str) -> None:
        if len(self.hits) == self.tool.max_results:
            raise _Capped
        self.hits.append(hit)

    def text(self, *, capped: bool) -> str:
        text = f"No matches for {self.pattern!r}." if not self.hits else "\n".join(self.hits)
        if capped:
            text += (
                f"\n[Stopped at {self.tool.max_results} matches; narrow the pattern, path or "
                "glob to see the rest.]"
            )
        if self.skipped:
            text += (
                f"\n[{self.skipped} files skipped: binary, unreadable or over "
                f"{self.tool.max_file_bytes} bytes.]"
            )
        if self.hard_linked:
            text += (
                f"\n[{self.hard_linked} files not searched: they have more than one hard link, "
                "so they may also be reachable outside the workspace.]"
            )
        return text


def _open_start(location: Location) -> int:
    """A descriptor of the file or directory to search (the caller closes it)."""
    missing = f"No file or directory {location.shown} in the workspace; try path='.'."
    if location.missing:
        raise ToolError(missing)
    if location.name is None:
        return os.dup(location.dir_fd)
    try:
        return os.open(location.name, FILE_FLAGS, dir_fd=location.dir_fd)
    except FileNotFoundError:
        raise ToolError(missing) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ToolError(
                f"{location.shown} changed into a symbolic link while being opened; check it "
                "and try again."
            ) from None
        raise ToolError(f"Cannot search {location.shown}: {exc.strerror}.") from None


def _is_directory(fd: int) -> bool:
    try:
        return stat.S_ISDIR(os.fstat(fd).st_mode)
    except BaseException:
        os.close(fd)
        raise


def _clip(line: str) -> str:
    line = line.rstrip()
    if len(line) > MAX_LINE_CHARS:
        return line[:MAX_LINE_CHARS] + f"… [{len(line) - MAX_LINE_CHARS} more chars]"
    return line
