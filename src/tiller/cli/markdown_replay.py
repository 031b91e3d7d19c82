"""Replacing an answer streamed as plain text with its Markdown rendering, in place.

The answer streams to the terminal as it is generated; once it is complete, the
cursor goes back to where it began and Rich renders it as Markdown. That is only
done when it is safe: the text began at the start of a line, nothing else was
written among it, and it still fits on the screen (rows that scrolled away cannot
be rewritten, so a long answer stays as it streamed).
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console
from rich.markdown import Markdown


def rows_used(text: str, width: int) -> int:
    """Terminal rows `text` spans when written from column 0 of a `width`-column terminal.

    Counts the row the cursor ends on, as terminals wrap: a character that does not fit
    goes to the next row, and a line of exactly `width` cells does not add an empty row.
    """
    rows, column = 1, 0
    for char in text:
        if char == "\n":
            rows += 1
            column = 0
            continue
        cells = cell_len(char)
        if column + cells > width:
            rows += 1
            column = 0
        column += cells
    return rows


class StreamedAnswer:
    """The text of one answer as it streams to a terminal."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._intact = True

    @property
    def text(self) -> str:
        return "".join(self._parts)

    def add(self, text: str) -> None:
        self._parts.append(text)

    def disturb(self) -> None:
        """Something else was written among the answer: leave it as it is."""
        self._intact = False

    def erase(self, console: Console) -> bool:
        """Blank the streamed text and put the cursor where it began; False when that is
        not safe (then the text stays)."""
        text = self.text
        if not text:
            return True
        if not self._intact:
            return False
        width, height = console.size
        rows = rows_used(text, width)
        if rows >= height:
            return False
        console.file.write(_erase_rows_above(rows))
        console.file.flush()
        return True

    def replace_with_markdown(self, console: Console) -> bool:
        """Rewrite the streamed text as Markdown on `console`; False when that is not safe."""
        text = self.text
        if not self._intact or not text.strip() or "\t" in text:
            return False
        if not self.erase(console):
            return False
        console.print(Markdown(text.strip()))
        return True


def _erase_rows_above(rows: int) -> str:
    """Escape codes that blank the `rows` rows ending at the cursor's and go to the first.

    Row by row rather than "erase below": some terminals (tmux's `scroll-on-clear`) would
    push a screen cleared from its top-left corner into the scrollback instead.
    """
    up = f"\x1b[{rows - 1}A" if rows > 1 else ""
    return "\r" + up + "\x1b[1B".join(["\x1b[2K"] * rows) + up
