"""Head-and-tail truncation of long text around a fixed marker.

It lives at the bottom layer because both the context compaction (layer 4) and
tools that cap their output (layer 3, e.g. `shell`) use the same marker text.

Truncating is idempotent: a marker's own blank lines do not count as lines of
the text, so cutting an already cut text to the same size changes nothing, and
cutting it further counts the lines the earlier marker stood for too.
"""

from __future__ import annotations

import re

_MARKER = re.compile(r"\n\n\[\.\.\. (\d+) lines truncated \.\.\.\]\n\n")
# What a marker adds to a text's line count beyond the line break it replaces.
_MARKER_EXTRA_LINES = 3


def truncation_marker(omitted: int) -> str:
    """The text put in place of `omitted` lines (a fixed text, so prompt caches stay valid)."""
    return f"\n\n[... {omitted} lines truncated ...]\n\n"


def truncate_head_tail(text: str, max_lines: int) -> str:
    """`text` if it has at most `max_lines` lines, else its first and last lines around a marker."""
    # Counted and cut with str.count/find/rfind rather than split: histories hold many
    # long tool outputs, and splitting each into a list of lines is most of the cost.
    line_count = text.count("\n") + 1
    if line_count <= max_lines:
        return text
    if "lines truncated ...]" in text and _MARKER.search(text):
        return _truncate_truncated(text, max_lines)
    head_count = max_lines // 2
    tail_count = max_lines - head_count
    head_end = -1
    for _ in range(head_count):
        head_end = text.find("\n", head_end + 1)
    tail_start = len(text)
    for _ in range(tail_count):
        tail_start = text.rfind("\n", 0, tail_start)
    head = text[:head_end] if head_count else ""
    tail = text[tail_start + 1 :] if tail_count else ""
    return head + truncation_marker(line_count - max_lines) + tail


def _truncate_truncated(text: str, max_lines: int) -> str:
    """Truncate a text that already holds markers, counting each as the lines it replaced."""
    pieces = _MARKER.split(text)  # text, count, text, count, ..., text
    items: list[str | int] = []  # lines, and the markers between them as their counts
    for i, piece in enumerate(pieces):
        if i == 0 and not piece:  # the text starts with a marker: no head line before it
            continue
        items.extend(piece.split("\n") if i % 2 == 0 else [int(piece)])
    lines = sum(1 for item in items if isinstance(item, str))
    if lines <= max_lines:
        return text
    head_count = max_lines // 2
    head = _first_lines(items, head_count)
    tail = _first_lines(items[::-1], max_lines - head_count)[::-1]
    cut = sum(i if isinstance(i, int) else 1 for i in items)
    cut -= sum(i if isinstance(i, int) else 1 for i in (*head, *tail))
    return _render(head) + truncation_marker(cut) + _render(tail)


def _first_lines(items: list[str | int], count: int) -> list[str | int]:
    """The items up to and including the `count`-th line."""
    taken: list[str | int] = []
    for item in items:
        if count <= 0:
            break
        taken.append(item)
        if isinstance(item, str):
            count -= 1
    return taken


def _render(items: list[str | int]) -> str:
    out: list[str] = []
    previous_was_line = False
    for item in items:
        if isinstance(item, int):
            out.append(truncation_marker(item))
            previous_was_line = False
        else:
            out.append("\n" + item if previous_was_line else item)
            previous_was_line = True
    return "".join(out)
