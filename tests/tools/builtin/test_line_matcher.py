"""LineMatcher: the lines Python's re would match, found by a linear-time engine."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from tiller.errors import ToolError
from tiller.tools.builtin.line_matcher import LineMatcher

# Patterns both engines read alike (ASCII classes, no Python-only syntax).
PATTERNS = [
    "a",
    "ab",
    "^a",
    "a$",
    "^$",
    "",
    "b*",
    "^b+$",
    r"\ba",
    r"a\b",
    r"\Aa",
    "a|^b",
    "[^a]",
    r"\s",
    r"\S\s\S",
    "a.b",
    "(?s)a.b",
    "^",
    "$",
    "(?i)A",
    "(?-i:a)",
    "(a+)+$",
    "é",
]


def by_python(pattern: str, text: str, flags: int = 0) -> list[tuple[int, str]]:
    regex = re.compile(pattern, flags)
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if regex.search(line)]


@settings(max_examples=400, deadline=None)
@given(
    pattern=st.sampled_from(PATTERNS),
    text=st.text(alphabet="ab é\n\r\x0c\t", max_size=40),
    ignore_case=st.booleans(),
)
def test_the_same_lines_as_pythons_re_line_by_line(
    pattern: str, text: str, ignore_case: bool
) -> None:
    flags = re.ASCII | (re.IGNORECASE if ignore_case else 0)  # RE2's \w \b \s are ASCII
    found = list(LineMatcher(pattern, ignore_case=ignore_case).matching_lines(text))
    assert found == by_python(pattern, text, flags)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\r\nxa\r\n", [(1, "a"), (2, "xa")]),  # Windows line ends
        ("a\n\nb\na", [(1, "a"), (4, "a")]),  # no newline at the end
        ("x\x0ca\n", [(2, "a")]),  # a form feed ends a line, as str.splitlines() has it
        ("", []),
    ],
)
def test_line_ends_and_numbers(text: str, expected: list[tuple[int, str]]) -> None:
    assert list(LineMatcher("a$").matching_lines(text)) == expected


def test_a_catastrophic_pattern_for_backtracking_engines_just_runs() -> None:
    # Exponential in a backtracking engine (minutes for Python's re); linear here.
    text = ("a" * 30 + "!\n") * 100 + "a" * 30 + "\n"
    assert list(LineMatcher("(a+)+$").matching_lines(text)) == [(101, "a" * 30)]
    assert list(LineMatcher("(x+x+)+y").matching_lines("x" * 5000)) == []


@pytest.mark.parametrize(
    ("pattern", "said"),
    [
        (r"(a)\1", r"invalid escape sequence: \1"),
        ("(?P<q>a)(?P=q)", "invalid perl operator: (?P"),
        ("foo(?=bar)", "invalid perl operator: (?="),
        ("foo(?!bar)", "invalid perl operator: (?!"),
        ("(?<=x)y", "invalid perl operator: (?<="),
        ("(?<!x)y", "invalid perl operator: (?<!"),
        (r"end\Z", r"invalid escape sequence: \Z"),
    ],
)
def test_backreferences_and_lookaround_are_refused_saying_why(pattern: str, said: str) -> None:
    with pytest.raises(ToolError) as info:
        LineMatcher(pattern)
    message = str(info.value)
    assert message.startswith(f"Cannot search for {pattern!r}: {said}. The search engine is ")
    assert "linear-time" in message
    assert "does not support backreferences" in message
    assert "lookahead or lookbehind" in message


def test_an_invalid_pattern_says_where() -> None:
    with pytest.raises(ToolError, match=r"^Invalid regular expression '\[a': unterminated"):
        LineMatcher("[a")
