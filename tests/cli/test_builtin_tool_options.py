"""`--tools NAME,...` and `--workspace DIR` on `tiller run` and `tiller chat`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.cli_process import tiller
from tiller.cli.agent_setup import AgentSetup
from tiller.errors import ConfigError


def script(directory: Path, *replies: dict[str, Any]) -> None:
    (directory / "script.json").write_text(json.dumps(list(replies)))


def tool_results(stdout: str) -> list[tuple[str, bool, str]]:
    events = [json.loads(line) for line in stdout.splitlines()]
    return [
        (e["tool_name"], e["is_error"], e["result"]["content"][0]["text"])
        for e in events
        if e["type"] == "tool_execution_end"
    ]


def test_run_edits_and_runs_a_command_in_the_workspace(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "greet.sh").write_text('echo "hello, world"\n')
    script(
        tmp_path,
        {
            "calls": [
                {
                    "name": "edit_file",
                    "arguments": {"path": "greet.sh", "old_text": "world", "new_text": "tiller"},
                }
            ]
        },
        {"calls": [{"name": "shell", "arguments": {"command": "sh greet.sh; pwd"}}]},
        {"text": "Done."},
    )
    out = tiller(
        "run", "greet tiller", "-m", "scripted:script.json", "--tools", "edit_file,shell",
        "--workspace", "project", "--json", "--yes", cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    (edit, shell) = tool_results(out.stdout)
    assert edit[:2] == ("edit_file", False)
    assert shell == ("shell", False, f"hello, tiller\n{project}\n[exit code 0]")
    assert (project / "greet.sh").read_text() == 'echo "hello, tiller"\n'


def test_the_workspace_defaults_to_the_current_directory_and_confines(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("outside\n")
    here = tmp_path / "here"
    here.mkdir()
    (here / "notes.txt").write_text("inside\n")
    script(
        here,
        {"calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        {"calls": [{"name": "read_file", "arguments": {"path": "../secret.txt"}}]},
        {"text": "ok"},
    )
    out = tiller(
        "run", "x", "-m", "scripted:script.json", "--tools", "read_file", "--json", cwd=here
    )
    assert out.returncode == 0, out.stderr
    (inside, outside) = tool_results(out.stdout)
    assert inside == ("read_file", False, "inside\n")
    assert outside[1] is True
    assert "leaves the workspace" in outside[2]


def test_bad_tool_names_and_workspaces_are_one_line_errors(tmp_path: Path) -> None:
    script(tmp_path, {"text": "unused"})
    out = tiller("run", "x", "-m", "scripted:script.json", "--tools", "read_file,rm", cwd=tmp_path)
    assert out.returncode != 0
    assert "unknown built-in tool 'rm'; the built-in tools are: read_file, write_file" in out.stderr
    assert "Traceback" not in out.stderr
    out = tiller(
        "run", "x", "-m", "scripted:script.json", "--tools", "shell", "--workspace", "nope",
        cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode != 0
    assert "workspace 'nope' is not a directory" in out.stderr
    out = tiller("run", "x", "-m", "scripted:script.json", "--workspace", ".", cwd=tmp_path)
    assert out.returncode != 0
    assert "--workspace is for built-in tools: add --tools" in out.stderr


def test_chat_takes_the_same_options() -> None:
    out = tiller("chat", "--help", cwd=Path.cwd(), env={"COLUMNS": "200"})
    assert "--tools" in out.stdout
    assert "--workspace" in out.stdout


def test_setup_combines_module_tools_and_builtins(tmp_path: Path) -> None:
    setup = AgentSetup.from_options(
        [], None, None, builtin_names=["read_file, list_files", "shell"], workspace=str(tmp_path)
    )
    assert [t.name for t in setup.tools] == ["read_file", "list_files", "shell"]
    (tmp_path / "mytools.py").write_text("def shell() -> str:\n    return ''\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        with pytest.raises(ConfigError, match="--tools shell: a --tool of that name"):
            AgentSetup.from_options(["mytools:shell"], None, None, builtin_names=["shell"])


def _cat_outside(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "secret.txt").write_text("the outside secret\n")
    script(
        tmp_path,
        {"calls": [{"name": "shell", "arguments": {"command": "cat ../secret.txt"}}]},
        {"text": "Done."},
    )
    return project


def test_the_shell_of_the_command_line_runs_in_the_sandbox(tmp_path: Path) -> None:
    _cat_outside(tmp_path)
    out = tiller(
        "run", "look", "-m", "scripted:script.json", "--tools", "shell",
        "--workspace", "project", "--json", "--yes", cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    ((_, _, text),) = tool_results(out.stdout)
    assert "the outside secret" not in text


def test_unsandboxed_shell_is_an_explicit_choice(tmp_path: Path) -> None:
    _cat_outside(tmp_path)
    out = tiller(
        "run", "look", "-m", "scripted:script.json", "--tools", "shell", "--unsandboxed-shell",
        "--workspace", "project", "--json", "--yes", cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    ((_, _, text),) = tool_results(out.stdout)
    assert "the outside secret" in text


def test_without_bubblewrap_the_command_line_says_how_to_opt_out(tmp_path: Path) -> None:
    import sys

    _cat_outside(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "sh").symlink_to("/bin/sh")
    out = tiller(
        "run", "look", "-m", "scripted:script.json", "--tools", "shell",
        "--workspace", "project", "--yes", cwd=tmp_path,
        env={"PATH": f"{bin_dir}:{Path(sys.executable).parent}"},
    )  # fmt: skip
    assert out.returncode == 2
    assert "--unsandboxed-shell" in out.stderr
    assert "Traceback" not in out.stderr
