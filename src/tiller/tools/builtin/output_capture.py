"""Keeping the head and tail of a stream of text in bounded memory.

`HeadTailCapture` gives the same text as `truncate_head_tail(whole_output,
max_lines)` (the fixed truncation marker) without ever holding the whole output: a
command that floods gigabytes costs at most `max_lines` lines of
`max_line_chars` characters. Lines longer than that are clipped with a note.
"""

from __future__ import annotations

from collections import deque

from tiller.truncation import truncation_marker


class HeadTailCapture:
    __slots__ = (
        "_head",
        "_head_count",
        "_line_overflow",
        "_max_line_chars",
        "_omitted",
        "_partial",
        "_tail",
        "lines_seen",
    )

    def __init__(self, max_lines: int, max_line_chars: int = 2000) -> None:
        self._head_count = max_lines // 2
        self._head: list[str] = []
        self._tail: deque[str] = deque(maxlen=max_lines - self._head_count)
        self._omitted = 0
        self._max_line_chars = max_line_chars
        self._partial: list[str] = []  # pieces of the line not yet ended by "\n"
        self._line_overflow = 0  # characters of that line beyond the cap
        self.lines_seen = 0  # completed lines

    @property
    def truncated(self) -> bool:
        """Whether `text()` leaves lines out (the line in progress counts as one)."""
        return self.lines_seen + 1 > self._head_count + (self._tail.maxlen or 0)

    def feed(self, text: str) -> None:
        if not text:
            return
        pieces = text.split("\n")
        if len(pieces) == 1:
            self._extend_partial(text)
            return
        self._extend_partial(pieces[0])
        self._add([self._take_partial(), *map(self._clip, pieces[1:-1])])
        self._extend_partial(pieces[-1])

    def text(self) -> str:
        """Everything seen so far (the line in progress included), head and tail kept."""
        last = self._clip_joined("".join(self._partial), self._line_overflow)
        head, tail, omitted = self._head, list(self._tail), self._omitted
        if len(head) < self._head_count:
            head = [*head, last]
        elif self._tail.maxlen == 0:
            omitted += 1
        else:
            if len(tail) == self._tail.maxlen:
                tail.pop(0)
                omitted += 1
            tail.append(last)
        if omitted == 0:
            return "\n".join([*head, *tail])
        return "\n".join(head) + truncation_marker(omitted) + "\n".join(tail)

    def _add(self, lines: list[str]) -> None:
        self.lines_seen += len(lines)
        room = self._head_count - len(self._head)
        if room > 0:
            self._head.extend(lines[:room])
            lines = lines[room:]
        if not lines:
            return
        maxlen = self._tail.maxlen or 0
        evicted = max(0, len(self._tail) + len(lines) - maxlen)
        self._omitted += evicted
        self._tail.extend(lines)

    def _extend_partial(self, piece: str) -> None:
        if not piece:
            return
        held = sum(len(p) for p in self._partial)
        room = self._max_line_chars - held
        if room >= len(piece):
            self._partial.append(piece)
            return
        if room > 0:
            self._partial.append(piece[:room])
        self._line_overflow += len(piece) - max(room, 0)

    def _take_partial(self) -> str:
        line = self._clip_joined("".join(self._partial), self._line_overflow)
        self._partial = []
        self._line_overflow = 0
        return line

    def _clip(self, line: str) -> str:
        if len(line) <= self._max_line_chars:
            return line
        return self._clip_joined(line[: self._max_line_chars], len(line) - self._max_line_chars)

    @staticmethod
    def _clip_joined(kept: str, overflow: int) -> str:
        return f"{kept}… [{overflow} more characters on this line]" if overflow else kept
