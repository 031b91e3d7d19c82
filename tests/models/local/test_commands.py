"""A command written out in the request is one to run, copied as written."""

from __future__ import annotations

import pytest

from tiller.models.local.commands import written_command
from tiller.models.local.intent import asks_for_change


@pytest.mark.parametrize(
    ("request_text", "command"),
    [
        (
            "make a backup by running cp config.toml config.toml.bak",
            "cp config.toml config.toml.bak",
        ),
        ("clean up with rm -rf src/__pycache__", "rm -rf src/__pycache__"),
        ("run pytest -q and tell me what fails", "pytest -q"),
        ("please run: grep -n TODO src/tally.py", "grep -n TODO src/tally.py"),
        ("run `make test` please", "make test"),
        ("tidy up using ruff format src/", "ruff format src/"),
        ("run ./build.sh --fast", "./build.sh --fast"),
    ],
)
def test_a_command_after_the_word_that_runs_it_is_written_out(
    request_text: str, command: str
) -> None:
    assert written_command(request_text) == command
    assert asks_for_change(request_text)


@pytest.mark.parametrize(
    "request_text",
    [
        "what does rm -rf do?",  # a question about a command
        "clean up with care",  # no program
        "replace foo with bar in notes.txt",  # after "with", only a program opens one
        "open notes.txt with vim",
        "run the tests",  # no command written out
    ],
)
def test_no_command_is_written_out(request_text: str) -> None:
    assert written_command(request_text) is None


@pytest.mark.parametrize(
    ("request_text", "command"),
    [
        ("run ls -la in the project root", "ls -la"),
        ("run tail -n 1 data/cities.csv real quick", "tail -n 1 data/cities.csv"),
        ("run pytest -q, then tell me", "pytest -q"),
    ],
)
def test_a_command_ends_where_its_clause_does(request_text: str, command: str) -> None:
    assert written_command(request_text) == command
