"""`tiller run`, run as a real subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.cli_process import tiller

TOOLS = '''
from tiller import tool

@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b
'''


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "mytools.py").write_text(TOOLS)
    (tmp_path / "script.json").write_text(
        json.dumps(
            [
                {"calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
                {"text": "The sum is 5.", "chunk_size": 3},
            ]
        )
    )
    return tmp_path


def test_run_streams_the_answer_and_shows_tools(workdir: Path) -> None:
    out = tiller(
        "run", "what is 2+3", "-m", "scripted:script.json", "--tool", "mytools:add", cwd=workdir
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "The sum is 5."
    assert "add" in out.stderr
    assert '{"a": 2, "b": 3}' in out.stderr
    assert "2 turns" in out.stderr


def test_json_prints_one_event_per_line(workdir: Path) -> None:
    out = tiller(
        "run", "x", "-m", "scripted:script.json", "--tool", "mytools:add", "--json", cwd=workdir
    )
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    assert events[0]["type"] == "agent_start"
    assert events[-1]["type"] == "agent_end"
    assert events[-1]["stats"]["turns"] == 2
    ends = [e for e in events if e["type"] == "tool_execution_end"]
    assert ends[0]["result"]["content"][0]["text"] == "5"


def test_model_from_the_environment(workdir: Path) -> None:
    out = tiller(
        "run",
        "x",
        "--tool",
        "mytools:add",
        cwd=workdir,
        env={"TILLER_MODEL": "scripted:script.json"},
    )
    assert out.returncode == 0, out.stderr


def test_max_turns(workdir: Path) -> None:
    out = tiller(
        "run",
        "x",
        "-m",
        "scripted:script.json",
        "--tool",
        "mytools:add",
        "--max-turns",
        "1",
        "--json",
        cwd=workdir,
    )
    assert out.returncode == 0
    end = json.loads(out.stdout.splitlines()[-1])
    assert end["stats"]["stopped_by"] == "max_turns"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "x", "-m", "warp:9"], "unknown model provider 'warp'"),
        (["run", "x", "-m", "scripted:missing.json"], "cannot read the model script"),
        (
            ["run", "x", "-m", "scripted:script.json", "--tool", "nomodule:f"],
            "cannot import module",
        ),
        (["run", "x", "-m", "scripted:script.json", "--tool", "mytools:nope"], "has no attribute"),
        (
            ["run", "x", "-m", "scripted:script.json", "--tool", "justaname"],
            "expected MODULE:FUNCTION",
        ),
        (["run", "", "-m", "scripted:script.json"], "prompt is empty"),
    ],
)
def test_errors_a_person_can_fix_are_one_clear_line(
    workdir: Path, args: list[str], message: str
) -> None:
    out = tiller(*args, cwd=workdir)
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_failed_run_exits_non_zero_with_the_reason(workdir: Path) -> None:
    (workdir / "fail.json").write_text(
        json.dumps([{"fail": {"kind": "auth", "message": "bad key"}}])
    )
    out = tiller("run", "x", "-m", "scripted:fail.json", cwd=workdir)
    assert out.returncode == 1
    assert "auth: bad key" in out.stderr


@pytest.mark.parametrize(
    ("env", "answer"),
    [
        ({}, "answered by local:smollm2"),
        ({"OPENAI_API_KEY": "sk-o"}, "answered by openai:gpt-4.1"),
        ({"ANTHROPIC_API_KEY": "sk-a", "OPENAI_API_KEY": "sk-o"}, "answered by anthropic:"),
        ({"TILLER_MODEL": "openai:gpt-5", "ANTHROPIC_API_KEY": "sk-a"}, "by openai:gpt-5"),
    ],
)
def test_without_model_the_default_model_runs(
    workdir: Path, env: dict[str, str], answer: str
) -> None:
    out = tiller("run", "hello", cwd=workdir, env=env, fake_providers=True)
    assert out.returncode == 0, out.stderr
    assert answer in out.stdout


def test_model_option_wins_over_the_default(workdir: Path) -> None:
    out = tiller(
        "run",
        "hello",
        "-m",
        "local:other",
        cwd=workdir,
        env={"TILLER_MODEL": "openai:gpt-5", "ANTHROPIC_API_KEY": "sk-a"},
        fake_providers=True,
    )
    assert out.stdout.strip() == "answered by local:other"


def test_output_that_is_not_a_terminal_is_plain_text(workdir: Path) -> None:
    (workdir / "md.json").write_text(json.dumps(["# Title\n\nSome **bold** text."]))
    out = tiller("run", "x", "-m", "scripted:md.json", cwd=workdir)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "# Title\n\nSome **bold** text.\n"
    assert "\x1b" not in out.stdout
    assert "\x1b" not in out.stderr


def test_debug_shows_the_traceback(workdir: Path) -> None:
    out = tiller("run", "x", "-m", "warp:9", "--debug", cwd=workdir)
    assert out.returncode != 0
    assert "Traceback" in out.stderr
