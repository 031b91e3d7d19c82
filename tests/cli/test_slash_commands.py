"""Parsing the slash commands of `tiller chat`."""

from __future__ import annotations

import pytest

from tiller.cli.slash_commands import NAMES, SlashCommand, message_text, parse_command


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("/steer  go left ", SlashCommand("steer", "go left")),
        ("/SAVE out.json", SlashCommand("save", "out.json")),
        ("  /cost", SlashCommand("cost", "")),
        ("/exit", SlashCommand("quit", "")),
        ("/?", SlashCommand("help", "")),
        ("/nonsense x", SlashCommand("nonsense", "x")),
        ("hello", None),
        ("//etc/hosts", None),
        ("a /steer", None),
    ],
)
def test_parse_command(line: str, command: SlashCommand | None) -> None:
    assert parse_command(line) == command


def test_a_double_slash_is_a_message_starting_with_a_slash() -> None:
    assert message_text("//etc/hosts ") == "/etc/hosts"
    assert message_text("  plain ") == "plain"


def test_every_command_is_offered_for_completion() -> None:
    assert NAMES == ("/steer", "/save", "/load", "/model", "/cost", "/help", "/quit")
