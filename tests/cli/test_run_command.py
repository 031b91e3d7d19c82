"""`tiller run`, run as a real subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.cli_process import tiller

TOOLS = '''
from tiller import tool

@tool(effect="read")
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


def test_stdout_carries_only_the_answer_after_a_retried_stream(tmp_path: Path) -> None:
    out = tiller("run", "hello", "-m", "test:retried_stream", cwd=tmp_path, test_models=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "The real answer.\n"
    assert out.stderr.count("retry ") == 4
    assert "fragment" not in out.stderr


@pytest.mark.parametrize(
    ("script", "note", "code"),
    [
        (
            "refusal",
            "the model refused to answer: The request asks for instructions that could cause "
            "harm. (refusal)",
            3,
        ),
        ("length", "answer cut at the token limit (length)", 3),
    ],
)
def test_a_run_that_did_not_simply_finish_says_why(
    tmp_path: Path, script: str, note: str, code: int
) -> None:
    out = tiller("run", "hello", "-m", f"test:{script}", cwd=tmp_path, test_models=True)
    assert out.returncode == code, out.stderr
    assert f"stopped: {note}" in out.stderr


def test_help_documents_the_exit_statuses(tmp_path: Path) -> None:
    out = tiller("run", "--help", cwd=tmp_path)
    assert out.returncode == 0
    text = " ".join(out.stdout.split())
    for status in ("0 ", "1 ", "2 ", "3 ", "130 "):
        assert f"{status}" in text
    assert "Exit status" in text
    assert "token limit" in text


def test_a_dash_reads_the_prompt_from_stdin(tmp_path: Path) -> None:
    # Longer than one argument may be (MAX_ARG_STRLEN is 128 KiB on Linux).
    prompt = "word " * 40_000
    (tmp_path / "echo.json").write_text(json.dumps(["Read it."]))
    out = tiller("run", "-", "-m", "scripted:echo.json", "--json", cwd=tmp_path, stdin=prompt)
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    end = events[-1]
    assert end["messages"][0]["content"][0]["text"] == prompt.rstrip("\n")


def test_an_empty_stdin_prompt_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "echo.json").write_text(json.dumps(["Read it."]))
    out = tiller("run", "-", "-m", "scripted:echo.json", cwd=tmp_path, stdin="")
    assert out.returncode == 2
    assert "prompt is empty" in out.stderr


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("", "--model is empty: give PROVIDER:NAME"),
        ("   ", "--model is empty: give PROVIDER:NAME"),
        ("local:smolm2", "unknown local model 'smolm2'; did you mean local:smollm2?"),
        ("local:SmolLM", "did you mean local:smollm2?"),
    ],
)
def test_model_mistakes_are_one_line(tmp_path: Path, model: str, message: str) -> None:
    out = tiller("run", "hi", "--model", model, cwd=tmp_path, fake_providers=False)
    assert out.returncode == 2, out.stdout
    assert message in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_the_summary_says_which_model_had_no_price_instead_of_a_partial_cost(
    tmp_path: Path,
) -> None:
    out = tiller(
        "run", "hi", "-m", "test:unpriced", "--tools", "write_file", "--yes",
        cwd=tmp_path, test_models=True,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "cost unknown for model scripted:unpriced" in out.stderr
    assert "$" not in out.stderr


def test_a_prompt_too_large_for_the_window_is_a_plain_error_not_a_made_up_answer(
    tmp_path: Path,
) -> None:
    prompt = "word " * 2_000
    out = tiller(
        "run", "-", "-m", "test:small_window", cwd=tmp_path, stdin=prompt, test_models=True
    )
    assert out.returncode == 1
    assert "It fits." not in out.stdout
    assert "context_overflow: the newest message is about" in out.stderr
    assert "tokens of messages fit" in out.stderr


def test_a_prompt_that_fits_the_small_window_is_answered(tmp_path: Path) -> None:
    out = tiller("run", "hi", "-m", "test:small_window", cwd=tmp_path, test_models=True)
    assert out.returncode == 0, out.stderr
    assert "It fits." in out.stdout
