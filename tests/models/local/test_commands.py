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
        ("how many lines has the csv got? use wc -l data/cities.csv", "wc -l data/cities.csv"),
        # What a command prints, with a go-ahead to run it.
        (
            "What does python3 src/tally.py notes.txt print? Give it a go",
            "python3 src/tally.py notes.txt",
        ),
        ("what would `ls -la` show? try it", "ls -la"),
        # After a colon, in a request to run something.
        (
            "Run the tally script on the README: python3 src/tally.py README.md",
            "python3 src/tally.py README.md",
        ),
        (
            "Tests: python3 -m unittest discover -s src - go ahead and run that",
            "python3 -m unittest discover -s src",
        ),
        # After "do", a program's name.
        ("do a quick ls -la data for me", "ls -la data"),
        ("can you do a git status", "git status"),
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
        "Don't run anything - just tell me what's in the src folder",  # a dash is no flag
        "Please don't run pytest, just tell me which test files exist",  # refused
        "no need to run pytest -q, I only want the file list",
        "without running ls -la, what would it show?",
        "what does rm -rf build print?",  # no go-ahead
        "What does src/tally.py print if you run it without a file name?",  # only supposed
        "I use python3 for everything, what's in src/?",  # what the speaker uses
        "Note: python3 is required",  # after a colon, but nothing asked to run
        "I do use git a lot, what's in src/?",
        "do make sure the tests pass",  # a word that names a program, with no flag
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


def test_a_command_asked_for_after_a_refusal_of_something_else_is_written_out() -> None:
    assert written_command("don't forget to run pytest -q") == "pytest -q"
