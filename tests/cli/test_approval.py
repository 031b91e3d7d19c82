"""Consent before tools that change files or act externally, in `tiller run` and `tiller chat`.

Real CLI processes: piped (no terminal to ask on) and in a tmux terminal (asked).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.cli_process import tiller
from tests.cli.tmux_terminal import needs_tmux, terminal

ORIGINAL = "keep me\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text(ORIGINAL)
    return tmp_path


def _tool_ends(stdout: str) -> list[dict[str, object]]:
    events = [json.loads(line) for line in stdout.splitlines()]
    return [e for e in events if e["type"] == "tool_execution_end"]


def _run(project: Path, script: str, *options: str) -> tuple[int, str, str]:
    tools = "write_file" if script == "write_file" else "shell"
    out = tiller(
        "run", "show me notes.txt", "-m", f"test:{script}", "--tools", tools, *options,
        cwd=project, test_models=True,
    )  # fmt: skip
    return out.returncode, out.stdout, out.stderr


def test_without_a_terminal_a_write_is_denied_with_a_clear_error(project: Path) -> None:
    code, _, stderr = _run(project, "write_file")
    assert code == 0, stderr
    assert (project / "notes.txt").read_text() == ORIGINAL
    assert "✗ write_file" in stderr
    assert "not run: 'write_file' writes locally and needs the user's consent" in stderr
    assert "--yes" in stderr


def test_json_without_yes_denies_and_says_so_in_the_result(project: Path) -> None:
    code, stdout, _ = _run(project, "write_file", "--json")
    assert code == 0
    (end,) = _tool_ends(stdout)
    assert end["is_error"] is True
    text = end["result"]["content"][0]["text"]  # type: ignore[index]
    assert "tiller run --json asks no questions" in text
    assert "--yes" in text
    assert (project / "notes.txt").read_text() == ORIGINAL


def test_an_external_command_is_denied_too(project: Path) -> None:
    code, _, stderr = _run(project, "shell")
    assert code == 0
    assert "not run: 'shell' acts externally" in stderr
    assert not (project / "ran.txt").exists()


def test_yes_allows_the_call(project: Path) -> None:
    code, _, stderr = _run(project, "write_file", "--yes")
    assert code == 0, stderr
    assert (project / "notes.txt").read_text() == "new text\n"


def test_read_only_denies_without_asking(project: Path) -> None:
    code, _, stderr = _run(project, "write_file", "--read-only")
    assert code == 0
    assert "--read-only denies tools that change files" in stderr
    assert (project / "notes.txt").read_text() == ORIGINAL


def test_yes_and_read_only_together_are_a_usage_error(project: Path) -> None:
    code, _, stderr = _run(project, "write_file", "--yes", "--read-only")
    assert code == 2
    assert "--yes allows what --read-only denies" in stderr


def test_piped_chat_denies_without_yes(project: Path) -> None:
    (project / "chat.json").write_text(
        json.dumps(
            [
                {
                    "calls": [
                        {"name": "write_file", "arguments": {"path": "notes.txt", "content": "x"}}
                    ]
                },
                "Done.",
            ]
        )
    )
    out = tiller(
        "chat", "-m", "scripted:chat.json", "--tools", "write_file", cwd=project, stdin="go\n"
    )
    assert out.returncode == 0, out.stderr
    assert "tiller chat's input is not a terminal" in out.stderr
    assert (project / "notes.txt").read_text() == ORIGINAL


@needs_tmux
@pytest.mark.parametrize(("answer", "after"), [("n", ORIGINAL), ("y", "new text\n")])
def test_run_in_a_terminal_shows_the_diff_and_asks(project: Path, answer: str, after: str) -> None:
    args = ["run", "show me notes.txt", "-m", "test:write_file", "--tools", "write_file"]
    with terminal(args, project, test_models=True) as term:
        screen = term.wait_for("allow write_file (writes locally)? [y/N]")
        assert "-keep me" in screen
        assert "+new text" in screen
        assert (project / "notes.txt").read_text() == ORIGINAL  # nothing written yet
        term.type_line(answer)
        assert term.wait_for_exit() == 0
        screen = term.wait_for("Done.")
    assert (project / "notes.txt").read_text() == after
    if answer == "n":
        assert "the user did not allow this 'write_file' call" in screen


@needs_tmux
def test_chat_in_a_terminal_asks_before_a_command_runs(project: Path) -> None:
    (project / "chat.json").write_text(
        json.dumps(
            [
                {"calls": [{"name": "shell", "arguments": {"command": "echo ran > ran.txt"}}]},
                "Not run.",
                {"calls": [{"name": "shell", "arguments": {"command": "echo ran > ran.txt"}}]},
                "Ran it.",
            ]
        )
    )
    with terminal(["chat", "-m", "scripted:chat.json", "--tools", "shell"], project) as term:
        term.wait_for_prompt()
        term.type_line("run it")
        screen = term.wait_for("allow shell (acts externally)? [y/N]")
        assert "$ echo ran > ran.txt" in screen
        term.type_line("n")
        term.wait_for("Not run.")
        term.wait_for_prompt()
        assert not (project / "ran.txt").exists()
        term.type_line("run it now")
        term.wait_for(lambda s: s.count("allow shell (acts externally)? [y/N]") == 2)
        term.type_line("y")
        term.wait_for("Ran it.")
        term.wait_for_prompt()
        term.type_line("/quit")
        assert term.wait_for_exit() == 0
    assert (project / "ran.txt").read_text() == "ran\n"
