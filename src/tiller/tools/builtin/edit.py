"""`edit_file`: replace an exact piece of text in a file; supports dry-run and rollback.

The match must be exact and (unless `replace_all`) unique. When it is not, the
error says how many matches there were and shows the lines around them, or the
lines that come closest, so the model can fix `old_text` and try again.
"""

from __future__ import annotations

import asyncio
import difflib
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field

from tiller.errors import ToolError
from tiller.messages import TextContent, ToolResult
from tiller.tools.builtin.file_access import (
    file_rollback,
    read_text_for_edit,
    unified_diff,
    utf8,
    write_atomically,
)
from tiller.tools.confined_fs import Location, locate
from tiller.tools.effects import ToolEffect
from tiller.tools.file_names import shown_name
from tiller.tools.function_tool import FunctionTool
from tiller.tools.rollback import Rollback
from tiller.tools.workspace import Workspace

MAX_MATCHES_SHOWN = 3
CONTEXT_LINES = 2


@dataclass(slots=True, frozen=True)
class PlannedEdit:
    path: str  # the file's path as the model should write it
    before: str
    after: str
    count: int
    lines: list[int]  # 1-based first line of each replaced match


class EditFileTool(FunctionTool):
    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        super().__init__(self.edit_file, effect=ToolEffect.WRITE_LOCAL)

    def edit_file(
        self,
        path: Annotated[str, Field(description="File path relative to the workspace root.")],
        old_text: Annotated[
            str,
            Field(
                description="Exact text to replace, including whitespace and indentation; "
                "include enough surrounding lines to match exactly once."
            ),
        ],
        new_text: Annotated[str, Field(description="The text to put in its place.")],
        replace_all: Annotated[
            bool, Field(description="Replace every match instead of requiring exactly one.")
        ] = False,
    ) -> str:
        """Edit a text file in the workspace by replacing old_text with new_text.

        old_text must match the file exactly and only once (or set replace_all).
        Read the file first to copy the text exactly.
        """
        with locate(self.workspace, path) as location:
            plan = self._plan(location, old_text, new_text, replace_all)
            write_atomically(location, plan.after.encode("utf-8"))
        where = ", ".join(str(n) for n in plan.lines[:10])
        times = "1 match" if plan.count == 1 else f"{plan.count} matches"
        return f"Edited '{plan.path}': replaced {times} (at line {where}).\n" + _excerpt(
            plan.after, plan.lines[0], new_text
        )

    async def dry_run(self, arguments: dict[str, Any]) -> ToolResult:
        kwargs = self.validate(arguments)
        plan = await asyncio.to_thread(self._plan_path, **kwargs)
        times = "1 match" if plan.count == 1 else f"{plan.count} matches"
        text = f"Would edit '{plan.path}', replacing {times}:\n" + unified_diff(
            plan.path, plan.before, plan.after
        )
        return ToolResult([TextContent(text)])

    async def prepare_rollback(self, arguments: dict[str, Any]) -> Rollback:
        kwargs = self.validate(arguments)
        return await asyncio.to_thread(file_rollback, self.workspace, kwargs["path"])

    def _plan_path(
        self, path: str, old_text: str, new_text: str, replace_all: bool = False
    ) -> PlannedEdit:
        with locate(self.workspace, path) as location:
            return self._plan(location, old_text, new_text, replace_all)

    def _plan(
        self, location: Location, old_text: str, new_text: str, replace_all: bool
    ) -> PlannedEdit:
        rel = location.shown
        text = read_text_for_edit(location)
        utf8(new_text, "new_text")
        if not old_text:
            raise ToolError(
                "old_text is empty. Give the exact text to replace (to create or "
                "overwrite a whole file, use write_file)."
            )
        if old_text == new_text:
            raise ToolError("old_text and new_text are the same; there is nothing to change.")
        count = text.count(old_text)
        if count == 0 and "\r\n" in text and "\r\n" not in old_text:
            # The model writes "\n"; the file uses Windows line endings: match those.
            crlf_old = old_text.replace("\n", "\r\n")
            if text.count(crlf_old):
                old_text, new_text = crlf_old, new_text.replace("\n", "\r\n")
                count = text.count(old_text)
        if count == 0:
            raise ToolError(_not_found(rel, text, old_text))
        starts = _match_lines(text, old_text)
        if count > 1 and not replace_all:
            raise ToolError(_ambiguous(rel, text, starts))
        after = text.replace(old_text, new_text, -1 if replace_all else 1)
        return PlannedEdit(
            shown_name(location.rel), text, after, count if replace_all else 1, starts
        )


