"""`LineMatcher`: which lines of a text a regular expression matches, in linear time.

The engine is RE2 (`google-re2`): the time a search takes grows with the text's
length, never exponentially with the pattern, so no pattern can stall a search.
Its syntax is Python's for everything but backreferences (`\\1`, `(?P=name)`),
lookaround (`(?=...)`, `(?!...)`, `(?<=...)`, `(?<!...)`), possessive and atomic
groups, and `\\Z` (RE2 spells it `\\z`; `$` works per line); `\\w`, `\\d`, `\\s`
and `\\b` are ASCII-only.

Each line is matched on its own, as if it were the whole text. To be fast, the
whole text is scanned at once in multi-line mode, which finds at least every
line that matches; each line found is then checked on its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import re2  # type: ignore[import-untyped]

from tiller.errors import ToolError

# Line breaks of str.splitlines() other than "\n" (after "\r\n" became "\n"): texts with
# them are matched line by line, as the whole-text scan would not see their lines' ends.
_OTHER_LINE_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
# Text anchors, and flags turned off inline (`(?-m)`), make a line's match depend on it
# being alone: such patterns are matched line by line too.
_WHOLE_TEXT_ONLY = re.compile(r"\\[Az]|\(\?[imsU]*-")

_UNSUPPORTED = (
    "The search engine is linear-time (RE2), so a pattern can never stall it; it does not "
    "support backreferences (\\1, (?P=name)), lookahead or lookbehind ((?=...), (?!...), "
    "(?<=...), (?<!...)), possessive or atomic groups, or \\Z (use $)."
)


class LineMatcher:
    """A pattern compiled for matching lines; `ignore_case` ignores letter case."""

    __slots__ = ("_line", "_text")

    def __init__(self, pattern: str, *, ignore_case: bool = False) -> None:
        self._line: Any = _compile(pattern, ignore_case)
        self._text: Any = None
        if not _WHOLE_TEXT_ONLY.search(pattern):
            self._text = _compile(f"(?m:{pattern})", ignore_case)

    def matches(self, line: str) -> bool:
        return self._line.search(line) is not None

    def matching_lines(self, text: str) -> Iterator[tuple[int, str]]:
        """(line number from 1, line) of each line of `text` (split as str.splitlines
        splits) that the pattern matches, in order."""
        plain = text.replace("\r\n", "\n") if "\r\n" in text else text
        if self._text is None or _OTHER_LINE_BREAKS.search(plain):
            for number, line in enumerate(text.splitlines(), 1):
                if self.matches(line):
                    yield number, line
            return
        data = plain.encode()
        if not data:
            return
        end = len(data) - 1 if data.endswith(b"\n") else len(data)  # no line after a last \n
        number, counted, position = 1, 0, 0
        while position <= end:
            found = self._text.search(data, position)
            if found is None or found.start() > end:
                return
            start = data.rfind(b"\n", 0, found.start()) + 1
            stop = data.find(b"\n", found.start())
            stop = len(data) if stop < 0 else stop
            number += data.count(b"\n", counted, start)
            counted = start
            line = data[start:stop].decode()
            if self.matches(line):
                yield number, line
            position = stop + 1


def _compile(pattern: str, ignore_case: bool) -> Any:
    options = re2.Options()
    options.case_sensitive = not ignore_case
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        said = exc.args[0].decode(errors="replace") if exc.args else ""
        try:
            re.compile(pattern)
        except re.error as python:
            raise ToolError(
                f"Invalid regular expression {pattern!r}: {python.msg} at position "
                f"{python.pos}. Fix it, or put a backslash before ( ) [ ] . * + ? to search "
                "for them literally."
            ) from None
        raise ToolError(
            f"Cannot search for {pattern!r}: {said}. {_UNSUPPORTED} Rewrite the pattern "
            "without them, or search for a simpler one and read the lines around the matches."
        ) from None
