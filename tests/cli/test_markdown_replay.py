"""Replacing a streamed answer with its Markdown rendering."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from tiller.cli.markdown_replay import StreamedAnswer, rows_used


@pytest.mark.parametrize(
    ("text", "width", "rows"),
    [
        ("", 10, 1),
        ("hello", 10, 1),
        ("hello\n", 10, 2),
        ("a\nb\nc", 10, 3),
        ("x" * 10, 10, 1),  # exactly full: the cursor waits at the last column
        ("x" * 10 + "\n", 10, 2),
        ("x" * 11, 10, 2),
        ("x" * 25, 10, 3),
        ("x" * 9 + "世", 10, 2),  # a wide character that does not fit wraps whole
        ("世界世界世", 10, 1),  # five wide characters fill ten columns
        ("\n\n", 10, 3),
    ],
)
def test_rows_used(text: str, width: int, rows: int) -> None:
    assert rows_used(text, width) == rows


def terminal(height: int = 24) -> tuple[Console, io.StringIO]:
    file = io.StringIO()
    return Console(file=file, force_terminal=True, width=40, height=height), file


def test_replaces_the_streamed_rows_with_markdown() -> None:
    console, file = terminal()
    answer = StreamedAnswer()
    for piece in ("Some **bold**", " text.\n", "- a\n- b"):
        answer.add(piece)
    assert answer.replace_with_markdown(console) is True
    output = file.getvalue()
    # back over the 3 rows, blank each, back to the first
    assert output.startswith("\r\x1b[2A\x1b[2K\x1b[1B\x1b[2K\x1b[1B\x1b[2K\x1b[2A")
    assert "**" not in output
    assert "bold" in output
    assert "•" in output  # the list, rendered


def test_a_single_row_goes_back_to_its_start_only() -> None:
    console, file = terminal()
    answer = StreamedAnswer()
    answer.add("*one*")
    assert answer.replace_with_markdown(console) is True
    assert file.getvalue().startswith("\r\x1b[2K")


@pytest.mark.parametrize("case", ["disturbed", "blank", "tab", "too tall"])
def test_leaves_the_text_when_rewriting_is_not_safe(case: str) -> None:
    console, file = terminal(height=5)
    answer = StreamedAnswer()
    answer.add({"blank": "  \n", "tab": "a\tb", "too tall": "line\n" * 5}.get(case, "**hi**"))
    if case == "disturbed":
        answer.disturb()
    assert answer.replace_with_markdown(console) is False
    assert file.getvalue() == ""
