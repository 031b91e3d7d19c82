"""`read_file`, `write_file` and `list_files`: files in the workspace."""

from __future__ import annotations

import asyncio
import errno
import os
import stat
from typing import Annotated, Any, BinaryIO

from pydantic import Field

from tiller.errors import ToolError
from tiller.messages import TextContent, ToolResult
from tiller.tools.builtin.file_access import (
    BINARY_SNIFF_BYTES,
    exists,
    file_rollback,
    line_count,
    lines_text,
    looks_binary,
    open_regular,
    read_bytes,
    size_text,
    unified_diff,
    utf8,
    write_atomically,
)
from tiller.tools.builtin.walk import Entry, Glob, walk_open
from tiller.tools.confined_fs import Location, WorkspaceError, locate, open_directory
from tiller.tools.effects import ToolEffect
from tiller.tools.file_names import shown_name
from tiller.tools.function_tool import FunctionTool
from tiller.tools.rollback import Rollback
from tiller.tools.workspace import Workspace

PathArg = Annotated[str, Field(description="File path relative to the workspace root.")]


class ReadFileTool(FunctionTool):
    """Reads text files, a range of lines at a time, within a size cap."""

    def __init__(self, workspace: Workspace, *, max_lines: int = 2000, max_bytes: int = 64_000):
        self.workspace = workspace
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        super().__init__(self.read_file, effect=ToolEffect.READ)

    def read_file(
        self,
        path: PathArg,
        start_line: Annotated[int, Field(ge=1, description="First line to read (1-based).")] = 1,
        end_line: Annotated[
            int | None, Field(ge=1, description="Last line to read (inclusive); omit for the end.")
        ] = None,
    ) -> str:
        """Read a text file in the workspace, optionally only lines start_line..end_line.

        Long files are cut at a size limit with a note saying how to read on.
        """
        if end_line is not None and end_line < start_line:
            raise ToolError(f"end_line ({end_line}) is before start_line ({start_line}).")
        with locate(self.workspace, path) as location:
            fd = open_regular(location)
        shown = location.shown
        with os.fdopen(fd, "rb") as f:
            head = f.read(BINARY_SNIFF_BYTES)
            if looks_binary(head):
                size = os.fstat(f.fileno()).st_size
                raise ToolError(
                    f"{shown} looks like a binary file ({size_text(size)}, contains NUL "
                    "bytes); read_file only reads text. Use the shell tool (e.g. `file`, "
                    "`xxd | head`) if you need to inspect it."
                )
            f.seek(0)
            return self._read_lines(f, shown, start_line, end_line)

    def _read_lines(self, f: BinaryIO, shown: str, start: int, end: int | None) -> str:
        limit = self.max_bytes
        kept: list[bytes] = []
        used = 0
        number = 0  # lines consumed so far
        shown_to: int | None = None  # the last line shown when the cap stopped reading
        long_line = False
        while raw := f.readline(limit + 1):
            long_line = len(raw) > limit
            if long_line and not raw.endswith(b"\n"):
                _skip_rest_of_line(f)
            number += 1
            if number < start:
                continue
            if end is not None and number > end:
                break
            if long_line or len(kept) >= self.max_lines or used + len(raw) > limit:
                if kept:
                    shown_to = number - 1
                    long_line = False
                else:  # one line longer than the cap: show its beginning
                    kept.append(raw[:limit])
                    shown_to = number
                break
            kept.append(raw)
            used += len(raw)
        total = number + _remaining_lines(f)
        if total == 0:
            return "(empty file)"
        if start > total:
            raise ToolError(f"start_line {start} is past the end of {shown} ({total} lines).")
        data = b"".join(kept)
        text = data.decode("utf-8", errors="replace")
        notes: list[str] = []
        if "\ufffd" in text and "\ufffd".encode() not in data:
            notes.append("Not valid UTF-8: undecodable bytes are shown as \ufffd.")
        if shown_to is not None and long_line:
            notes.append(
                f"Line {shown_to} is longer than the read_file limit ({limit} bytes): showed "
                f"its first {limit} bytes. Lines {shown_to + 1}-{total} follow "
                f"(start_line={shown_to + 1}); use the shell tool to see the rest of this line."
                if shown_to < total
                else f"Line {shown_to} is longer than the read_file limit ({limit} bytes): "
                f"showed its first {limit} bytes; use the shell tool to see the rest."
            )
        elif shown_to is not None:
            notes.append(
                f"Output cut at the read_file limit ({self.max_lines} lines / {limit} bytes): "
                f"showed lines {start}-{shown_to} of {total}. Call read_file with "
                f"start_line={shown_to + 1} to read on."
            )
        elif start > 1 or (end is not None and end < total):
            notes.append(f"Showed lines {start}-{min(end or total, total)} of {total}.")
        if notes:
            text = text.rstrip("\n") + "\n\n" + "\n".join(f"[{n}]" for n in notes)
        return text


def _skip_rest_of_line(f: BinaryIO) -> None:
    while chunk := f.readline(1 << 20):
        if chunk.endswith(b"\n"):
            return


def _remaining_lines(f: BinaryIO) -> int:
    count = 0
    last = b""
    while block := f.read(1 << 20):
        count += block.count(b"\n")
        last = block[-1:]
    return count + (1 if last and last != b"\n" else 0)


