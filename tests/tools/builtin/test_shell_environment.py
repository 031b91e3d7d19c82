"""What a shell command's environment keeps and drops."""

from __future__ import annotations

import pytest

from tiller.tools.builtin.shell_environment import RUN_MARKER, is_secret_name, scrubbed_environment


@pytest.mark.parametrize(
    "name",
    [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GITHUB_TOKEN",
        "HF_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_ACCESS_KEY_ID",
        "AWS_SESSION_TOKEN",
        "MY_SECRET",
        "DB_PASSWORD",
        "PGPASSWORD",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "STRIPE_KEY",
        "NPM_AUTH_TOKEN",
        "apikey",
        "Some_Api_Key",
        "SSH_PRIVATE_KEY",
    ],
)
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name", ["PATH", "HOME", "LANG", "TERM", "PYTHONPATH", "VIRTUAL_ENV", "KEYBOARD_LAYOUT", "USER"]
)
def test_ordinary_names(name: str) -> None:
    assert not is_secret_name(name)


def test_scrubbed_environment_keeps_the_rest_and_adds_quiet_defaults() -> None:
    env = scrubbed_environment(
        {"PATH": "/bin", "OPENAI_API_KEY": "sk-x", RUN_MARKER: "stale", "PAGER": "less"},
        {"MY_TOKEN": "given by the user"},
    )
    assert env["PATH"] == "/bin"
    assert "OPENAI_API_KEY" not in env
    assert RUN_MARKER not in env
    assert env["PAGER"] == "cat"
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    assert env["MY_TOKEN"] == "given by the user"  # extra variables are the user's choice
