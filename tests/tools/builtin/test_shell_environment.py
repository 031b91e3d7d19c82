"""What a shell command's environment holds: an allow-list, never the whole of ours."""

from __future__ import annotations

import pytest

from tests.tools.builtin.test_sandbox import SECRETS, shell
from tiller.tools.builtin.shell_environment import RUN_MARKER, is_allowed_name, shell_environment
from tiller.tools.workspace import Workspace


@pytest.mark.parametrize("name", ["PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TERM", "TZ"])
def test_allowed_names(name: str) -> None:
    assert is_allowed_name(name)


@pytest.mark.parametrize(
    "name",
    [*SECRETS, "OPENAI_API_KEY", "HOME", "USER", "PYTHONPATH", "SSH_AUTH_SOCK", "http_proxy"],
)
def test_everything_else_is_left_out(name: str) -> None:
    assert not is_allowed_name(name)


def test_the_environment_is_built_from_the_allow_list() -> None:
    host = {
        "PATH": "/bin",
        "LANG": "C.UTF-8",
        "HOME": "/root",
        "PAGER": "less",
        "DATABASE_URL": "postgres://u:p@h/db",
        "WANTED": "yes",
        RUN_MARKER: "stale",
    }
    env = shell_environment(
        host, home="/work/ws", allow=["WANTED", "ABSENT"], extra={"MY_TOKEN": "given"}
    )
    assert env == {
        "PATH": "/bin",
        "LANG": "C.UTF-8",
        "HOME": "/work/ws",
        "PAGER": "cat",
        "GIT_PAGER": "cat",
        "GIT_TERMINAL_PROMPT": "0",
        "DEBIAN_FRONTEND": "noninteractive",
        "PYTHONUNBUFFERED": "1",
        "WANTED": "yes",  # named by the user
        "MY_TOKEN": "given",  # given by the user
    }


def test_a_missing_path_gets_the_usual_one() -> None:
    assert shell_environment({}, home="/ws")["PATH"].endswith("/usr/bin:/sbin:/bin")


async def test_a_command_sees_only_the_allowed_and_the_named(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("SETTING", "named")
    monkeypatch.setenv("OTHER_SETTING", "not named")
    result = await shell(ws, "env", env_allow=["SETTING"], env={"GIVEN": "value"})
    assert "SETTING=named" in result.text
    assert "GIVEN=value" in result.text
    assert "OTHER_SETTING" not in result.text
    for value in SECRETS.values():
        assert value not in result.text
