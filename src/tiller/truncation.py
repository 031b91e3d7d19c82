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
    lines = text.split("\n")
    if len(lines) <= max_lines:
        return text
    head_count = max_lines // 2
    tail_count = max_lines - head_count
    omitted = len(lines) - head_count - tail_count
    tail = lines[len(lines) - tail_count :] if tail_count else []
    return "\n".join(lines[:head_count]) + truncation_marker(omitted) + "\n".join(tail)
