"""`search`: a regular expression over the text files of the workspace, capped results.

Patterns run on a linear-time engine (see `line_matcher`): no pattern can stall a
search, and a cancelled search stops at the next file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

from pydantic import Field

from tiller.errors import ToolError
from tiller.tools.base import ToolContext
from tiller.tools.builtin.file_access import BINARY_SNIFF_BYTES, looks_binary
from tiller.tools.builtin.line_matcher import LineMatcher
from tiller.tools.builtin.walk import Glob, walk
from tiller.tools.effects import ToolEffect
from tiller.tools.function_tool import FunctionTool
from tiller.tools.workspace import NOFOLLOW, Workspace

MAX_LINE_CHARS = 300


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
        start = self.workspace.resolve(path)
        rel_start = self.workspace.relative(start)
        if not start.exists():
            raise ToolError(f"No file or directory {rel_start!r} in the workspace; try path='.'.")
        only = Glob(glob) if glob else None
        files: Iterator[tuple[Path, str]]
        if start.is_dir():
            prefix = "" if rel_start == "." else rel_start + "/"
            files = (
                (e.path, prefix + e.relative)
                for e in walk(start)
                if not e.is_dir and not e.is_link and (only is None or only.matches(e.relative))
            )
        else:
            files = iter([(start, rel_start)])
        hits: list[str] = []
        skipped = 0
        for file, rel in files:
            if ctx.cancel.cancelled:
                break
            content = self._text(file)
            if content is None:
                skipped += 1
                continue
            for number, line in matcher.matching_lines(content):
                if len(hits) == self.max_results:
                    return self._report(hits, pattern, skipped, capped=True)
                hits.append(f"{rel}:{number}: {_clip(line)}")
        return self._report(hits, pattern, skipped, capped=False)

    def _text(self, file: Path) -> str | None:
        """The file's text, or None when it is too big, binary or unreadable."""
        try:
            fd = os.open(file, os.O_RDONLY | NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > self.max_file_bytes:
                return None
            data = f.read()
        if looks_binary(data[:BINARY_SNIFF_BYTES]):
            return None
        return data.decode("utf-8", errors="replace")

    def _report(self, hits: list[str], pattern: str, skipped: int, *, capped: bool) -> str:
        text = f"No matches for {pattern!r}." if not hits else "\n".join(hits)
        if capped:
            text += (
                f"\n[Stopped at {self.max_results} matches; narrow the pattern, path or glob "
                "to see the rest.]"
            )
        if skipped:
            text += (
                f"\n[{skipped} files skipped: binary, unreadable or over "
                f"{self.max_file_bytes} bytes.]"
            )
        return text


def _clip(line: str) -> str:
    line = line.rstrip()
    if len(line) > MAX_LINE_CHARS:
        return line[:MAX_LINE_CHARS] + f"… [{len(line) - MAX_LINE_CHARS} more chars]"
    return line