def _match_lines(text: str, old: str) -> list[int]:
    lines: list[int] = []
    index = text.find(old)
    while index != -1:
        lines.append(text.count("\n", 0, index) + 1)
        index = text.find(old, index + len(old))
    return lines


def _file_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # the final newline ends the last line; it does not start one
    return lines


def _numbered(lines: list[str], around: list[int], before: int, after: int) -> str:
    """The lines around each of `around` (1-based), numbered, those themselves marked `>`,
    overlapping stretches merged and gaps shown as `...`."""
    shown: set[int] = set()
    for n in around:
        shown.update(range(max(n - before, 1), min(n + after, len(lines)) + 1))
    width = len(str(max(shown, default=1)))
    out: list[str] = []
    previous = 0
    for n in sorted(shown):
        if previous and n != previous + 1:
            out.append("...")
        mark = ">" if n in around else " "
        out.append(f"{mark}{n:>{width}}| {lines[n - 1]}")
        previous = n
    return "\n".join(out)


def _ambiguous(rel: str, text: str, starts: list[int]) -> str:
    shown = _numbered(_file_lines(text), starts[:MAX_MATCHES_SHOWN], 1, 1)
    extra = len(starts) - MAX_MATCHES_SHOWN
    more = f"\n(and {extra} more)" if extra > 0 else ""
    at = ", ".join(str(n) for n in starts[:20])
    return (
        f"old_text matches {len(starts)} times in {rel} (at lines {at}); it must match exactly "
        "once. Include more of the surrounding lines in old_text so it is unique, or set "
        f"replace_all to true to replace every match.\n{shown}{more}"
    )


def _not_found(rel: str, text: str, old: str) -> str:
    lines = _file_lines(text)
    head = (
        f"old_text was not found in {rel}. It must match the file exactly, including "
        "whitespace, indentation and line breaks."
    )
    first = next((line.strip() for line in old.split("\n") if line.strip()), "")
    if not first:
        return head + " old_text has only whitespace; give the text to replace."
    same = [n for n, line in enumerate(lines, 1) if line.strip() == first]
    if same:
        n = same[0]
        return (
            f"{head} Its first line appears at line {n} with different indentation or "
            "whitespace, or the lines after it differ:\n"
            + _numbered(lines, [n], CONTEXT_LINES, old.count("\n") + CONTEXT_LINES)
            + "\nCopy the text exactly as shown (without the line numbers) and try again."
        )
    stripped = [line.strip() for line in lines]
    close = difflib.get_close_matches(first, stripped, n=MAX_MATCHES_SHOWN, cutoff=0.6)
    if close:
        numbers = sorted({stripped.index(c) + 1 for c in close})
        return (
            f"{head} The lines most like its first line ({first[:80]!r}) are marked >:\n"
            + _numbered(lines, numbers, CONTEXT_LINES, CONTEXT_LINES)
            + "\nRead the file and copy the text exactly (without the line numbers)."
        )
    return f"{head} No line resembles its first line ({first[:80]!r}); read the file first."


def _excerpt(after: str, line: int, new_text: str) -> str:
    span = min(new_text.count("\n"), 30)
    return _numbered(_file_lines(after), [line], CONTEXT_LINES, span + CONTEXT_LINES)
