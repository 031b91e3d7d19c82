"""Head-and-tail truncation of long text with seed 001's fixed marker.

It lives at the bottom layer because both the context compaction (layer 4) and
tools that cap their output (layer 3, e.g. `shell`) use the same marker text.
"""

from __future__ import annotations


def truncation_marker(omitted: int) -> str:
    """The text put in place of `omitted` lines (seed 001; stable for prompt caches)."""
    return f"\n\n[... {omitted} lines truncated ...]\n\n"


def truncate_head_tail(text: str, max_lines: int) -> str:
    """`text` if it has at most `max_lines` lines, else its first and last lines around a marker."""
    # Counted and cut with str.count/find/rfind rather than split: histories hold many
    # long tool outputs, and splitting each into a list of lines is most of the cost.
    line_count = text.count("\n") + 1
    if line_count <= max_lines:
        return text
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
