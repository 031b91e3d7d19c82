"""HeadTailCapture gives exactly truncate_head_tail's text, in bounded memory."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from tiller.tools.builtin.output_capture import HeadTailCapture
from tiller.truncation import truncate_head_tail


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.text(alphabet="ab \r", max_size=6), max_size=40),
    max_lines=st.integers(min_value=0, max_value=12),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
)
def test_same_text_as_truncate_head_tail_however_it_is_chunked(
    lines: list[str], max_lines: int, cuts: list[int]
) -> None:
    whole = "\n".join(lines)
    capture = HeadTailCapture(max_lines, max_line_chars=100)
    previous = 0
    for cut in sorted(c for c in cuts if c <= len(whole)):
        capture.feed(whole[previous:cut])
        previous = cut
    capture.feed(whole[previous:])
    assert capture.text() == truncate_head_tail(whole, max_lines)
    assert capture.truncated == (len(whole.split("\n")) > max_lines)


def test_a_flood_keeps_only_head_and_tail() -> None:
    capture = HeadTailCapture(4)
    for i in range(100_000):
        capture.feed(f"{i}\n")
    assert capture.text() == "0\n1\n\n[... 99997 lines truncated ...]\n\n99999\n"
    assert capture.lines_seen == 100_000


def test_long_lines_are_clipped_even_when_fed_in_pieces() -> None:
    capture = HeadTailCapture(10, max_line_chars=5)
    for _ in range(1000):
        capture.feed("abc")
    capture.feed("\nshort\nabcdefgh")
    assert capture.text() == (
        "abcab… [2995 more characters on this line]\nshort\nabcde… [3 more characters on this line]"
    )
