"""truncate_head_tail: head and tail lines around a fixed marker."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from tiller.context.token_estimates import estimate_tokens
from tiller.truncation import truncate_head_tail, truncation_marker


def reference_truncation(text: str, max_lines: int) -> str:
    """The definition, written plainly: split into lines, keep head and tail."""
    lines = text.split("\n")
    if len(lines) <= max_lines:
        return text
    head_count = max_lines // 2
    tail_count = max_lines - head_count
    omitted = len(lines) - head_count - tail_count
    tail = lines[len(lines) - tail_count :] if tail_count else []
    return "\n".join(lines[:head_count]) + truncation_marker(omitted) + "\n".join(tail)


@settings(max_examples=2000)
@given(st.text(alphabet="ab\n", max_size=80), st.integers(0, 14))
def test_the_same_as_the_reference_on_any_text(text: str, max_lines: int) -> None:
    assert truncate_head_tail(text, max_lines) == reference_truncation(text, max_lines)


def test_a_long_output_keeps_its_first_and_last_lines() -> None:
    text = "\n".join(f"line {i}" for i in range(500))
    cut = truncate_head_tail(text, 50)
    assert cut.startswith("line 0\n")
    assert cut.endswith("\nline 499")
    assert "\n\n[... 450 lines truncated ...]\n\n" in cut
    assert cut.count("\n") == 24 + 4 + 24


@given(st.text(max_size=200))
def test_the_token_estimate_is_a_quarter_of_the_utf8_bytes(text: str) -> None:
    assert estimate_tokens(text) == (len(text.encode("utf-8")) + 3) // 4


# ── idempotence: a marker's own lines are not lines of the text ─────────────


def numbered(n: int) -> str:
    return "\n".join(f"line {i}" for i in range(n))


@pytest.mark.parametrize("max_lines", [1, 2, 3, 10, 50])
@pytest.mark.parametrize("lines", [5, 51, 53, 360, 1000])
def test_truncating_a_truncated_text_again_changes_nothing(lines: int, max_lines: int) -> None:
    once = truncate_head_tail(numbered(lines), max_lines)
    assert truncate_head_tail(once, max_lines) == once


@pytest.mark.parametrize(("first", "second"), [(50, 20), (50, 3), (20, 2), (11, 10)])
def test_cutting_further_counts_every_line_cut_so_far(first: int, second: int) -> None:
    text = numbered(400)
    again = truncate_head_tail(truncate_head_tail(text, first), second)
    assert again == truncate_head_tail(text, second)
    assert f"[... {400 - second} lines truncated ...]" in again
