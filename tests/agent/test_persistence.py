"""Saving and loading a history: checked on the way in, atomic and tidy on the way out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tiller import tool
from tiller.agent import Agent
from tiller.errors import InvalidHistoryError
from tiller.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from tiller.models import Reply, ScriptedModel, call


def saved(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "history.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_an_unknown_newer_format_is_refused_with_what_to_do(tmp_path: Path) -> None:
    path = saved(tmp_path, {"format": 7, "messages": []})
    with pytest.raises(InvalidHistoryError, match="format 7 by a newer Tiller"):
        Agent(ScriptedModel()).load(path)


@pytest.mark.parametrize("version", ["1", None, 0, 1.5, True])
def test_a_strange_format_is_refused(tmp_path: Path, version: object) -> None:
    path = saved(tmp_path, {"format": version, "messages": []})
    with pytest.raises(InvalidHistoryError, match="unknown format"):
        Agent(ScriptedModel()).load(path)


def test_a_file_that_is_not_utf8_is_an_invalid_history(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    path.write_bytes(b'{"format": 1, "messages": ["caf\xe9"]}')
    with pytest.raises(InvalidHistoryError, match="not UTF-8"):
        Agent(ScriptedModel()).load(path)


def test_a_deeply_nested_file_is_an_invalid_history(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    path.write_text('{"format": 1, "messages": [' + "[" * 100_000 + "]" * 100_000 + "]}")
    agent = Agent(ScriptedModel())
    with pytest.raises(InvalidHistoryError, match="nested too deeply"):
        agent.load(path)
    assert agent.messages == []


def test_an_orphaned_tool_result_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    from tiller.codec import to_data

    orphan = ToolResultMessage("call_9", "read_file", [TextContent("secret")])
    path = saved(tmp_path, {"format": 1, "messages": to_data([UserMessage.of("hi"), orphan])})
    agent = Agent(ScriptedModel(), history=[UserMessage.of("keep me")])
    with pytest.raises(InvalidHistoryError, match="orphaned tool result"):
        agent.load(path)
    assert [m.text for m in agent.messages] == ["keep me"]


def test_a_result_answering_the_call_before_it_loads(tmp_path: Path) -> None:
    from tiller.codec import to_data

    messages = [
        UserMessage.of("hi"),
        AssistantMessage([ToolCall("c1", "t", {})], "tool_use"),
        ToolResultMessage("c1", "t", [TextContent("ok")]),
    ]
    path = saved(tmp_path, {"format": 1, "messages": to_data(messages)})
    agent = Agent(ScriptedModel())
    agent.load(path)
    assert len(agent.messages) == 3


def test_save_keeps_the_permissions_of_the_file_it_replaces(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    path.write_text("{}")
    path.chmod(0o640)
    Agent(ScriptedModel(), history=[UserMessage.of("hi")]).save(path)
    assert (path.stat().st_mode & 0o777) == 0o640
    assert json.loads(path.read_text())["messages"][0]["content"][0]["text"] == "hi"


def test_a_failed_save_names_the_target_not_a_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "missing-dir" / "history.json"
    with pytest.raises(FileNotFoundError) as caught:
        Agent(ScriptedModel()).save(target)
    assert caught.value.filename == str(target)
    assert str(target) in str(caught.value)
    assert ".tmp" not in str(caught.value)


def test_no_temporary_file_is_left_after_a_failed_write(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    agent = Agent(ScriptedModel(), history=[UserMessage.of("hi")])
    real_replace = os.replace

    def crash(*args: object) -> None:
        raise OSError(28, "No space left on device")

    os.replace = crash  # type: ignore[assignment]
    try:
        with pytest.raises(OSError, match="No space left"):
            agent.save(path)
    finally:
        os.replace = real_replace
    assert list(tmp_path.iterdir()) == []


def test_a_temporary_file_of_a_killed_save_is_cleaned_by_the_next_save(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    # A process that dies half-way through a save, leaving its temporary file behind.
    script = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from tiller.agent import persistence\n"
        "real = os.fsync\n"
        "def die(fd):\n"
        "    os._exit(9)\n"
        "os.fsync = die\n"
        "persistence.save_text_atomically(Path(sys.argv[1]), '{}')\n"
    )
    subprocess.run([sys.executable, "-c", script, str(path)], check=False)
    leftovers = [p.name for p in tmp_path.iterdir()]
    assert len(leftovers) == 1
    assert leftovers[0].startswith(".history.json.")
    Agent(ScriptedModel(), history=[UserMessage.of("hi")]).save(path)
    assert [p.name for p in tmp_path.iterdir()] == ["history.json"]


# ── histories that tools produce, whatever the bytes ────────────────────────


async def test_a_history_with_undecodable_file_names_saves_and_loads(tmp_path: Path) -> None:
    @tool
    def list_here() -> str:
        """List the files here."""
        return "\n".join(os.listdir(tmp_path / "files"))

    (tmp_path / "files").mkdir()
    (tmp_path / "files" / os.fsdecode(b"caf\xe9.txt")).write_text("x")
    model = ScriptedModel([Reply(calls=[call("list_here")]), Reply("one file")])
    agent = Agent(model, tools=[list_here])
    await agent.run("what is here?")
    result = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert result.text == "caf\\xe9.txt"
    path = tmp_path / "history.json"
    agent.save(path)
    again = Agent(ScriptedModel())
    again.load(path)
    assert again.to_json() == agent.to_json()


def test_any_string_round_trips_through_save_and_load(tmp_path: Path) -> None:
    odd = "lone \udce9 and \ud800 surrogates, é, 日本, \x00"
    agent = Agent(ScriptedModel(), history=[UserMessage.of(odd)])
    path = tmp_path / "history.json"
    agent.save(path)
    path.read_bytes().decode("utf-8")  # a valid UTF-8 file
    again = Agent(ScriptedModel())
    again.load(path)
    assert again.messages[0].text == odd
