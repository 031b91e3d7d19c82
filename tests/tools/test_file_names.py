"""File names as a model sees them: printable, no surrogates, and read back to the same name."""

from __future__ import annotations

import os

from hypothesis import given, strategies as st

from tiller.tools.file_names import name_from_shown, quoted, shown_name

POSIX_NAMES = st.binary(min_size=1, max_size=40).filter(lambda b: b"/" not in b and b"\0" not in b)
# Few letters, so backslashes next to x, u, U and hex digits (and surrogates) come up often.
TRICKY = st.text(
    alphabet=st.sampled_from(["\\", "x", "u", "U", "0", "e", "9", "a", "\udce9", "\n", "\xa0"]),
    max_size=30,
)


def test_bytes_that_are_not_utf8_are_shown_as_hex_escapes() -> None:
    name = os.fsdecode(b"caf\xe9.txt")
    assert name == "caf\udce9.txt"
    assert shown_name(name) == "caf\\xe9.txt"
    assert name_from_shown("caf\\xe9.txt") == name
    assert quoted(name) == "'caf\\xe9.txt'"


def test_readable_names_are_shown_as_they_are() -> None:
    for name in ("café.txt", "日本語.md", "with space", "a'quote", "notes\\draft.txt"):
        assert shown_name(name) == name
        assert name_from_shown(name) == name


def test_invisible_characters_are_escaped() -> None:
    assert shown_name("a\nb\tc\x7f") == "a\\x0ab\\x09c\\x7f"
    assert shown_name("nb\xa0sp\u2028") == "nb\\u00a0sp\\u2028"
    assert name_from_shown("a\\x0ab\\u00a0") == "a\nb\xa0"


def test_a_backslash_that_would_read_as_an_escape_is_doubled() -> None:
    assert shown_name("a\\x41") == "a\\\\x41"
    assert name_from_shown("a\\\\x41") == "a\\x41"
    assert shown_name("a\\\\b") == "a\\\\\\b"
    # before a byte shown as an escape, too
    assert shown_name("\\\udce9") == "\\\\\\xe9"


def test_escapes_that_name_no_character_are_kept_literally() -> None:
    assert name_from_shown("\\U00110000") == "\\U00110000"
    assert name_from_shown("\\xg1 \\u12") == "\\xg1 \\u12"


@given(POSIX_NAMES)
def test_every_posix_name_is_shown_printable_and_read_back(raw: bytes) -> None:
    name = os.fsdecode(raw)
    shown = shown_name(name)
    assert shown.isprintable()
    shown.encode("utf-8")  # no lone surrogates
    assert name_from_shown(shown) == name
    assert os.fsencode(name_from_shown(shown)) == raw


@given(TRICKY)
def test_backslashes_and_escapes_round_trip(name: str) -> None:
    shown = shown_name(name)
    shown.encode("utf-8")
    assert name_from_shown(shown) == name