class WriteFileTool(FunctionTool):
    """Creates or replaces a file; supports dry-run and rollback."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        super().__init__(self.write_file, effect=ToolEffect.WRITE_LOCAL)

    def write_file(
        self,
        path: PathArg,
        content: Annotated[str, Field(description="The complete new content of the file.")],
    ) -> str:
        """Create a file in the workspace, or replace its whole content. Creates parent
        directories as needed. To change part of a file, use edit_file."""
        data = utf8(content, "content")
        with locate(self.workspace, path) as location:
            existed = write_atomically(location, data)
        what = "replaced the previous content" if existed else "new file"
        return (
            f"Wrote {size_text(len(data))} ({lines_text(line_count(content))}) to "
            f"{location.shown} ({what})."
        )

    async def dry_run(self, arguments: dict[str, Any]) -> ToolResult:
        kwargs = self.validate(arguments)
        text = await asyncio.to_thread(self._describe, kwargs["path"], kwargs["content"])
        return ToolResult([TextContent(text)])

    def _describe(self, path: str, content: str) -> str:
        new_size = size_text(len(utf8(content, "content")))
        with locate(self.workspace, path) as location:
            shown = location.shown
            if not exists(location):
                return f"Would create {shown} ({new_size}, {lines_text(line_count(content))})."
            links = _hard_links(location)
            if links > 1:
                return (
                    f"Would replace {shown} with {new_size} of text (its previous content is "
                    f"not shown: it has {links} hard links, so it may belong to a file outside "
                    "the workspace)."
                )
            before = read_bytes(location)
        if looks_binary(before[:BINARY_SNIFF_BYTES]):
            return f"Would replace the binary file {shown} ({size_text(len(before))}) with text."
        old = before.decode("utf-8", errors="replace")
        if old == content:
            return f"Would leave {shown} unchanged (same content)."
        return (
            f"Would replace {shown} ({lines_text(line_count(old))} -> "
            f"{lines_text(line_count(content))}):\n"
            + unified_diff(shown_name(location.rel), old, content)
        )

    async def prepare_rollback(self, arguments: dict[str, Any]) -> Rollback:
        kwargs = self.validate(arguments)
        return await asyncio.to_thread(file_rollback, self.workspace, kwargs["path"])


class ListFilesTool(FunctionTool):
    """Lists files by glob, skipping `.git`, `node_modules`, `__pycache__`, `.venv` and the like."""

    def __init__(self, workspace: Workspace, *, max_entries: int = 500) -> None:
        self.workspace = workspace
        self.max_entries = max_entries
        super().__init__(self.list_files, effect=ToolEffect.READ)

    def list_files(
        self,
        pattern: Annotated[
            str,
            Field(
                description="Glob: '*.py' matches names at any depth, 'src/*.py' paths from "
                "`path`; '**' spans directories, '{a,b}' alternatives. Default: everything."
            ),
        ] = "*",
        path: Annotated[str, Field(description="Directory to list, relative to the root.")] = ".",
    ) -> str:
        """List files and directories (directories end with '/') in the workspace that match
        a glob. Skips .git, node_modules, __pycache__, .venv and similar."""
        glob = Glob(pattern)
        with locate(self.workspace, path) as location:
            fd = _open_listed(location)
        rel_start = shown_name(location.rel)
        prefix = "" if rel_start == "." else rel_start + "/"
        shown: list[str] = []
        total = 0
        try:
            for entry in walk_open(fd, self.workspace.root / location.rel):
                if not glob.matches(entry.relative):
                    continue
                total += 1
                if len(shown) < self.max_entries:
                    shown.append(self._line(prefix + entry.relative, entry))
        finally:
            os.close(fd)
        if not shown:
            return f"No entries match {pattern!r} under {location.shown}."
        if total > len(shown):
            shown.append(
                f"[... {total - len(shown)} more entries not shown; narrow the pattern or path.]"
            )
        return "\n".join(shown)

    def _line(self, rel: str, entry: Entry) -> str:
        """`rel` as listed: a directory ends with '/', a link shows where it leads."""
        if not entry.is_link:
            return rel + ("/" if entry.is_dir else "")
        try:
            with locate(self.workspace, rel) as target:
                is_dir = target.name is None or _is_directory(target)
                where = shown_name(target.rel)
        except WorkspaceError:
            return rel + " -> (outside the workspace; not readable)"
        except ToolError:
            return rel + " -> (not followed: a loop of links, or unreadable)"
        return rel + ("/" if is_dir else "") + f" -> {where}"


def _open_listed(location: Location) -> int:
    """A descriptor of the directory to list, or a `ToolError` saying why there is none."""
    try:
        return open_directory(location)
    except OSError as exc:
        if exc.errno in (errno.ENOTDIR, errno.ELOOP) and exists(location):
            raise ToolError(
                f"{location.shown} is a file, not a directory; read it with read_file."
            ) from None
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise ToolError(
                f"No directory {location.shown} in the workspace; try path='.'."
            ) from None
        raise ToolError(f"Cannot list {location.shown}: {exc.strerror}.") from None


def _is_directory(location: Location) -> bool:
    if location.missing or location.name is None:
        return location.name is None
    try:
        info = os.stat(location.name, dir_fd=location.dir_fd, follow_symlinks=False)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode)


def _hard_links(location: Location) -> int:
    """How many names the regular file at `location` has (1 when not a regular file)."""
    if location.missing or location.name is None:
        return 1
    try:
        info = os.stat(location.name, dir_fd=location.dir_fd, follow_symlinks=False)
    except OSError:
        return 1
    return info.st_nlink if stat.S_ISREG(info.st_mode) else 1
